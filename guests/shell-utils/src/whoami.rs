//! `whoami` and `logname`: print the user name.

use crate::stream::out;
use shell_base::Context;
use shell_base::args::{bad_usage, operands, usage};

/// `whoami`, and `logname` (the workspace's one user is also who logged in; GNU's says "no
/// login name" where no terminal has a login record).
pub async fn whoami(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let cmd = argv[0].as_str();
    let operands = match operands(argv) {
        Ok(o) => o,
        Err(e) => return bad_usage(sh, cmd, e, 1).await,
    };
    if let Some(extra) = operands.first() {
        return bad_usage(sh, cmd, usage(format!("extra operand '{extra}'")), 1).await;
    }
    let var = if cmd == "logname" { "LOGNAME" } else { "USER" };
    let user = sh.var(var).or(sh.var("USER")).unwrap_or("user").to_string();
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
