//! `readlink`: print the target of a symbolic link, or a canonical name.

use crate::realpath::*;
use crate::stream::out;
use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{bad_usage, parser, string};

/// `readlink [-f|-e|-m] FILE...`.
pub async fn readlink(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let mut canonicalize = false;
    // `-n`: no newline after the last name; `-z`: a NUL after each instead.
    let (mut no_newline, mut zero) = (false, false);
    let mut files = Vec::new();
    let mut p = parser(argv);
    let parsed: Result<(), lexopt::Error> = (|| {
        while let Some(arg) = p.next()? {
            match arg {
                Short('f' | 'e' | 'm')
                | Long("canonicalize" | "canonicalize-existing" | "canonicalize-missing") => {
                    canonicalize = true
                }
                // Errors are never printed here, so quiet and verbose are the same.
                Short('q' | 's' | 'v') | Long("quiet" | "silent" | "verbose") => {}
                Short('n') | Long("no-newline") => no_newline = true,
                Short('z') | Long("zero") => zero = true,
                Value(v) => files.push(string(v)),
                _ => return Err(arg.unexpected()),
            }
        }
        Ok(())
    })();
    if let Err(e) = parsed {
        return bad_usage(sh, "readlink", e, 1).await;
    }
    let mut status = 0;
    let mut text = String::new();
    for f in &files {
        let path = sh.path(f).to_string_lossy().into_owned();
        let r = if canonicalize {
            canonical(&path)
        } else {
            std::fs::read_link(&path).map(|t| t.to_string_lossy().into_owned())
        };
        match r {
            Ok(t) => {
                text.push_str(&t);
                text.push(if zero { '\0' } else { '\n' });
            }
            Err(_) => status = 1,
        }
    }
    // GNU drops the newline only when there is one name.
    if no_newline && !zero && files.len() == 1 {
        text.pop();
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
