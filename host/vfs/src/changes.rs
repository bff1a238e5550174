//! Reading the change log: what changed since a revision.

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::path::PathBuf;

use crate::error::{Result, VfsError};
use crate::schema::meta_get;
use crate::types::{Change, ChangeKind};
use crate::vfs::Vfs;

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
