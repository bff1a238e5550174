//! Errors of bucket transfers.

/// A bucket transfer's result.
pub type Result<T, E = BucketError> = std::result::Result<T, E>;

/// Why a bucket transfer failed. Each names the object, file or limit concerned.
#[derive(Debug, thiserror::Error)]
pub enum BucketError {
    /// A malformed `s3://` address.
    #[error("{0}")]
    Url(String),
    /// Refused: by the workspace's network policy, or for credentials bound elsewhere.
    #[error("{0}")]
    Refused(String),
    /// The object store refused or failed (credentials, a missing bucket, the network).
    /// The store's error already carries its causes in its text, so it is not a `source`
    /// (which would print them twice).
    #[error("{what}: {error}")]
    Store {
        /// What was being done.
        what: String,
        /// The store's error.
        error: object_store::Error,
    },
    /// A snapshot in the bucket that cannot be restored (a bad manifest, a chunk whose bytes
    /// do not match its hash), or a pull that would overwrite a file.
    #[error("{0}")]
    Snapshot(String),
    /// Keys that cannot become workspace paths; nothing was imported.
    #[error("refusing to import: {0}")]
    BadKeys(String),
    /// An object above the workspace's file size limit; nothing was imported.
    #[error(
        "refusing to import: {key} is {size} bytes, above the workspace's file size limit of {limit} bytes"
    )]
    TooLarge {
        /// The object's key.
        key: String,
        /// Its size.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// The workspace API failed (opening, snapshots, forks).
    #[error(transparent)]
    Core(#[from] computer::Error),
    /// The workspace failed.
    #[error("{path}: {source}")]
    Workspace {
        /// The workspace path.
        path: String,
        /// The error.
        source: computer::VfsError,
    },
}

/// Wraps a workspace error with its path.
pub(crate) fn at(path: &std::path::Path) -> impl Fn(computer::VfsError) -> BucketError + '_ {
    move |source| BucketError::Workspace {
        path: path.display().to_string(),
        source,
    }
}

/// Wraps a store error with what was being done.
pub(crate) fn store(what: impl std::fmt::Display) -> impl Fn(object_store::Error) -> BucketError {
    move |error| BucketError::Store {
        what: what.to_string(),
        error,
    }
}
