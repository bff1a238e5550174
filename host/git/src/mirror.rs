//! The host copy of a repository's `.git`.
//!
//! gix reads and writes repositories through the host's filesystem, while a workspace keeps
//! its repositories (`.git` included) in the VFS, where the container's real `git` and the
//! agents' tools see them. So each operation first makes a host directory a copy of the VFS
//! `.git` (copying only what differs by type, size, mtime and mode: refs and the index
//! change, objects and packs never do) and, after an operation that changed something,
//! copies the host directory back the same way. The worktree never leaves the VFS.
//!
//! The VFS `.git` is the guest's, so the host copy must never lead out of the cache: a
//! symlink anywhere in `.git`, an `objects/info/alternates` (or `http-alternates`) file and a
//! `commondir` file are refused with an error, since gix would follow them to host paths (any
//! host file, or another workspace's cache). `config` reaches the host filtered
//! ([`crate::config_filter`]). The host copy holds regular files and directories only, and
//! every file is written to a fresh name and renamed into place, so no write follows a link.

use std::collections::HashSet;
use std::fs::{self, File, FileTimes};
use std::io::{Read, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use computer_vfs::{FileType, Stat, Vfs, VfsError};

use crate::error::{AtPath, Result};

/// Bytes copied per read or write, so a large pack never sits whole in memory.
const PIECE: u64 = 8 << 20;

/// What a sync copied and removed.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct SyncStats {
    /// Files, links and directories written.
    pub copied: usize,
    /// Entries removed because the source no longer has them.
    pub removed: usize,
}

/// Makes the host directory `host` a copy of the VFS directory `src`.
pub(crate) fn to_host(vfs: &Vfs, src: &Path, host: &Path) -> Result<SyncStats> {
    let mut stats = SyncStats::default();
    if vfs.lstat(src).at(src)?.kind == FileType::Symlink {
        return Err(refused(src, "is a symbolic link"));
    }
    let entries = vfs.walk(src).at(src)?;
    let mut seen = HashSet::with_capacity(entries.len());
    for entry in &entries {
        // A repository holds no FIFOs, sockets or devices; one put there is not copied (and a
        // device node is never made on the host).
        if entry.stat.kind.is_special() {
            continue;
        }
        let dest = rebase(&entry.path, src, host);
        seen.insert(dest.clone());
        let rel = entry.path.strip_prefix(src).unwrap_or(&entry.path);
        let present = fs::symlink_metadata(&dest).ok();
        match entry.stat.kind {
            FileType::Dir => {
                if !present.as_ref().is_some_and(|m| m.is_dir()) {
                    remove_host(&dest)?;
                    fs::DirBuilder::new()
                        .recursive(true)
                        .mode(0o700)
                        .create(&dest)?;
                    stats.copied += 1;
                }
            }
            FileType::Symlink => {
                return Err(refused(&entry.path, "is a symbolic link"));
            }
            FileType::File if REFUSED_FILES.iter().any(|f| rel == Path::new(f)) => {
                return Err(refused(
                    &entry.path,
                    "would point the host outside this repository",
                ));
            }
            FileType::File if rel == Path::new("config") => {
                let config = read_all(vfs, &entry.path, &entry.stat)?;
                let filtered = crate::config_filter::split(&config, true)?;
                if fs::read(&dest).ok().as_deref() != Some(&filtered[..]) || present.is_none() {
                    remove_host(&dest)?;
                    write_host(&dest, &filtered, 0o600)?;
                    stats.copied += 1;
                }
            }
            _ => {
                let same = present.as_ref().is_some_and(|m| {
                    m.is_file()
                        && m.len() == entry.stat.size
                        && mtime_ns(m) == entry.stat.mtime
                        && m.mode() & 0o7777 == entry.stat.perm & 0o777
                });
                if !same {
                    remove_host(&dest)?;
                    copy_file_to_host(vfs, &entry.path, &entry.stat, &dest)?;
                    stats.copied += 1;
                }
            }
        }
    }
    // Remove what the VFS no longer has, children before their directories.
    for item in walkdir::WalkDir::new(host).contents_first(true) {
        let item = item.map_err(std::io::Error::from)?;
        if !seen.contains(item.path()) {
            remove_host(item.path())?;
            stats.removed += 1;
        }
    }
    Ok(stats)
}

/// Makes the VFS directory `dest` a copy of the host directory `host`.
pub(crate) fn to_vfs(host: &Path, vfs: &Vfs, dest: &Path) -> Result<SyncStats> {
    let mut stats = SyncStats::default();
    let mut seen = HashSet::new();
    for item in walkdir::WalkDir::new(host).sort_by_file_name() {
        let item = item.map_err(std::io::Error::from)?;
        let target = rebase(item.path(), host, dest);
        seen.insert(target.clone());
        let meta = item.path().symlink_metadata()?;
        let present = match vfs.lstat(&target) {
            Ok(stat) => Some(stat),
            Err(VfsError::NotFound) => None,
            Err(e) => return Err(crate::GitError::failed(target.display(), e)),
        };
        if meta.is_dir() {
            if !present.as_ref().is_some_and(|s| s.kind == FileType::Dir) {
                remove_vfs(vfs, &target, present.as_ref())?;
                vfs.create_dir_all(&target).at(&target)?;
                stats.copied += 1;
            }
        } else if meta.is_symlink() {
            let link = fs::read_link(item.path())?;
            let same = present
                .as_ref()
                .is_some_and(|s| s.kind == FileType::Symlink)
                && vfs.read_link(&target).ok().as_deref() == Some(&link);
            if !same {
                remove_vfs(vfs, &target, present.as_ref())?;
                vfs.symlink(&link, &target).at(&target)?;
                stats.copied += 1;
            }
        } else if meta.is_file() && item.path() == host.join("config") {
            let config = fs::read(item.path())?;
            let original = match &present {
                Some(stat) if stat.kind == FileType::File => read_all(vfs, &target, stat)?,
                _ => Vec::new(),
            };
            if config != crate::config_filter::split(&original, true)? {
                let merged = crate::config_filter::merge(&config, &original)?;
                remove_vfs(vfs, &target, present.as_ref())?;
                vfs.write_file(&target, &merged).at(&target)?;
                stats.copied += 1;
            }
        } else if meta.is_file() {
            let same = present.as_ref().is_some_and(|s| {
                s.kind == FileType::File
                    && s.size == meta.len()
                    && s.mtime == mtime_ns(&meta)
                    && s.perm == meta.mode() & 0o7777
            });
            if !same {
                remove_vfs(vfs, &target, present.as_ref())?;
                copy_file_to_vfs(item.path(), &meta, vfs, &target)?;
                stats.copied += 1;
            }
        }
    }
    let mut removed_dirs: Vec<PathBuf> = Vec::new();
    for entry in vfs.walk(dest).at(dest)? {
        // Special files were never mirrored: keep them.
        if seen.contains(&entry.path)
            || entry.stat.kind.is_special()
            || removed_dirs.iter().any(|d| entry.path.starts_with(d))
        {
            continue;
        }
        vfs.remove_all(&entry.path).at(&entry.path)?;
        stats.removed += 1;
        if entry.stat.kind == FileType::Dir {
            removed_dirs.push(entry.path);
        }
    }
    Ok(stats)
}

/// Files of `.git` that would make gix read outside the repository's own directory.
const REFUSED_FILES: [&str; 3] = [
    "objects/info/alternates",
    "objects/info/http-alternates",
    "commondir",
];

fn refused(path: &Path, why: &str) -> crate::GitError {
    crate::GitError::Unsupported(format!(
        "{}: {why}; refused inside .git (the host's git works on a private copy of .git \
         and never follows it out; the container's git can use this repository)",
        path.display()
    ))
}

fn read_all(vfs: &Vfs, path: &Path, stat: &Stat) -> Result<Vec<u8>> {
    if stat.size > PIECE {
        return Err(crate::GitError::Failed(format!(
            "{}: {} bytes is too large for a git config file",
            path.display(),
            stat.size
        )));
    }
    vfs.read_file(path).at(path)
}

/// Writes `bytes` to the host path `dest` in the cache: to a new file beside it (created
/// exclusively, never through a link), then renamed over `dest`.
pub(crate) fn write_host(dest: &Path, bytes: &[u8], mode: u32) -> Result<()> {
    let temp = temp_name(dest);
    let mut out = create_new(&temp, mode)?;
    out.write_all(bytes)?;
    drop(out);
    fs::rename(&temp, dest)?;
    Ok(())
}

fn temp_name(dest: &Path) -> PathBuf {
    let mut name = dest.as_os_str().to_owned();
    name.push(format!(".computer-tmp-{}", std::process::id()));
    PathBuf::from(name)
}

/// A file created where nothing was (`O_EXCL` fails on any existing name, a link included).
fn create_new(path: &Path, mode: u32) -> Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    let _ = fs::remove_file(path);
    Ok(fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)?)
}

fn copy_file_to_host(vfs: &Vfs, src: &Path, stat: &Stat, dest: &Path) -> Result<()> {
    let temp = temp_name(dest);
    let mut out = create_new(&temp, 0o600)?;
    let mut offset = 0;
    while offset < stat.size {
        let piece = vfs.read_range(src, offset, PIECE).at(src)?;
        if piece.is_empty() {
            break;
        }
        out.write_all(&piece)?;
        offset += piece.len() as u64;
    }
    // No set-id or sticky bits on the host, whatever the guest set.
    out.set_permissions(fs::Permissions::from_mode(stat.perm & 0o777))?;
    out.set_times(FileTimes::new().set_modified(system_time(stat.mtime)))?;
    drop(out);
    fs::rename(&temp, dest)?;
    Ok(())
}

fn copy_file_to_vfs(src: &Path, meta: &fs::Metadata, vfs: &Vfs, dest: &Path) -> Result<()> {
    let mut input = File::open(src)?;
    let mut buf = vec![0; PIECE.min(meta.len()) as usize];
    vfs.batch(|b| {
        b.write_file(dest, &[], meta.mode() & 0o7777)?;
        let mut offset = 0;
        loop {
            let n = input.read(&mut buf).map_err(VfsError::Io)?;
            if n == 0 {
                break;
            }
            b.write_at(dest, offset, &buf[..n])?;
            offset += n as u64;
        }
        b.set_metadata(dest, Some(meta.mode() & 0o7777), None, Some(mtime_ns(meta)))?;
        Ok(())
    })
    .at(dest)
}

/// `path` (below `from`) moved below `to`.
fn rebase(path: &Path, from: &Path, to: &Path) -> PathBuf {
    match path.strip_prefix(from) {
        Ok(rel) if !rel.as_os_str().is_empty() => to.join(rel),
        _ => to.to_path_buf(),
    }
}

fn remove_host(path: &Path) -> Result<()> {
    match fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => fs::remove_dir_all(path)?,
        Ok(_) => fs::remove_file(path)?,
        Err(_) => {}
    }
    Ok(())
}

fn remove_vfs(vfs: &Vfs, path: &Path, present: Option<&Stat>) -> Result<()> {
    if present.is_some() {
        vfs.remove_all(path).at(path)?;
    }
    Ok(())
}

/// A host file's mtime in nanoseconds since the epoch, as the VFS keeps it.
pub(crate) fn mtime_ns(meta: &fs::Metadata) -> i64 {
    meta.mtime() * 1_000_000_000 + meta.mtime_nsec()
}

fn system_time(ns: i64) -> SystemTime {
    if ns >= 0 {
        UNIX_EPOCH + Duration::from_nanos(ns as u64)
    } else {
        UNIX_EPOCH - Duration::from_nanos(ns.unsigned_abs())
    }
}
