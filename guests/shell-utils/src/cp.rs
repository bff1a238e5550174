//! `cp`: copy files and directories (modes kept; links copied as links with -r/-a/-P). What
//! is new at the destination goes to the host in one change where it can.

use super::stream::complain;
use shell_base::Context;
use shell_base::args::{bad_usage, flags};
use shell_base::errno::io_message;
use std::path::{Path, PathBuf};

/// How `cp` copies.
#[derive(Clone, Copy)]
struct How {
    /// Symbolic links are copied as links (`-r`, `-a`, `-P`, `-d`), else what they point at.
    keep_links: bool,
    /// Permission bits taken off each copy: the umask and the set-id bits (0 with `-p`
    /// and `-a`).
    mask: u32,
    /// Owners and times kept (`-p`, `-a`).
    preserve: bool,
    /// Whether to ask the host first (`-r` keeping links).
    on_host: bool,
}

/// Copies a file or a whole tree. Each part that is new at its destination goes to the
/// host in one change where it can (`how.on_host`), so that a copy into an existing
/// directory (`cp -r src/. dst`) costs a change per entry only where the two trees meet.
fn copy_tree(from: &Path, to: &Path, how: How) -> std::io::Result<()> {
    if how.on_host && copy_on_host(from, to, how.mask, how.preserve) {
        return Ok(());
    }
    let meta = std::fs::symlink_metadata(from)?;
    if how.keep_links && meta.file_type().is_symlink() {
        let target = std::fs::read_link(from)?;
        return crate::ln::symlink(&target.to_string_lossy(), to);
    }
    if meta.is_dir() || (!how.keep_links && from.is_dir()) {
        std::fs::create_dir_all(to)?;
        let mut names: Vec<_> = std::fs::read_dir(from)?
            .filter_map(|e| e.ok())
            .map(|e| e.file_name())
            .collect();
        names.sort();
        for n in names {
            copy_tree(&from.join(&n), &to.join(&n), how)?;
        }
        Ok(())
    } else {
        std::fs::copy(from, to)?;
        let mode = crate::fileinfo::info(from, true).map_or(0o644, |i| i.mode) & 0o7777;
        crate::fileinfo::set_mode(to, mode & !how.mask)
    }
}

/// Copies `from` to the new path `to` on the host in one change (links as links), where it
/// can: `false` when the caller must copy entry by entry (a read-only layer, `to` existing,
/// a host without the call).
fn copy_on_host(from: &Path, to: &Path, mask: u32, preserve: bool) -> bool {
    match (from.to_str(), to.to_str()) {
        (Some(from), Some(to)) => shell_base::host::current()
            .copy_tree(from, to, mask, preserve)
            .is_ok(),
        _ => false,
    }
}

/// Whether directory `from` holds `to` (`cp -r d d/sub`): `to`'s directories compared with
/// `from` as inodes, so that a link on the way counts. With its change time too: a
/// read-only layer numbers its inodes apart from the workspace's.
fn into_itself(from: &Path, to: &Path) -> bool {
    let Ok(dir) = crate::fileinfo::info(from, true) else {
        return false;
    };
    let to = shell_base::path::normalize(&to.to_string_lossy());
    Path::new(&to).ancestors().skip(1).any(|a| {
        crate::fileinfo::info(a, true).is_ok_and(|i| (i.ino, i.ctime) == (dir.ino, dir.ctime))
    })
}

/// `cp`'s long options, as the letters they stand for.
const LONG: &[(&str, char)] = &[
    ("recursive", 'R'),
    ("archive", 'a'),
    ("force", 'f'),
    ("no-clobber", 'n'),
    ("no-dereference", 'P'),
    ("dereference", 'L'),
    ("verbose", 'v'),
    // `--preserve[=ATTRS]`: modes are kept, which is all a workspace file has.
    ("preserve=", 'p'),
];

/// `cp [-r|-R|-a] [-n] [-f] SOURCE... DEST`.
pub async fn cp(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let (flags, mut operands) = match flags(argv, "rRafnPLdpv", LONG) {
        Ok(o) => o,
        Err(e) => return bad_usage(sh, "cp", e, 1).await,
    };
    let recursive = flags.contains('r') || flags.contains('R') || flags.contains('a');
    let no_clobber = flags.contains('n');
    // GNU cp -r copies links as links too (-R implies -P unless -L or -H).
    let keep_links =
        (recursive || flags.contains('P') || flags.contains('d')) && !flags.contains('L');
    let preserve = flags.contains('p') || flags.contains('a');
    // A new copy is the caller's: GNU drops the set-user-ID and set-group-ID bits with the
    // owner.
    let mask = if preserve { 0 } else { sh.umask() | 0o6000 };
    if operands.len() < 2 {
        let msg = if operands.is_empty() {
            "cp: missing file operand".to_string()
        } else {
            format!(
                "cp: missing destination file operand after '{}'",
                operands[0]
            )
        };
        return complain(sh, &format!("{msg}\nTry 'cp --help' for more information.")).await;
    }
    let dest = operands.pop().unwrap_or_default();
    if operands.len() > 1 && !sh.path(&dest).is_dir() {
        return complain(sh, &format!("cp: target '{dest}': {}", not_dir(sh, &dest))).await;
    }
    let mut status = 0;
    for src in operands {
        let from = sh.path(&src);
        let to = target(sh, &src, &dest);
        let meta = match std::fs::metadata(&from) {
            Ok(m) => m,
            Err(e) => {
                status =
                    complain(sh, &format!("cp: cannot stat '{src}': {}", io_message(&e))).await;
                continue;
            }
        };
        if meta.is_dir() && !recursive {
            status = complain(
                sh,
                &format!("cp: -r not specified; omitting directory '{src}'"),
            )
            .await;
            continue;
        }
        if no_clobber && to.exists() {
            continue;
        }
        if to == from {
            let shown = shown_target(sh, &src, &dest);
            status = complain(sh, &format!("cp: '{src}' and '{shown}' are the same file")).await;
            continue;
        }
        if meta.is_dir() && into_itself(&from, &to) {
            let shown = shown_target(sh, &src, &dest);
            status = complain(
                sh,
                &format!("cp: cannot copy a directory, '{src}', into itself, '{shown}'"),
            )
            .await;
            continue;
        }
        if flags.contains('v') {
            let shown = shown_target(sh, &src, &dest);
            crate::stream::out(sh, &format!("'{src}' -> '{shown}'\n")).await;
        }
        let how = How {
            keep_links,
            mask,
            preserve,
            on_host: recursive && keep_links,
        };
        if let Err(e) = copy_tree(&from, &to, how) {
            status = complain(
                sh,
                &format!(
                    "cp: cannot create regular file '{}': {}",
                    to.display(),
                    io_message(&e)
                ),
            )
            .await;
        }
    }
    status
}

/// Where `src` goes: into `dest` if that is a directory, else `dest` itself.
pub(crate) fn target(sh: &dyn Context, src: &str, dest: &str) -> PathBuf {
    let d = sh.path(dest);
    if d.is_dir() {
        let base = src.trim_end_matches('/').rsplit('/').next().unwrap_or(src);
        d.join(base)
    } else {
        d
    }
}

/// `target` as the user would write it (for messages): `dest`, or `dest/NAME` into a
/// directory.
pub(crate) fn shown_target(sh: &dyn Context, src: &str, dest: &str) -> String {
    if sh.path(dest).is_dir() {
        let base = src.trim_end_matches('/').rsplit('/').next().unwrap_or(src);
        format!("{}/{base}", dest.trim_end_matches('/'))
    } else {
        dest.to_string()
    }
}

/// Why several sources cannot go to `dest`.
pub(crate) fn not_dir(sh: &dyn Context, dest: &str) -> &'static str {
    if sh.path(dest).exists() {
        "Not a directory"
    } else {
        "No such file or directory"
    }
}

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::Native;

    #[test]
    fn copies_files_and_trees() {
        let mut ctx = Native::new();
        ctx.write("a", "x").write("d/e", "y");
        assert_eq!(ctx.run(&["cp", "a", "b"], "").status, 0);
        assert_eq!(ctx.read("b"), "x");
        assert_eq!(ctx.run(&["cp", "d", "d2"], "").status, 1);
        assert_eq!(ctx.run(&["cp", "-r", "d", "d2"], "").status, 0);
        assert_eq!(ctx.read("d2/e"), "y");
    }

    /// Found by inode, through a link too; nothing is made (an entry-by-entry copy into
    /// itself would never end).
    #[test]
    fn a_directory_is_not_copied_into_itself() {
        let mut ctx = Native::new();
        ctx.write("d/s/e", "y");
        std::os::unix::fs::symlink("d", ctx.dir().join("l")).unwrap();
        let ran = ctx.run(&["cp", "-r", "d", "d/s"], "");
        assert_eq!(ran.status, 1);
        assert_eq!(
            ran.stderr,
            "cp: cannot copy a directory, 'd', into itself, 'd/s/d'\n"
        );
        assert_eq!(ctx.run(&["cp", "-r", "d", "l/s/t"], "").status, 1);
        assert!(!ctx.dir().join("d/s/d").exists() && !ctx.dir().join("d/s/t").exists());
        assert_eq!(ctx.run(&["cp", "-r", "d/s", "d/s2"], "").status, 0);
        assert_eq!(ctx.read("d/s2/e"), "y");
    }
}
