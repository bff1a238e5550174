//! Keeps the kernel's caches true to the VFS when something other than this mount (the
//! isolate, the tools, another process on the same workspace file) changes it: the change log
//! says which paths changed since the last look, and the kernel is told to forget their
//! entries, attributes and cached pages.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use computer_vfs::{ChangeKind, Vfs, VfsError};
use fuser::{INodeNo, Notifier};

use crate::attr::Inodes;
use crate::known::KnownDirs;
use crate::own::OwnRevs;

/// Sends the kernel what changed in the VFS since the last call.
pub(crate) struct Invalidator {
    vfs: Arc<Vfs>,
    notifier: Notifier,
    inodes: Inodes,
    /// The directory entries the kernel was given.
    known: Arc<KnownDirs>,
    /// Revisions the mount committed for the kernel (it knows of them already).
    own: Arc<OwnRevs>,
    /// The mounted VFS directory.
    root: PathBuf,
    /// The revision the kernel's caches reflect.
    seen: Mutex<u64>,
}

impl Invalidator {
    pub(crate) fn new(
        vfs: Arc<Vfs>,
        notifier: Notifier,
        inodes: Inodes,
        known: Arc<KnownDirs>,
        own: Arc<OwnRevs>,
        root: PathBuf,
        seen: u64,
    ) -> Invalidator {
        Invalidator {
            vfs,
            notifier,
            inodes,
            known,
            own,
            root,
            seen: Mutex::new(seen),
        }
    }

    /// Tells the kernel about every change committed since the last call. Returns how many
    /// paths it named.
    pub(crate) fn run(&self) -> Result<usize, VfsError> {
        // One caller at a time, so that revisions are handed on in order.
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        let rev = self.vfs.revision()?;
        if rev == *seen {
            return Ok(0);
        }
        let mut paths = HashSet::new();
        // Paths created or removed since: a name there now may name a new inode.
        let mut renamed = HashSet::new();
        let mut everything = false;
        let own = self.own.take_upto(rev);
        match self.vfs.changes_since(*seen) {
            Ok(changes) => {
                for change in changes.into_iter().filter(|c| !own.contains(&c.rev)) {
                    match change.kind {
                        ChangeKind::Reset => everything = true,
                        ChangeKind::Created | ChangeKind::Deleted => {
                            renamed.insert(change.path.clone());
                        }
                        ChangeKind::Modified => {}
                    }
                    paths.insert(change.path);
                }
            }
            // The log no longer reaches back that far: treat the whole tree as changed.
            Err(VfsError::ChangesTrimmed { .. }) => everything = true,
            Err(e) => return Err(e),
        }
        if everything {
            let all: Vec<PathBuf> = self
                .vfs
                .walk(&self.root)?
                .into_iter()
                .map(|entry| entry.path)
                .collect();
            renamed.extend(all.iter().cloned());
            paths.extend(all);
        }
        *seen = rev;
        let named = paths.len();
        for path in paths {
            let new_name = renamed.contains(&path);
            self.forget(&path, new_name);
        }
        Ok(named)
    }

    /// Makes the kernel drop what it caches of `path`: the attributes of its parent, the
    /// attributes and pages of the inode it names now, and, if it names nothing now, the
    /// directory entry. If the name was created or removed since (`new_name`), its entry
    /// goes too: the kernel may still map the name to the inode it named before (a file
    /// replaced by a rename, or removed and written again), or hold a negative entry for
    /// it. The one exception is a directory the kernel was given as the inode it is now
    /// ([`KnownDirs`]): invalidating the entry of a directory still in use detaches it (a
    /// process whose working directory it is could no longer find its way). Errors are
    /// expected (the kernel may not know a name or an inode) and change nothing.
    fn forget(&self, path: &Path, new_name: bool) {
        let Ok(relative) = path.strip_prefix(&self.root) else {
            return;
        };
        let mut dir = INodeNo::ROOT;
        let mut names = relative.components().peekable();
        while let Some(name) = names.next() {
            let name = name.as_os_str();
            // Looked up through the inode API, which (unlike the path API) does not commit
            // writes other handles still buffer.
            match self.vfs.lookup(self.inodes.vfs(dir), name) {
                Ok(st) => {
                    if names.peek().is_none() {
                        // Attributes only (offset -1) for the parent.
                        let _ = self.notifier.inval_inode(dir, -1, 0);
                        // The kernel may hold another inode under this name, or a
                        // negative entry: only a directory it was given as this very inode
                        // keeps its entry.
                        let now = self.inodes.kernel(st.ino);
                        let current = st.is_dir() && self.known.get(dir, name) == Some(now);
                        if new_name && !current {
                            self.known.gone(dir, name);
                            let _ = self.notifier.inval_entry(dir, name);
                        }
                    }
                    dir = self.inodes.kernel(st.ino);
                }
                Err(_) => {
                    if names.peek().is_none() {
                        self.known.gone(dir, name);
                        let _ = self.notifier.inval_inode(dir, -1, 0);
                        let _ = self.notifier.inval_entry(dir, name);
                    }
                    return;
                }
            }
        }
        let _ = self.notifier.inval_inode(dir, 0, 0);
    }
}
