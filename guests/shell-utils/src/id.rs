//! `id`: print user and group ids.

use super::stream::complain;
use crate::stream::out;
use shell_base::Context;
use shell_base::args::{bad_usage, flags};

/// `id`'s long options, as the letters they stand for.
const LONG: &[(&str, char)] = &[
    ("user", 'u'),
    ("group", 'g'),
    ("groups", 'G'),
    ("name", 'n'),
];

/// `id [-u|-g|-G] [-n] [USER]`: the workspace's one user (uid and gid 1000, named by
/// `$USER`).
pub async fn id(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let user = sh.var("USER").unwrap_or("user").to_string();
    let (flags, operands) = match flags(argv, "ugGn", LONG) {
        Ok(o) => o,
        Err(e) => return bad_usage(sh, "id", e, 1).await,
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
