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

/// `-v`'s names of what is being copied, as the user wrote the paths, and its lines so far.
struct Told {
    from: String,
    to: String,
    lines: Vec<String>,
}

impl Told {
    /// Goes down to entry `name`; the names it leaves, to come back to.
    fn inside(&mut self, name: &str) -> (String, String) {
        let join = |path: &str| format!("{}/{name}", path.trim_end_matches('/'));
        let below = (join(&self.from), join(&self.to));
        (
            std::mem::replace(&mut self.from, below.0),
            std::mem::replace(&mut self.to, below.1),
        )
    }

    fn say(&mut self) {
        self.lines
            .push(format!("'{}' -> '{}'\n", self.from, self.to));
    }
}

/// Copies a file or a whole tree. Each part that is new at its destination goes to the
/// host in one change where it can (`how.on_host`), so that a copy into an existing
/// directory (`cp -r src/. dst`) costs a change per entry only where the two trees meet.
/// With `told`, each entry made is named, a directory before what is in it (in name order;
/// GNU's is the order the directory lists them in).
fn copy_tree(from: &Path, to: &Path, how: How, told: &mut Option<Told>) -> std::io::Result<()> {
    if how.on_host && copy_on_host(from, to, how.mask, how.preserve) {
        if let Some(told) = told {
            name_tree(to, told);
        }
        return Ok(());
    }
    let meta = std::fs::symlink_metadata(from)?;
    if how.keep_links && meta.file_type().is_symlink() {
        let target = std::fs::read_link(from)?;
        crate::ln::symlink(&target.to_string_lossy(), to)?;
        if let Some(t) = told {
            t.say();
        }
        return Ok(());
    }
    // What a link that is followed points at.
    let meta = if meta.is_symlink() {
        std::fs::metadata(from)?
    } else {
        meta
    };
    if meta.is_dir() {
        if !to.is_dir() {
            std::fs::create_dir_all(to)?;
            if let Some(t) = told {
                t.say();
            }
        }
        for n in sorted_names(from)? {
            let above = told.as_mut().map(|t| t.inside(&n.to_string_lossy()));
            let copied = copy_tree(&from.join(&n), &to.join(&n), how, told);
            if let (Some(t), Some((f, d))) = (told.as_mut(), above) {
                (t.from, t.to) = (f, d);
            }
            copied?;
        }
    } else {
        std::fs::copy(from, to)?;
        let mode = crate::fileinfo::info(from, true).map_or(0o644, |i| i.mode) & 0o7777;
        crate::fileinfo::set_mode(to, mode & !how.mask)?;
        if let Some(t) = told {
            t.say();
        }
    }
    // A directory's times after its entries, which change them.
    if how.preserve {
        crate::fileinfo::copy_times(&meta, to)?;
    }
    Ok(())
}

/// The names in directory `dir`, sorted.
fn sorted_names(dir: &Path) -> std::io::Result<Vec<std::ffi::OsString>> {
    Ok(shell_base::dir::names(dir)?
        .into_iter()
        .map(Into::into)
        .collect())
}

/// `-v`'s lines for a tree the host copied whole: `to` and all in it.
fn name_tree(to: &Path, told: &mut Told) {
    told.say();
    if !std::fs::symlink_metadata(to).is_ok_and(|m| m.is_dir()) {
        return;
    }
    for n in sorted_names(to).unwrap_or_default() {
        let (f, d) = told.inside(&n.to_string_lossy());
        name_tree(&to.join(&n), told);
        (told.from, told.to) = (f, d);
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
    // `--preserve[=ATTRS]`: modes, owners and times, whatever ATTRS names.
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
        let how = How {
            keep_links,
            mask,
            preserve,
            on_host: recursive && keep_links,
        };
        let mut told = flags.contains('v').then(|| Told {
            from: src.clone(),
            to: shown_target(sh, &src, &dest),
            lines: Vec::new(),
        });
        let copied = copy_tree(&from, &to, how, &mut told);
        if let Some(t) = told {
            crate::stream::out(sh, &t.lines.concat()).await;
        }
        if let Err(e) = copied {
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

    /// `-v` names every entry made, a directory first, and not one that was there.
    #[test]
    fn verbose_names_every_entry_made() {
        let mut ctx = Native::new();
        ctx.write("d/s/g", "y")
            .write("d/f", "x")
            .write("m/s/old", "z");
        let ran = ctx.run(&["cp", "-rv", "d/", "m/"], "");
        assert_eq!(
            ran.stdout,
            "'d/' -> 'm/d'\n'd/f' -> 'm/d/f'\n'd/s' -> 'm/d/s'\n'd/s/g' -> 'm/d/s/g'\n"
        );
        let ran = ctx.run(&["cp", "-rv", "d/.", "m"], "");
        assert_eq!(ran.stdout, "'d/./f' -> 'm/./f'\n'd/./s/g' -> 'm/./s/g'\n");
    }

    /// Entry by entry, `-p` gives each copy its source's times, a directory's after its
    /// entries were made in it.
    #[test]
    fn preserve_keeps_times() {
        let mut ctx = Native::new();
        ctx.write("d/s/f", "x").write("g", "y");
        let old = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000_000);
        for p in ["d/s/f", "d/s", "d", "g"] {
            let path = ctx.dir().join(p);
            let file = if path.is_dir() {
                std::fs::File::open(path)
            } else {
                std::fs::File::options().write(true).open(path)
            };
            file.unwrap().set_modified(old).unwrap();
        }
        assert_eq!(ctx.run(&["cp", "-p", "g", "h"], "").status, 0);
        assert_eq!(ctx.run(&["cp", "-rp", "d", "e"], "").status, 0);
        assert_eq!(ctx.run(&["cp", "-r", "d", "n"], "").status, 0);
        let mtime = |p: &str| {
            let meta = std::fs::metadata(ctx.dir().join(p)).unwrap();
            meta.modified().unwrap()
        };
        for p in ["h", "e", "e/s", "e/s/f"] {
            assert_eq!(mtime(p), old, "{p}");
        }
        assert!(mtime("n/s/f") > old);
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
