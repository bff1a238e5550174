//! The resources behind `descriptor` and `directory-entry-stream`, and the file streams.
//! Each open file descriptor and each stream holds its own VFS handle, released on drop
//! (which commits buffered writes).

use std::sync::Arc;

use bytes::Bytes;
use computer_vfs::{Fh, Ino, OpenFlags, Vfs};
use wasmtime_wasi_io::poll::Pollable;
use wasmtime_wasi_io::streams::{InputStream, OutputStream, StreamError, StreamResult};

use crate::bindings::wasi::filesystem::types::DescriptorFlags;

/// What a descriptor refers to.
pub enum Kind {
    /// A directory, by inode (its path is looked up when used, so renames are followed).
    Dir(Ino),
    /// A regular file with an open VFS handle (shared with the descriptor's streams).
    File(Arc<FileHandle>),
    /// A device under `/dev`.
    Device(Device),
}

/// The character devices a guest may open, the few programs expect: `/dev/null`,
/// `/dev/zero`, `/dev/random` and `/dev/urandom` (the host's random bytes). Writes to any
/// of them vanish, as they do on Linux.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Device {
    /// Reads end at once.
    Null,
    /// Reads give zeros.
    Zero,
    /// Reads give random bytes.
    Random,
}

impl Device {
    /// The device at absolute workspace path `path`, if it names one.
    pub fn at(path: &std::path::Path) -> Option<Device> {
        Some(match path.to_str()? {
            "/dev/null" => Device::Null,
            "/dev/zero" => Device::Zero,
            "/dev/random" | "/dev/urandom" => Device::Random,
            _ => return None,
        })
    }

    /// Up to `len` bytes read from it (at most 64 KiB at a time); `None` at end of file.
    pub fn read(self, len: usize) -> Option<Vec<u8>> {
        let len = len.min(64 * 1024);
        match self {
            Device::Null => None,
            Device::Zero => Some(vec![0; len]),
            Device::Random => {
                let mut buf = vec![0; len];
                // The host's generator does not fail on the systems we run on; if it did,
                // zeros would be a silent weakness, so end the stream instead.
                getrandom::fill(&mut buf).ok()?;
                Some(buf)
            }
        }
    }
}

/// A `wasi:filesystem` descriptor.
pub struct Descriptor {
    /// What it refers to.
    pub kind: Kind,
    /// The rights it was opened with.
    pub flags: DescriptorFlags,
    /// Which tree it is in: 0 the workspace, `i + 1` the context's layer `i`.
    pub layer: u32,
}

/// An open VFS handle that is released when dropped.
pub struct FileHandle {
    vfs: Arc<Vfs>,
    /// The inode.
    pub ino: Ino,
    /// The VFS handle.
    pub fh: Fh,
}

impl FileHandle {
    /// Opens a handle on `ino`.
    pub fn open(vfs: &Arc<Vfs>, ino: Ino, flags: OpenFlags) -> computer_vfs::Result<FileHandle> {
        let fh = vfs.open_file(ino, flags)?;
        Ok(FileHandle {
            vfs: Arc::clone(vfs),
            ino,
            fh,
        })
    }

    /// Opens a handle on the inode `st` describes (just read by the caller).
    pub fn open_stat(
        vfs: &Arc<Vfs>,
        st: &computer_vfs::Stat,
        flags: OpenFlags,
    ) -> computer_vfs::Result<FileHandle> {
        let fh = vfs.open_stat(st, flags)?;
        Ok(FileHandle {
            vfs: Arc::clone(vfs),
            ino: st.ino,
            fh,
        })
    }
}

impl FileHandle {
    /// The VFS the handle is open in.
    pub fn vfs(&self) -> &Arc<Vfs> {
        &self.vfs
    }
}

impl Drop for FileHandle {
    fn drop(&mut self) {
        // Like close(2) in Rust's std: an error here has no one to go to. `sync` reports them.
        let _ = self.vfs.release(self.fh);
    }
}

/// The entries of a directory, read when the stream was opened.
pub struct DirStream {
    /// The listing (shared with [`crate::recent::Recent`], which answers `metadata-hash-at`).
    pub(crate) listing: Arc<crate::recent::Listing>,
    /// The next entry to hand out.
    pub(crate) next: usize,
}

/// Reads a file from a position onward.
pub struct FileReader {
    pub(crate) handle: Arc<FileHandle>,
    pub(crate) pos: u64,
}

#[async_trait::async_trait]
impl Pollable for FileReader {
    async fn ready(&mut self) {}
}

impl InputStream for FileReader {
    fn read(&mut self, size: usize) -> StreamResult<Bytes> {
        let data = self
            .handle
            .vfs
            .read(self.handle.fh, self.pos, size as u64)
            .map_err(|e| StreamError::LastOperationFailed(e.into()))?;
        if data.is_empty() && size > 0 {
            return Err(StreamError::Closed);
        }
        self.pos += data.len() as u64;
        Ok(Bytes::from(data))
    }
}

/// Writes a file from a position onward, or at its end (`pos: None`, an append handle).
pub struct FileWriter {
    pub(crate) handle: Arc<FileHandle>,
    pub(crate) pos: Option<u64>,
}

/// How much one `write` may carry: the VFS buffers it, so this only bounds one call.
const WRITE_BUDGET: usize = 1 << 20;

#[async_trait::async_trait]
impl Pollable for FileWriter {
    async fn ready(&mut self) {}
}

impl OutputStream for FileWriter {
    fn write(&mut self, bytes: Bytes) -> StreamResult<()> {
        let offset = self.pos.unwrap_or(0);
        let n = self
            .handle
            .vfs
            .write(self.handle.fh, offset, &bytes)
            .map_err(|e| StreamError::LastOperationFailed(e.into()))?;
        if let Some(pos) = &mut self.pos {
            *pos += n as u64;
        }
        Ok(())
    }

    /// The VFS handle buffers and commits on close or `sync`; nothing to do here (committing
    /// on every flush would make each `write` from a guest's std a transaction).
    fn flush(&mut self) -> StreamResult<()> {
        Ok(())
    }

    fn check_write(&mut self) -> StreamResult<usize> {
        Ok(WRITE_BUDGET)
    }
}

/// A device as a stream: always ready, reads what the device gives, swallows everything.
pub struct DeviceStream(pub Device);

#[async_trait::async_trait]
impl Pollable for DeviceStream {
    async fn ready(&mut self) {}
}

impl InputStream for DeviceStream {
    fn read(&mut self, size: usize) -> StreamResult<Bytes> {
        self.0
            .read(size)
            .map(Bytes::from)
            .ok_or(StreamError::Closed)
    }
}

impl OutputStream for DeviceStream {
    fn write(&mut self, _bytes: Bytes) -> StreamResult<()> {
        Ok(())
    }
    fn flush(&mut self) -> StreamResult<()> {
        Ok(())
    }
    fn check_write(&mut self) -> StreamResult<usize> {
        Ok(WRITE_BUDGET)
    }
}
