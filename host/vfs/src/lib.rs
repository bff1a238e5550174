//! `computer-vfs`: the workspace filesystem of `computer`, stored in one SQLite database.
//!
//! Every backend (the wasm isolate through `wasi:filesystem`, containers through FUSE, the
//! tools, the CLI and git) reads and writes the same [`Vfs`]. Its root is the agent computer's
//! `/`; a new workspace holds `/workspace` (the agent's files), `/tmp` and `/home/user`.
//!
//! # Architecture
//! - **Inodes and entries** (`inodes`, `dentries`): POSIX attributes, hard links, symlinks,
//!   extended attributes. Inode numbers are SQLite rowids and never reused; the root is 1.
//! - **Content** is split into fixed-size chunks (256 KiB by default) stored once per BLAKE3
//!   hash. Copies, snapshots and identical files share chunks; holes and zero chunks cost
//!   nothing; a chunk nobody references is deleted in the transaction that dropped it.
//! - **Two APIs over one transaction layer**: the inode API (`lookup`, `getattr`, `open`,
//!   `read`, `write`, `rename`, ...) that FUSE and WASI map onto, and a path API (`read_file`,
//!   `write_file`, `create_dir_all`, `remove_all`, `walk`, `glob`, ...) for tools and the CLI.
//!   Both follow Linux's rules and report errors as [`VfsError`], whose [`VfsError::errno`] is
//!   the one errno mapping shared by FUSE and WASI.
//! - **Handles buffer writes** per inode and commit them on flush/close, so many small writes
//!   cost one transaction.
//! - **Revisions**: each committed change bumps a counter and logs the paths it touched;
//!   [`Vfs::changes_since`] answers "what changed since revision N".
//! - **Audit log**: agent tool calls are recorded beside the tree ([`Vfs::record_audit`]).
//! - **Snapshots** copy metadata rows, not bytes; [`Vfs::restore_snapshot`] swaps them back and
//!   [`Vfs::fork`] writes one out as a new workspace file.
//! - **Concurrency**: WAL mode, one writer at a time (`BEGIN IMMEDIATE`), readers beside it,
//!   several threads and several processes. A committed write survives the death of any process.
//!
//! # Example
//! ```
//! use computer_vfs::Vfs;
//!
//! let vfs = Vfs::in_memory()?;
//! vfs.create_dir_all("/workspace/src")?;
//! vfs.write_file("/workspace/src/main.rs", "fn main() {}\n")?;
//! vfs.snapshot("before")?;
//! vfs.remove_all("/workspace/src")?;
//! vfs.restore_snapshot("before")?;
//! assert_eq!(vfs.read_file("/workspace/src/main.rs")?, b"fn main() {}\n");
//! # Ok::<(), computer_vfs::VfsError>(())
//! ```

mod audit;
mod cache;
mod changes;
mod content;
mod error;
mod handles;
mod inode_ops;
pub mod path;
mod path_api;
mod path_ops;
mod resolve;
mod schema;
mod settings;
mod snapshot;
mod tx;
mod types;
mod util;
mod vfs;
mod wal_index;

pub use audit::{AUDIT_KEEP, AuditEntry};
pub use changes::take_committed_rev;
pub use error::{Result, VfsError};
pub use handles::{Committed, MAX_READ};
pub use inode_ops::{RenameFlags, XattrMode};
pub use path_ops::{OpenPath, WalkEntry};
pub use schema::{APPLICATION_ID, DEFAULT_CHUNK_SIZE, SCHEMA_VERSION};
pub use tx::Owner;
pub use types::{
    Change, ChangeKind, CopyOptions, DirEntry, Fh, FileType, Ino, NAME_MAX, OpenFlags, PATH_MAX,
    ROOT_INO, SYMLINK_MAX, SetAttr, SnapshotInfo, Stat, StatFs, TimeSet,
};
pub use vfs::{Batch, Compacted, DEFAULT_MAX_FILE_SIZE, ReadHold, Vfs, VfsOptions, process_owner};

#[cfg(test)]
mod tests;
