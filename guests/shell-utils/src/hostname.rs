//! `hostname`: print the machine's name.

use crate::stream::out;
use shell_base::Context;

/// `hostname`.
pub async fn hostname(sh: &mut dyn Context, _argv: &[String]) -> i32 {
    let host = sh.var("HOSTNAME").unwrap_or("computer").to_string();
    out(sh, &format!("{host}\n")).await
}

#[cfg(all(test, unix))]
mod tests {

    use crate::testing::stdout_of;

    #[test]
    fn a_default_name() {
        assert_eq!(stdout_of(&["hostname"], ""), "computer\n");
    }
}
