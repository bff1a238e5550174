//! `chmod`: octal and symbolic modes. Modes are set through the host, since
//! `wasi:filesystem` does not carry them.

use super::stream::complain;
use crate::fileinfo::*;
use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{bad_usage, dashed, parser, string};
use std::path::Path;

/// `chmod [-R] MODE FILE...`: octal (`755`) or symbolic (`u+x`, `go-w`, `a=r`, `+x`, lists
/// joined by commas).
pub async fn chmod(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let mut recursive = false;
    let mut rest = Vec::new();
    let mut p = parser(argv);
    let parsed: Result<(), lexopt::Error> = (|| {
        loop {
            // `chmod -x FILE`: a mode that starts with `-` is the mode, not options.
            let mode = |m: &str| m.chars().all(|c| "rwxXst".contains(c));
            if let Some(m) = dashed(&mut p, mode) {
                rest.push(format!("-{m}"));
                continue;
            }
            let Some(arg) = p.next()? else { break };
            match arg {
                Short('R') | Long("recursive") => recursive = true,
                // Nothing is reported either way.
                Short('v' | 'c' | 'f') | Long("verbose" | "changes" | "silent" | "quiet") => {}
                Value(v) => rest.push(string(v)),
                _ => return Err(arg.unexpected()),
            }
        }
        Ok(())
    })();
    if let Err(e) = parsed {
        return bad_usage(sh, "chmod", e, 1).await;
    }
    let Some(spec) = rest.first().cloned() else {
        return complain(
            sh,
            "chmod: missing operand\nTry 'chmod --help' for more information.",
        )
        .await;
    };
    if rest.len() < 2 {
        return complain(
            sh,
            &format!(
                "chmod: missing operand after '{spec}'\nTry 'chmod --help' for more information."
            ),
        )
        .await;
    }
    let umask = sh.umask();
    let mut status = 0;
    for f in &rest[1..] {
        let path = sh.path(f);
        let mut targets = vec![path.clone()];
        if recursive {
            collect(&path, &mut targets);
        }
        for target in targets {
            let current = match info(&target, true) {
                Ok(i) => i.mode,
                Err(_) => {
                    status = complain(
                        sh,
                        &format!("chmod: cannot access '{f}': No such file or directory"),
                    )
                    .await;
                    break;
                }
            };
            let Some(mode) = apply_mode(&spec, current, umask) else {
                return complain(
                    sh,
                    &format!(
                        "chmod: invalid mode: '{spec}'\nTry 'chmod --help' for more information."
                    ),
                )
                .await;
            };
            if let Err(e) = shell_base::host::current().chmod(&target.to_string_lossy(), mode) {
                let e = shell_base::errno::io_message(&e);
                status = complain(sh, &format!("chmod: changing permissions of '{f}': {e}")).await;
            }
        }
    }
    status
}

fn collect(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    if let Ok(entries) = shell_base::dir::list(dir) {
        for e in entries {
            let p = dir.join(&e.name);
            out.push(p.clone());
            if e.kind.is_dir() {
                collect(&p, out);
            }
        }
    }
}

/// The permission bits after `spec` (octal or symbolic) applies to `mode`.
pub fn apply_mode(spec: &str, mode: u32, umask: u32) -> Option<u32> {
    if !spec.is_empty() && spec.chars().all(|c| c.is_digit(8)) {
        return u32::from_str_radix(spec, 8).ok().filter(|m| *m <= 0o7777);
    }
    let is_dir = mode & 0o170000 == 0o040000;
    let mut perm = mode & 0o7777;
    for clause in spec.split(',') {
        let who_end = clause.find(['+', '-', '=']).unwrap_or(clause.len());
        let who = &clause[..who_end];
        if who_end == clause.len() || !who.chars().all(|c| "ugoa".contains(c)) {
            return None;
        }
        let mut mask = 0;
        for c in who.chars() {
            mask |= match c {
                'u' => 0o4700,
                'g' => 0o2070,
                'o' => 0o1007,
                _ => 0o7777,
            };
        }
        // No `who`: all, less the umask (as GNU's).
        let (mask, limit) = if who.is_empty() {
            (0o7777, !umask)
        } else {
            (mask, 0o7777)
        };
        let mut ops = &clause[who_end..];
        while let Some(op) = ops.chars().next() {
            let end = ops[1..].find(['+', '-', '=']).map_or(ops.len(), |i| i + 1);
            let perms = &ops[1..end];
            let mut bits = 0;
            for c in perms.chars() {
                bits |= match c {
                    'r' => 0o444,
                    'w' => 0o222,
                    'x' => 0o111,
                    'X' if is_dir || perm & 0o111 != 0 => 0o111,
                    'X' => 0,
                    's' => 0o6000,
                    't' => 0o1000,
                    _ => return None,
                };
            }
            let bits = bits & mask & (limit | 0o7000);
            match op {
                '+' => perm |= bits,
                '-' => perm &= !bits,
                _ => perm = (perm & !(mask & 0o777)) | bits,
            }
            ops = &ops[end..];
        }
    }
    Some(perm)
}

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::Native;

    #[test]
    fn octal_and_symbolic_modes() {
        use std::os::unix::fs::PermissionsExt;
        let mut ctx = Native::new();
        ctx.write("f", "");
        let mode = |ctx: &Native| {
            std::fs::metadata(ctx.dir().join("f"))
                .unwrap()
                .permissions()
                .mode()
                & 0o777
        };
        assert_eq!(ctx.run(&["chmod", "600", "f"], "").status, 0);
        assert_eq!(mode(&ctx), 0o600);
        assert_eq!(ctx.run(&["chmod", "g+r,o+r", "f"], "").status, 0);
        assert_eq!(mode(&ctx), 0o644);
    }
}
