//! The workspace's own settings: short texts by key (the network policy is one), kept beside
//! the tree in the same file. They are not part of the tree: no revision, not in snapshots or
//! exports, but a fork takes them along.

use rusqlite::OptionalExtension;

/// Whether `e` says a table does not exist.
fn is_missing_table(e: &rusqlite::Error) -> bool {
    matches!(e, rusqlite::Error::SqliteFailure(_, Some(msg)) if msg.starts_with("no such table"))
}

use crate::error::{Result, VfsError};
use crate::vfs::Vfs;

/// The longest value a setting may hold, in bytes.
pub const MAX_SETTING_BYTES: usize = 1 << 20;

impl Vfs {
    /// The setting `key`, if it was set.
    pub fn setting(&self, key: &str) -> Result<Option<String>> {
        let mut inner = self.lock()?;
        let stmt = inner
            .conn()
            .prepare_cached("SELECT value FROM settings WHERE key = ?1");
        match stmt {
            Ok(mut stmt) => Ok(stmt.query_row([key], |r| r.get(0)).optional()?),
            // A version-3 file opened read-only has no settings table: nothing is set.
            Err(e) if is_missing_table(&e) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// Sets `key` to `value`, or removes it with `None`.
    pub fn set_setting(&self, key: &str, value: Option<&str>) -> Result<()> {
        if self.is_read_only() {
            return Err(VfsError::ReadOnly);
        }
        if value.is_some_and(|v| v.len() > MAX_SETTING_BYTES) {
            return Err(VfsError::Invalid(
                "a setting is larger than the limit of 1 MiB (MAX_SETTING_BYTES)",
            ));
        }
        let mut inner = self.lock()?;
        match value {
            Some(value) => inner
                .conn()
                .prepare_cached("INSERT OR REPLACE INTO settings (key, value) VALUES (?1, ?2)")?
                .execute((key, value))?,
            None => inner
                .conn()
                .prepare_cached("DELETE FROM settings WHERE key = ?1")?
                .execute([key])?,
        };
        Ok(())
    }
}
