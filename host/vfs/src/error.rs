//! The one error type of the VFS and its errno mapping, shared by FUSE and WASI.

use std::io;

/// Result alias for VFS operations.
pub type Result<T, E = VfsError> = std::result::Result<T, E>;

/// Everything a VFS operation can fail with. The `Display` text of the POSIX-like variants is
/// the C library's `strerror` text, so callers can print `cat /x: No such file or directory`.
#[derive(Debug, thiserror::Error)]
pub enum VfsError {
    /// ENOENT.
    #[error("No such file or directory")]
    NotFound,
    /// EEXIST.
    #[error("File exists")]
    Exists,
    /// ENOTDIR.
    #[error("Not a directory")]
    NotDir,
    /// EISDIR.
    #[error("Is a directory")]
    IsDir,
    /// ENOTEMPTY.
    #[error("Directory not empty")]
    NotEmpty,
    /// EXDEV: e.g. a rename between two workspaces.
    #[error("Invalid cross-device link")]
    CrossDevice,
    /// ELOOP: too many symlinks while resolving a path.
    #[error("Too many levels of symbolic links")]
    Loop,
    /// ENAMETOOLONG: a name over 255 bytes or a path over 4096 bytes.
    #[error("File name too long")]
    NameTooLong,
    /// EINVAL, with what was invalid.
    #[error("Invalid argument: {0}")]
    Invalid(&'static str),
    /// EPERM: e.g. a hard link to a directory.
    #[error("Operation not permitted")]
    NotPermitted,
    /// EACCES: e.g. writing through a handle opened read-only is EBADF, this is for mode checks.
    #[error("Permission denied")]
    PermissionDenied,
    /// EBADF: an unknown or closed file handle, or a write on a read-only handle.
    #[error("Bad file descriptor")]
    BadHandle,
    /// ENXIO: opening a FIFO, socket or device node, which the workspace stores but has
    /// nothing behind (no pipe, no listener, no device).
    #[error("No such device or address")]
    NoDevice,
    /// EBUSY: renaming or removing the root.
    #[error("Device or resource busy")]
    Busy,
    /// ENOSPC: the workspace's configured size quota was reached.
    #[error("No space left on device (workspace quota of {quota} bytes reached)")]
    NoSpace {
        /// The configured quota in bytes.
        quota: u64,
    },
    /// EFBIG: a file would grow past the configured per-file limit.
    #[error("File too large (the workspace limit is {limit} bytes per file)")]
    FileTooLarge {
        /// The configured limit in bytes.
        limit: u64,
    },
    /// E2BIG: one change would make more entries than the caller allows in one.
    #[error("Argument list too long (more than {limit} entries in one change)")]
    TooManyEntries {
        /// The limit the caller set.
        limit: u64,
    },
    /// EROFS: the workspace was opened read-only.
    #[error("Read-only file system")]
    ReadOnly,
    /// ENODATA: no such extended attribute.
    #[error("No data available")]
    NoAttribute,
    /// The file is not a workspace database (not SQLite, or another application's database).
    #[error("not a computer workspace ({0})")]
    NotAWorkspace(String),
    /// The workspace was written by a newer version with a schema this build cannot read.
    #[error(
        "workspace schema version {found} is newer than this build supports (version {supported}); upgrade computer"
    )]
    NewerSchema {
        /// The schema version found in the file.
        found: i64,
        /// The newest schema version this build knows.
        supported: i64,
    },
    /// The database failed an integrity check or returned SQLITE_CORRUPT.
    #[error("workspace database is corrupt ({0})")]
    Corrupt(String),
    /// No snapshot with this name.
    #[error("no snapshot named {0:?}")]
    SnapshotNotFound(String),
    /// A snapshot with this name exists already.
    #[error("a snapshot named {0:?} exists already")]
    SnapshotExists(String),
    /// `changes_since(rev)` asked for revisions the change log no longer holds.
    #[error(
        "the change log was trimmed: changes up to revision {floor} are gone, re-read the tree"
    )]
    ChangesTrimmed {
        /// The newest revision whose changes were dropped.
        floor: u64,
    },
    /// Another SQLite error.
    #[error("database error: {0}")]
    Db(rusqlite::Error),
    /// An I/O error outside the database (e.g. creating a fork's file).
    #[error("{0}")]
    Io(#[from] io::Error),
}

impl VfsError {
    /// The errno value FUSE and WASI report for this error (one mapping for both).
    pub fn errno(&self) -> i32 {
        match self {
            VfsError::NotFound | VfsError::SnapshotNotFound(_) => libc::ENOENT,
            VfsError::Exists | VfsError::SnapshotExists(_) => libc::EEXIST,
            VfsError::NotDir => libc::ENOTDIR,
            VfsError::IsDir => libc::EISDIR,
            VfsError::NotEmpty => libc::ENOTEMPTY,
            VfsError::CrossDevice => libc::EXDEV,
            VfsError::Loop => libc::ELOOP,
            VfsError::NameTooLong => libc::ENAMETOOLONG,
            VfsError::Invalid(_) | VfsError::ChangesTrimmed { .. } => libc::EINVAL,
            VfsError::NotPermitted => libc::EPERM,
            VfsError::PermissionDenied => libc::EACCES,
            VfsError::BadHandle => libc::EBADF,
            VfsError::Busy => libc::EBUSY,
            VfsError::NoDevice => libc::ENXIO,
            VfsError::NoSpace { .. } => libc::ENOSPC,
            VfsError::FileTooLarge { .. } => libc::EFBIG,
            VfsError::TooManyEntries { .. } => libc::E2BIG,
            VfsError::ReadOnly => libc::EROFS,
            VfsError::NoAttribute => libc::ENODATA,
            VfsError::Db(e) => match e.sqlite_error_code() {
                Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked) => {
                    libc::EAGAIN
                }
                Some(rusqlite::ErrorCode::DiskFull) => libc::ENOSPC,
                Some(rusqlite::ErrorCode::ReadOnly) => libc::EROFS,
                _ => libc::EIO,
            },
            VfsError::Io(e) => e.raw_os_error().unwrap_or(libc::EIO),
            VfsError::NotAWorkspace(_) | VfsError::NewerSchema { .. } | VfsError::Corrupt(_) => {
                libc::EIO
            }
        }
    }

    /// This error as a `std::io::Error` carrying the same errno.
    pub fn to_io_error(&self) -> io::Error {
        match self {
            VfsError::Io(e) if e.raw_os_error().is_some() => {
                io::Error::from_raw_os_error(self.errno())
            }
            VfsError::Db(_)
            | VfsError::NotAWorkspace(_)
            | VfsError::NewerSchema { .. }
            | VfsError::Corrupt(_) => io::Error::other(self.to_string()),
            _ => io::Error::from_raw_os_error(self.errno()),
        }
    }
}

impl From<rusqlite::Error> for VfsError {
    fn from(e: rusqlite::Error) -> Self {
        match e.sqlite_error_code() {
            Some(rusqlite::ErrorCode::NotADatabase) => {
                VfsError::NotAWorkspace("file is not a database".into())
            }
            Some(rusqlite::ErrorCode::DatabaseCorrupt) => VfsError::Corrupt(e.to_string()),
            _ => VfsError::Db(e),
        }
    }
}

impl From<rusqlite::types::FromSqlError> for VfsError {
    fn from(e: rusqlite::types::FromSqlError) -> Self {
        VfsError::Corrupt(format!("unexpected value in the database: {e}"))
    }
}

impl From<VfsError> for io::Error {
    fn from(e: VfsError) -> Self {
        e.to_io_error()
    }
}
