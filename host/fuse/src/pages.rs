//! Which files' cached pages, and which directories' cached listings, the kernel may keep
//! when they are opened again (`FOPEN_KEEP_CACHE`; a directory's listing is cached in its
//! pages with `FOPEN_CACHE_DIR`, and the same comparison decides whether it is kept).
//!
//! Without that flag the kernel drops a file's pages on every open, so a program that reads
//! the same files again and again (an interpreter's imports, a compiler's headers, git's
//! objects) reads them through the mount each time. With it always set, a file changed by
//! another writer (the isolate, the tools, another process) would be read stale from the
//! pages until the invalidator caught up. So each open compares the file's version (its
//! modification and change times and its size, read from the VFS, which sees every commit)
//! with the version of the last open: the pages are kept only when nothing changed the file
//! in between. Any change moves the change time, so the comparison can only drop pages that
//! were good, never keep pages that are stale. The changes recorded as a version here are a
//! commit of bytes written through the mount alone and a size set through it (`fs.rs`): the
//! kernel wrote or cut those pages itself, so a file written and then read again (an
//! installed module, a build's output) is read from memory.

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

    /// Called on each open of `ino`, whose attributes are `st` now (after the open's
    /// truncation, if it made one): whether the kernel may keep the pages it cached since
    /// the last open. The answer is no for a file not opened before (or forgotten since) and
    /// for one truncated by this open. Either way the kernel's pages are `st`'s from here.
    pub(crate) fn may_keep(&self, ino: INodeNo, st: &Stat, truncating: bool) -> bool {
        let now = Version::of(st);
        let before = self.seen().insert(ino, now);
        !truncating && before == Some(now)
    }

    /// `ino` went from `before` to `after` by a commit of writes made through the mount
    /// alone: the kernel's pages hold what it committed, so the next open may keep them,
    /// unless something else changed the file since its last open (its pages may be stale
    /// elsewhere).
    pub(crate) fn wrote(&self, ino: INodeNo, before: &Stat, after: &Stat) {
        let mut seen = self.seen();
        if seen.get(&ino) == Some(&Version::of(before)) {
            seen.insert(ino, Version::of(after));
        } else {
            seen.remove(&ino);
        }
    }

    /// The kernel evicted `ino` (its pages with it), or gave up an entry for it; or a
    /// commit for it held bytes the kernel's pages may lack.
    pub(crate) fn forget(&self, ino: INodeNo) {
        self.seen().remove(&ino);
    }
}
