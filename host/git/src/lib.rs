//! Git on repositories inside a workspace, without a container.
//!
//! A repository lives in the VFS like any other files, `.git` included, so a container's real
//! `git` reads and writes the same repository. Operations run on gix (pure Rust): each one
//! copies the repository's `.git` to a host cache directory (only what changed since the last
//! time: packs and objects never change), works there, and copies back what it changed. The
//! worktree is read and written in the VFS directly. [`Git::run`] takes a git command line and
//! prints what git prints, with git's exit codes; it backs the shell's `git`, `computer git`
//! and the library API.

mod cli;
mod cmd_branch;
mod cmd_history;
mod cmd_push;
mod cmd_remote;
mod cmd_setup;
mod cmd_stash;
mod cmd_worktree;
mod config_filter;
mod diff;
mod error;
mod global;
mod mirror;
mod pathspec;
mod progress;
mod refs;
mod repo;
mod status;
mod worktree;

pub use cli::{
    COMMANDS, Command, Invocation, Output, command, identity_from_file, supports, supports_line,
    unsupported,
};
pub use cmd_remote::CloneOptions;
pub use error::{GitError, Result};
pub use mirror::SyncStats;
pub use repo::{DEFAULT_NETWORK_TIMEOUT, Git};
