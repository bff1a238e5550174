//! Which files' cached pages the kernel may keep when they are opened again
//! (`FOPEN_KEEP_CACHE`).
//!
//! Without that flag the kernel drops a file's pages on every open, so a program that reads
//! the same files again and again (an interpreter's imports, a compiler's headers, git's
//! objects) reads them through the mount each time. With it always set, a file changed by
//! another writer (the isolate, the tools, another process) would be read stale from the
//! pages until the invalidator caught up. So each open compares the file's version (its
//! modification and change times and its size, read from the VFS, which sees every commit)
//! with the version of the last open: the pages are kept only when nothing changed the file
//! in between. Any change, the mount's own writes included, moves the change time, so the
//! comparison can only drop pages that were good, never keep pages that are stale.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use computer_vfs::Stat;
use fuser::INodeNo;

/// What identifies one state of a file's content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Version {
    mtime: i64,
    ctime: i64,
    size: u64,
}

impl Version {
    fn of(st: &Stat) -> Version {
        Version {
            mtime: st.mtime,
            ctime: st.ctime,
            size: st.size,
        }
    }
}

/// The version of each file as of its last open through the mount.
#[derive(Default)]
pub(crate) struct OpenedVersions {
    seen: Mutex<HashMap<INodeNo, Version>>,
}

impl OpenedVersions {
    fn seen(&self) -> MutexGuard<'_, HashMap<INodeNo, Version>> {
        // Inserts and removes only: a panic elsewhere cannot leave the map inconsistent.
        self.seen.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Called on each open of `ino`, whose attributes are `st` now: whether the kernel may
    /// keep the pages it cached since the last open. The answer is no for a file not
    /// opened before (or forgotten since) and for one truncated by this open.
    pub(crate) fn may_keep(&self, ino: INodeNo, st: &Stat, truncating: bool) -> bool {
        let now = Version::of(st);
        let mut seen = self.seen();
        if truncating {
            seen.remove(&ino);
            return false;
        }
        seen.insert(ino, now) == Some(now)
    }

    /// The kernel evicted `ino` (its pages with it), or gave up an entry for it.
    pub(crate) fn forget(&self, ino: INodeNo) {
        self.seen().remove(&ino);
    }
}
