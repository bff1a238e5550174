//! The audit log: one row per agent tool call, kept beside the tree in the same file. Rows are
//! not part of the tree (no revision, not in snapshots) and only the newest
//! [`AUDIT_KEEP`] are kept.

use crate::error::{Result, VfsError};
use crate::vfs::Vfs;

/// How many audit rows a workspace keeps; older ones are dropped as new ones arrive.
pub const AUDIT_KEEP: i64 = 100_000;

/// One recorded tool call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditEntry {
    /// Its position in the log (assigned when recorded; ignored by [`Vfs::record_audit`]).
    pub id: i64,
    /// When the call started, in ns since the Unix epoch.
    pub started: i64,
    /// How long it took, in ns.
    pub duration: i64,
    /// Which server took the call (`mcp`, `mcp-http`, `http`, `library`).
    pub origin: String,
    /// The tool's name.
    pub tool: String,
    /// Its arguments as JSON.
    pub args: String,
    /// A short summary of the result.
    pub summary: String,
    /// Why it failed, if it did.
    pub error: Option<String>,
}

impl Vfs {
    /// Appends `entry` to the audit log and returns its id.
    pub fn record_audit(&self, entry: &AuditEntry) -> Result<i64> {
        if self.is_read_only() {
            return Err(VfsError::ReadOnly);
        }
        let mut inner = self.lock()?;
        let conn = inner.conn();
        conn.prepare_cached(
            "INSERT INTO audit (started, duration, origin, tool, args, summary, error)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )?
        .execute((
            entry.started,
            entry.duration,
            &entry.origin,
            &entry.tool,
            &entry.args,
            &entry.summary,
            &entry.error,
        ))?;
        let id = conn.last_insert_rowid();
        // Trim in steps of a thousand rows so that the delete runs once per thousand calls.
        if id % 1000 == 0 {
            conn.prepare_cached("DELETE FROM audit WHERE id <= ?1")?
                .execute([id - AUDIT_KEEP])?;
        }
        Ok(id)
    }

    /// The audit log's newest `limit` entries with an id above `after`, oldest first.
    pub fn audit_log(&self, after: i64, limit: usize) -> Result<Vec<AuditEntry>> {
        let mut inner = self.lock()?;
        let mut stmt = inner.conn().prepare_cached(
            "SELECT id, started, duration, origin, tool, args, summary, error FROM audit
             WHERE id > ?1 ORDER BY id DESC LIMIT ?2",
        )?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = stmt.query_map((after, limit), |r| {
            Ok(AuditEntry {
                id: r.get(0)?,
                started: r.get(1)?,
                duration: r.get(2)?,
                origin: r.get(3)?,
                tool: r.get(4)?,
                args: r.get(5)?,
                summary: r.get(6)?,
                error: r.get(7)?,
            })
        })?;
        let mut entries = rows.collect::<rusqlite::Result<Vec<_>>>()?;
        entries.reverse();
        Ok(entries)
    }
}
