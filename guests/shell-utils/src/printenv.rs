//! `printenv`: print environment variables.

use crate::stream::out;
use shell_base::Context;
use shell_base::args::{bad_usage, operands};

/// `printenv [NAME...]`.
pub async fn printenv(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let vars = sh.environment();
    let names = match operands(argv) {
        Ok(o) => o,
        Err(e) => return bad_usage(sh, "printenv", e, 2).await,
    };
    if names.is_empty() {
        let text: String = vars.iter().map(|(k, v)| format!("{k}={v}\n")).collect();
        return out(sh, &text).await;
    }
    let mut status = 0;
    let mut text = String::new();
    for name in &names {
        match vars.iter().find(|(k, _)| k == name) {
            Some((_, v)) => {
                text.push_str(v);
                text.push('\n');
            }
            None => status = 1,
        }
    }
    match out(sh, &text).await {
        0 => status,
        s => s,
    }
}

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::Native;

    #[test]
    fn prints_a_variable() {
        let ran = Native::new().run(&["printenv", "USER", "NOPE"], "");
        assert_eq!((ran.status, ran.stdout.as_str()), (1, "user\n"));
    }
}
