//! `basename`: strip directories and a suffix from file names.

use super::stream::complain;
use shell_base::Context;

/// `basename NAME [SUFFIX]`, `basename -a NAME...`, `-s SUFFIX`.
pub async fn basename(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let mut names = Vec::new();
    let mut suffix = None;
    let mut multiple = false;
    let mut i = 1;
    while i < argv.len() {
        match argv[i].as_str() {
            "-a" | "--multiple" => multiple = true,
            "-s" => {
                i += 1;
                suffix = argv.get(i).cloned();
                multiple = true;
            }
            "--" => {
                names.extend(argv[i + 1..].iter().cloned());
                break;
            }
            a => names.push(a.to_string()),
        }
        i += 1;
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
