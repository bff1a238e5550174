//! Importing a host folder or a tar / tar.gz archive into the workspace.
//!
//! Entries are committed in batches (one transaction each) so a big tree costs few commits;
//! files over a batch's budget are streamed in pieces. An import is not all-or-nothing: what
//! was committed stays if it fails midway, and running it again overwrites to the same result.
//! Existing entries of another type at a destination path are replaced, and a symlink already
//! in the workspace is never written through.

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{BufReader, Read};
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use computer_vfs::{Batch, FileType, Owner, Vfs, VfsError};

use crate::error::{Error, FsContext, HostContext, Result};
use crate::transfer::{Counting, Format, Meta, PIECE, Progress, TransferStats, safe_relative};
use crate::workspace::Workspace;

/// A batch is committed once it holds this many entries or this many bytes.
const BATCH_ENTRIES: usize = 1000;
const BATCH_BYTES: usize = 32 << 20;

enum Op {
    Dir,
    File(Vec<u8>),
    Symlink(PathBuf),
    HardLink(PathBuf),
    /// A FIFO or device node (kind, device number).
    Special(FileType, u64),
}

struct Pending {
    path: PathBuf,
    op: Op,
    meta: Meta,
}

struct Importer<'a> {
    vfs: &'a Vfs,
    dest: PathBuf,
    pending: Vec<Pending>,
    pending_bytes: usize,
    /// Directories known to exist in the workspace (made or checked by this import).
    known_dirs: HashSet<PathBuf>,
    /// Directory attributes, applied at the end (children change a directory's mtime).
    dir_meta: Vec<(PathBuf, Meta)>,
    stats: TransferStats,
    items_total: Option<u64>,
    bytes_total: Option<u64>,
    /// Bytes read of an archive, when progress counts those.
    archive_read: Option<Arc<AtomicU64>>,
    progress: &'a mut dyn FnMut(&Progress<'_>),
}

impl Workspace {
    /// Imports a host folder (its contents become `dest`), or a `.tar` / `.tar.gz` archive
    /// (extracted into `dest`). Modes, owners, mtimes, symlinks and hard links are kept.
    pub fn import(
        &self,
        src: &Path,
        dest: &Path,
        progress: &mut dyn FnMut(&Progress<'_>),
    ) -> Result<TransferStats> {
        let dest = self.resolve(dest);
        let importer = Importer {
            vfs: self.fs(),
            dest: dest.clone(),
            pending: Vec::new(),
            pending_bytes: 0,
            known_dirs: HashSet::new(),
            dir_meta: Vec::new(),
            stats: TransferStats::default(),
            items_total: None,
            bytes_total: None,
            archive_read: None,
            progress,
        };
        // The first folder of `dest` that the import makes, if any.
        let mut made = None;
        for dir in dest.ancestors() {
            if self.fs().exists(dir).at(dir)? {
                break;
            }
            made = Some(dir.to_path_buf());
        }
        let imported = importer.run(src);
        // A refused or failed import into a new folder leaves no folder behind; into one
        // that was there, what was imported before the error stays (the error says where).
        if imported.is_err()
            && let Some(made) = made
        {
            let _ = self.fs().remove_all(&made);
        }
        imported
    }
}

impl Importer<'_> {
    /// Makes the destination and imports `src` into it.
    fn run(mut self, src: &Path) -> Result<TransferStats> {
        self.vfs.create_dir_all(&self.dest).at(&self.dest)?;
        self.known_dirs.insert(self.dest.clone());
        match Format::of_source(src)? {
            Format::Folder => self.folder(src)?,
            Format::Tar => {
                let file = File::open(src).host(src)?;
                self.bytes_total = Some(file.metadata().host(src)?.len());
                self.archive(src, BufReader::new(file))?;
            }
            Format::TarGz => {
                let file = File::open(src).host(src)?;
                self.bytes_total = Some(file.metadata().host(src)?.len());
                let count = Arc::new(AtomicU64::new(0));
                self.archive_read = Some(Arc::clone(&count));
                let counted = Counting {
                    inner: BufReader::new(file),
                    count,
                };
                self.archive(src, flate2::read::GzDecoder::new(counted))?;
            }
        }
        self.finish()
    }
}

fn mtime_ns(meta: &std::fs::Metadata) -> i64 {
    meta.mtime() * 1_000_000_000 + meta.mtime_nsec()
}

impl Importer<'_> {
    fn folder(&mut self, src: &Path) -> Result<()> {
        // A quick first pass for the totals of the progress bar.
        let (mut items, mut bytes) = (0u64, 0u64);
        for entry in walkdir::WalkDir::new(src).follow_links(false) {
            let entry = entry.map_err(|e| walk_error(src, e))?;
            items += 1;
            if entry.file_type().is_file() {
                bytes += entry.metadata().map(|m| m.len()).unwrap_or(0);
            }
        }
        self.items_total = Some(items);
        self.bytes_total = Some(bytes);

        let mut inodes: HashMap<(u64, u64), PathBuf> = HashMap::new();
        let walk = walkdir::WalkDir::new(src)
            .follow_links(false)
            .sort_by_file_name();
        for entry in walk {
            let entry = entry.map_err(|e| walk_error(src, e))?;
            let rel = entry
                .path()
                .strip_prefix(src)
                .map_err(|_| Error::Archive("walked outside the source".into()))?
                .to_path_buf();
            let host_meta = entry.metadata().map_err(|e| walk_error(src, e))?;
            let meta = Meta {
                perm: host_meta.mode() & 0o7777,
                uid: host_meta.uid(),
                gid: host_meta.gid(),
                mtime_ns: mtime_ns(&host_meta),
            };
            let kind = entry.file_type();
            if kind.is_dir() {
                self.push(rel, Op::Dir, meta)?;
            } else if kind.is_symlink() {
                let target = std::fs::read_link(entry.path()).host(entry.path())?;
                self.push(rel, Op::Symlink(target), meta)?;
            } else if kind.is_file() {
                if host_meta.nlink() > 1 {
                    let key = (host_meta.dev(), host_meta.ino());
                    if let Some(first) = inodes.get(&key) {
                        self.push(rel, Op::HardLink(first.clone()), meta)?;
                        continue;
                    }
                    inodes.insert(key, rel.clone());
                }
                let file = File::open(entry.path()).host(entry.path())?;
                self.file(rel, meta, host_meta.len(), file, entry.path())?;
            } else if kind.is_fifo() {
                self.push(rel, Op::Special(FileType::Fifo, 0), meta)?;
            } else if kind.is_char_device() {
                let dev = Op::Special(FileType::CharDevice, host_meta.rdev());
                self.push(rel, dev, meta)?;
            } else if kind.is_block_device() {
                let dev = Op::Special(FileType::BlockDevice, host_meta.rdev());
                self.push(rel, dev, meta)?;
            } else {
                // A socket: its name is no use without the process listening on it.
                self.stats.skipped.push(entry.path().to_path_buf());
            }
        }
        Ok(())
    }

    fn archive(&mut self, src: &Path, reader: impl Read) -> Result<()> {
        let bad = |e: std::io::Error| Error::Archive(format!("{}: {e}", src.display()));
        let mut archive = tar::Archive::new(reader);
        for entry in archive.entries().map_err(bad)? {
            let mut entry = entry.map_err(bad)?;
            let rel = safe_relative(&entry.path().map_err(bad)?)?;
            let header = entry.header();
            let meta = Meta {
                perm: header.mode().map_err(bad)? & 0o7777,
                uid: header.uid().map_err(bad)? as u32,
                gid: header.gid().map_err(bad)? as u32,
                mtime_ns: header.mtime().map_err(bad)? as i64 * 1_000_000_000,
            };
            let kind = header.entry_type();
            let link = || -> Result<PathBuf> {
                entry
                    .link_name()
                    .map_err(bad)?
                    .map(|l| l.into_owned())
                    .ok_or_else(|| {
                        Error::Archive(format!("{}: link without a target", rel.display()))
                    })
            };
            match kind {
                tar::EntryType::Directory => self.push(rel, Op::Dir, meta)?,
                tar::EntryType::Symlink => {
                    let target = link()?;
                    self.push(rel, Op::Symlink(target), meta)?;
                }
                tar::EntryType::Link => {
                    let target = safe_relative(&link()?)?;
                    self.push(rel, Op::HardLink(target), meta)?;
                }
                tar::EntryType::Regular
                | tar::EntryType::Continuous
                | tar::EntryType::GNUSparse => {
                    if rel.as_os_str().is_empty() {
                        continue;
                    }
                    let size = entry.size();
                    self.file(rel, meta, size, &mut entry, src)?;
                }
                tar::EntryType::Fifo => self.push(rel, Op::Special(FileType::Fifo, 0), meta)?,
                tar::EntryType::Char | tar::EntryType::Block => {
                    let kind = if kind == tar::EntryType::Char {
                        FileType::CharDevice
                    } else {
                        FileType::BlockDevice
                    };
                    let major = header.device_major().map_err(bad)?.unwrap_or(0);
                    let minor = header.device_minor().map_err(bad)?.unwrap_or(0);
                    let dev = libc::makedev(major, minor);
                    self.push(rel, Op::Special(kind, dev), meta)?;
                }
                tar::EntryType::XGlobalHeader | tar::EntryType::XHeader => {}
                _ => self.stats.skipped.push(rel),
            }
        }
        Ok(())
    }

    /// Queues a file; one over the batch budget is committed on its own, piece by piece.
    fn file(
        &mut self,
        rel: PathBuf,
        meta: Meta,
        size: u64,
        mut reader: impl Read,
        host: &Path,
    ) -> Result<()> {
        if size as usize <= BATCH_BYTES {
            let mut data = Vec::with_capacity(size as usize);
            reader.read_to_end(&mut data).host(host)?;
            return self.push(rel, Op::File(data), meta);
        }
        self.commit()?;
        let path = self.dest.join(&rel);
        let mut offset = 0u64;
        let mut piece = vec![0u8; PIECE];
        loop {
            let n = read_full(&mut reader, &mut piece).host(host)?;
            let data = &piece[..n];
            let first = offset == 0;
            self.vfs
                .batch(|b| {
                    if first {
                        prepare(b, &path, Some(FileType::File))?;
                        b.write_file(&path, data, meta.perm)?;
                    } else {
                        b.write_at(&path, offset, data)?;
                    }
                    Ok(())
                })
                .at(&path)?;
            offset += n as u64;
            self.stats.bytes += n as u64;
            self.report(&rel);
            if n < piece.len() {
                break;
            }
        }
        self.vfs
            .batch(|b| set_meta(b, &path, meta, true))
            .at(&path)?;
        self.stats.files += 1;
        Ok(())
    }

    fn push(&mut self, rel: PathBuf, op: Op, meta: Meta) -> Result<()> {
        match &op {
            Op::Dir => self.stats.dirs += 1,
            Op::File(data) => {
                self.stats.files += 1;
                self.stats.bytes += data.len() as u64;
                self.pending_bytes += data.len();
            }
            Op::Symlink(_) => self.stats.symlinks += 1,
            Op::HardLink(_) => self.stats.hard_links += 1,
            Op::Special(..) => self.stats.specials += 1,
        }
        self.report(&rel);
        self.pending.push(Pending {
            path: self.dest.join(rel),
            op,
            meta,
        });
        if self.pending.len() >= BATCH_ENTRIES || self.pending_bytes >= BATCH_BYTES {
            self.commit()?;
        }
        Ok(())
    }

    fn report(&mut self, current: &Path) {
        let s = &self.stats;
        let bytes_done = match &self.archive_read {
            Some(count) => count.load(Ordering::Relaxed),
            None => s.bytes,
        };
        (self.progress)(&Progress {
            items_done: s.items(),
            items_total: self.items_total,
            bytes_done,
            bytes_total: self.bytes_total,
            current,
        });
    }

    /// Applies the queued entries in one transaction.
    fn commit(&mut self) -> Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let pending = std::mem::take(&mut self.pending);
        self.pending_bytes = 0;
        let known = &mut self.known_dirs;
        let dest = &self.dest;
        let mut dirs = Vec::new();
        let mut failed_at = PathBuf::new();
        self.vfs
            .batch(|b| {
                for item in &pending {
                    failed_at.clone_from(&item.path);
                    if let Some(parent) = item.path.parent()
                        && !known.contains(parent)
                    {
                        b.create_dir_all(parent)?;
                        known.insert(parent.to_path_buf());
                    }
                    match &item.op {
                        Op::Dir => {
                            prepare(b, &item.path, Some(FileType::Dir))?;
                            known.insert(item.path.clone());
                            dirs.push((item.path.clone(), item.meta));
                        }
                        Op::File(data) => {
                            prepare(b, &item.path, Some(FileType::File))?;
                            b.write_file(&item.path, data, item.meta.perm)?;
                            set_meta(b, &item.path, item.meta, true)?;
                        }
                        Op::Symlink(target) => {
                            prepare(b, &item.path, None)?;
                            b.symlink(target, &item.path)?;
                            set_meta(b, &item.path, item.meta, false)?;
                        }
                        Op::HardLink(first) => {
                            prepare(b, &item.path, None)?;
                            b.hard_link(dest.join(first), &item.path)?;
                        }
                        Op::Special(kind, rdev) => {
                            prepare(b, &item.path, None)?;
                            b.mknod(&item.path, *kind, item.meta.perm, *rdev)?;
                            set_meta(b, &item.path, item.meta, false)?;
                        }
                    }
                }
                Ok(())
            })
            .at(&failed_at)?;
        self.dir_meta.extend(dirs);
        Ok(())
    }

    fn finish(mut self) -> Result<TransferStats> {
        self.commit()?;
        // Deepest first, so that setting a parent's mtime comes after its children's changes.
        let mut dirs = std::mem::take(&mut self.dir_meta);
        dirs.reverse();
        for group in dirs.chunks(BATCH_ENTRIES) {
            self.vfs
                .batch(|b| {
                    for (path, meta) in group {
                        set_meta(b, path, *meta, true)?;
                    }
                    Ok(())
                })
                .at(&self.dest)?;
        }
        Ok(self.stats)
    }
}

/// Clears `path` for a new entry: an existing entry is kept only if it has type `keep` (a
/// symlink never is: it must not be written through); a directory to keep is created if missing.
fn prepare(b: &mut Batch<'_, '_>, path: &Path, keep: Option<FileType>) -> computer_vfs::Result<()> {
    match b.lstat(path) {
        Ok(st) if Some(st.kind) == keep => {}
        Ok(_) => b.remove_all(path)?,
        Err(VfsError::NotFound) => {}
        Err(e) => return Err(e),
    }
    if keep == Some(FileType::Dir) {
        b.create_dir_all(path)?;
    }
    Ok(())
}

fn set_meta(
    b: &mut Batch<'_, '_>,
    path: &Path,
    meta: Meta,
    perm: bool,
) -> computer_vfs::Result<()> {
    let owner = Owner {
        uid: meta.uid,
        gid: meta.gid,
    };
    b.set_metadata(
        path,
        perm.then_some(meta.perm),
        Some(owner),
        Some(meta.mtime_ns),
    )?;
    Ok(())
}

fn read_full(reader: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match reader.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

fn walk_error(src: &Path, e: walkdir::Error) -> Error {
    let path = e.path().unwrap_or(src).to_path_buf();
    Error::Host {
        path,
        source: e
            .into_io_error()
            .unwrap_or_else(|| std::io::Error::other("filesystem loop")),
    }
}
