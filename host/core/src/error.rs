//! Errors of the `computer` API.

use std::path::PathBuf;

use computer_vfs::VfsError;

/// Result alias for the `computer` API.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Errors of workspace operations: the VFS's own, or host-side I/O naming the host path.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An error from the workspace filesystem, with the workspace path it concerns.
    #[error("{path}: {source}")]
    Fs {
        /// The workspace path.
        path: PathBuf,
        /// The VFS error.
        source: VfsError,
    },
    /// An error from the workspace store itself (opening it, snapshots).
    #[error(transparent)]
    Vfs(#[from] VfsError),
    /// Host I/O failed on `path`.
    #[error("{path}: {source}")]
    Host {
        /// The host path.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// An archive could not be read or holds something unsafe.
    #[error("{0}")]
    Archive(String),
    /// The wasm runtime could not start or load a component.
    #[error(transparent)]
    Isolate(#[from] computer_isolate::IsolateError),
    /// A backend that cannot be used now.
    #[error("{0}")]
    Unavailable(String),
    /// A request that cannot be run as given.
    #[error("{0}")]
    Invalid(String),
    /// A limit of the workspace refused the request (`jobs`: background commands at once).
    #[error("{message}")]
    Limit {
        /// The limit's name.
        limit: &'static str,
        /// What was refused, naming the limit.
        message: String,
    },
    /// The network policy refused a request, or could not be read or set.
    #[error(transparent)]
    Net(#[from] computer_net::NetError),
}

impl Error {
    /// The errno this error stands for, if it is a filesystem error.
    pub fn errno(&self) -> Option<i32> {
        match self {
            Error::Fs { source, .. } | Error::Vfs(source) => Some(source.errno()),
            Error::Host { source, .. } => source.raw_os_error(),
            Error::Archive(_)
            | Error::Isolate(_)
            | Error::Unavailable(_)
            | Error::Invalid(_)
            | Error::Limit { .. }
            | Error::Net(_) => None,
        }
    }
}

impl Error {
    /// Whether the caller's input was wrong (a bad request, network rule or URL), rather
    /// than the workspace failing: bindings raise it as their language's bad-argument error.
    pub fn is_bad_input(&self) -> bool {
        matches!(
            self,
            Error::Invalid(_)
                | Error::Net(
                    computer_net::NetError::BadRule(_) | computer_net::NetError::BadUrl { .. }
                )
        )
    }
}

/// Attaches a workspace path to VFS errors.
pub(crate) trait FsContext<T> {
    fn at(self, path: impl Into<PathBuf>) -> Result<T>;
}

impl<T> FsContext<T> for std::result::Result<T, VfsError> {
    fn at(self, path: impl Into<PathBuf>) -> Result<T> {
        self.map_err(|source| Error::Fs {
            path: path.into(),
            source,
        })
    }
}

/// Attaches a host path to I/O errors.
pub(crate) trait HostContext<T> {
    fn host(self, path: impl Into<PathBuf>) -> Result<T>;
}

impl<T> HostContext<T> for std::io::Result<T> {
    fn host(self, path: impl Into<PathBuf>) -> Result<T> {
        self.map_err(|source| Error::Host {
            path: path.into(),
            source,
        })
    }
}
