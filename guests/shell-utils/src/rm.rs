//! `rm`: remove files or directories (-i is refused: nobody can answer).

use super::stream::complain;
use shell_base::Context;
use shell_base::args::{bad_usage, flags};
use shell_base::errno::io_message;

/// Whether the last part of `arg` is `.` or `..` (`./` and `a/..//` too).
fn dot_or_dotdot(arg: &str) -> bool {
    let last = arg.trim_end_matches('/').rsplit('/').next().unwrap_or("");
    matches!(last, "." | "..")
}

/// Whether `path` (absolute) names `/`, `..` counted.
fn is_root(path: &std::path::Path) -> bool {
    use std::path::Component;
    let mut depth = 0usize;
    for c in path.components() {
        match c {
            Component::Normal(_) => depth += 1,
            Component::ParentDir => depth = depth.saturating_sub(1),
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
    depth == 0 && path.has_root()
}

/// Removes directory `path` and everything in it: through the host in one change where it
/// can.
fn remove_tree(path: &std::path::Path) -> std::io::Result<()> {
    match path.to_str() {
        Some(p) => shell_base::host::current().remove_tree(p),
        None => std::fs::remove_dir_all(path),
    }
}

/// Whether argument `f` names a symbolic link with a slash after it (`l/`): the path then
/// reaches the directory the link points at, and `rm -r` empties that directory but cannot
/// remove `l/` itself, a link not being a directory (GNU's behaviour).
fn link_with_slash(sh: &dyn Context, f: &str) -> bool {
    let bare = f.trim_end_matches('/');
    f.ends_with('/')
        && !bare.is_empty()
        && std::fs::symlink_metadata(sh.path(bare)).is_ok_and(|m| m.file_type().is_symlink())
}

/// Removes everything in directory `path`, each entry as `rm -r` does; the last error, if
/// any (the rest still go).
fn empty_dir(path: &std::path::Path) -> std::io::Result<()> {
    let mut result = Ok(());
    for entry in shell_base::dir::list(path)? {
        let child = path.join(&entry.name);
        let removed = if entry.kind.is_dir() {
            remove_tree(&child)
        } else {
            std::fs::remove_file(&child)
        };
        if let Err(e) = removed {
            result = Err(e);
        }
    }
    result
}

/// What `rm -rv` removes under `path` (shown as `shown`), in the order it goes: (name,
/// whether a directory).
fn removal_order(path: &std::path::Path, shown: &str, out: &mut Vec<(String, bool)>) {
    let entries = shell_base::dir::list(path).unwrap_or_default();
    for shell_base::dir::Entry { name, kind } in entries {
        let dir = kind.is_dir();
        let child = format!("{}/{name}", shown.trim_end_matches('/'));
        if dir {
            removal_order(&path.join(&name), &child, out);
        } else {
            out.push((child, false));
        }
    }
    out.push((shown.to_string(), true));
}

/// `rm`'s long options, as the letters they stand for.
const LONG: &[(&str, char)] = &[
    ("force", 'f'),
    ("recursive", 'r'),
    ("dir", 'd'),
    ("verbose", 'v'),
    ("preserve-root", 'p'),
    ("no-preserve-root", 'N'),
];

/// `rm [-rf] FILE...`.
pub async fn rm(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let (flags, files) = match flags(argv, "fRrdvi", LONG) {
        Ok(o) => o,
        Err(e) => return bad_usage(sh, "rm", e, 1).await,
    };
    let recursive = flags.contains('r') || flags.contains('R');
    let force = flags.contains('f');
    // `-d`: empty directories too.
    let empty_dirs = flags.contains('d');
    let verbose = flags.contains('v');
    // GNU's failsafe: `rm -r /` is refused unless `--no-preserve-root` comes after any
    // `--preserve-root`.
    let preserve_root = flags.rfind('N') <= flags.rfind('p');
    if files.is_empty() && !force {
        return complain(sh, "rm: missing operand").await;
    }
    // `-i`: ask on standard error, read the answer from standard input (as GNU rm does).
    let interactive = flags.rfind('i') > flags.rfind('f');
    let mut answers = interactive.then(|| super::stream::Lines::new(sh.io().stdin.clone()));
    let mut status = 0;
    for f in files {
        let path = sh.path(&f);
        if let Some(lines) = answers.as_mut() {
            if std::fs::symlink_metadata(&path).is_err() {
                let msg = format!("rm: cannot remove '{f}': No such file or directory");
                status = complain(sh, &msg).await;
                continue;
            }
            if let Err(msg) = Box::pin(ask_and_remove(sh, lines, &path, &f, recursive)).await {
                status = complain(sh, &msg).await;
            }
            continue;
        }
        let result = match std::fs::symlink_metadata(&path) {
            // POSIX: a directory named `.` or `..` on the command line is left alone.
            Ok(m) if m.is_dir() && (recursive || empty_dirs) && dot_or_dotdot(&f) => {
                let msg = format!("rm: refusing to remove '.' or '..' directory: skipping '{f}'");
                status = complain(sh, &msg).await;
                continue;
            }
            // And so is `/` (GNU's failsafe), unless `--no-preserve-root`.
            Ok(m) if m.is_dir() && recursive && preserve_root && is_root(&path) => {
                let msg = if f == "/" {
                    "rm: it is dangerous to operate recursively on '/'".to_string()
                } else {
                    format!("rm: it is dangerous to operate recursively on '{f}' (same as '/')")
                };
                complain(sh, &msg).await;
                let msg = "rm: use --no-preserve-root to override this failsafe";
                status = complain(sh, msg).await;
                continue;
            }
            Ok(m) if m.is_dir() && !recursive && empty_dirs => std::fs::remove_dir(&path),
            Ok(m) if m.is_dir() && !recursive => {
                status = complain(sh, &format!("rm: cannot remove '{f}': Is a directory")).await;
                continue;
            }
            Ok(m) if m.is_dir() && link_with_slash(sh, &f) => {
                let mut listing = Vec::new();
                if verbose {
                    removal_order(&path, &f, &mut listing);
                    // Everything but the directory itself.
                    listing.pop();
                }
                let r = empty_dir(&path);
                for (shown, dir) in listing.into_iter().filter(|_| r.is_ok()) {
                    let what = if dir { "removed directory" } else { "removed" };
                    crate::stream::out(sh, &format!("{what} '{shown}'\n")).await;
                }
                r.and(Err(std::io::ErrorKind::NotADirectory.into()))
            }
            Ok(m) if m.is_dir() && verbose => {
                // `-v` names each file as it goes, deepest first.
                let mut listing = Vec::new();
                removal_order(&path, &f, &mut listing);
                let text: String = listing
                    .iter()
                    .map(|(shown, dir)| {
                        if *dir {
                            format!("removed directory '{shown}'\n")
                        } else {
                            format!("removed '{shown}'\n")
                        }
                    })
                    .collect();
                let r = remove_tree(&path);
                if r.is_ok() {
                    crate::stream::out(sh, &text).await;
                }
                r
            }
            Ok(m) if m.is_dir() => remove_tree(&path),
            Ok(_) => {
                let r = std::fs::remove_file(&path);
                if r.is_ok() && verbose {
                    crate::stream::out(sh, &format!("removed '{f}'\n")).await;
                }
                r
            }
            Err(e) => Err(e),
        };
        match result {
            Err(e) if force && e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                status =
                    complain(sh, &format!("rm: cannot remove '{f}': {}", io_message(&e))).await;
            }
            Ok(()) => {}
        }
    }
    status
}

/// `rm -i`: asks for `path` (and, for a directory with `-r`, for everything in it, deepest
/// first, as GNU rm does) and removes what was agreed to.
async fn ask_and_remove(
    sh: &mut dyn Context,
    lines: &mut super::stream::Lines,
    path: &std::path::Path,
    shown: &str,
    recursive: bool,
) -> Result<(), String> {
    let meta = std::fs::symlink_metadata(path)
        .map_err(|e| format!("rm: cannot remove '{shown}': {}", io_message(&e)))?;
    if meta.is_dir() && !recursive {
        return Err(format!("rm: cannot remove '{shown}': Is a directory"));
    }
    let what = if meta.is_dir() {
        "descend into directory"
    } else if meta.file_type().is_symlink() {
        "remove symbolic link"
    } else if meta.len() == 0 {
        "remove regular empty file"
    } else {
        "remove regular file"
    };
    if !confirm(sh, lines, what, shown).await {
        return Ok(());
    }
    if !meta.is_dir() {
        return std::fs::remove_file(path)
            .map_err(|e| format!("rm: cannot remove '{shown}': {}", io_message(&e)));
    }
    for n in super::stream::sorted_names(path).unwrap_or_default() {
        let child = format!("{}/{n}", shown.trim_end_matches('/'));
        Box::pin(ask_and_remove(sh, lines, &path.join(&n), &child, recursive)).await?;
    }
    if confirm(sh, lines, "remove directory", shown).await {
        std::fs::remove_dir(path)
            .map_err(|e| format!("rm: cannot remove '{shown}': {}", io_message(&e)))?;
    }
    Ok(())
}

/// Asks `rm: WHAT 'NAME'? ` and reads the answer: yes when it starts with `y`.
async fn confirm(
    sh: &mut dyn Context,
    lines: &mut super::stream::Lines,
    what: &str,
    shown: &str,
) -> bool {
    let question = format!("rm: {what} '{shown}'? ");
    let _ = sh.io().stderr.write_all(question.as_bytes()).await;
    matches!(lines.next().await, Ok(Some(l)) if matches!(l.first(), Some(b'y' | b'Y')))
}

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::Native;

    #[test]
    fn removes_files_and_trees() {
        let mut ctx = Native::new();
        ctx.write("d/f", "x").write("g", "y");
        assert_eq!(ctx.run(&["rm", "g"], "").status, 0);
        assert_eq!(ctx.run(&["rm", "d"], "").status, 1);
        assert_eq!(ctx.run(&["rm", "-r", "d"], "").status, 0);
        assert!(!ctx.dir().join("d").exists());
        assert_eq!(ctx.run(&["rm", "-f", "nothing"], "").status, 0);
    }
}
