//! Modes and owners, which `wasi:filesystem` does not carry: read and set through the
//! host's `computer:host/workspace` interface. `ls -l`'s lines, `chmod`, `stat`.

use std::path::Path;

use super::stream::{complain, invalid_option};
use crate::bindings::computer::host::workspace::{self, FileInfo};
use crate::builtins::out;
use crate::exec::Interp;

/// A path's metadata from the workspace (`follow`: through a final symbolic link).
pub fn info(path: &Path, follow: bool) -> Result<FileInfo, String> {
    workspace::stat(&path.to_string_lossy(), follow)
}

/// Sets the permission bits of `path` (through links), as `chmod` does.
pub fn set_mode(path: &Path, mode: u32) -> std::io::Result<()> {
    workspace::chmod(&path.to_string_lossy(), mode).map_err(std::io::Error::other)
}

/// `drwxr-xr-x`, with setuid, setgid and sticky bits as `ls` shows them.
pub fn mode_string(mode: u32) -> String {
    let kind = match mode & 0o170000 {
        0o040000 => 'd',
        0o120000 => 'l',
        0o010000 => 'p',
        0o140000 => 's',
        0o060000 => 'b',
        0o020000 => 'c',
        _ => '-',
    };
    let mut s = String::from(kind);
    let special = [(0o4000, 's', 'S'), (0o2000, 's', 'S'), (0o1000, 't', 'T')];
    for (k, who) in [(6, 0), (3, 1), (0, 2)] {
        let bits = (mode >> k) & 7;
        s.push(if bits & 4 != 0 { 'r' } else { '-' });
        s.push(if bits & 2 != 0 { 'w' } else { '-' });
        let (flag, on, off) = special[who];
        s.push(match (bits & 1 != 0, mode & flag != 0) {
            (true, true) => on,
            (false, true) => off,
            (true, false) => 'x',
            (false, false) => '-',
        });
    }
    s
}

/// A user or group name: root for 0, the shell's user for 1000, else the number.
pub fn owner_name(id: u32, user: &str) -> String {
    match id {
        0 => "root".into(),
        1000 => user.into(),
        n => n.to_string(),
    }
}

/// The size `ls -l` and `du -b` show: directories as 4096 bytes, as on ext4.
pub fn apparent_size(i: &FileInfo) -> u64 {
    if i.mode & 0o170000 == 0o040000 {
        4096
    } else {
        i.size
    }
}

/// The space `du` and `ls`'s `total` count, in KiB. The VFS keeps no blocks, so this is what
/// ext4 would use: whole 4 KiB blocks, one for a directory, none for a short symbolic link
/// (kept in the inode).
pub fn disk_kib(i: &FileInfo) -> u64 {
    match i.mode & 0o170000 {
        0o120000 if i.size < 60 => 0,
        _ => apparent_size(i).div_ceil(4096) * 4,
    }
}

/// `ls -h`'s sizes: 1023, 1.0K, 9.9K, 10K, 1.1M...
pub fn human_size(n: u64) -> String {
    scaled_size(n, 1024.0, &["K", "M", "G", "T", "P", "E"])
}

/// `df -H`'s sizes: powers of 1000.
pub fn si_size(n: u64) -> String {
    scaled_size(n, 1000.0, &["k", "M", "G", "T", "P", "E"])
}

/// `n` in the largest unit that keeps it under `base`: one decimal below 10, rounded up as
/// GNU's tools round.
fn scaled_size(n: u64, base: f64, units: &[&str]) -> String {
    if (n as f64) < base {
        return n.to_string();
    }
    let mut v = n as f64;
    for (k, unit) in units.iter().enumerate() {
        v /= base;
        if v < base || k + 1 == units.len() {
            let tenths = (v * 10.0).ceil() / 10.0;
            return if tenths < 10.0 {
                format!("{tenths:.1}{unit}")
            } else {
                format!("{}{unit}", v.ceil() as u64)
            };
        }
    }
    n.to_string()
}

/// `ls -l`'s lines for entries (display name, absolute path), columns aligned, and the
/// `total` in 1 KiB blocks.
pub fn long_lines(
    entries: &[(String, std::path::PathBuf)],
    human: bool,
    user: &str,
) -> (u64, Vec<String>) {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    let mut rows = Vec::new();
    let mut total = 0;
    for (name, path) in entries {
        let Ok(i) = info(path, false) else {
            continue;
        };
        let size = apparent_size(&i);
        total += disk_kib(&i);
        let secs = i.mtime.div_euclid(1_000_000_000);
        // Recent times show the hour, older ones (or future) the year.
        let recent = secs <= now + 3600 && now - secs < 182 * 86_400;
        let when = super::date::format(secs, 0, if recent { "%b %e %H:%M" } else { "%b %e  %Y" });
        let size = if human {
            human_size(size)
        } else {
            size.to_string()
        };
        let mut shown = name.clone();
        if i.mode & 0o170000 == 0o120000
            && let Ok(target) = std::fs::read_link(path)
        {
            shown.push_str(&format!(" -> {}", target.to_string_lossy()));
        }
        rows.push([
            mode_string(i.mode),
            i.nlink.to_string(),
            owner_name(i.uid, user),
            owner_name(i.gid, user),
            size,
            when,
            shown,
        ]);
    }
    let width = |k: usize| rows.iter().map(|r| r[k].chars().count()).max().unwrap_or(0);
    let (wl, wu, wg, ws) = (width(1), width(2), width(3), width(4));
    let lines = rows
        .into_iter()
        .map(|[mode, links, u, g, size, when, name]| {
            format!("{mode} {links:>wl$} {u:<wu$} {g:<wg$} {size:>ws$} {when} {name}")
        })
        .collect();
    (total, lines)
}

/// `chmod [-R] MODE FILE...`: octal (`755`) or symbolic (`u+x`, `go-w`, `a=r`, `+x`, lists
/// joined by commas).
pub async fn chmod(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let mut recursive = false;
    let mut rest = Vec::new();
    for a in &argv[1..] {
        match a.as_str() {
            "-R" | "--recursive" => recursive = true,
            "-v" | "-c" | "-f" | "--verbose" | "--changes" | "--silent" | "--quiet" => {}
            _ => rest.push(a.clone()),
        }
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
    let umask = sh.shell.umask;
    let mut status = 0;
    for f in &rest[1..] {
        let path = sh.shell.path(f);
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
            if let Err(e) = workspace::chmod(&target.to_string_lossy(), mode) {
                status = complain(sh, &format!("chmod: changing permissions of '{f}': {e}")).await;
            }
        }
    }
    status
}

fn collect(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let p = e.path();
            let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
            out.push(p.clone());
            if is_dir {
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

/// `stat [-c FORMAT] [-L] FILE...` (`--format`, `--printf`), or GNU's default report.
pub async fn stat(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let mut format: Option<String> = None;
    let mut follow = false;
    let mut files = Vec::new();
    let mut i = 1;
    while i < argv.len() {
        let a = argv[i].as_str();
        match a {
            "-c" | "--format" | "--printf" => {
                i += 1;
                let mut f = argv.get(i).cloned().unwrap_or_default();
                if a != "--printf" {
                    f.push('\n');
                }
                format = Some(f);
            }
            "-L" | "--dereference" => follow = true,
            s if s.starts_with("--format=") => format = Some(format!("{}\n", &s[9..])),
            s if s.starts_with("--printf=") => format = Some(s[9..].to_string()),
            s if s.starts_with('-') && s.len() > 1 => {
                return invalid_option(sh, "stat", &s[1..]).await;
            }
            s => files.push(s.to_string()),
        }
        i += 1;
    }
    if files.is_empty() {
        return complain(
            sh,
            "stat: missing operand\nTry 'stat --help' for more information.",
        )
        .await;
    }
    let user = sh.shell.get("USER").unwrap_or("user").to_string();
    let mut text = String::new();
    let mut status = 0;
    for f in &files {
        let path = sh.shell.path(f);
        let i = match std::fs::symlink_metadata(&path)
            .map_err(|e| e.to_string())
            .and_then(|_| info(&path, follow))
        {
            Ok(i) => i,
            Err(_) => {
                status = complain(
                    sh,
                    &format!("stat: cannot statx '{f}': No such file or directory"),
                )
                .await;
                continue;
            }
        };
        let fmt = format.clone().unwrap_or_else(|| {
            "  File: %N\n  Size: %s\tBlocks: %b          IO Block: 4096   %F\nDevice: 0h/0d\tInode: %i     Links: %h\nAccess: (%04a/%A)  Uid: (%5u/%8U)   Gid: (%5g/%8G)\nAccess: %x\nModify: %y\nChange: %z\n Birth: -\n".into()
        });
        text.push_str(&render(&fmt, f, &path, &i, &user));
    }
    match out(sh, &text).await {
        0 => status,
        s => s,
    }
}

fn render(fmt: &str, name: &str, path: &Path, i: &FileInfo, user: &str) -> String {
    let kind = match i.mode & 0o170000 {
        0o040000 => "directory",
        0o120000 => "symbolic link",
        _ if i.size == 0 => "regular empty file",
        _ => "regular file",
    };
    let time = |ns: i64| {
        let secs = ns.div_euclid(1_000_000_000);
        let nanos = ns.rem_euclid(1_000_000_000) as u32;
        super::date::format(secs, nanos, "%Y-%m-%d %H:%M:%S.%N +0000")
    };
    let mut out = String::new();
    let mut chars = fmt.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('\\') => out.push('\\'),
                Some(o) => {
                    out.push('\\');
                    out.push(o);
                }
                None => out.push('\\'),
            }
            continue;
        }
        if c != '%' {
            out.push(c);
            continue;
        }
        // Zero padding and width (`%04a`).
        let mut spec = String::new();
        while let Some(&d) = chars.peek() {
            if d.is_ascii_digit() || d == '-' {
                spec.push(d);
                chars.next();
            } else {
                break;
            }
        }
        let Some(k) = chars.next() else {
            out.push('%');
            break;
        };
        let piece = match k {
            'n' => name.to_string(),
            'N' => {
                let mut s = format!("'{name}'");
                if i.mode & 0o170000 == 0o120000
                    && let Ok(t) = std::fs::read_link(path)
                {
                    s.push_str(&format!(" -> '{}'", t.to_string_lossy()));
                }
                s
            }
            's' => i.size.to_string(),
            'b' => (i.size.div_ceil(4096) * 8).to_string(),
            'B' => "512".into(),
            'o' => "4096".into(),
            'a' => format!("{:o}", i.mode & 0o7777),
            'A' => mode_string(i.mode),
            'f' => format!("{:x}", i.mode),
            'F' => kind.into(),
            'h' => i.nlink.to_string(),
            'i' => i.ino.to_string(),
            'u' => i.uid.to_string(),
            'g' => i.gid.to_string(),
            'U' => owner_name(i.uid, user),
            'G' => owner_name(i.gid, user),
            'x' => time(i.atime),
            'y' => time(i.mtime),
            'z' => time(i.ctime),
            'w' => "-".into(),
            'X' => i.atime.div_euclid(1_000_000_000).to_string(),
            'Y' => i.mtime.div_euclid(1_000_000_000).to_string(),
            'Z' => i.ctime.div_euclid(1_000_000_000).to_string(),
            'W' => "0".into(),
            'd' | 'D' => "0".into(),
            'm' => "/".into(),
            '%' => "%".into(),
            other => format!("%{other}"),
        };
        out.push_str(&pad(&piece, &spec));
    }
    out
}

/// Applies a `%5u`/`%-8U`/`%04a` width to a piece.
fn pad(piece: &str, spec: &str) -> String {
    let left = spec.starts_with('-');
    let zero = spec.trim_start_matches('-').starts_with('0');
    let width: usize = spec.trim_start_matches('-').parse().unwrap_or(0);
    let len = piece.chars().count();
    if len >= width {
        return piece.to_string();
    }
    let fill = width - len;
    if left {
        format!("{piece}{}", " ".repeat(fill))
    } else if zero {
        format!("{}{piece}", "0".repeat(fill))
    } else {
        format!("{}{piece}", " ".repeat(fill))
    }
}
