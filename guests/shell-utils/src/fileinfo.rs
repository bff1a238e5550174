//! Modes and owners, which `wasi:filesystem` does not carry: read and set through the
//! host ([`shell_base::Host`]). Sizes as ext4 counts them and `ls -l`'s lines (`ls`, `stat`,
//! `du`, `tree`, `zip`).

use shell_base::host::FileInfo;
use std::path::Path;

/// A path's metadata from the workspace (`follow`: through a final symbolic link).
pub fn info(path: &Path, follow: bool) -> std::io::Result<FileInfo> {
    shell_base::host::current().stat(&path.to_string_lossy(), follow)
}

/// Sets the permission bits of `path` (through links), as `chmod` does.
pub fn set_mode(path: &Path, mode: u32) -> std::io::Result<()> {
    shell_base::host::current().chmod(&path.to_string_lossy(), mode)
}

/// Gives `to` the modification and access times in `meta` (`cp -p`, `install -p`): a file is
/// opened to write, a directory to read.
pub fn copy_times(meta: &std::fs::Metadata, to: &Path) -> std::io::Result<()> {
    let mut times = std::fs::FileTimes::new();
    if let Ok(t) = meta.modified() {
        times = times.set_modified(t);
    }
    if let Ok(t) = meta.accessed() {
        times = times.set_accessed(t);
    }
    let file = if meta.is_dir() {
        std::fs::File::open(to)?
    } else {
        std::fs::File::options().write(true).open(to)?
    };
    file.set_times(times)
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
pub(crate) fn scaled_size(n: u64, base: f64, units: &[&str]) -> String {
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

/// `ls -l`'s lines for entries (display name, absolute path, inode), columns aligned, and
/// the `total` in 1 KiB blocks.
pub fn long_lines<'e>(
    entries: impl IntoIterator<Item = (&'e str, std::path::PathBuf, &'e FileInfo)>,
    human: bool,
    user: &str,
) -> (u64, Vec<String>) {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    let mut rows = Vec::new();
    let mut total = 0;
    for (name, path, i) in entries {
        let size = apparent_size(i);
        total += disk_kib(i);
        let secs = i.mtime.div_euclid(1_000_000_000);
        // Recent times show the hour, older ones (or future) the year.
        let recent = secs <= now + 3600 && now - secs < 182 * 86_400;
        let when = super::date::format(secs, 0, if recent { "%b %e %H:%M" } else { "%b %e  %Y" });
        let size = if human {
            human_size(size)
        } else {
            size.to_string()
        };
        let mut shown = name.to_string();
        if i.mode & 0o170000 == 0o120000
            && let Ok(target) = std::fs::read_link(&path)
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
