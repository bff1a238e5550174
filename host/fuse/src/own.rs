//! The revisions this mount committed for the kernel's own metadata requests. The kernel
//! learned of those changes from the replies, so the invalidator leaves them out: telling the
//! kernel to forget them would throw away the entries and attributes it was just given, and
//! cost a lookup each the next time. So are the commits of data written through the mount,
//! when they held no other writer's bytes (the isolate's buffered writes to the same file
//! may go in with them): the kernel's pages hold those bytes already.

use std::collections::BTreeSet;
use std::sync::{Mutex, MutexGuard};

use computer_vfs::{VfsError, take_committed_rev};

#[derive(Default)]
pub(crate) struct OwnRevs {
    revs: Mutex<BTreeSet<u64>>,
}

impl OwnRevs {
    fn revs(&self) -> MutexGuard<'_, BTreeSet<u64>> {
        self.revs.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs the VFS call `f` for a request of the kernel's and notes the revision it
    /// committed, if it did.
    pub(crate) fn note<T>(&self, f: impl FnOnce() -> Result<T, VfsError>) -> Result<T, VfsError> {
        self.note_if(f, |_| true).0
    }

    /// Runs the VFS call `f` for a request of the kernel's and notes the revision it
    /// committed, if it did and `mine` says that what it committed the kernel knows of.
    /// Returns what `mine` said beside the result (false for an error).
    pub(crate) fn note_if<T>(
        &self,
        f: impl FnOnce() -> Result<T, VfsError>,
        mine: impl FnOnce(&T) -> bool,
    ) -> (Result<T, VfsError>, bool) {
        let _ = take_committed_rev();
        let result = f();
        let rev = take_committed_rev();
        let ours = result.as_ref().is_ok_and(mine);
        if ours && let Some(rev) = rev {
            self.revs().insert(rev);
        }
        (result, ours)
    }

    /// The revisions up to `upto` this mount committed, forgotten here once returned.
    pub(crate) fn take_upto(&self, upto: u64) -> BTreeSet<u64> {
        let mut revs = self.revs();
        let later = revs.split_off(&upto.saturating_add(1));
        std::mem::replace(&mut *revs, later)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn revisions_are_handed_over_once_up_to_the_one_asked() {
        let own = OwnRevs::default();
        own.revs().extend([3, 5, 9]);
        assert_eq!(own.take_upto(5), BTreeSet::from([3, 5]));
        assert_eq!(own.take_upto(5), BTreeSet::new());
        assert_eq!(own.take_upto(9), BTreeSet::from([9]));
    }
}
