//! Listing and moving files: `ls` (one name per line, as GNU ls writes to a pipe), `cp`,
//! `mv`, `rmdir`.

use std::path::{Path, PathBuf};

use super::stream::{Stop, Writer, complain, split_flags};
use crate::exec::{Interp, io_message};

struct Item {
    name: String,
    meta: std::fs::Metadata,
}

fn suffix(meta: &std::fs::Metadata, classify: bool, slash: bool) -> &'static str {
    if meta.is_dir() && (classify || slash) {
        "/"
    } else if meta.file_type().is_symlink() && classify {
        "@"
    } else {
        ""
    }
}

fn sort_items(items: &mut [Item], flags: &str) {
    if flags.contains('U') || flags.contains('f') {
        return;
    }
    if flags.contains('t') {
        items.sort_by(|a, b| {
            let (ta, tb) = (a.meta.modified().ok(), b.meta.modified().ok());
            tb.cmp(&ta).then_with(|| a.name.cmp(&b.name))
        });
    } else if flags.contains('S') {
        items.sort_by(|a, b| {
            b.meta
                .len()
                .cmp(&a.meta.len())
                .then_with(|| a.name.cmp(&b.name))
        });
    } else {
        items.sort_by(|a, b| a.name.cmp(&b.name));
    }
    if flags.contains('r') {
        items.reverse();
    }
}

/// `ls [-laAdFhpRrtS1] [FILE...]`.
pub async fn ls(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let (flags, operands) = split_flags(argv);
    if let Some(bad) = flags.chars().find(|c| !"aAdFpRrtS1UfhlLm".contains(*c)) {
        return complain(
            sh,
            &format!("ls: invalid option -- '{bad}'\nTry 'ls --help' for more information."),
        )
        .await
            + 1;
    }
    // `-l`: modes and owners come from the workspace (WASI has none).
    let long = flags.contains('l');
    let human = flags.contains('h');
    let user = sh.shell.get("USER").unwrap_or("user").to_string();
    let show_all = flags.contains('a') || flags.contains('f');
    let almost = flags.contains('A');
    let classify = flags.contains('F');
    let slash = flags.contains('p');
    let operands = if operands.is_empty() {
        vec![".".to_string()]
    } else {
        operands
    };
    let mut status = 0;
    let mut files = Vec::new();
    let mut dirs = Vec::new();
    let mut virtual_text = String::new();
    for o in &operands {
        match std::fs::metadata(sh.shell.path(o)) {
            Ok(m) if m.is_dir() && !flags.contains('d') => dirs.push(o.clone()),
            Ok(meta) => files.push(Item {
                name: o.clone(),
                meta,
            }),
            Err(_) if standard_entries(o, long, flags.contains('d'), &mut virtual_text) => {}
            Err(e) => {
                status = 2;
                complain(sh, &format!("ls: cannot access '{o}': {}", io_message(&e))).await;
            }
        }
    }
    sort_items(&mut files, &flags);
    dirs.sort();
    if flags.contains('r') {
        dirs.reverse();
    }
    let mut out = Writer::new(&sh.io.stdout);
    let mut text = String::new();
    if long {
        let entries: Vec<(String, PathBuf)> = files
            .iter()
            .map(|f| (f.name.clone(), sh.shell.path(&f.name)))
            .collect();
        for line in super::meta::long_lines(&entries, human, &user).1 {
            text.push_str(&line);
            text.push('\n');
        }
    } else {
        for f in &files {
            text.push_str(&format!("{}{}\n", f.name, suffix(&f.meta, classify, slash)));
        }
    }
    text.push_str(&virtual_text);
    let headers = operands.len() > 1 || flags.contains('R');
    let mut queue: Vec<String> = dirs;
    let mut first = files.is_empty();
    while !queue.is_empty() {
        let dir = queue.remove(0);
        let path = sh.shell.path(&dir);
        let entries = match std::fs::read_dir(&path) {
            Ok(e) => e,
            Err(e) => {
                status = 2;
                complain(
                    sh,
                    &format!("ls: cannot open directory '{dir}': {}", io_message(&e)),
                )
                .await;
                continue;
            }
        };
        let mut items: Vec<Item> = entries
            .filter_map(|e| {
                let e = e.ok()?;
                let name = e.file_name().to_string_lossy().into_owned();
                let meta = std::fs::symlink_metadata(e.path()).ok()?;
                Some(Item { name, meta })
            })
            .filter(|i| show_all || almost || !i.name.starts_with('.'))
            .collect();
        if show_all {
            for dot in [".", ".."] {
                if let Ok(meta) = std::fs::metadata(path.join(dot)) {
                    items.push(Item {
                        name: dot.into(),
                        meta,
                    });
                }
            }
        }
        sort_items(&mut items, &flags);
        if headers {
            if !first {
                text.push('\n');
            }
            text.push_str(&format!("{dir}:\n"));
        }
        first = false;
        if long {
            let entries: Vec<(String, PathBuf)> = items
                .iter()
                .map(|i| (i.name.clone(), path.join(&i.name)))
                .collect();
            let (total, lines) = super::meta::long_lines(&entries, human, &user);
            let total = if human {
                super::meta::human_size(total * 1024)
            } else {
                total.to_string()
            };
            text.push_str(&format!("total {total}\n"));
            for line in lines {
                text.push_str(&line);
                text.push('\n');
            }
        }
        let mut subdirs = Vec::new();
        for i in &items {
            if !long {
                text.push_str(&format!("{}{}\n", i.name, suffix(&i.meta, classify, slash)));
            }
            if flags.contains('R') && i.meta.is_dir() && i.name != "." && i.name != ".." {
                subdirs.push(if dir.ends_with('/') {
                    format!("{dir}{}", i.name)
                } else {
                    format!("{dir}/{}", i.name)
                });
            }
        }
        // Depth first, as GNU ls -R lists.
        for (k, d) in subdirs.into_iter().enumerate() {
            queue.insert(k, d);
        }
        if text.len() > 1 << 16 {
            if let Err(Stop(s)) = out.write_str(&text).await {
                return s;
            }
            text.clear();
        }
    }
    if flags.contains('m') && !long && !headers {
        // `-m`: the names across, separated by commas.
        let names: Vec<&str> = text.lines().collect();
        text = format!("{}\n", names.join(", "));
    }
    match out.write_str(&text).await.and(out.flush().await) {
        Ok(()) => status,
        Err(Stop(s)) => s,
    }
}

/// Copies a file or a whole tree; symbolic links inside are copied as links when
/// `keep_links` (`-a`, `-P`, `-d`), else what they point at.
/// Files get the source's permission bits less `mask` (the umask; 0 with `-p` and `-a`).
fn copy_tree(from: &Path, to: &Path, keep_links: bool, mask: u32) -> std::io::Result<()> {
    let meta = std::fs::symlink_metadata(from)?;
    if keep_links && meta.file_type().is_symlink() {
        let target = std::fs::read_link(from)?;
        return super::links::symlink(&target.to_string_lossy(), to);
    }
    if meta.is_dir() || (!keep_links && from.is_dir()) {
        std::fs::create_dir_all(to)?;
        let mut names: Vec<_> = std::fs::read_dir(from)?
            .filter_map(|e| e.ok())
            .map(|e| e.file_name())
            .collect();
        names.sort();
        for n in names {
            copy_tree(&from.join(&n), &to.join(&n), keep_links, mask)?;
        }
        Ok(())
    } else {
        std::fs::copy(from, to)?;
        let mode = super::meta::info(from, true).map_or(0o644, |i| i.mode) & 0o7777;
        super::meta::set_mode(to, mode & !mask)
    }
}

/// Where `src` goes: into `dest` if that is a directory, else `dest` itself.
fn target(sh: &Interp<'_>, src: &str, dest: &str) -> PathBuf {
    let d = sh.shell.path(dest);
    if d.is_dir() {
        let base = src.trim_end_matches('/').rsplit('/').next().unwrap_or(src);
        d.join(base)
    } else {
        d
    }
}

/// `target` as the user would write it (for messages): `dest`, or `dest/NAME` into a
/// directory.
fn shown_target(sh: &Interp<'_>, src: &str, dest: &str) -> String {
    if sh.shell.path(dest).is_dir() {
        let base = src.trim_end_matches('/').rsplit('/').next().unwrap_or(src);
        format!("{}/{base}", dest.trim_end_matches('/'))
    } else {
        dest.to_string()
    }
}

/// Why several sources cannot go to `dest`.
fn not_dir(sh: &Interp<'_>, dest: &str) -> &'static str {
    if sh.shell.path(dest).exists() {
        "Not a directory"
    } else {
        "No such file or directory"
    }
}

/// `cp [-r|-R|-a] [-n] [-f] SOURCE... DEST`.
pub async fn cp(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let (flags, mut operands) = split_flags(argv);
    let recursive = flags.contains('r') || flags.contains('R') || flags.contains('a');
    let no_clobber = flags.contains('n');
    // GNU cp -r copies links as links too (-R implies -P unless -L or -H).
    let keep_links =
        (recursive || flags.contains('P') || flags.contains('d')) && !flags.contains('L');
    let mask = if flags.contains('p') || flags.contains('a') {
        0
    } else {
        sh.shell.umask
    };
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
    if operands.len() > 1 && !sh.shell.path(&dest).is_dir() {
        return complain(sh, &format!("cp: target '{dest}': {}", not_dir(sh, &dest))).await;
    }
    let mut status = 0;
    for src in operands {
        let from = sh.shell.path(&src);
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
        if flags.contains('v') {
            let shown = shown_target(sh, &src, &dest);
            crate::builtins::out(sh, &format!("'{src}' -> '{shown}'\n")).await;
        }
        if let Err(e) = copy_tree(&from, &to, keep_links, mask) {
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

/// `mv [-f] [-n] SOURCE... DEST`.
pub async fn mv(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let (flags, mut operands) = split_flags(argv);
    if operands.len() < 2 {
        let msg = if operands.is_empty() {
            "mv: missing file operand".to_string()
        } else {
            format!(
                "mv: missing destination file operand after '{}'",
                operands[0]
            )
        };
        return complain(sh, &format!("{msg}\nTry 'mv --help' for more information.")).await;
    }
    let dest = operands.pop().unwrap_or_default();
    if operands.len() > 1 && !sh.shell.path(&dest).is_dir() {
        return complain(sh, &format!("mv: target '{dest}': {}", not_dir(sh, &dest))).await;
    }
    let mut status = 0;
    for src in operands {
        let from = sh.shell.path(&src);
        let to = target(sh, &src, &dest);
        if std::fs::symlink_metadata(&from).is_err() {
            status = complain(
                sh,
                &format!("mv: cannot stat '{src}': No such file or directory"),
            )
            .await;
            continue;
        }
        if flags.contains('n') && to.exists() {
            continue;
        }
        if to.starts_with(&from) && to != from {
            let shown = shown_target(sh, &src, &dest);
            status = complain(
                sh,
                &format!("mv: cannot move '{src}' to a subdirectory of itself, '{shown}'"),
            )
            .await;
            continue;
        }
        let shown = shown_target(sh, &src, &dest);
        match std::fs::rename(&from, &to) {
            Err(e) => {
                status = complain(
                    sh,
                    &format!("mv: cannot move '{src}' to '{dest}': {}", io_message(&e)),
                )
                .await;
            }
            Ok(()) if flags.contains('v') => {
                crate::builtins::out(sh, &format!("renamed '{src}' -> '{shown}'\n")).await;
            }
            Ok(()) => {}
        }
    }
    status
}

/// `rmdir [-p] DIR...`.
pub async fn rmdir(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let (flags, dirs) = split_flags(argv);
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
            if let Err(e) = std::fs::remove_dir(sh.shell.path(&current)) {
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

/// `ls /usr/bin` and `ls -l /bin/env` when the workspace has no such path: the built-in
/// commands, shown as read-only programs. Whether `operand` was such a path.
fn standard_entries(operand: &str, long: bool, dir_itself: bool, text: &mut String) -> bool {
    let line = |name: &str| {
        if long {
            let size = super::standard_file_text(name.rsplit('/').next().unwrap_or(name)).len();
            format!("-r-xr-xr-x 1 root root {size} Jan  1  1970 {name}\n")
        } else {
            format!("{name}\n")
        }
    };
    if super::is_standard_dir(operand) {
        if dir_itself {
            text.push_str(&if long {
                format!("dr-xr-xr-x 2 root root 0 Jan  1  1970 {operand}\n")
            } else {
                format!("{operand}\n")
            });
        } else {
            for name in super::standard_names() {
                text.push_str(&line(name));
            }
        }
        return true;
    }
    if super::standard_path(operand).is_some() {
        text.push_str(&line(operand));
        return true;
    }
    false
}
