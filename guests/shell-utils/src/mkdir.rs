//! `mkdir`: make directories.

use super::stream::complain;
use shell_base::Context;
use shell_base::args::{bad_usage, flags};
use shell_base::errno::io_message;

/// `mkdir`'s long options, as the letters they stand for.
const LONG: &[(&str, char)] = &[("parents", 'p'), ("verbose", 'v')];

/// `mkdir [-pv] DIR...`.
pub async fn mkdir(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let (flags, dirs) = match flags(argv, "pv", LONG) {
        Ok(o) => o,
        Err(e) => return bad_usage(sh, "mkdir", e, 1).await,
    };
    if dirs.is_empty() {
        return complain(sh, "mkdir: missing operand").await;
    }
    let parents = flags.contains('p');
    let verbose = flags.contains('v');
    let mut status = 0;
    for d in dirs {
        let path = sh.path(&d);
        let result = if parents {
            // Each missing level, so that `-v` can name it.
            let mut made = Vec::new();
            let mut prefix = String::new();
            let mut r = Ok(());
            for (k, part) in d.split('/').enumerate() {
                if k > 0 {
                    prefix.push('/');
                }
                prefix.push_str(part);
                if part.is_empty() || part == "." {
                    continue;
                }
                let p = sh.path(&prefix);
                if p.is_dir() {
                    continue;
                }
                match std::fs::create_dir(&p) {
                    Ok(()) => made.push(prefix.clone()),
                    Err(e) => {
                        r = Err(e);
                        break;
                    }
                }
            }
            if verbose {
                for m in made {
                    crate::stream::out(sh, &format!("mkdir: created directory '{m}'\n")).await;
                }
            }
            r
        } else {
            let r = std::fs::create_dir(&path);
            if r.is_ok() && verbose {
                crate::stream::out(sh, &format!("mkdir: created directory '{d}'\n")).await;
            }
            r
        };
        if let Err(e) = result {
            status = complain(
                sh,
                &format!("mkdir: cannot create directory '{d}': {}", io_message(&e)),
            )
            .await;
        }
    }
    status
}

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::Native;

    #[test]
    fn makes_parents() {
        let mut ctx = Native::new();
        assert_eq!(ctx.run(&["mkdir", "-p", "a/b/c"], "").status, 0);
        assert!(ctx.dir().join("a/b/c").is_dir());
        let ran = ctx.run(&["mkdir", "a"], "");
        assert_eq!(
            (ran.status, ran.stderr.as_str()),
            (1, "mkdir: cannot create directory 'a': File exists\n")
        );
    }
}
