//! `mv`: move or rename files.

use super::stream::complain;
use crate::cp::*;
use shell_base::Context;
use shell_base::args::{bad_usage, flags};
use shell_base::errno::io_message;

/// `mv`'s long options, as the letters they stand for.
const LONG: &[(&str, char)] = &[("force", 'f'), ("no-clobber", 'n'), ("verbose", 'v')];

/// `mv [-f] [-n] SOURCE... DEST`.
pub async fn mv(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let (flags, mut operands) = match flags(argv, "fnv", LONG) {
        Ok(o) => o,
        Err(e) => return bad_usage(sh, "mv", e, 1).await,
    };
    if operands.len() < 2 {
        let msg = if operands.is_empty() {
            "mv: missing file operand".to_string()
        } else {
            format!(
                "mv: missing destination file operand after '{}'",
                operands[0]
            )
        };
        return complain(sh, &format!("{msg}\nTry 'mv --help' for more information.")).await;
    }
    let dest = operands.pop().unwrap_or_default();
    if operands.len() > 1 && !sh.path(&dest).is_dir() {
        return complain(sh, &format!("mv: target '{dest}': {}", not_dir(sh, &dest))).await;
    }
    let mut status = 0;
    for src in operands {
        let from = sh.path(&src);
        let to = target(sh, &src, &dest);
        if std::fs::symlink_metadata(&from).is_err() {
            status = complain(
                sh,
                &format!("mv: cannot stat '{src}': No such file or directory"),
            )
            .await;
            continue;
        }
        if flags.contains('n') && to.exists() {
            continue;
        }
        if to.starts_with(&from) && to != from {
            let shown = shown_target(sh, &src, &dest);
            status = complain(
                sh,
                &format!("mv: cannot move '{src}' to a subdirectory of itself, '{shown}'"),
            )
            .await;
            continue;
        }
        let shown = shown_target(sh, &src, &dest);
        match std::fs::rename(&from, &to) {
            Err(e) => {
                status = complain(
                    sh,
                    &format!("mv: cannot move '{src}' to '{dest}': {}", io_message(&e)),
                )
                .await;
            }
            Ok(()) if flags.contains('v') => {
                crate::stream::out(sh, &format!("renamed '{src}' -> '{shown}'\n")).await;
            }
            Ok(()) => {}
        }
    }
    status
}

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::Native;

    #[test]
    fn renames_and_moves_into_a_directory() {
        let mut ctx = Native::new();
        ctx.write("a", "x").write("d/keep", "");
        assert_eq!(ctx.run(&["mv", "a", "d"], "").status, 0);
        assert_eq!(ctx.read("d/a"), "x");
        assert!(!ctx.dir().join("a").exists());
    }
}
