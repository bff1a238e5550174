//! A look at SQLite's WAL-index header, to tell without a transaction that nothing has been
//! committed since the caches were filled.
//!
//! Every commit, by any connection in any process, rewrites the header at the start of the
//! `-shm` file: the number of frames in the log, the running checksum of the last frame and
//! the log's salts. The header is written twice, copy two first, and SQLite's readers take it
//! as settled when both copies agree (`walIndexTryHdr`; the layout is documented in
//! <https://sqlite.org/walformat.html>). We read it the same way, from SQLite's own mapping
//! of the file (the connection's `xShmMap`), so no descriptor of ours is ever opened on the
//! file: closing one would drop the process's POSIX locks on it. The header serves only as
//! a proof that nothing changed; any doubt means a real transaction.

use std::sync::atomic::{Ordering, fence};

use rusqlite::{Connection, ffi};

/// The first 48 bytes of the WAL-index header (one copy), as six words.
pub(crate) type Stamp = [u64; 6];

/// Where the header is.
pub(crate) enum WalIndex {
    /// An in-memory database: no other connection can write it, and our own commits keep
    /// the caches true, so one constant stamp serves.
    Private,
    /// The header in SQLite's mapping of the `-shm` file.
    Shared(Mapping),
    /// Not known (a read-only connection): every read takes a transaction.
    Unknown,
}

/// A pointer to the start of region 0 of SQLite's mapping of the `-shm` file. SQLite maps the
/// region once per process and unmaps it only when the connection closes or leaves WAL mode,
/// and the connection is never taken out of WAL mode and outlives this value (both live in
/// `Inner`).
pub(crate) struct Mapping(*const Stamp);

// SAFETY: the pointer is only read (volatile, as memory shared with other processes), and the
// mapping is valid for the whole life of the connection, from any thread.
#[allow(unsafe_code)]
unsafe impl Send for Mapping {}

/// Offset of `isInit` in the header: zero while a connection rebuilds the index.
const IS_INIT_BYTE: usize = 12;

impl WalIndex {
    /// The header of `conn`'s database. `wal` says the connection is in WAL mode and has
    /// already read the database (so SQLite has mapped the index).
    pub(crate) fn find(conn: &Connection, wal: bool, in_memory: bool) -> WalIndex {
        if in_memory {
            return WalIndex::Private;
        }
        if !wal {
            return WalIndex::Unknown;
        }
        match shm_region0(conn) {
            Some(ptr) => WalIndex::Shared(Mapping(ptr)),
            None => WalIndex::Unknown,
        }
    }

    /// The header now, or `None` when it is being written (the copies differ) or unknown.
    pub(crate) fn stamp(&self) -> Option<Stamp> {
        match self {
            WalIndex::Private => Some([0; 6]),
            WalIndex::Unknown => None,
            WalIndex::Shared(Mapping(ptr)) => {
                let (first, second) = read_copies(*ptr);
                let init = first[IS_INIT_BYTE / 8].to_le_bytes()[IS_INIT_BYTE % 8] != 0;
                (init && first == second).then_some(first)
            }
        }
    }
}

/// Both copies of the header, in the order SQLite's readers take them (the writer writes them
/// in the other order).
#[allow(unsafe_code)]
fn read_copies(ptr: *const Stamp) -> (Stamp, Stamp) {
    // SAFETY: `ptr` is the start of a live mapping of at least 32 KiB (see `Mapping`); both
    // copies lie in its first 96 bytes, 8-byte aligned (the mapping is page-aligned).
    unsafe {
        let first = std::ptr::read_volatile(ptr);
        fence(Ordering::Acquire);
        let second = std::ptr::read_volatile(ptr.add(1));
        (first, second)
    }
}

/// Region 0 of the connection's `-shm` mapping, through the documented VFS interface.
#[allow(unsafe_code)]
fn shm_region0(conn: &Connection) -> Option<*const Stamp> {
    // SAFETY: `handle` is the live connection; SQLITE_FCNTL_FILE_POINTER writes the main
    // database's `sqlite3_file` into `file`. `xShmMap` with `bExtend = 0` only returns a
    // region the connection has already mapped (its first WAL read did), and is called on
    // the thread that owns the connection.
    unsafe {
        let db = conn.handle();
        let mut file: *mut ffi::sqlite3_file = std::ptr::null_mut();
        let rc = ffi::sqlite3_file_control(
            db,
            c"main".as_ptr(),
            ffi::SQLITE_FCNTL_FILE_POINTER,
            (&raw mut file).cast(),
        );
        if rc != ffi::SQLITE_OK || file.is_null() || (*file).pMethods.is_null() {
            return None;
        }
        let methods = &*(*file).pMethods;
        let map = methods.xShmMap.filter(|_| methods.iVersion >= 2)?;
        let mut region: *mut std::ffi::c_void = std::ptr::null_mut();
        let rc = map(file, 0, 32 * 1024, 0, &raw mut region);
        (rc == ffi::SQLITE_OK && !region.is_null()).then_some(region.cast_const().cast())
    }
}
