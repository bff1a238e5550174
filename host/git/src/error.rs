//! The crate's error: the variants of the `git` WIT interface, with git's exit codes.

use std::fmt::Display;

/// Result alias of this crate.
pub type Result<T, E = GitError> = std::result::Result<T, E>;

/// Why a git operation failed. The text is what git would print after `fatal: ` (or
/// `error: `), so the CLI and the shell can print it as git does.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    /// The directory is not inside a repository.
    #[error("not a git repository (or any of the parent directories): .git")]
    NotARepository(String),
    /// A path, ref or remote does not exist.
    #[error("{0}")]
    NotFound(String),
    /// The remote could not be reached or refused us.
    #[error("{0}")]
    Network(String),
    /// The operation conflicts with the state of the repository (or the worktree).
    #[error("{0}")]
    Conflict(String),
    /// Not implemented here.
    #[error("{0}")]
    Unsupported(String),
    /// A command line git would reject (exit 129).
    #[error("{0}")]
    Usage(String),
    /// Anything else, with the underlying message.
    #[error("{0}")]
    Failed(String),
}

impl GitError {
    /// The exit status git uses for this kind of failure.
    pub fn exit_code(&self) -> i32 {
        match self {
            GitError::Usage(_) => 129,
            GitError::Conflict(_) => 1,
            _ => 128,
        }
    }

    /// Wraps any error as `Failed`, prefixed with what was being done.
    pub(crate) fn failed(context: impl Display, err: impl Display) -> GitError {
        GitError::Failed(format!("{context}: {err}"))
    }
}

impl From<gix::Error> for GitError {
    fn from(err: gix::Error) -> GitError {
        GitError::Failed(chain(&err))
    }
}

impl From<computer_vfs::VfsError> for GitError {
    fn from(err: computer_vfs::VfsError) -> GitError {
        GitError::Failed(err.to_string())
    }
}

impl From<std::io::Error> for GitError {
    fn from(err: std::io::Error) -> GitError {
        GitError::Failed(err.to_string())
    }
}

/// An error and its sources on one line, the way git prints a fatal error's cause.
pub(crate) fn chain(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        let next = cause.to_string();
        if !text.contains(&next) {
            text.push_str(": ");
            text.push_str(&next);
        }
        source = cause.source();
    }
    text
}

/// Adds context to VFS errors on a path.
pub(crate) trait AtPath<T> {
    fn at(self, path: &std::path::Path) -> Result<T>;
}

impl<T> AtPath<T> for Result<T, computer_vfs::VfsError> {
    fn at(self, path: &std::path::Path) -> Result<T> {
        self.map_err(|e| GitError::failed(path.display(), e))
    }
}
