//! `readlink`: print the target of a symbolic link, or a canonical name.

use crate::realpath::*;
use crate::stream::out;
use shell_base::Context;

/// `readlink [-f|-e|-m] FILE...`.
pub async fn readlink(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let canonicalize = argv[1..]
        .iter()
        .any(|a| matches!(a.as_str(), "-f" | "-e" | "-m" | "--canonicalize"));
    let mut status = 0;
    let mut text = String::new();
    for f in argv[1..].iter().filter(|a| !a.starts_with('-')) {
        let path = sh.path(f).to_string_lossy().into_owned();
        let r = if canonicalize {
            canonical(&path)
        } else {
            std::fs::read_link(&path).map(|t| t.to_string_lossy().into_owned())
        };
        match r {
            Ok(t) => {
                text.push_str(&t);
                text.push('\n');
            }
            Err(_) => status = 1,
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
    fn reads_a_link() {
        let mut ctx = Native::new();
        std::os::unix::fs::symlink("target", ctx.dir().join("l")).unwrap();
        assert_eq!(ctx.run(&["readlink", "l"], "").stdout, "target\n");
        assert_eq!(ctx.run(&["readlink", "nope"], "").status, 1);
    }
}
