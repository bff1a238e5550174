//! What import and export share: progress reports, statistics, archive detection, metadata.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::error::{Error, HostContext, Result};

/// Pieces large files are moved in, so memory stays bounded whatever the file size.
pub(crate) const PIECE: usize = 8 << 20;

/// A progress report during an import or export.
#[derive(Debug, Clone)]
pub struct Progress<'a> {
    /// Entries (files, directories, links) done so far.
    pub items_done: u64,
    /// Entries in all, when known in advance (folders: yes; archives: no).
    pub items_total: Option<u64>,
    /// Bytes done so far (for archives: bytes of the archive read).
    pub bytes_done: u64,
    /// Bytes in all, when known in advance.
    pub bytes_total: Option<u64>,
    /// The entry being worked on.
    pub current: &'a Path,
}

/// What an import or export moved.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TransferStats {
    /// Regular files.
    pub files: u64,
    /// Directories.
    pub dirs: u64,
    /// Symbolic links.
    pub symlinks: u64,
    /// Hard links to a file already moved.
    pub hard_links: u64,
    /// FIFOs and device nodes (stored as inodes; on export to a folder, FIFOs only).
    pub specials: u64,
    /// Bytes of file content.
    pub bytes: u64,
    /// Entries left out: sockets always (a socket's name is no use without its listener, and
    /// tar has no entry for one), device nodes on export to a folder (never made on the host).
    pub skipped: Vec<PathBuf>,
}

impl TransferStats {
    /// Entries moved: files, directories, symlinks, hard links, FIFOs and devices.
    pub fn items(&self) -> u64 {
        self.files + self.dirs + self.symlinks + self.hard_links + self.specials
    }
}

/// The formats a host path can hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    Folder,
    Tar,
    TarGz,
}

impl Format {
    /// The format of an existing import source (by content, not by name).
    pub(crate) fn of_source(path: &Path) -> Result<Format> {
        let meta = std::fs::metadata(path).host(path)?;
        if meta.is_dir() {
            return Ok(Format::Folder);
        }
        // A FIFO or a device would be read from (and a FIFO with no writer waits forever).
        if !meta.is_file() {
            return Err(not_an_archive(path));
        }
        let mut head = Vec::with_capacity(512);
        File::open(path)
            .host(path)?
            .take(512)
            .read_to_end(&mut head)
            .host(path)?;
        if head.starts_with(&[0x1f, 0x8b]) {
            Ok(Format::TarGz)
        } else if is_tar_header(&head) {
            Ok(Format::Tar)
        } else {
            Err(not_an_archive(path))
        }
    }

    /// The format of an export destination, by its name.
    pub(crate) fn of_destination(path: &Path) -> Format {
        let name = path.to_string_lossy();
        if name.ends_with(".tar.gz") || name.ends_with(".tgz") {
            Format::TarGz
        } else if name.ends_with(".tar") {
            Format::Tar
        } else {
            Format::Folder
        }
    }
}

fn not_an_archive(path: &Path) -> Error {
    Error::Archive(format!(
        "{} is neither a folder nor a .tar or .tar.gz archive (one file goes in with \
         `computer fs write DEST < FILE`)",
        path.display()
    ))
}

/// Whether `block` is the first block of a tar archive: 512 bytes whose checksum holds (what
/// the tar reader checks for every header), or all zeros (an empty archive).
fn is_tar_header(block: &[u8]) -> bool {
    let Ok(block) = <&[u8; 512]>::try_from(block) else {
        return false;
    };
    if block.iter().all(|b| *b == 0) {
        return true;
    }
    // The checksum counts its own eight bytes as spaces.
    let sum: u32 = block[..148]
        .iter()
        .chain(&[b' '; 8])
        .chain(&block[156..])
        .map(|b| u32::from(*b))
        .sum();
    tar::Header::from_byte_slice(block).cksum().ok() == Some(sum)
}

/// Attributes restored on the other side.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Meta {
    pub perm: u32,
    pub uid: u32,
    pub gid: u32,
    pub mtime_ns: i64,
}

/// An archive member's path made relative and safe: `/` and `.` are dropped, `..` refused.
pub(crate) fn safe_relative(path: &Path) -> Result<PathBuf> {
    computer_vfs::path::inside(path).ok_or_else(|| {
        Error::Archive(format!(
            "refusing archive member {}: it climbs out with '..'",
            path.display()
        ))
    })
}

/// A reader that counts the bytes read through it (archive progress).
pub(crate) struct Counting<R> {
    pub inner: R,
    pub count: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count
            .fetch_add(n as u64, std::sync::atomic::Ordering::Relaxed);
        Ok(n)
    }
}
