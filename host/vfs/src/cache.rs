//! A cache of directory entries and attributes, filled by read transactions. It is emptied
//! after each of our own commits and whenever `PRAGMA data_version` shows that another
//! connection (thread or process) committed, so it never serves stale data. While the WAL
//! index shows no commit at all since it was last checked, lookups and attributes are answered
//! from it without a transaction (see `wal_index`).

use std::cell::RefCell;
use std::collections::HashMap;

use rusqlite::Connection;

use crate::error::Result;
use crate::types::{FileType, Ino, PATH_MAX, ROOT_INO, Stat};
use crate::wal_index::Stamp;

/// Entries kept at most; past this the cache starts over (lookups are cheap to redo).
const CAPACITY: usize = 16 * 1024;

#[derive(Debug, Default)]
pub(crate) struct LookupCache {
    data_version: i64,
    /// The WAL index's header read just before the last read transaction began: while it is
    /// unchanged, nothing was committed and every entry is current. `None`: not known.
    stamp: Option<Stamp>,
    /// Entries by directory, then name.
    entries: HashMap<Ino, HashMap<Vec<u8>, Stat>>,
    /// Attributes by inode.
    attrs: HashMap<Ino, Stat>,
    /// Paths of directories (what WASI's `*-at` calls start from).
    paths: HashMap<Ino, Vec<u8>>,
    len: usize,
}

/// `PRAGMA data_version`: it changes when another connection (thread or process) commits.
pub(crate) fn data_version(conn: &Connection) -> Result<i64> {
    Ok(conn
        .prepare_cached("PRAGMA data_version")?
        .query_row([], |r| r.get(0))?)
}

impl LookupCache {
    /// In a read transaction that began after `before` was read from the WAL index: forgets
    /// everything if another connection committed since the last check.
    pub(crate) fn validate(&mut self, conn: &Connection, before: Option<Stamp>) -> Result<()> {
        let version = data_version(conn)?;
        if version != self.data_version {
            self.clear();
            self.data_version = version;
        }
        self.stamp = before;
        Ok(())
    }

    /// Forgets everything (after one of our own commits).
    pub(crate) fn clear(&mut self) {
        self.entries.clear();
        self.attrs.clear();
        self.paths.clear();
        self.len = 0;
        self.stamp = None;
    }

    /// Whether the entries may be served without a transaction: the WAL index shows `now`,
    /// the same header as when they were last known current.
    pub(crate) fn is_current(&self, now: Option<Stamp>) -> bool {
        now.is_some() && now == self.stamp
    }

    pub(crate) fn entry(&self, parent: Ino, name: &[u8]) -> Option<&Stat> {
        self.entries.get(&parent)?.get(name)
    }

    pub(crate) fn attr(&self, ino: Ino) -> Option<&Stat> {
        self.attrs.get(&ino)
    }

    pub(crate) fn path(&self, ino: Ino) -> Option<&Vec<u8>> {
        self.paths.get(&ino)
    }

    /// Notes the path of `ino`, read in the transaction that last validated the cache.
    pub(crate) fn put_path(&mut self, ino: Ino, path: Vec<u8>) {
        self.make_room();
        self.paths.insert(ino, path);
    }

    /// What `path` names, from cached entries alone: `None` whenever resolving it needs more
    /// (a miss, `..`, a symlink to follow, a trailing slash, `/` itself, a bad path), for the
    /// caller to resolve it in a transaction.
    pub(crate) fn resolve(&self, path: &[u8], follow_last: bool) -> Option<Stat> {
        if path.len() >= PATH_MAX || path.contains(&0) || path.ends_with(b"/") {
            return None;
        }
        let mut found: Option<&Stat> = None;
        for comp in path.split(|b| *b == b'/') {
            if comp.is_empty() || comp == b"." {
                continue;
            }
            if comp == b".." {
                return None;
            }
            let dir = match found {
                None => ROOT_INO,
                Some(st) if st.kind == FileType::Dir => st.ino,
                Some(_) => return None,
            };
            found = Some(self.entry(dir, comp)?);
        }
        let st = found?;
        (!(follow_last && st.kind == FileType::Symlink)).then(|| st.clone())
    }

    fn make_room(&mut self) {
        if self.len >= CAPACITY {
            let stamp = self.stamp;
            self.clear();
            self.stamp = stamp;
        }
        self.len += 1;
    }
}

/// The cache as a read transaction sees it (none in write transactions).
pub(crate) type CacheRef<'c> = Option<&'c RefCell<LookupCache>>;

pub(crate) fn get(cache: CacheRef<'_>, parent: Ino, name: &[u8]) -> Option<Stat> {
    cache?.borrow().entry(parent, name).cloned()
}

pub(crate) fn put(cache: CacheRef<'_>, parent: Ino, name: &[u8], st: &Stat) {
    if let Some(cache) = cache {
        let mut cache = cache.borrow_mut();
        cache.make_room();
        cache
            .entries
            .entry(parent)
            .or_default()
            .insert(name.to_vec(), st.clone());
        cache.attrs.insert(st.ino, st.clone());
    }
}

pub(crate) fn get_attr(cache: CacheRef<'_>, ino: Ino) -> Option<Stat> {
    cache?.borrow().attr(ino).cloned()
}

pub(crate) fn put_attr(cache: CacheRef<'_>, st: &Stat) {
    if let Some(cache) = cache {
        let mut cache = cache.borrow_mut();
        cache.make_room();
        cache.attrs.insert(st.ino, st.clone());
    }
}
