//! `basename`: strip directories and a suffix from file names.

use super::stream::complain;
use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{bad_usage, parser, string, value};

/// `basename NAME [SUFFIX]`, `basename -a NAME...`, `-s SUFFIX`.
pub async fn basename(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let mut names = Vec::new();
    let mut suffix = None;
    let mut multiple = false;
    let mut p = parser(argv);
    let parsed: Result<(), lexopt::Error> = (|| {
        while let Some(arg) = p.next()? {
            match arg {
                Short('a') | Long("multiple") => multiple = true,
                Short('s') | Long("suffix") => {
                    suffix = Some(value(&mut p)?);
                    multiple = true;
                }
                Value(v) => names.push(string(v)),
                _ => return Err(arg.unexpected()),
            }
        }
        Ok(())
    })();
    if let Err(e) = parsed {
        return bad_usage(sh, "basename", e, 1).await;
    }
    if names.is_empty() {
        complain(
            sh,
            "basename: missing operand\nTry 'basename --help' for more information.",
        )
        .await;
        return 1;
    }
    if !multiple {
        if names.len() > 2 {
            complain(
                sh,
                &format!(
                    "basename: extra operand '{}'\nTry 'basename --help' for more information.",
                    names[2]
                ),
            )
            .await;
            return 1;
        }
        if names.len() == 2 {
            suffix = names.pop();
        }
    }
    let mut text = String::new();
    for n in names {
        let trimmed = n.trim_end_matches('/');
        let mut base = if trimmed.is_empty() && n.starts_with('/') {
            "/".to_string()
        } else {
            trimmed.rsplit('/').next().unwrap_or("").to_string()
        };
        if let Some(s) = &suffix
            && base.len() > s.len()
            && base.ends_with(s.as_str())
        {
            base.truncate(base.len() - s.len());
        }
        text.push_str(&base);
        text.push('\n');
    }
    crate::stream::out(sh, &text).await
}

#[cfg(all(test, unix))]
mod tests {

    use crate::testing::stdout_of;

    #[test]
    fn strips_directories_and_suffixes() {
        assert_eq!(stdout_of(&["basename", "/a/b.txt", ".txt"], ""), "b\n");
        assert_eq!(stdout_of(&["basename", "-a", "x/y", "z/"], ""), "y\nz\n");
    }
}
