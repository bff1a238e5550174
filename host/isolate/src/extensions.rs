//! The `computer:host/process` interface (exit with a full status) and the
//! `computer:host/workspace` interface (revisions, changes, snapshots, modes and owners).

use computer_vfs::ChangeKind;

use computer_wasi::bindings::wasi::filesystem::types::ErrorCode;

use crate::bindings::computer::host::{process, workspace};
use crate::state::State;

/// The most entries one `copy-tree` makes: a copy is one transaction that the run's time
/// limit cannot stop part way, and a guest can double a tree with each. A bigger tree fails
/// (`E2BIG`, nothing made), and the shell copies its parts, down to entry by entry.
pub(crate) const COPY_TREE_MAX_ENTRIES: u64 = 100_000;

/// The most entries one `list-directory` (or `list-directory-info`) hands over: the list is lowered into the guest's
/// memory in one piece. A bigger directory fails (`overflow`) and the shell reads it an entry
/// at a time through `wasi:filesystem`.
pub(crate) const LIST_DIRECTORY_MAX_ENTRIES: usize = 100_000;

impl workspace::Host for State {
    fn revision(&mut self) -> wasmtime::Result<u64> {
        Ok(self.fs.vfs.revision()?)
    }

    fn changes_since(
        &mut self,
        since: u64,
    ) -> wasmtime::Result<Result<Vec<workspace::Change>, String>> {
        Ok(self
            .fs
            .vfs
            .changes_since(since)
            .map(|changes| {
                changes
                    .into_iter()
                    .map(|c| workspace::Change {
                        rev: c.rev,
                        kind: match c.kind {
                            ChangeKind::Created => workspace::ChangeKind::Created,
                            ChangeKind::Modified => workspace::ChangeKind::Modified,
                            ChangeKind::Deleted => workspace::ChangeKind::Deleted,
                            ChangeKind::Reset => workspace::ChangeKind::Reset,
                        },
                        path: c.path.to_string_lossy().into_owned(),
                    })
                    .collect()
            })
            .map_err(|e| e.to_string()))
    }

    fn snapshot(&mut self, name: String) -> wasmtime::Result<Result<(), String>> {
        Ok(self
            .fs
            .vfs
            .snapshot(&name)
            .map(|_| ())
            .map_err(|e| e.to_string()))
    }

    fn stat(
        &mut self,
        path: String,
        follow: bool,
    ) -> wasmtime::Result<Result<workspace::FileInfo, ErrorCode>> {
        // The devices `wasi:filesystem` opens are character devices to `test -c` and `ls`.
        if computer_wasi::descriptor::Device::at(std::path::Path::new(&path)).is_some() {
            return Ok(Ok(workspace::FileInfo {
                mode: 0o020666,
                uid: 0,
                gid: 0,
                nlink: 1,
                size: 0,
                ino: 0,
                atime: 0,
                mtime: 0,
                ctime: 0,
            }));
        }
        let vfs = &self.fs.vfs;
        let stat = if follow {
            vfs.stat(&path)
        } else {
            vfs.lstat(&path)
        };
        Ok(stat
            .map(|s| file_info(&s))
            .map_err(|e| computer_wasi::error_code(&e)))
    }

    fn list_directory(
        &mut self,
        path: String,
    ) -> wasmtime::Result<Result<Vec<workspace::DirectoryEntry>, ErrorCode>> {
        Ok(
            listing(self, &path, |vfs, path| vfs.read_dir(path)).map(|entries| {
                entries
                    .into_iter()
                    .map(|e| workspace::DirectoryEntry {
                        name: string(e.name),
                        type_: computer_wasi::descriptor_type(e.kind),
                    })
                    .collect()
            }),
        )
    }

    fn list_directory_info(
        &mut self,
        path: String,
    ) -> wasmtime::Result<Result<Vec<workspace::DirectoryEntryInfo>, ErrorCode>> {
        Ok(
            listing(self, &path, |vfs, path| vfs.read_dir_stat(path)).map(|entries| {
                entries
                    .into_iter()
                    .map(|(name, st)| workspace::DirectoryEntryInfo {
                        name: string(name),
                        info: file_info(&st),
                    })
                    .collect()
            }),
        )
    }

    fn chmod(&mut self, path: String, mode: u32) -> wasmtime::Result<Result<(), ErrorCode>> {
        Ok(self
            .fs
            .vfs
            .set_permissions(&path, mode & 0o7777)
            .map(|_| ())
            .map_err(|e| computer_wasi::error_code(&e)))
    }

    fn chown(
        &mut self,
        path: String,
        uid: Option<u32>,
        gid: Option<u32>,
        follow: bool,
    ) -> wasmtime::Result<Result<(), ErrorCode>> {
        Ok(self
            .fs
            .vfs
            .set_owner_of(&path, uid, gid, follow)
            .map(|_| ())
            .map_err(|e| computer_wasi::error_code(&e)))
    }

    fn mkfifo(&mut self, path: String, mode: u32) -> wasmtime::Result<Result<(), ErrorCode>> {
        Ok(self
            .fs
            .vfs
            .make_fifo(&path, mode & 0o7777)
            .map(|_| ())
            .map_err(|e| computer_wasi::error_code(&e)))
    }

    fn symlink(&mut self, target: String, path: String) -> wasmtime::Result<Result<(), ErrorCode>> {
        Ok(self
            .fs
            .vfs
            .symlink(target, path)
            .map(|_| ())
            .map_err(|e| computer_wasi::error_code(&e)))
    }

    fn remove_tree(&mut self, path: String) -> wasmtime::Result<Result<(), ErrorCode>> {
        if self.fs.reaches_layer(&path) {
            return Ok(Err(ErrorCode::ReadOnly));
        }
        // The guest's last listing may name what goes now.
        self.fs.forget_recent();
        Ok(self
            .fs
            .vfs
            .remove_all(&path)
            .map_err(|e| computer_wasi::error_code(&e)))
    }

    fn copy_tree(
        &mut self,
        src: String,
        dest: String,
        options: workspace::CopyOptions,
    ) -> wasmtime::Result<Result<(), ErrorCode>> {
        if self.fs.reaches_layer(&src) || self.fs.reaches_layer(&dest) {
            return Ok(Err(ErrorCode::ReadOnly));
        }
        // The guest's last listing may miss what comes now.
        self.fs.forget_recent();
        let how = computer_vfs::CopyOptions {
            mask: options.mask & 0o7777,
            owners: options.preserve,
            times: options.preserve,
            max_entries: Some(COPY_TREE_MAX_ENTRIES),
        };
        Ok(self
            .fs
            .vfs
            .copy_all_with(&src, &dest, how)
            .map_err(|e| computer_wasi::error_code(&e)))
    }

    fn usage(&mut self) -> wasmtime::Result<Result<workspace::FsUsage, ErrorCode>> {
        Ok(self
            .fs
            .vfs
            .statfs()
            .map(|s| workspace::FsUsage {
                block_size: s.block_size,
                blocks: s.blocks,
                blocks_free: s.blocks_free,
                files: s.files,
                files_free: s.files_free,
            })
            .map_err(|e| computer_wasi::error_code(&e)))
    }

    fn snapshots(&mut self) -> wasmtime::Result<Vec<String>> {
        Ok(self
            .fs
            .vfs
            .snapshots()?
            .into_iter()
            .map(|s| s.name)
            .collect())
    }
}

impl process::Host for State {
    /// Ends the guest the way `wasi:cli/exit` does (the runner turns `I32Exit` into the status).
    fn exit(&mut self, status: u8) -> wasmtime::Result<()> {
        Err(wasmtime_wasi::I32Exit(status as i32).into())
    }
}

/// What `stat` tells a guest of an inode.
fn file_info(s: &computer_vfs::Stat) -> workspace::FileInfo {
    workspace::FileInfo {
        mode: s.mode(),
        uid: s.uid,
        gid: s.gid,
        nlink: s.nlink,
        size: s.size,
        ino: s.ino,
        atime: s.atime,
        mtime: s.mtime,
        ctime: s.ctime,
    }
}

/// A workspace directory's listing as `read` gives it, for `list-directory` and
/// `list-directory-info`: not in a read-only layer (the guest lists those through
/// `wasi:filesystem`, which reaches them) and not past [`LIST_DIRECTORY_MAX_ENTRIES`] (the
/// whole list lands in the guest's memory at once; a bigger directory is read an entry at a
/// time through `wasi:filesystem`).
fn listing<T>(
    state: &State,
    path: &str,
    read: impl FnOnce(&computer_vfs::Vfs, &str) -> computer_vfs::Result<Vec<T>>,
) -> Result<Vec<T>, ErrorCode> {
    if state.fs.reaches_layer(path) {
        return Err(ErrorCode::ReadOnly);
    }
    let entries = read(&state.fs.vfs, path).map_err(|e| computer_wasi::error_code(&e))?;
    if entries.len() > LIST_DIRECTORY_MAX_ENTRIES {
        return Err(ErrorCode::Overflow);
    }
    Ok(entries)
}

/// A name for the guest: the workspace's names are UTF-8 (one that is not is shown lossily).
fn string(name: std::ffi::OsString) -> String {
    name.into_string()
        .unwrap_or_else(|n| n.to_string_lossy().into_owned())
}
