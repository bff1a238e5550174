//! Snapshots: a named copy of the tree's rows (inodes, entries, chunk lists) that shares the
//! content chunks, so taking one copies no file bytes. Restore swaps the rows back; fork writes
//! a snapshot out as a new, independent workspace file.

use std::path::Path;

use rusqlite::{Connection, OptionalExtension};

use crate::error::{Result, VfsError};
use crate::schema::{self, meta_get};
use crate::tx::Tx;
use crate::types::{ChangeKind, SnapshotInfo};
use crate::vfs::Vfs;

/// The tables that make up the tree, with their columns after `ino`/`snap`.
const TREE_TABLES: &[(&str, &str)] = &[
    (
        "inodes",
        "ino, mode, uid, gid, nlink, size, atime, mtime, ctime, rdev",
    ),
    ("dentries", "parent, name, ino"),
    ("symlinks", "ino, target"),
    ("file_chunks", "ino, idx, chunk"),
    ("xattrs", "ino, name, value"),
];

fn check_snapshot_name(name: &str) -> Result<()> {
    if name.is_empty() || name.len() > 255 {
        return Err(VfsError::Invalid("snapshot names are 1 to 255 bytes"));
    }
    if name.chars().any(char::is_control) || name.contains('/') {
        return Err(VfsError::Invalid(
            "snapshot names may not contain '/' or control characters",
        ));
    }
    Ok(())
}

fn snapshot_id(tx: &Tx<'_>, name: &str) -> Result<i64> {
    tx.conn
        .prepare_cached("SELECT id FROM snapshots WHERE name = ?1")?
        .query_row([name], |r| r.get(0))
        .optional()?
        .ok_or_else(|| VfsError::SnapshotNotFound(name.to_string()))
}

impl Vfs {
    /// Takes a snapshot of the whole tree. Costs a copy of the metadata rows, not of content.
    pub fn snapshot(&self, name: &str) -> Result<SnapshotInfo> {
        check_snapshot_name(name)?;
        let mut inner = self.lock()?;
        self.flush_dirty(&mut inner)?;
        self.write_locked(&mut inner, |tx| {
            if snapshot_id(tx, name).is_ok() {
                return Err(VfsError::SnapshotExists(name.to_string()));
            }
            let rev = meta_get(tx.conn, "rev")?;
            tx.conn.execute(
                "INSERT INTO snapshots (name, created, rev) VALUES (?1, ?2, ?3)",
                (name, tx.now, rev),
            )?;
            let id = tx.conn.last_insert_rowid();
            for (table, cols) in TREE_TABLES {
                tx.conn.execute(
                    &format!(
                        "INSERT INTO snap_{table} (snap, {cols}) SELECT ?1, {cols} FROM {table}"
                    ),
                    [id],
                )?;
            }
            Ok(())
        })?;
        drop(inner);
        self.snapshots()?
            .into_iter()
            .find(|s| s.name == name)
            .ok_or_else(|| VfsError::SnapshotNotFound(name.to_string()))
    }

    /// All snapshots, oldest first.
    pub fn snapshots(&self) -> Result<Vec<SnapshotInfo>> {
        self.read_tx(|tx| {
            let mut stmt = tx.conn.prepare(
                "SELECT s.name, s.created, s.rev,
                        (SELECT count(*) FROM snap_inodes i WHERE i.snap = s.id),
                        (SELECT coalesce(sum(size), 0) FROM snap_inodes i
                          WHERE i.snap = s.id AND (i.mode & 61440) = 32768)
                 FROM snapshots s ORDER BY s.id",
            )?;
            let rows = stmt.query_map([], |r| {
                Ok(SnapshotInfo {
                    name: r.get(0)?,
                    created: r.get(1)?,
                    rev: r.get(2)?,
                    inodes: r.get(3)?,
                    bytes: r.get(4)?,
                })
            })?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }

    /// Deletes a snapshot; content only it referenced is freed.
    pub fn delete_snapshot(&self, name: &str) -> Result<()> {
        self.write_tx(|tx| {
            let id = snapshot_id(tx, name)?;
            let chunks: Vec<i64> = tx
                .conn
                .prepare("DELETE FROM snap_file_chunks WHERE snap = ?1 RETURNING chunk")?
                .query_map([id], |r| r.get(0))?
                .collect::<rusqlite::Result<_>>()?;
            for chunk in chunks {
                tx.released(chunk);
            }
            for (table, _) in TREE_TABLES {
                tx.conn
                    .execute(&format!("DELETE FROM snap_{table} WHERE snap = ?1"), [id])?;
            }
            tx.conn
                .execute("DELETE FROM snapshots WHERE id = ?1", [id])?;
            Ok(())
        })
    }

    /// Replaces the whole tree with a snapshot's (the snapshot stays). The change log gets one
    /// `Reset` entry for `/`. Handles open in this process keep their inode numbers, which
    /// may no longer exist afterwards.
    pub fn restore_snapshot(&self, name: &str) -> Result<()> {
        let mut inner = self.lock()?;
        self.flush_dirty(&mut inner)?;
        self.write_locked(&mut inner, |tx| {
            let id = snapshot_id(tx, name)?;
            tx.touched_all();
            let chunks: Vec<i64> = tx
                .conn
                .prepare("DELETE FROM file_chunks RETURNING chunk")?
                .query_map([], |r| r.get(0))?
                .collect::<rusqlite::Result<_>>()?;
            for chunk in chunks {
                tx.released(chunk);
            }
            for (table, cols) in TREE_TABLES {
                tx.conn.execute(&format!("DELETE FROM {table}"), [])?;
                tx.conn.execute(
                    &format!("INSERT INTO {table} ({cols}) SELECT {cols} FROM snap_{table} WHERE snap = ?1"),
                    [id],
                )?;
            }
            tx.log(ChangeKind::Reset, Some(b"/".to_vec()))
        })
    }

    /// Writes snapshot `name` out as a new workspace file at `path` (which must not exist).
    /// The new workspace is independent: it holds its own copy of the content it needs.
    pub fn fork(&self, name: &str, path: impl AsRef<Path>) -> Result<Vfs> {
        let path = path.as_ref();
        if path.exists() {
            return Err(VfsError::Exists);
        }
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)?;
        }
        let mut tmp = path.as_os_str().to_owned();
        tmp.push(format!(".fork-{}", std::process::id()));
        let tmp = std::path::PathBuf::from(tmp);
        let _ = std::fs::remove_file(&tmp);
        let result = self.fork_into(name, &tmp);
        if let Err(e) = result {
            let _ = std::fs::remove_file(&tmp);
            return Err(e);
        }
        std::fs::rename(&tmp, path)?;
        Vfs::open(path)
    }

    fn fork_into(&self, name: &str, tmp: &Path) -> Result<()> {
        let chunk_size = self.read_tx(|tx| Ok(tx.chunk_size))?;
        let owner = self.owner()?;
        {
            // Built in rollback-journal mode so that no -wal file is left to rename along.
            let mut conn = Connection::open(tmp)?;
            schema::prepare(&mut conn, chunk_size, false, owner)?;
        }
        let mut inner = self.lock()?;
        self.flush_dirty(&mut inner)?;
        let tmp_str = tmp
            .to_str()
            .ok_or(VfsError::Invalid("fork path is not UTF-8"))?;
        inner
            .conn()
            .execute("ATTACH DATABASE ?1 AS fork", [tmp_str])?;
        let copied = (|| -> Result<()> {
            let tx = inner.conn_mut().transaction()?;
            let id: i64 = tx
                .query_row("SELECT id FROM snapshots WHERE name = ?1", [name], |r| {
                    r.get(0)
                })
                .optional()?
                .ok_or_else(|| VfsError::SnapshotNotFound(name.to_string()))?;
            for (table, cols) in TREE_TABLES {
                tx.execute(&format!("DELETE FROM fork.{table}"), [])?;
                tx.execute(
                    &format!(
                        "INSERT INTO fork.{table} ({cols}) SELECT {cols} FROM main.snap_{table} WHERE snap = ?1"
                    ),
                    [id],
                )?;
            }
            tx.execute(
                "INSERT INTO fork.chunks (id, hash, data)
                 SELECT c.id, c.hash, c.data FROM main.chunks c
                 WHERE c.id IN (SELECT chunk FROM main.snap_file_chunks WHERE snap = ?1)",
                [id],
            )?;
            // A fork keeps the workspace's settings (its network policy among them).
            tx.execute(
                "INSERT INTO fork.settings SELECT key, value FROM main.settings",
                [],
            )?;
            for key in ["quota_bytes", "max_file_size"] {
                tx.execute(
                    "UPDATE fork.meta SET value = (SELECT value FROM main.meta WHERE key = ?1) WHERE key = ?1",
                    [key],
                )?;
            }
            tx.commit()?;
            Ok(())
        })();
        let detached = inner.conn().execute("DETACH DATABASE fork", []);
        copied?;
        detached?;
        Ok(())
    }
}
