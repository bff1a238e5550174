//! Opening a database: recognising our files, creating the schema, migrating older versions.
//! The tables are described in prose in `SCHEMA.md` next to this crate's `Cargo.toml`.

use rusqlite::{Connection, OptionalExtension, TransactionBehavior};

use crate::error::{Result, VfsError};
use crate::types::ROOT_INO;
use crate::util::now_ns;

/// `PRAGMA application_id` of a workspace database: ASCII "Cmpt".
pub const APPLICATION_ID: i32 = 0x436d_7074;

/// The schema version this build writes (`PRAGMA user_version`).
pub const SCHEMA_VERSION: i64 = 4;

/// The oldest version a read-only open reads without migrating (a Python runtime's standard
/// library, installed before version 4, is one such file).
const OLDEST_READABLE: i64 = 3;

/// Default chunk size for new workspaces.
pub const DEFAULT_CHUNK_SIZE: u64 = 256 * 1024;

/// Migrations: `MIGRATIONS[i]` takes the schema from version `i` to `i + 1`.
const MIGRATIONS: &[&str] = &[V1, V2, V3, V4];

/// Version 4: the workspace's own text settings (its network policy), kept out of the tree.
const V4: &str = r#"
CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;
"#;

/// Version 3: FIFOs, sockets and device nodes are inodes; a device's number is `rdev`.
const V3: &str = r#"
ALTER TABLE inodes ADD COLUMN rdev INTEGER NOT NULL DEFAULT 0;
ALTER TABLE snap_inodes ADD COLUMN rdev INTEGER NOT NULL DEFAULT 0;
"#;

/// Version 2: the audit log of tool calls (`computer-tools`), read by `computer log`.
const V2: &str = r#"
CREATE TABLE audit (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    started  INTEGER NOT NULL,
    duration INTEGER NOT NULL,
    origin   TEXT NOT NULL,
    tool     TEXT NOT NULL,
    args     TEXT NOT NULL,
    summary  TEXT NOT NULL,
    error    TEXT
);
"#;

const V1: &str = r#"
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE inodes (
    ino   INTEGER PRIMARY KEY AUTOINCREMENT,
    mode  INTEGER NOT NULL,
    uid   INTEGER NOT NULL,
    gid   INTEGER NOT NULL,
    nlink INTEGER NOT NULL,
    size  INTEGER NOT NULL,
    atime INTEGER NOT NULL,
    mtime INTEGER NOT NULL,
    ctime INTEGER NOT NULL
);

CREATE TABLE dentries (
    parent INTEGER NOT NULL,
    name   BLOB NOT NULL,
    ino    INTEGER NOT NULL,
    PRIMARY KEY (parent, name)
) WITHOUT ROWID;
CREATE INDEX dentries_by_ino ON dentries (ino);

CREATE TABLE symlinks (
    ino    INTEGER PRIMARY KEY,
    target BLOB NOT NULL
);

CREATE TABLE chunks (
    id   INTEGER PRIMARY KEY,
    hash BLOB NOT NULL UNIQUE,
    data BLOB NOT NULL
);

CREATE TABLE file_chunks (
    ino   INTEGER NOT NULL,
    idx   INTEGER NOT NULL,
    chunk INTEGER NOT NULL,
    PRIMARY KEY (ino, idx)
) WITHOUT ROWID;
CREATE INDEX file_chunks_by_chunk ON file_chunks (chunk);

CREATE TABLE xattrs (
    ino   INTEGER NOT NULL,
    name  BLOB NOT NULL,
    value BLOB NOT NULL,
    PRIMARY KEY (ino, name)
) WITHOUT ROWID;

CREATE TABLE changes (
    rev  INTEGER NOT NULL,
    seq  INTEGER NOT NULL,
    kind INTEGER NOT NULL,
    path BLOB NOT NULL,
    PRIMARY KEY (rev, seq)
) WITHOUT ROWID;

CREATE TABLE snapshots (
    id      INTEGER PRIMARY KEY,
    name    TEXT NOT NULL UNIQUE,
    created INTEGER NOT NULL,
    rev     INTEGER NOT NULL
);

CREATE TABLE snap_inodes (
    snap INTEGER NOT NULL, ino INTEGER NOT NULL,
    mode INTEGER NOT NULL, uid INTEGER NOT NULL, gid INTEGER NOT NULL, nlink INTEGER NOT NULL,
    size INTEGER NOT NULL, atime INTEGER NOT NULL, mtime INTEGER NOT NULL, ctime INTEGER NOT NULL,
    PRIMARY KEY (snap, ino)
) WITHOUT ROWID;

CREATE TABLE snap_dentries (
    snap INTEGER NOT NULL, parent INTEGER NOT NULL, name BLOB NOT NULL, ino INTEGER NOT NULL,
    PRIMARY KEY (snap, parent, name)
) WITHOUT ROWID;

CREATE TABLE snap_symlinks (
    snap INTEGER NOT NULL, ino INTEGER NOT NULL, target BLOB NOT NULL,
    PRIMARY KEY (snap, ino)
) WITHOUT ROWID;

CREATE TABLE snap_file_chunks (
    snap INTEGER NOT NULL, ino INTEGER NOT NULL, idx INTEGER NOT NULL, chunk INTEGER NOT NULL,
    PRIMARY KEY (snap, ino, idx)
) WITHOUT ROWID;
CREATE INDEX snap_file_chunks_by_chunk ON snap_file_chunks (chunk);

CREATE TABLE snap_xattrs (
    snap INTEGER NOT NULL, ino INTEGER NOT NULL, name BLOB NOT NULL, value BLOB NOT NULL,
    PRIMARY KEY (snap, ino, name)
) WITHOUT ROWID;

-- Stored bytes, kept exact by triggers so that quota checks and statfs cost one lookup.
CREATE TRIGGER chunks_added AFTER INSERT ON chunks BEGIN
    UPDATE meta SET value = value + length(NEW.data) WHERE key = 'bytes_stored';
END;
CREATE TRIGGER chunks_removed AFTER DELETE ON chunks BEGIN
    UPDATE meta SET value = value - length(OLD.data) WHERE key = 'bytes_stored';
END;
"#;

/// Per-connection settings. WAL lets readers run beside the one writer (also across processes);
/// `synchronous=NORMAL` in WAL mode never corrupts the database and never loses a committed
/// transaction when a process dies (the tests kill writers with SIGKILL); only a power loss or
/// kernel crash can drop the last transactions. `Durability::Full` gives `synchronous=FULL`.
pub(crate) fn configure(conn: &Connection, full_sync: bool, read_only: bool) -> Result<()> {
    // Every statement we run stays prepared (rusqlite's default of 16 is fewer than we use).
    conn.set_prepared_statement_cache_capacity(256);
    // Our statements are fixed, so their plans need not depend on the values bound. Without
    // this, STAT4 (on in the bundled SQLite) re-prepares a statement whenever a value in a
    // range constraint changes: a small file's read spent a third of its time in the parser.
    conn.set_db_config(
        rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG,
        true,
    )?;
    if !read_only {
        let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
        if !mode.eq_ignore_ascii_case("wal") && !mode.eq_ignore_ascii_case("memory") {
            return Err(VfsError::Corrupt(format!(
                "could not switch the journal to WAL mode (got {mode})"
            )));
        }
    }
    conn.execute_batch(if full_sync {
        "PRAGMA synchronous = FULL; PRAGMA cache_size = -32768; PRAGMA temp_store = MEMORY;"
    } else {
        "PRAGMA synchronous = NORMAL; PRAGMA cache_size = -32768; PRAGMA temp_store = MEMORY;"
    })?;
    Ok(())
}

/// Checks that `conn` holds a workspace of a version we can read, creating the schema in an
/// empty database and migrating an older one.
pub(crate) fn prepare(
    conn: &mut Connection,
    chunk_size: u64,
    read_only: bool,
    owner: crate::tx::Owner,
) -> Result<()> {
    let (app_id, version) = ids(conn)?;
    if app_id == 0 && version == 0 {
        let tables: i64 = conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))?;
        if tables != 0 {
            return Err(VfsError::NotAWorkspace(
                "an SQLite database of another application".into(),
            ));
        }
        if read_only {
            return Err(VfsError::NotAWorkspace("an empty database".into()));
        }
    } else if app_id != APPLICATION_ID {
        return Err(VfsError::NotAWorkspace(format!(
            "an SQLite database with application id {app_id:#x}"
        )));
    }
    if version > SCHEMA_VERSION {
        return Err(VfsError::NewerSchema {
            found: version,
            supported: SCHEMA_VERSION,
        });
    }
    if version == SCHEMA_VERSION {
        return Ok(());
    }
    if read_only {
        // A reader cannot migrate; the versions since OLDEST_READABLE only add tables it can
        // do without (4: settings, read as unset), so it reads them as they are.
        return if version >= OLDEST_READABLE {
            Ok(())
        } else {
            Err(VfsError::ReadOnly)
        };
    }
    // Another process may be creating or migrating the same file: decide under the write lock.
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let (_, version) = ids(&tx)?;
    for (from, sql) in MIGRATIONS.iter().enumerate().skip(version as usize) {
        tx.execute_batch(sql)?;
        if from == 0 {
            initialize(&tx, chunk_size, owner)?;
        }
    }
    tx.execute_batch(&format!(
        "PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = {SCHEMA_VERSION};"
    ))?;
    tx.commit()?;
    Ok(())
}

fn ids(conn: &Connection) -> Result<(i32, i64)> {
    let app_id: i32 = conn.query_row("PRAGMA application_id", [], |r| r.get(0))?;
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    Ok((app_id, version))
}

/// The tree of a new workspace: `/`, `/workspace`, `/tmp`, `/home/user`, owned by `owner`.
fn initialize(conn: &Connection, chunk_size: u64, owner: crate::tx::Owner) -> Result<()> {
    let now = now_ns();
    for (key, value) in [
        ("rev", 0i64),
        ("bytes_stored", 0),
        ("chunk_size", chunk_size as i64),
        ("quota_bytes", 0),
        ("max_file_size", crate::DEFAULT_MAX_FILE_SIZE as i64),
        ("changes_floor", 0),
        ("created", now),
        ("owner_uid", i64::from(owner.uid)),
        ("owner_gid", i64::from(owner.gid)),
    ] {
        conn.execute(
            "INSERT INTO meta (key, value) VALUES (?1, ?2)",
            (key, value),
        )?;
    }
    let dir = |ino: i64, perm: u32, nlink: i64| {
        conn.execute(
            "INSERT INTO inodes (ino, mode, uid, gid, nlink, size, atime, mtime, ctime)
             VALUES (?1, ?2, ?5, ?6, ?3, 0, ?4, ?4, ?4)",
            (
                ino,
                (libc::S_IFDIR | perm) as i64,
                nlink,
                now,
                owner.uid,
                owner.gid,
            ),
        )
    };
    let entry = |parent: i64, name: &str, ino: i64| {
        conn.execute(
            "INSERT INTO dentries (parent, name, ino) VALUES (?1, ?2, ?3)",
            (parent, name.as_bytes(), ino),
        )
    };
    dir(ROOT_INO as i64, 0o755, 5)?;
    dir(2, 0o755, 2)?;
    entry(1, "workspace", 2)?;
    dir(3, 0o1777, 2)?;
    entry(1, "tmp", 3)?;
    dir(4, 0o755, 3)?;
    entry(1, "home", 4)?;
    dir(5, 0o755, 2)?;
    entry(4, "user", 5)?;
    Ok(())
}

/// The workspace's owner (`meta` keys `owner_uid`, `owner_gid`). Workspaces made before the
/// setting have none: root, as then.
pub(crate) fn meta_owner(conn: &Connection) -> Result<crate::tx::Owner> {
    let get = |key: &str| -> Result<u32> {
        Ok(conn
            .prepare_cached("SELECT value FROM meta WHERE key = ?1")?
            .query_row([key], |r| r.get::<_, u32>(0))
            .optional()?
            .unwrap_or(0))
    };
    Ok(crate::tx::Owner {
        uid: get("owner_uid")?,
        gid: get("owner_gid")?,
    })
}

/// Reads one integer setting from `meta`.
pub(crate) fn meta_get(conn: &Connection, key: &str) -> Result<i64> {
    conn.prepare_cached("SELECT value FROM meta WHERE key = ?1")?
        .query_row([key], |r| r.get(0))
        .optional()?
        .ok_or_else(|| VfsError::Corrupt(format!("meta key {key:?} is missing")))
}

/// Writes one integer setting to `meta`.
pub(crate) fn meta_set(conn: &Connection, key: &str, value: i64) -> Result<()> {
    conn.prepare_cached("INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)")?
        .execute((key, value))?;
    Ok(())
}
