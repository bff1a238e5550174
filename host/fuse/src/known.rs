//! The directory entries the kernel was given, by parent and name. A directory removed and
//! made again by another writer has a new inode under the old name; the kernel's entry must
//! then go, or it keeps showing the removed one. But an entry of a directory still in use must
//! not be invalidated: that detaches it from the tree, and a process whose working directory
//! it is can no longer find its way. Knowing which inode the kernel was given tells the two
//! apart.

use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::sync::{Mutex, MutexGuard};

use fuser::INodeNo;

/// Entries kept at most; past it the map starts again, and a stale directory entry then lasts
/// until its TTL runs out.
const MAX_KNOWN: usize = 1 << 20;

/// (parent, name) → inode, in the kernel's numbering, for directories only.
#[derive(Default)]
pub(crate) struct KnownDirs {
    map: Mutex<HashMap<(u64, OsString), u64>>,
}

impl KnownDirs {
    fn map(&self) -> MutexGuard<'_, HashMap<(u64, OsString), u64>> {
        // Single inserts and removes: a panic elsewhere cannot leave it inconsistent.
        self.map.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The kernel was given `ino` as the directory `name` of `parent`.
    pub(crate) fn saw(&self, parent: INodeNo, name: &OsStr, ino: INodeNo) {
        let mut map = self.map();
        if map.len() >= MAX_KNOWN {
            map.clear();
        }
        map.insert((parent.0, name.to_owned()), ino.0);
    }

    /// The directory the kernel was given as `name` of `parent`, if any.
    pub(crate) fn get(&self, parent: INodeNo, name: &OsStr) -> Option<INodeNo> {
        let key = (parent.0, name.to_owned());
        self.map().get(&key).copied().map(INodeNo)
    }

    /// `name` of `parent` names no directory the kernel knows any more.
    pub(crate) fn gone(&self, parent: INodeNo, name: &OsStr) {
        self.map().remove(&(parent.0, name.to_owned()));
    }

    /// A rename through the mount, which the kernel has applied to its own entries.
    pub(crate) fn renamed(&self, from: (INodeNo, &OsStr), to: (INodeNo, &OsStr), exchange: bool) {
        let mut map = self.map();
        let moved = map.remove(&(from.0.0, from.1.to_owned()));
        let replaced = map.remove(&(to.0.0, to.1.to_owned()));
        if let Some(ino) = moved {
            map.insert((to.0.0, to.1.to_owned()), ino);
        }
        if let (true, Some(ino)) = (exchange, replaced) {
            map.insert((from.0.0, from.1.to_owned()), ino);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renames_move_and_exchange_what_the_kernel_was_given() {
        let known = KnownDirs::default();
        let (root, a, b) = (INodeNo(1), OsStr::new("a"), OsStr::new("b"));
        known.saw(root, a, INodeNo(5));
        known.saw(root, b, INodeNo(6));
        known.renamed((root, a), (root, b), true);
        assert_eq!(known.get(root, a), Some(INodeNo(6)));
        assert_eq!(known.get(root, b), Some(INodeNo(5)));
        known.renamed((root, a), (root, b), false);
        assert_eq!(known.get(root, a), None);
        assert_eq!(known.get(root, b), Some(INodeNo(6)));
        known.gone(root, b);
        assert_eq!(known.get(root, b), None);
    }
}
