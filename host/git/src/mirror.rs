//! The host copy of a repository's `.git`.
//!
//! gix reads and writes repositories through the host's filesystem, while a workspace keeps
//! its repositories (`.git` included) in the VFS, where the container's real `git` and the
//! agents' tools see them. So each operation first makes a host directory a copy of the VFS
//! `.git` (copying only what differs by type, size, mtime and mode: refs and the index
//! change, objects and packs never do) and, after an operation that changed something,
//! copies the host directory back the same way. The worktree never leaves the VFS.

use std::collections::HashSet;
use std::fs::{self, File, FileTimes};
use std::io::{Read, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt, symlink};
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
    let entries = vfs.walk(src).at(src)?;
    let mut seen = HashSet::with_capacity(entries.len());
    for entry in &entries {
        let dest = rebase(&entry.path, src, host);
        seen.insert(dest.clone());
        let present = fs::symlink_metadata(&dest).ok();
        match entry.stat.kind {
            FileType::Dir => {
                if !present.as_ref().is_some_and(|m| m.is_dir()) {
                    remove_host(&dest)?;
                    fs::create_dir_all(&dest)?;
                    stats.copied += 1;
                }
            }
            FileType::Symlink => {
                let target = vfs.read_link(&entry.path).at(&entry.path)?;
                if present.is_none() || fs::read_link(&dest).ok().as_deref() != Some(&target) {
                    remove_host(&dest)?;
                    symlink(&target, &dest)?;
                    stats.copied += 1;
                }
            }
            FileType::File => {
                let same = present.as_ref().is_some_and(|m| {
                    m.is_file()
                        && m.len() == entry.stat.size
                        && mtime_ns(m) == entry.stat.mtime
                        && m.mode() & 0o7777 == entry.stat.perm
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
        if seen.contains(&entry.path) || removed_dirs.iter().any(|d| entry.path.starts_with(d)) {
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

fn copy_file_to_host(vfs: &Vfs, src: &Path, stat: &Stat, dest: &Path) -> Result<()> {
    let mut out = File::create(dest)?;
    let mut offset = 0;
    while offset < stat.size {
        let piece = vfs.read_range(src, offset, PIECE).at(src)?;
        if piece.is_empty() {
            break;
        }
        out.write_all(&piece)?;
        offset += piece.len() as u64;
    }
    out.set_permissions(fs::Permissions::from_mode(stat.perm))?;
    out.set_times(FileTimes::new().set_modified(system_time(stat.mtime)))?;
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
