//! `ln`: hard and symbolic links. Symbolic links go through the workspace import (Rust's
//! standard library has no stable call for them on WASI); hard links through `std::fs`.

use shell_base::args::{bad_usage, parser};
use std::path::{Component, Path, PathBuf};

use super::stream::complain;

use shell_base::Context;
use shell_base::errno::io_message;

/// Creates the symbolic link `path` (absolute) pointing at `target`.
pub fn symlink(target: &str, path: &Path) -> std::io::Result<()> {
    shell_base::host::current().symlink(target, &path.to_string_lossy())
}

struct Options {
    symbolic: bool,
    force: bool,
    verbose: bool,
    relative: bool,
    /// `-n`: a destination that is a symbolic link to a directory is replaced, not entered.
    no_dereference: bool,
    /// `-T`: the last operand is the link itself, never a directory to put links in.
    no_target_dir: bool,
    target_dir: Option<String>,
}

/// `ln [-sfvnrT] [-t DIR] TARGET... [LINK_NAME|DIR]`.
pub async fn ln(sh: &mut dyn Context, argv: &[String]) -> i32 {
    use lexopt::prelude::*;
    let mut o = Options {
        symbolic: false,
        force: false,
        verbose: false,
        relative: false,
        no_dereference: false,
        no_target_dir: false,
        target_dir: None,
    };
    let mut operands = Vec::new();
    let mut p = parser(argv);
    loop {
        let arg = match p.next() {
            Ok(Some(a)) => a,
            Ok(None) => break,
            Err(e) => return bad_usage(sh, "ln", e, 1).await,
        };
        match arg {
            Short('s') | Long("symbolic") => o.symbolic = true,
            Short('f') | Long("force") => o.force = true,
            Short('v') | Long("verbose") => o.verbose = true,
            Short('r') | Long("relative") => o.relative = true,
            Short('n') | Long("no-dereference") => o.no_dereference = true,
            Short('T') | Long("no-target-directory") => o.no_target_dir = true,
            Short('L') | Short('P') | Long("logical") | Long("physical") => {}
            Short('t') | Long("target-directory") => match p.value() {
                Ok(v) => o.target_dir = Some(v.to_string_lossy().into_owned()),
                Err(e) => return bad_usage(sh, "ln", e, 1).await,
            },
            Value(v) => operands.push(v.to_string_lossy().into_owned()),
            other => return bad_usage(sh, "ln", other.unexpected(), 1).await,
        }
    }
    if o.relative && !o.symbolic {
        return complain(sh, "ln: cannot do --relative without --symbolic").await;
    }
    let usage = |msg: String| format!("ln: {msg}\nTry 'ln --help' for more information.");
    // (target, link name as written)
    let mut pairs: Vec<(String, String)> = Vec::new();
    if let Some(dir) = &o.target_dir {
        if operands.is_empty() {
            return complain(sh, &usage("missing file operand".into())).await;
        }
        if !sh.path(dir).is_dir() {
            return complain(sh, &format!("ln: target '{dir}' is not a directory")).await;
        }
        for t in &operands {
            pairs.push((t.clone(), join(dir, t)));
        }
    } else {
        match operands.len() {
            0 => return complain(sh, &usage("missing file operand".into())).await,
            1 => {
                let t = &operands[0];
                pairs.push((t.clone(), base_name(t)));
            }
            n => {
                let last = &operands[n - 1];
                let into_dir = !o.no_target_dir && is_dir_destination(sh, last, &o);
                if n > 2 && o.no_target_dir {
                    return complain(sh, &usage(format!("extra operand '{}'", operands[2]))).await;
                }
                if n > 2 && !into_dir {
                    let msg = match std::fs::metadata(sh.path(last)) {
                        Err(e) => format!("ln: target '{last}': {}", io_message(&e)),
                        Ok(_) => format!("ln: target '{last}' is not a directory"),
                    };
                    return complain(sh, &msg).await;
                }
                for t in &operands[..n - 1] {
                    let link = if into_dir {
                        join(last, t)
                    } else {
                        last.clone()
                    };
                    pairs.push((t.clone(), link));
                }
            }
        }
    }
    let mut status = 0;
    for (target, link) in pairs {
        if let Err(msg) = make_link(sh, &o, &target, &link).await {
            status = complain(sh, &format!("ln: {msg}")).await;
        }
    }
    status
}

/// Whether the last operand names a directory to put the links in.
fn is_dir_destination(sh: &dyn Context, last: &str, o: &Options) -> bool {
    let path = sh.path(last);
    match std::fs::symlink_metadata(&path) {
        Ok(m) if m.is_dir() => true,
        Ok(m) if m.file_type().is_symlink() => !o.no_dereference && path.is_dir(),
        _ => false,
    }
}

/// `DIR/basename(target)`, as `ln` names a link put into a directory.
fn join(dir: &str, target: &str) -> String {
    let name = base_name(target);
    if dir.ends_with('/') {
        format!("{dir}{name}")
    } else {
        format!("{dir}/{name}")
    }
}

fn base_name(path: &str) -> String {
    let trimmed = path.trim_end_matches('/');
    match trimmed.rsplit_once('/') {
        Some((_, name)) if !name.is_empty() => name.to_string(),
        _ if trimmed.is_empty() => "/".into(),
        _ => trimmed.to_string(),
    }
}

async fn make_link(
    sh: &mut dyn Context,
    o: &Options,
    target: &str,
    link: &str,
) -> Result<(), String> {
    let link_path = sh.path(link);
    let target_path = sh.path(target);
    let kind = if o.symbolic { "symbolic" } else { "hard" };
    if !o.symbolic {
        match std::fs::symlink_metadata(&target_path) {
            Err(e) => return Err(format!("failed to access '{target}': {}", io_message(&e))),
            Ok(m) if m.is_dir() => {
                return Err(format!("{target}: hard link not allowed for directory"));
            }
            Ok(_) => {}
        }
    }
    if let Ok(existing) = std::fs::symlink_metadata(&link_path) {
        if !o.force {
            return Err(format!(
                "failed to create {kind} link '{link}': File exists"
            ));
        }
        if existing.is_dir() {
            return Err(format!("{link}: cannot overwrite directory"));
        }
        if let Err(e) = std::fs::remove_file(&link_path) {
            return Err(format!("cannot remove '{link}': {}", io_message(&e)));
        }
    }
    let result = if o.symbolic {
        let written = if o.relative {
            relative_to(&absolute(&target_path), &absolute(&link_path))
        } else {
            target.to_string()
        };
        symlink(&written, &link_path).map(|()| written)
    } else {
        std::fs::hard_link(&target_path, &link_path).map(|()| target.to_string())
    };
    match result {
        Ok(written) => {
            if o.verbose {
                let arrow = if o.symbolic { "->" } else { "=>" };
                let line = format!("'{link}' {arrow} '{written}'\n");
                let _ = sh.io().stdout.write_all(line.as_bytes()).await;
            }
            Ok(())
        }
        Err(e) => Err(format!(
            "failed to create {kind} link '{link}': {}",
            io_message(&e)
        )),
    }
}

/// `path` with `.` and `..` worked out (no links followed).
fn absolute(path: &Path) -> PathBuf {
    let mut out = PathBuf::from("/");
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(n) => out.push(n),
            _ => {}
        }
    }
    out
}

/// The path from the directory holding `link` to `target` (`ln -r`).
fn relative_to(target: &Path, link: &Path) -> String {
    let from: Vec<_> = link
        .parent()
        .unwrap_or(Path::new("/"))
        .components()
        .collect();
    let to: Vec<_> = target.components().collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = vec!["..".into(); from.len() - common];
    parts.extend(
        to[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    if parts.is_empty() {
        ".".into()
    } else {
        parts.join("/")
    }
}

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::Native;

    #[test]
    fn symbolic_and_hard_links() {
        let mut ctx = Native::new();
        ctx.write("f", "x");
        assert_eq!(ctx.run(&["ln", "-s", "f", "s"], "").status, 0);
        assert_eq!(
            std::fs::read_link(ctx.dir().join("s")).unwrap().to_str(),
            Some("f")
        );
        assert_eq!(ctx.run(&["ln", "f", "h"], "").status, 0);
        assert_eq!(ctx.read("h"), "x");
    }
}
