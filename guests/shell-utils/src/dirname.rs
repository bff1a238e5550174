//! `dirname`: strip the last component from file names.

use super::stream::complain;
use shell_base::Context;
use shell_base::args::{bad_usage, operands};

/// `dirname NAME...`.
pub async fn dirname(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let names = match operands(argv) {
        Ok(o) => o,
        Err(e) => return bad_usage(sh, "dirname", e, 1).await,
    };
    if names.is_empty() {
        complain(
            sh,
            "dirname: missing operand\nTry 'dirname --help' for more information.",
        )
        .await;
        return 1;
    }
    let mut text = String::new();
    for n in names {
        let trimmed = n.trim_end_matches('/');
        let dir = match trimmed.rfind('/') {
            None if n.starts_with('/') => "/".to_string(),
            None => ".".to_string(),
            Some(i) => {
                let d = trimmed[..i].trim_end_matches('/');
                if d.is_empty() {
                    "/".to_string()
                } else {
                    d.to_string()
                }
            }
        };
        text.push_str(&dir);
        text.push('\n');
    }
    crate::stream::out(sh, &text).await
}

#[cfg(all(test, unix))]
mod tests {

    use crate::testing::stdout_of;

    #[test]
    fn strips_the_last_name() {
        assert_eq!(stdout_of(&["dirname", "/a/b", "c", "/"], ""), "/a\n.\n/\n");
    }
}
