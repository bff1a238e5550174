//! One transaction over the database, and the row-level operations every higher layer uses.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

use rusqlite::{Connection, OptionalExtension, Row};

use crate::cache::{self, CacheRef, Touched};
use crate::error::{Result, VfsError};
use crate::schema::meta_set;
use crate::types::{ChangeKind, FileType, Ino, ROOT_INO, Stat};

/// Who owns a new inode.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Owner {
    /// User id.
    pub uid: u32,
    /// Group id.
    pub gid: u32,
}

/// A transaction in progress. Mutations record their paths in the change log under one revision
/// (allocated on the first change); chunks that lose a reference are collected at the end.
pub(crate) struct Tx<'c> {
    pub(crate) conn: &'c Connection,
    /// Who owns what the path-level API creates: the workspace's owner.
    pub(crate) owner: Owner,
    pub(crate) now: i64,
    pub(crate) chunk_size: u64,
    pub(crate) max_file_size: u64,
    /// Whether an inode that lost its last link has handles open in this process (it then
    /// lives on until they are released).
    pub(crate) is_open: &'c dyn Fn(Ino) -> bool,
    /// Cached entries, in read transactions only.
    pub(crate) cache: CacheRef<'c>,
    /// The revision of this transaction, once it has changed something.
    pub(crate) rev: Option<u64>,
    /// Paths of directories: looked up in this transaction, or (in a write transaction)
    /// carried over from the connection's earlier ones ([`DirPaths`]). Cleared by renames.
    dir_paths: RefCell<HashMap<Ino, Vec<u8>>>,
    released: Vec<i64>,
    logged: HashSet<(ChangeKind, Vec<u8>)>,
    /// What this transaction changed of what the lookup cache may hold (write transactions).
    touched: RefCell<Touched>,
}

pub(crate) const STAT_COLUMNS: &str = "ino, mode, uid, gid, nlink, size, atime, mtime, ctime, rdev";

pub(crate) fn stat_from_row(r: &Row<'_>) -> rusqlite::Result<Stat> {
    let mode: u32 = r.get(1)?;
    Ok(Stat {
        ino: r.get(0)?,
        kind: FileType::from_mode(mode).unwrap_or(FileType::File),
        perm: mode & 0o7777,
        uid: r.get(2)?,
        gid: r.get(3)?,
        nlink: r.get(4)?,
        size: r.get(5)?,
        atime: r.get(6)?,
        mtime: r.get(7)?,
        ctime: r.get(8)?,
        rdev: r.get::<_, i64>(9)? as u64,
    })
}

impl<'c> Tx<'c> {
    pub(crate) fn new(
        conn: &'c Connection,
        is_open: &'c dyn Fn(Ino) -> bool,
        cache: CacheRef<'c>,
        chunk_size: u64,
        max_file_size: u64,
    ) -> Tx<'c> {
        Tx {
            conn,
            owner: Owner::default(),
            now: crate::util::now_ns(),
            chunk_size,
            max_file_size,
            is_open,
            cache,
            rev: None,
            dir_paths: RefCell::new(HashMap::new()),
            released: Vec::new(),
            logged: HashSet::new(),
            touched: RefCell::default(),
        }
    }

    /// Notes that the attributes of `ino` changed (or that it is gone). Every write to
    /// `inodes` must say so, or the lookup cache would serve the old row.
    pub(crate) fn touched_ino(&self, ino: Ino) {
        self.touched.borrow_mut().ino(ino);
    }

    /// Notes that entry `name` of `parent` was removed or now names another inode. Every
    /// write to `dentries` that is not a new entry must say so.
    pub(crate) fn touched_name(&self, parent: Ino, name: &[u8]) {
        self.touched.borrow_mut().name(parent, name);
    }

    /// Notes a change of the settings every write transaction reads (quota, file size limit,
    /// owner).
    pub(crate) fn touched_settings(&self) {
        self.touched.borrow_mut().settings = true;
    }

    /// Notes a change whose rows cannot be listed: the cache starts over after the commit.
    pub(crate) fn touched_all(&self) {
        self.touched.borrow_mut().all = true;
    }

    /// What the transaction changed, for the cache once it has committed.
    pub(crate) fn take_touched(&mut self) -> Touched {
        std::mem::take(self.touched.get_mut())
    }

    /// The attributes of `ino`, or ENOENT.
    pub(crate) fn stat(&self, ino: Ino) -> Result<Stat> {
        if let Some(st) = cache::get_attr(self.cache, ino) {
            return Ok(st);
        }
        let st = self
            .conn
            .prepare_cached(
                "SELECT ino, mode, uid, gid, nlink, size, atime, mtime, ctime, rdev FROM inodes
                 WHERE ino = ?1",
            )?
            .query_row([ino], stat_from_row)
            .optional()?
            .ok_or(VfsError::NotFound)?;
        match self.cache {
            Some(_) => cache::put_attr(self.cache, &st),
            // In a write transaction: true once it commits, unless changed again before.
            None => {
                self.touched.borrow_mut().seen.insert(ino, st.clone());
            }
        }
        Ok(st)
    }

    /// The attributes of the inode `name` names in directory `parent`, if any.
    pub(crate) fn lookup_entry(&self, parent: Ino, name: &[u8]) -> Result<Option<Stat>> {
        if let Some(st) = cache::get(self.cache, parent, name) {
            return Ok(Some(st));
        }
        let found = self
            .conn
            .prepare_cached(
                "SELECT ino, mode, uid, gid, nlink, size, atime, mtime, ctime, rdev FROM inodes
                 WHERE ino = (SELECT ino FROM dentries WHERE parent = ?1 AND name = ?2)",
            )?
            .query_row((parent, name), stat_from_row)
            .optional()?;
        if let Some(st) = &found {
            cache::put(self.cache, parent, name, st);
        }
        Ok(found)
    }

    /// The inode `name` names in directory `parent`, if any.
    pub(crate) fn lookup(&self, parent: Ino, name: &[u8]) -> Result<Option<Ino>> {
        Ok(self
            .conn
            .prepare_cached("SELECT ino FROM dentries WHERE parent = ?1 AND name = ?2")?
            .query_row((parent, name), |r| r.get(0))
            .optional()?)
    }

    /// The attributes of `ino`, failing with ENOTDIR unless it is a directory.
    pub(crate) fn dir_stat(&self, ino: Ino) -> Result<Stat> {
        let st = self.stat(ino)?;
        if st.kind != FileType::Dir {
            return Err(VfsError::NotDir);
        }
        Ok(st)
    }

    pub(crate) fn insert_inode(&self, mode: u32, uid: u32, gid: u32, nlink: u32) -> Result<Ino> {
        self.conn
            .prepare_cached(
                "INSERT INTO inodes (mode, uid, gid, nlink, size, atime, mtime, ctime)
                 VALUES (?1, ?2, ?3, ?4, 0, ?5, ?5, ?5)",
            )?
            .execute((mode, uid, gid, nlink, self.now))?;
        Ok(self.conn.last_insert_rowid() as Ino)
    }

    pub(crate) fn insert_dentry(&self, parent: Ino, name: &[u8], ino: Ino) -> Result<()> {
        self.touched.borrow_mut().made(parent, name, ino);
        self.conn
            .prepare_cached("INSERT INTO dentries (parent, name, ino) VALUES (?1, ?2, ?3)")?
            .execute((parent, name, ino))?;
        Ok(())
    }

    pub(crate) fn delete_dentry(&self, parent: Ino, name: &[u8]) -> Result<()> {
        self.touched_name(parent, name);
        self.conn
            .prepare_cached("DELETE FROM dentries WHERE parent = ?1 AND name = ?2")?
            .execute((parent, name))?;
        Ok(())
    }

    pub(crate) fn add_nlink(&self, ino: Ino, delta: i64) -> Result<()> {
        self.touched_ino(ino);
        self.conn
            .prepare_cached("UPDATE inodes SET nlink = nlink + ?2, ctime = ?3 WHERE ino = ?1")?
            .execute((ino, delta, self.now))?;
        Ok(())
    }

    /// Sets mtime and ctime to now (a directory's entries or a file's content changed).
    pub(crate) fn touch(&self, ino: Ino) -> Result<()> {
        self.touched_ino(ino);
        self.conn
            .prepare_cached("UPDATE inodes SET mtime = ?2, ctime = ?2 WHERE ino = ?1")?
            .execute((ino, self.now))?;
        Ok(())
    }

    pub(crate) fn touch_ctime(&self, ino: Ino) -> Result<()> {
        self.touched_ino(ino);
        self.conn
            .prepare_cached("UPDATE inodes SET ctime = ?2 WHERE ino = ?1")?
            .execute((ino, self.now))?;
        Ok(())
    }

    pub(crate) fn set_size(&self, ino: Ino, size: u64) -> Result<()> {
        self.touched_ino(ino);
        self.conn
            .prepare_cached("UPDATE inodes SET size = ?2 WHERE ino = ?1")?
            .execute((ino, size))?;
        Ok(())
    }

    /// Whether directory `ino` has any entry.
    pub(crate) fn has_children(&self, ino: Ino) -> Result<bool> {
        Ok(self
            .conn
            .prepare_cached("SELECT 1 FROM dentries WHERE parent = ?1 LIMIT 1")?
            .query_row([ino], |_| Ok(()))
            .optional()?
            .is_some())
    }

    /// Removes an inode and everything hanging off it, once it has no links and no open handle.
    pub(crate) fn drop_inode_if_unused(&mut self, ino: Ino) -> Result<()> {
        let st = self.stat(ino)?;
        if st.nlink > 0 || (self.is_open)(ino) {
            return Ok(());
        }
        self.drop_inode(ino)
    }

    pub(crate) fn drop_inode(&mut self, ino: Ino) -> Result<()> {
        self.touched_ino(ino);
        self.release_chunks_from(ino, 0)?;
        for sql in [
            "DELETE FROM inodes WHERE ino = ?1",
            "DELETE FROM symlinks WHERE ino = ?1",
            "DELETE FROM xattrs WHERE ino = ?1",
        ] {
            self.conn.prepare_cached(sql)?.execute([ino])?;
        }
        Ok(())
    }

    /// Notes chunks whose reference from a file was dropped; unreferenced ones are deleted at commit.
    pub(crate) fn released(&mut self, chunk: i64) {
        self.released.push(chunk);
    }

    /// One path of `ino` (any of its links), or `None` for an orphan.
    pub(crate) fn path_of(&self, ino: Ino) -> Result<Option<Vec<u8>>> {
        if ino == ROOT_INO {
            return Ok(Some(b"/".to_vec()));
        }
        if let Some(path) = self.dir_paths.borrow().get(&ino) {
            return Ok(Some(path.clone()));
        }
        let Some((parent, name)) = self.entry_of(ino)? else {
            return Ok(None);
        };
        Ok(self.dir_path(parent)?.map(|dir| join(dir, &name)))
    }

    /// The name `ino` has in its directory (one of its links), or `None` for an orphan.
    fn entry_of(&self, ino: Ino) -> Result<Option<(Ino, Vec<u8>)>> {
        Ok(self
            .conn
            .prepare_cached("SELECT parent, name FROM dentries WHERE ino = ?1 LIMIT 1")?
            .query_row([ino], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?)
    }

    /// The path of directory `ino`: walks up to the nearest directory whose path is known
    /// (or the root), and remembers the paths of those it passed.
    fn dir_path(&self, ino: Ino) -> Result<Option<Vec<u8>>> {
        let mut below: Vec<(Ino, Vec<u8>)> = Vec::new();
        let mut at = ino;
        let mut path = loop {
            if at == ROOT_INO {
                break b"/".to_vec();
            }
            if let Some(path) = self.dir_paths.borrow().get(&at) {
                break path.clone();
            }
            let Some((parent, name)) = self.entry_of(at)? else {
                return Ok(None);
            };
            below.push((at, name));
            at = parent;
            if below.len() > crate::types::PATH_MAX {
                return Err(VfsError::Corrupt("a directory cycle in the tree".into()));
            }
        };
        let mut known = self.dir_paths.borrow_mut();
        if known.len() + below.len() > DIR_PATHS_KEPT {
            known.clear();
        }
        for (dir, name) in below.into_iter().rev() {
            path = join(path, &name);
            known.insert(dir, path.clone());
        }
        Ok(Some(path))
    }

    /// Forgets cached directory paths (a rename may have moved any of them).
    pub(crate) fn paths_moved(&self) {
        self.touched.borrow_mut().moved = true;
        self.dir_paths.borrow_mut().clear();
    }

    /// The path of entry `name` in directory `parent`.
    pub(crate) fn child_path(&self, parent: Ino, name: &[u8]) -> Result<Option<Vec<u8>>> {
        Ok(self.dir_path(parent)?.map(|dir| join(dir, name)))
    }

    /// Starts from directory paths known from earlier transactions (see [`DirPaths`]).
    pub(crate) fn with_dir_paths(&mut self, paths: HashMap<Ino, Vec<u8>>) {
        *self.dir_paths.get_mut() = paths;
    }

    /// The directory paths known at the end of this transaction.
    pub(crate) fn take_dir_paths(&mut self) -> HashMap<Ino, Vec<u8>> {
        std::mem::take(self.dir_paths.get_mut())
    }

    /// The revision of this transaction, allocated on first use.
    pub(crate) fn rev(&mut self) -> Result<u64> {
        if let Some(rev) = self.rev {
            return Ok(rev);
        }
        let rev: u64 = self
            .conn
            .prepare_cached("UPDATE meta SET value = value + 1 WHERE key = 'rev' RETURNING value")?
            .query_row([], |r| r.get(0))?;
        self.rev = Some(rev);
        Ok(rev)
    }

    /// Records a change of `path` (no-op for orphans).
    pub(crate) fn log(&mut self, kind: ChangeKind, path: Option<Vec<u8>>) -> Result<()> {
        let rev = self.rev()?;
        if kind == ChangeKind::Reset {
            // The whole tree was replaced.
            self.paths_moved();
            self.touched_all();
        }
        let Some(path) = path else { return Ok(()) };
        if !self.logged.insert((kind, path.clone())) {
            return Ok(());
        }
        self.conn
            .prepare_cached("INSERT INTO changes (rev, seq, kind, path) VALUES (?1, ?2, ?3, ?4)")?
            .execute((rev, self.logged.len(), kind.code(), path))?;
        Ok(())
    }

    /// Records a change of `ino` at its current path.
    pub(crate) fn log_ino(&mut self, kind: ChangeKind, ino: Ino) -> Result<()> {
        let path = self.path_of(ino)?;
        self.log(kind, path)
    }

    /// Deletes the chunks released in this transaction that nothing references any more, and
    /// trims the change log. Called once before commit.
    pub(crate) fn finish(&mut self) -> Result<()> {
        if !self.released.is_empty() {
            self.released.sort_unstable();
            self.released.dedup();
            let mut stmt = self.conn.prepare_cached(
                "DELETE FROM chunks WHERE id = ?1
                   AND NOT EXISTS (SELECT 1 FROM file_chunks WHERE chunk = ?1)
                   AND NOT EXISTS (SELECT 1 FROM snap_file_chunks WHERE chunk = ?1)",
            )?;
            for id in self.released.drain(..) {
                stmt.execute([id])?;
            }
        }
        if let Some(rev) = self.rev
            && rev % CHANGELOG_TRIM_EVERY == 0
            && rev > CHANGELOG_KEEP_REVS
        {
            let floor = rev - CHANGELOG_KEEP_REVS;
            self.conn
                .prepare_cached("DELETE FROM changes WHERE rev <= ?1")?
                .execute([floor])?;
            meta_set(self.conn, "changes_floor", floor as i64)?;
        }
        Ok(())
    }
}

/// The change log keeps the changes of this many recent revisions.
pub(crate) const CHANGELOG_KEEP_REVS: u64 = 100_000;
const CHANGELOG_TRIM_EVERY: u64 = 1_000;

/// `dir`'s path joined with `name`.
fn join(mut dir: Vec<u8>, name: &[u8]) -> Vec<u8> {
    if dir != b"/" {
        dir.push(b'/');
    }
    dir.extend_from_slice(name);
    dir
}

/// Directory paths kept at most; past this they start over (cheap to look up again).
const DIR_PATHS_KEPT: usize = 4096;

/// The paths of directories, carried from one write transaction of a connection to the next
/// so that a change deep in a tree does not walk up to the root for its change-log entry
/// each time. A path stays true until a rename moves it (the transaction forgets them all)
/// or the tree is replaced (a snapshot's restore logs a reset, which does the same). Inode
/// numbers are never given twice (`AUTOINCREMENT`), so a removed directory's entry is never
/// asked for again. They are dropped when another connection committed since (it may have
/// renamed anything: `PRAGMA data_version`) and when a transaction fails (what it learnt may
/// have been rolled back).
#[derive(Debug, Default)]
pub(crate) struct DirPaths {
    data_version: i64,
    paths: HashMap<Ino, Vec<u8>>,
}

impl DirPaths {
    /// At the start of a write transaction that sees `version` (`PRAGMA data_version`): the
    /// paths still true, taken out for it.
    pub(crate) fn take(&mut self, version: i64) -> HashMap<Ino, Vec<u8>> {
        let paths = std::mem::take(&mut self.paths);
        if version != self.data_version {
            self.data_version = version;
            return HashMap::new();
        }
        paths
    }

    /// After the transaction committed: the paths it ended with.
    pub(crate) fn keep(&mut self, paths: HashMap<Ino, Vec<u8>>) {
        self.paths = paths;
    }
}
