//! A cache of directory entries and attributes, filled by read transactions (listings
//! included) and by our own writes. It is emptied whenever `PRAGMA data_version` shows that
//! another connection (thread or process) committed; our own commits drop exactly what they
//! changed and keep the rest (see [`Touched`]), so it never serves stale data. While the WAL
//! index shows no commit at all since it was last checked, lookups and attributes are answered
//! from it without a transaction (see `wal_index`).

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

use rusqlite::Connection;

use crate::error::Result;
use crate::types::{FileType, Ino, PATH_MAX, ROOT_INO, Stat};
use crate::wal_index::Stamp;

/// A map by inode number. The numbers are the store's own (never a guest's choice), so a fast
/// hash without SipHash's resistance to chosen keys is safe; names stay under SipHash.
type ByIno<V> = HashMap<Ino, V, foldhash::fast::RandomState>;

/// Entries kept at most; past this the cache starts over (lookups are cheap to redo).
const CAPACITY: usize = 16 * 1024;

#[derive(Debug, Default)]
pub(crate) struct LookupCache {
    data_version: i64,
    /// The WAL index's header read just before the last read transaction began: while it is
    /// unchanged, nothing was committed and every entry is current. `None`: not known.
    stamp: Option<Stamp>,
    /// Entries by directory, then name: the inode and its kind (which never changes), so
    /// that a path resolves through directories whose attributes were dropped.
    entries: ByIno<HashMap<Vec<u8>, (Ino, FileType)>>,
    /// Attributes by inode.
    attrs: ByIno<Stat>,
    /// Paths of directories (what WASI's `*-at` calls start from).
    paths: ByIno<Vec<u8>>,
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

    /// At the start of a write transaction, which holds the write lock: forgets everything
    /// if another connection committed since the last check.
    pub(crate) fn validate_for_write(&mut self, version: i64) {
        if version != self.data_version {
            self.clear();
            self.data_version = version;
        }
    }

    /// After one of our own commits: drops what it changed and keeps what it learnt.
    /// `stamp` is the header to serve under (`None`: the next read validates in a
    /// transaction).
    pub(crate) fn committed(&mut self, touched: Touched, stamp: Option<Stamp>) {
        if touched.all {
            self.clear();
            return;
        }
        for ino in &touched.inos {
            self.attrs.remove(ino);
            self.paths.remove(ino);
        }
        for (parent, name) in &touched.names {
            if let Some(dir) = self.entries.get_mut(parent) {
                dir.remove(name);
            }
        }
        if touched.moved {
            self.paths.clear();
        }
        for ((parent, name), ino) in touched.made {
            if let Some(st) = touched.seen.get(&ino) {
                put_entry(self, parent, name, st);
            }
        }
        for st in touched.seen.into_values() {
            if !self.attrs.contains_key(&st.ino) {
                self.make_room();
            }
            self.attrs.insert(st.ino, st);
        }
        self.stamp = stamp;
    }

    /// Sets the header under which the entries are current (`None`: not known).
    pub(crate) fn set_stamp(&mut self, stamp: Option<Stamp>) {
        self.stamp = stamp;
    }

    /// Forgets everything.
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
        let (ino, _) = self.entries.get(&parent)?.get(name)?;
        self.attrs.get(ino)
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
        // Directories on the way need only their inode and kind; the last component, its
        // attributes.
        let mut found: Option<(Ino, FileType)> = None;
        for comp in path.split(|b| *b == b'/') {
            if comp.is_empty() || comp == b"." {
                continue;
            }
            if comp == b".." {
                return None;
            }
            let dir = match found {
                None => ROOT_INO,
                Some((ino, FileType::Dir)) => ino,
                Some(_) => return None,
            };
            found = Some(*self.entries.get(&dir)?.get(comp)?);
        }
        let (ino, kind) = found?;
        if follow_last && kind == FileType::Symlink {
            return None;
        }
        self.attrs.get(&ino).cloned()
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
        put_entry(&mut cache.borrow_mut(), parent, name.to_vec(), st);
    }
}

/// The entries of directory `parent`, as a listing read them.
pub(crate) fn put_listing(cache: CacheRef<'_>, parent: Ino, entries: &[(Vec<u8>, Stat)]) {
    let Some(cache) = cache else { return };
    let mut cache = cache.borrow_mut();
    if cache.len + entries.len() > CAPACITY {
        let stamp = cache.stamp;
        cache.clear();
        cache.stamp = stamp;
    }
    cache.len += entries.len();
    cache.attrs.reserve(entries.len());
    let dir = cache.entries.entry(parent).or_default();
    dir.reserve(entries.len());
    for (name, st) in entries {
        dir.insert(name.clone(), (st.ino, st.kind));
    }
    for (_, st) in entries {
        cache.attrs.insert(st.ino, st.clone());
    }
}

fn put_entry(cache: &mut LookupCache, parent: Ino, name: Vec<u8>, st: &Stat) {
    cache.make_room();
    cache
        .entries
        .entry(parent)
        .or_default()
        .insert(name, (st.ino, st.kind));
    cache.attrs.insert(st.ino, st.clone());
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

/// What a write transaction changed of what the cache holds, and what it learnt that stays
/// true once it commits. Every statement that writes `inodes` or `dentries` notes its rows
/// here (through the `Tx` methods); one that cannot say which rows (a snapshot's restore, a
/// change of owner for the whole tree) sets `all`.
#[derive(Debug, Default)]
pub(crate) struct Touched {
    /// Drop everything.
    pub(crate) all: bool,
    /// Inodes whose attributes changed, or that were removed.
    pub(crate) inos: HashSet<Ino, foldhash::fast::RandomState>,
    /// Entries made, removed or pointed at another inode.
    pub(crate) names: HashSet<(Ino, Vec<u8>)>,
    /// Something was renamed: the paths of directories may have changed.
    pub(crate) moved: bool,
    /// The settings every write transaction reads changed.
    pub(crate) settings: bool,
    /// Entries made: directory and name, inode (a map: a batch makes thousands).
    pub(crate) made: HashMap<(Ino, Vec<u8>), Ino>,
    /// Attributes read from the database after the inode's last change in the transaction.
    pub(crate) seen: ByIno<Stat>,
}

impl Touched {
    /// The attributes of `ino` changed: what was read of them before is out of date.
    pub(crate) fn ino(&mut self, ino: Ino) {
        self.inos.insert(ino);
        self.seen.remove(&ino);
    }

    /// Entry `name` of `parent` went away or was changed.
    pub(crate) fn name(&mut self, parent: Ino, name: &[u8]) {
        let key = (parent, name.to_vec());
        self.made.remove(&key);
        self.names.insert(key);
    }

    /// Entry `name` of `parent` was made for `ino`.
    pub(crate) fn made(&mut self, parent: Ino, name: &[u8], ino: Ino) {
        let key = (parent, name.to_vec());
        self.names.insert(key.clone());
        self.made.insert(key, ino);
    }
}
