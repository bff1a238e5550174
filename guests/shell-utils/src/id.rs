//! `id`: print user and group ids.

use super::stream::{complain, split_flags};
use crate::stream::out;
use shell_base::Context;

/// `id [-u|-g|-G] [-n] [USER]`: the workspace's one user (uid and gid 1000, named by
/// `$USER`).
pub async fn id(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let user = sh.var("USER").unwrap_or("user").to_string();
    let (flags, operands) = match split_flags(
        argv,
        &[
            ("--user", 'u'),
            ("--group", 'g'),
            ("--groups", 'G'),
            ("--name", 'n'),
        ],
    ) {
        Ok(split) => split,
        Err(option) => return crate::stream::bad_option(sh, "id", &option, 1).await,
    };
    if let Some(other) = operands.first()
        && *other != user
    {
        return complain(sh, &format!("id: '{other}': no such user")).await;
    }
    let names = flags.contains('n');
    let line = if flags.contains('u') || flags.contains('g') || flags.contains('G') {
        if names { user } else { "1000".to_string() }
    } else {
        format!("uid=1000({user}) gid=1000({user}) groups=1000({user})")
    };
    out(sh, &format!("{line}\n")).await
}

#[cfg(all(test, unix))]
mod tests {

    use crate::testing::stdout_of;

    #[test]
    fn the_user_by_name() {
        assert_eq!(stdout_of(&["id", "-un"], ""), "user\n");
    }
}
