//! Exporting a workspace tree to a host folder or a `.tar` / `.tar.gz` archive.
//!
//! Host entries in the way are replaced (a host symlink is never written through); host
//! directories are merged. Modes, mtimes, symlinks and hard links are kept.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Read, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use computer_vfs::{FileType, Ino, Stat, Vfs, WalkEntry};

use crate::error::{Error, FsContext, HostContext, Result};
use crate::transfer::{Format, PIECE, Progress, TransferStats};
use crate::workspace::Workspace;

impl Workspace {
    /// Exports the tree at `src` (a workspace path) to a host folder `dest` (its contents go
    /// there), or to an archive when `dest` ends with `.tar`, `.tar.gz` or `.tgz`.
    pub fn export(
        &self,
        src: &Path,
        dest: &Path,
        progress: &mut dyn FnMut(&Progress<'_>),
    ) -> Result<TransferStats> {
        let src = self.resolve(src);
        let entries = self.fs().walk(&src).at(&src)?;
        let mut exporter = Exporter {
            vfs: self.fs(),
            src: &src,
            stats: TransferStats::default(),
            items_total: entries.len() as u64,
            bytes_total: entries
                .iter()
                .filter(|e| e.stat.is_file())
                .map(|e| e.stat.size)
                .sum(),
            first_links: HashMap::new(),
            progress,
        };
        match Format::of_destination(dest) {
            Format::Folder => exporter.folder(&entries, dest)?,
            Format::Tar => {
                let out = BufWriter::new(File::create(dest).host(dest)?);
                exporter.archive(&entries, out, dest)?.flush().host(dest)?;
            }
            Format::TarGz => {
                let out = BufWriter::new(File::create(dest).host(dest)?);
                let gz = flate2::write::GzEncoder::new(out, flate2::Compression::default());
                let gz = exporter.archive(&entries, gz, dest)?;
                gz.finish().host(dest)?.flush().host(dest)?;
            }
        }
        Ok(exporter.stats)
    }
}

struct Exporter<'a> {
    vfs: &'a Vfs,
    src: &'a Path,
    stats: TransferStats,
    items_total: u64,
    bytes_total: u64,
    /// Inode → the first relative path it was written at (for hard links).
    first_links: HashMap<Ino, PathBuf>,
    progress: &'a mut dyn FnMut(&Progress<'_>),
}

impl Exporter<'_> {
    fn relative(&self, entry: &WalkEntry) -> PathBuf {
        entry
            .path
            .strip_prefix(self.src)
            .map(Path::to_path_buf)
            .unwrap_or_default()
    }

    /// For a file with several links: the path it was first exported at, or records this one.
    fn earlier_link(&mut self, st: &Stat, rel: &Path) -> Option<PathBuf> {
        if st.nlink < 2 {
            return None;
        }
        if let Some(first) = self.first_links.get(&st.ino) {
            return Some(first.clone());
        }
        self.first_links.insert(st.ino, rel.to_path_buf());
        None
    }

    fn report(&mut self, current: &Path) {
        let s = &self.stats;
        (self.progress)(&Progress {
            items_done: s.items(),
            items_total: Some(self.items_total),
            bytes_done: s.bytes,
            bytes_total: Some(self.bytes_total),
            current,
        });
    }

    fn folder(&mut self, entries: &[WalkEntry], dest: &Path) -> Result<()> {
        let mut dirs = Vec::new();
        for entry in entries {
            let rel = self.relative(entry);
            let host = if rel.as_os_str().is_empty() {
                dest.to_path_buf()
            } else {
                dest.join(&rel)
            };
            let st = &entry.stat;
            match st.kind {
                FileType::Dir => {
                    clear_host_path(&host, true)?;
                    std::fs::create_dir_all(&host).host(&host)?;
                    // Writable while we fill it; its own mode is set afterwards.
                    std::fs::set_permissions(&host, std::fs::Permissions::from_mode(0o700))
                        .host(&host)?;
                    dirs.push((host, st.clone()));
                    self.stats.dirs += 1;
                }
                FileType::Symlink => {
                    clear_host_path(&host, false)?;
                    let target = self.vfs.read_link(&entry.path).at(&entry.path)?;
                    std::os::unix::fs::symlink(&target, &host).host(&host)?;
                    let t = filetime::FileTime::from_unix_time(
                        st.mtime.div_euclid(1_000_000_000),
                        st.mtime.rem_euclid(1_000_000_000) as u32,
                    );
                    filetime::set_symlink_file_times(&host, t, t).host(&host)?;
                    self.stats.symlinks += 1;
                }
                // A device node is never made on the host; a socket's name has no listener.
                FileType::Socket | FileType::CharDevice | FileType::BlockDevice => {
                    self.stats.skipped.push(entry.path.clone());
                }
                FileType::File | FileType::Fifo => {
                    clear_host_path(&host, false)?;
                    if let Some(first) = self.earlier_link(st, &rel) {
                        std::fs::hard_link(dest.join(first), &host).host(&host)?;
                        self.stats.hard_links += 1;
                    } else if st.kind == FileType::Fifo {
                        mkfifo(&host).host(&host)?;
                        set_host_meta(&host, st)?;
                        self.stats.specials += 1;
                    } else {
                        self.file_to_host(entry, &host)?;
                        self.stats.files += 1;
                    }
                }
            }
            self.report(&rel);
        }
        // Deepest first: a parent's mode may forbid writing, and its mtime must come last.
        for (host, st) in dirs.iter().rev() {
            set_host_meta(host, st)?;
        }
        Ok(())
    }

    fn file_to_host(&mut self, entry: &WalkEntry, host: &Path) -> Result<()> {
        let mut out = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(host)
            .host(host)?;
        let mut reader = VfsReader::new(self.vfs, &entry.path, entry.stat.size);
        let mut buf = vec![0u8; PIECE.min(entry.stat.size as usize).max(1)];
        loop {
            let n = reader.read(&mut buf).host(host)?;
            if n == 0 {
                break;
            }
            out.write_all(&buf[..n]).host(host)?;
            self.stats.bytes += n as u64;
        }
        drop(out);
        set_host_meta(host, &entry.stat)
    }

    fn archive<W: Write>(&mut self, entries: &[WalkEntry], out: W, dest: &Path) -> Result<W> {
        let bad = |e: std::io::Error| Error::Host {
            path: dest.to_path_buf(),
            source: e,
        };
        let mut builder = tar::Builder::new(out);
        builder.follow_symlinks(false);
        for entry in entries {
            let rel = self.relative(entry);
            if rel.as_os_str().is_empty() {
                continue; // the root itself: its contents are the archive
            }
            let st = &entry.stat;
            let mut header = tar::Header::new_gnu();
            header.set_mode(st.perm);
            header.set_uid(st.uid as u64);
            header.set_gid(st.gid as u64);
            header.set_mtime(st.mtime.max(0) as u64 / 1_000_000_000);
            // Another name of a file, FIFO or device already archived: a hard link to it.
            let linkable = !matches!(
                st.kind,
                FileType::Dir | FileType::Symlink | FileType::Socket
            );
            if linkable && let Some(first) = self.earlier_link(st, &rel) {
                header.set_entry_type(tar::EntryType::Link);
                header.set_size(0);
                builder
                    .append_link(&mut header, &rel, &first)
                    .map_err(bad)?;
                self.stats.hard_links += 1;
                self.report(&rel);
                continue;
            }
            match st.kind {
                FileType::Dir => {
                    header.set_entry_type(tar::EntryType::Directory);
                    header.set_size(0);
                    builder
                        .append_data(&mut header, rel.join(""), std::io::empty())
                        .map_err(bad)?;
                    self.stats.dirs += 1;
                }
                FileType::Symlink => {
                    header.set_entry_type(tar::EntryType::Symlink);
                    header.set_size(0);
                    let target = self.vfs.read_link(&entry.path).at(&entry.path)?;
                    builder
                        .append_link(&mut header, &rel, &target)
                        .map_err(bad)?;
                    self.stats.symlinks += 1;
                }
                // An archive entry is only a description: the one who extracts it decides.
                FileType::Fifo | FileType::CharDevice | FileType::BlockDevice => {
                    header.set_entry_type(match st.kind {
                        FileType::Fifo => tar::EntryType::Fifo,
                        FileType::CharDevice => tar::EntryType::Char,
                        _ => tar::EntryType::Block,
                    });
                    header.set_size(0);
                    if st.kind != FileType::Fifo {
                        let (major, minor) = (libc::major(st.rdev), libc::minor(st.rdev));
                        header.set_device_major(major).map_err(bad)?;
                        header.set_device_minor(minor).map_err(bad)?;
                    }
                    builder
                        .append_data(&mut header, &rel, std::io::empty())
                        .map_err(bad)?;
                    self.stats.specials += 1;
                }
                // tar has no socket entries (GNU tar: "socket ignored").
                FileType::Socket => self.stats.skipped.push(entry.path.clone()),
                FileType::File => {
                    header.set_entry_type(tar::EntryType::Regular);
                    header.set_size(st.size);
                    let reader = VfsReader::new(self.vfs, &entry.path, st.size);
                    builder
                        .append_data(&mut header, &rel, reader)
                        .map_err(bad)?;
                    self.stats.files += 1;
                    self.stats.bytes += st.size;
                }
            }
            self.report(&rel);
        }
        builder.into_inner().map_err(bad)
    }
}

/// A FIFO at `path` (owner-only until its mode is set). The standard library has no mkfifo.
#[allow(unsafe_code)]
fn mkfifo(path: &Path) -> std::io::Result<()> {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes())?;
    // SAFETY: a NUL-terminated path that outlives the call.
    if unsafe { libc::mkfifo(c.as_ptr(), 0o600) } == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Makes way for a new host entry: a non-directory (or any symlink) there is removed; a
/// directory is kept when a directory is wanted, and is an error otherwise.
fn clear_host_path(path: &Path, want_dir: bool) -> Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => {
            if want_dir {
                Ok(())
            } else {
                Err(Error::Host {
                    path: path.to_path_buf(),
                    source: std::io::ErrorKind::IsADirectory.into(),
                })
            }
        }
        Ok(_) => std::fs::remove_file(path).host(path),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::Host {
            path: path.to_path_buf(),
            source: e,
        }),
    }
}

fn set_host_meta(host: &Path, st: &Stat) -> Result<()> {
    std::fs::set_permissions(host, std::fs::Permissions::from_mode(st.perm)).host(host)?;
    let t = |ns: i64| {
        filetime::FileTime::from_unix_time(
            ns.div_euclid(1_000_000_000),
            ns.rem_euclid(1_000_000_000) as u32,
        )
    };
    // By path, never by opening it: opening a FIFO would wait for a writer.
    filetime::set_symlink_file_times(host, t(st.atime), t(st.mtime)).host(host)
}

/// Reads a workspace file in pieces (bounded memory for any file size).
struct VfsReader<'a> {
    vfs: &'a Vfs,
    path: &'a Path,
    offset: u64,
    size: u64,
    buf: Vec<u8>,
    pos: usize,
}

impl<'a> VfsReader<'a> {
    fn new(vfs: &'a Vfs, path: &'a Path, size: u64) -> Self {
        VfsReader {
            vfs,
            path,
            offset: 0,
            size,
            buf: Vec::new(),
            pos: 0,
        }
    }
}

impl Read for VfsReader<'_> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if self.pos == self.buf.len() {
            if self.offset >= self.size {
                return Ok(0);
            }
            let want = (self.size - self.offset).min(PIECE as u64);
            self.buf = self.vfs.read_range(self.path, self.offset, want)?;
            self.pos = 0;
            if self.buf.is_empty() {
                return Ok(0); // the file shrank meanwhile
            }
            self.offset += self.buf.len() as u64;
        }
        let n = out.len().min(self.buf.len() - self.pos);
        out[..n].copy_from_slice(&self.buf[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}
