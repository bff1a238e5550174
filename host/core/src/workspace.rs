//! The `Workspace` facade.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use computer_vfs::{SnapshotInfo, Vfs, VfsOptions};

use crate::error::Result;
use crate::git::GitSlot;
use crate::jobs::Jobs;
use computer_container::ContainerConfig;
use computer_container::{ContainerProgress, Containers};

/// The agent's home in the computer's namespace: the default working directory everywhere,
/// and where relative paths given to the API, the CLI and the tools resolve.
pub const DEFAULT_CWD: &str = "/workspace";

/// One agent computer's persistent state: its filesystem, git on its repositories, and exec.
#[derive(Debug, Clone)]
pub struct Workspace {
    vfs: Arc<Vfs>,
    containers: Arc<Containers>,
    git: Arc<GitSlot>,
    jobs: Arc<Jobs>,
    /// Secrets of this workspace's own (`None`: the process's).
    secrets: Arc<std::sync::Mutex<Option<computer_net::Secrets>>>,
}

impl Workspace {
    /// Opens the workspace file at `path`, creating it (and its folder) if missing.
    pub fn open(path: impl AsRef<Path>) -> Result<Workspace> {
        Ok(Workspace::from_vfs(Arc::new(Vfs::open(path)?)))
    }

    /// Opens a workspace file with options (read-only, no creation, full sync...).
    pub fn open_with(path: impl AsRef<Path>, options: &VfsOptions) -> Result<Workspace> {
        Ok(Workspace::from_vfs(Arc::new(Vfs::open_with(
            path, options,
        )?)))
    }

    /// A throwaway workspace that lives in memory.
    pub fn in_memory() -> Result<Workspace> {
        Ok(Workspace::from_vfs(Arc::new(Vfs::in_memory()?)))
    }

    /// Wraps an open VFS.
    pub fn from_vfs(vfs: Arc<Vfs>) -> Workspace {
        Workspace {
            containers: Containers::new(Arc::downgrade(&vfs)),
            git: Arc::default(),
            jobs: Arc::default(),
            secrets: Arc::default(),
            vfs,
        }
    }

    pub(crate) fn jobs_registry(&self) -> &Jobs {
        &self.jobs
    }

    /// Sets how this workspace's container is made (image, limits, idle time).
    /// Applies to the next container: one already running keeps its settings until it stops.
    /// The default image can be set with `COMPUTER_CONTAINER_IMAGE`.
    pub fn set_container_config(&self, config: ContainerConfig) {
        self.containers.set_config(config);
    }

    /// How this workspace's container is made.
    pub fn container_config(&self) -> ContainerConfig {
        self.containers.config()
    }

    /// Hears about the steps of starting the container backend (pulling or building its
    /// image takes a while, once).
    pub fn on_container_progress(&self, progress: Option<ContainerProgress>) {
        self.containers.set_progress(progress);
    }

    /// Stops this workspace's container now if one runs; the next container command starts
    /// another. One a command still runs in goes when that command ends.
    pub fn stop_container(&self) {
        self.containers.stop_now();
    }

    pub(crate) fn containers(&self) -> &Arc<Containers> {
        &self.containers
    }

    pub(crate) fn git_slot(&self) -> &GitSlot {
        &self.git
    }

    pub(crate) fn secrets_slot(&self) -> &std::sync::Mutex<Option<computer_net::Secrets>> {
        &self.secrets
    }

    /// Whether anything but this value uses the workspace: a clone of it (a call in progress,
    /// a background job) or its filesystem held elsewhere (a container's mount). The git
    /// handle this workspace keeps for reuse does not count.
    pub fn is_shared(&self) -> bool {
        // Every clone holds one reference to `jobs` and one to `vfs`; the cached git, one
        // to `vfs`.
        let clones = Arc::strong_count(&self.jobs);
        let git = usize::from(self.git_slot().is_cached());
        clones > 1 || Arc::strong_count(&self.vfs) > clones + git
    }

    /// The filesystem.
    pub fn fs(&self) -> &Vfs {
        &self.vfs
    }

    /// A shared handle to the filesystem, for backends that outlive a borrow.
    pub fn vfs(&self) -> Arc<Vfs> {
        Arc::clone(&self.vfs)
    }

    /// The absolute workspace path for `path`: relative paths resolve against `/workspace`.
    pub fn resolve(&self, path: impl AsRef<Path>) -> PathBuf {
        let path = path.as_ref();
        if path.is_absolute() {
            path.to_path_buf()
        } else {
            Path::new(DEFAULT_CWD).join(path)
        }
    }

    /// Takes a named snapshot of the whole tree (cheap: content is shared, not copied).
    pub fn snapshot(&self, name: &str) -> Result<SnapshotInfo> {
        Ok(self.vfs.snapshot(name)?)
    }

    /// The snapshots, oldest first.
    pub fn snapshots(&self) -> Result<Vec<SnapshotInfo>> {
        Ok(self.vfs.snapshots()?)
    }

    /// Replaces the tree with a snapshot's.
    pub fn restore(&self, name: &str) -> Result<()> {
        Ok(self.vfs.restore_snapshot(name)?)
    }

    /// Deletes a snapshot.
    pub fn delete_snapshot(&self, name: &str) -> Result<()> {
        Ok(self.vfs.delete_snapshot(name)?)
    }

    /// Deletes the workspace file at `path` with its WAL and shared-memory files and its git
    /// cache (a missing one is fine). Handles still open on it keep working on the unlinked
    /// file.
    pub fn delete_file(path: impl AsRef<Path>) -> std::io::Result<()> {
        let path = path.as_ref();
        match std::fs::remove_dir_all(Workspace::git_cache_of(path)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        for suffix in ["", "-wal", "-shm"] {
            let mut name = path.as_os_str().to_owned();
            name.push(suffix);
            match std::fs::remove_file(&name) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
                _ => {}
            }
        }
        Ok(())
    }

    /// Writes a snapshot out as a new, independent workspace file at `path`.
    pub fn fork(&self, name: &str, path: impl AsRef<Path>) -> Result<Workspace> {
        Ok(Workspace::from_vfs(Arc::new(self.vfs.fork(name, path)?)))
    }
}
