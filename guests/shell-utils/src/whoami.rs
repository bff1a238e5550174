//! `whoami`: print the user name.

use crate::stream::out;
use shell_base::Context;

/// `whoami`.
pub async fn whoami(sh: &mut dyn Context, _argv: &[String]) -> i32 {
    let user = sh.var("USER").unwrap_or("user").to_string();
    out(sh, &format!("{user}\n")).await
}

#[cfg(all(test, unix))]
mod tests {

    use crate::testing::stdout_of;

    #[test]
    fn the_user_variable() {
        assert_eq!(stdout_of(&["whoami"], ""), "user\n");
    }
}
