//! `whoami`: print the user name.

use crate::stream::out;
use shell_base::Context;
use shell_base::args::{bad_usage, operands, usage};

/// `whoami`.
pub async fn whoami(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let operands = match operands(argv) {
        Ok(o) => o,
        Err(e) => return bad_usage(sh, "whoami", e, 1).await,
    };
    if let Some(extra) = operands.first() {
        return bad_usage(sh, "whoami", usage(format!("extra operand '{extra}'")), 1).await;
    }
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
