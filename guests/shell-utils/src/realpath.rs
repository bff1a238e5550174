//! `realpath`: print the resolved absolute name.

use super::stream::complain;
use crate::stream::out;
use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{bad_usage, parser, string};
use shell_base::errno::io_message;

/// `realpath [-s] FILE...`.
pub async fn realpath(sh: &mut dyn Context, argv: &[String]) -> i32 {
    // `-m`: no part needs to exist (the path is only normalized).
    let mut no_symlinks = false;
    let mut files = Vec::new();
    let mut p = parser(argv);
    let parsed: Result<(), lexopt::Error> = (|| {
        while let Some(arg) = p.next()? {
            match arg {
                Short('s' | 'm') | Long("no-symlinks" | "strip" | "canonicalize-missing") => {
                    no_symlinks = true
                }
                Short('e' | 'q') | Long("canonicalize-existing" | "quiet") => {}
                Value(v) => files.push(string(v)),
                _ => return Err(arg.unexpected()),
            }
        }
        Ok(())
    })();
    if let Err(e) = parsed {
        return bad_usage(sh, "realpath", e, 1).await;
    }
    let mut status = 0;
    let mut text = String::new();
    if files.is_empty() {
        return complain(
            sh,
            "realpath: missing operand\nTry 'realpath --help' for more information.",
        )
        .await;
    }
    for f in &files {
        let path = sh.path(f).to_string_lossy().into_owned();
        let r = if no_symlinks {
            Ok(shell_base::path::normalize(&path))
        } else {
            canonical(&path)
        };
        match r {
            Ok(t) => {
                text.push_str(&t);
                text.push('\n');
            }
            Err(e) => {
                status = complain(sh, &format!("realpath: {f}: {}", io_message(&e))).await;
            }
        }
    }
    match out(sh, &text).await {
        0 => status,
        s => s,
    }
}

/// Resolves `path` (absolute) with every symbolic link followed, as `realpath` does.
pub(crate) fn canonical(path: &str) -> Result<String, std::io::Error> {
    let mut resolved: Vec<String> = Vec::new();
    let mut pending: Vec<String> = path.split('/').rev().map(str::to_string).collect();
    let mut hops = 0;
    while let Some(part) = pending.pop() {
        match part.as_str() {
            "" | "." => continue,
            ".." => {
                resolved.pop();
                continue;
            }
            _ => {}
        }
        let candidate = format!(
            "/{}",
            resolved
                .iter()
                .chain(std::iter::once(&part))
                .cloned()
                .collect::<Vec<_>>()
                .join("/")
        );
        let meta = std::fs::symlink_metadata(&candidate)?;
        if meta.file_type().is_symlink() {
            hops += 1;
            if hops > 40 {
                return Err(std::io::Error::other("Too many levels of symbolic links"));
            }
            let target = std::fs::read_link(&candidate)?
                .to_string_lossy()
                .into_owned();
            if target.starts_with('/') {
                resolved.clear();
            }
            pending.extend(target.split('/').rev().map(str::to_string));
        } else {
            resolved.push(part);
        }
    }
    Ok(format!("/{}", resolved.join("/")))
}

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::Native;

    #[test]
    fn resolves_dots() {
        let mut ctx = Native::new();
        ctx.write("d/f", "");
        let dir = ctx.dir().canonicalize().unwrap();
        let ran = ctx.run(&["realpath", "d/../d/f"], "");
        assert_eq!(ran.stdout, format!("{}/d/f\n", dir.display()));
    }
}
