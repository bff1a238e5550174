//! Reading the change log: what changed since a revision, and which revision this thread
//! committed last.

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::path::PathBuf;

use crate::error::{Result, VfsError};
use crate::schema::meta_get;
use crate::types::{Change, ChangeKind};
use crate::vfs::Vfs;

thread_local! {
    /// The revision of the last change committed on this thread, until taken.
    static COMMITTED: std::cell::Cell<Option<u64>> = const { std::cell::Cell::new(None) };
}

/// Notes that this thread committed revision `rev`.
pub(crate) fn committed(rev: u64) {
    COMMITTED.with(|c| c.set(Some(rev)));
}

/// The revision of the last change this thread committed since the last call, if any. A
/// writer that shows its own changes itself (the FUSE mount tells the kernel in its replies)
/// uses it to leave them out when it reads the change log.
pub fn take_committed_rev() -> Option<u64> {
    COMMITTED.with(std::cell::Cell::take)
}

impl Vfs {
    /// The changes committed after revision `rev`, oldest first. Fails with `ChangesTrimmed`
    /// when the log no longer reaches back that far (the caller should re-read the tree).
    pub fn changes_since(&self, rev: u64) -> Result<Vec<Change>> {
        self.read_tx(|tx| {
            let floor = meta_get(tx.conn, "changes_floor")? as u64;
            if rev < floor {
                return Err(VfsError::ChangesTrimmed { floor });
            }
            let mut stmt = tx.conn.prepare_cached(
                "SELECT rev, kind, path FROM changes WHERE rev > ?1 ORDER BY rev, seq",
            )?;
            let rows = stmt.query_map([rev], |r| {
                Ok(Change {
                    rev: r.get(0)?,
                    kind: ChangeKind::from_code(r.get(1)?),
                    path: PathBuf::from(OsString::from_vec(r.get(2)?)),
                })
            })?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }
}
