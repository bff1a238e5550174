//! `rmdir`: remove empty directories.

use super::stream::complain;
use shell_base::Context;
use shell_base::args::{bad_usage, flags};
use shell_base::errno::io_message;

/// `rmdir`'s long options, as the letters they stand for.
const LONG: &[(&str, char)] = &[("parents", 'p'), ("verbose", 'v')];

/// `rmdir [-p] DIR...`.
pub async fn rmdir(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let (flags, dirs) = match flags(argv, "pv", LONG) {
        Ok(o) => o,
        Err(e) => return bad_usage(sh, "rmdir", e, 1).await,
    };
    if dirs.is_empty() {
        return complain(
            sh,
            "rmdir: missing operand\nTry 'rmdir --help' for more information.",
        )
        .await;
    }
    let mut status = 0;
    for d in dirs {
        let mut current = d.trim_end_matches('/').to_string();
        loop {
            if let Err(e) = std::fs::remove_dir(sh.path(&current)) {
                status = complain(
                    sh,
                    &format!("rmdir: failed to remove '{current}': {}", io_message(&e)),
                )
                .await;
                break;
            }
            match current.rsplit_once('/') {
                Some((parent, _)) if flags.contains('p') && !parent.is_empty() => {
                    current = parent.to_string()
                }
                _ => break,
            }
        }
    }
    status
}

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::Native;

    #[test]
    fn removes_empty_directories_only() {
        let mut ctx = Native::new();
        ctx.write("full/f", "");
        std::fs::create_dir(ctx.dir().join("empty")).unwrap();
        assert_eq!(ctx.run(&["rmdir", "empty"], "").status, 0);
        let ran = ctx.run(&["rmdir", "full"], "");
        assert_eq!(
            (ran.status, ran.stderr.as_str()),
            (1, "rmdir: failed to remove 'full': Directory not empty\n")
        );
    }
}
