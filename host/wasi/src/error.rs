//! Errors of the filesystem host: a WASI `error-code` for the guest, or a trap.

use computer_vfs::VfsError;
use wasmtime::component::ResourceTableError;

use crate::bindings::wasi::filesystem::types::ErrorCode;

/// What a filesystem host call fails with: an error the guest sees, or a trap that ends it.
/// (wasmtime-wasi's `TrappableError` cannot take our conversions: orphan rule.)
#[derive(Debug)]
pub enum FsError {
    /// Reported to the guest.
    Code(ErrorCode),
    /// Ends the guest (a host bug or an exhausted resource table, never guest input).
    Trap(wasmtime::Error),
}

/// Result of a filesystem host call.
pub type FsResult<T> = Result<T, FsError>;

impl From<ErrorCode> for FsError {
    fn from(code: ErrorCode) -> Self {
        FsError::Code(code)
    }
}

impl From<ResourceTableError> for FsError {
    fn from(e: ResourceTableError) -> Self {
        FsError::Trap(e.into())
    }
}

impl From<VfsError> for FsError {
    fn from(e: VfsError) -> Self {
        FsError::Code(error_code(&e))
    }
}

/// The WASI error code for a VFS error, through the one errno mapping of the VFS.
pub fn error_code(e: &VfsError) -> ErrorCode {
    match e.errno() {
        libc::ENOENT => ErrorCode::NoEntry,
        libc::EEXIST => ErrorCode::Exist,
        libc::ENOTDIR => ErrorCode::NotDirectory,
        libc::EISDIR => ErrorCode::IsDirectory,
        libc::ENOTEMPTY => ErrorCode::NotEmpty,
        libc::EXDEV => ErrorCode::CrossDevice,
        libc::ELOOP => ErrorCode::Loop,
        libc::ENAMETOOLONG => ErrorCode::NameTooLong,
        libc::EINVAL => ErrorCode::Invalid,
        libc::EPERM => ErrorCode::NotPermitted,
        libc::EACCES => ErrorCode::Access,
        libc::EBADF => ErrorCode::BadDescriptor,
        libc::EBUSY => ErrorCode::Busy,
        libc::ENOSPC => ErrorCode::InsufficientSpace,
        libc::EFBIG => ErrorCode::FileTooLarge,
        libc::EROFS => ErrorCode::ReadOnly,
        libc::EAGAIN => ErrorCode::WouldBlock,
        libc::ENXIO => ErrorCode::NoSuchDevice,
        _ => ErrorCode::Io,
    }
}
