//! `computer`: a computer for AI agents. A [`Workspace`] is a persistent filesystem in one
//! SQLite file (see [`computer_vfs`]) that every execution backend shares; this crate is the
//! Rust API over it that the CLI, the agent tools and embedders call.
//!
//! # Architecture
//! - [`Workspace`] owns an `Arc<Vfs>`: `.fs()` is the filesystem (absolute paths; the agent's
//!   files live under `/workspace`), snapshots and forks are methods here.
//! - [`Workspace::import`] / [`Workspace::export`] move trees between the host and the
//!   workspace: host folders, `.tar` and `.tar.gz`, keeping modes, symlinks, hard links and mtimes.
//! - [`Workspace::exec`] runs bash source or a command line on a backend (today the isolate:
//!   the bash-compatible shell compiled to WebAssembly); [`Workspace::session`] keeps the
//!   shell's state between execs.
//! - The container backend ([`Backend::Container`], and `auto`'s fallback for commands the
//!   shell does not have) runs native programs in a warm Docker container per workspace with
//!   the workspace mounted at `/workspace` through FUSE, or copied there and back for an
//!   engine the mount cannot reach ([`containers`]).
//! - [`Workspace::net_policy`] is the network egress policy every guest request meets on
//!   the host (the isolate's curl, wget and git); nothing is reachable until it allows a host.
//!   [`Workspace::secrets`] are added to those requests on the way out, where they are bound:
//!   a guest sees only placeholders.
//! - [`Workspace::spawn`] starts a command in the background on any backend: a [`Job`]
//!   whose output is read as it comes, waited for, killed.
//!
//! # Example
//! ```
//! use computer::Workspace;
//!
//! let ws = Workspace::in_memory()?;
//! ws.fs().write_file("/workspace/notes.md", "# hello\n")?;
//! assert_eq!(ws.fs().read_file(ws.resolve("notes.md"))?, b"# hello\n");
//! # Ok::<(), computer::Error>(())
//! ```

mod egress;
mod error;
mod exec;
mod export;
mod git;
mod import;
mod jobs;
pub mod runtimes;
mod secrets;
mod transfer;
mod workspace;

pub use computer_container as containers;
pub use computer_container::ContainerProgress;
pub use computer_git as gitlib;
pub use computer_isolate as isolate;
pub use computer_net as net;
pub use computer_vfs as vfs;
pub use computer_vfs::{Vfs, VfsError, VfsOptions};
pub use error::{Error, Result};
pub use exec::{Backend, ExecOutput, ExecRequest, Program, Session, runtime, start_runtime};
pub use git::GitOptions;
pub use jobs::{JOB_LOG_BYTES, Job, JobLogs, JobStatus, LogCursor, MAX_RUNNING_JOBS};
pub use secrets::{env_secrets, host_secrets, set_host_secrets};
pub use transfer::{Progress, TransferStats};
pub use workspace::{DEFAULT_CWD, Workspace};

/// Locks `m`. The state behind this crate's locks is whole after every update, so a panic
/// elsewhere (a poisoned lock) does not make it unusable.
pub(crate) fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
