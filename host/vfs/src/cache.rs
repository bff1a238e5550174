//! A cache of directory entries with their attributes, for path resolution in read
//! transactions. It is emptied after each of our own commits and whenever `PRAGMA data_version`
//! shows that another connection (thread or process) committed, so it never serves stale data.

use std::cell::RefCell;
use std::collections::HashMap;

use rusqlite::Connection;

use crate::error::Result;
use crate::types::{Ino, Stat};

/// Entries kept at most; past this the cache starts over (lookups are cheap to redo).
const CAPACITY: usize = 16 * 1024;

#[derive(Debug, Default)]
pub(crate) struct LookupCache {
    data_version: i64,
    entries: HashMap<(Ino, Vec<u8>), Stat>,
}

impl LookupCache {
    /// Forgets everything if another connection committed since the last check.
    pub(crate) fn validate(&mut self, conn: &Connection) -> Result<()> {
        let version: i64 = conn
            .prepare_cached("PRAGMA data_version")?
            .query_row([], |r| r.get(0))?;
        if version != self.data_version {
            self.entries.clear();
            self.data_version = version;
        }
        Ok(())
    }

    /// Forgets everything (after one of our own commits).
    pub(crate) fn clear(&mut self) {
        self.entries.clear();
    }
}

/// The cache as a read transaction sees it (none in write transactions).
pub(crate) type CacheRef<'c> = Option<&'c RefCell<LookupCache>>;

pub(crate) fn get(cache: CacheRef<'_>, parent: Ino, name: &[u8]) -> Option<Stat> {
    let cache = cache?.borrow();
    cache.entries.get(&(parent, name.to_vec())).cloned()
}

pub(crate) fn put(cache: CacheRef<'_>, parent: Ino, name: &[u8], st: &Stat) {
    if let Some(cache) = cache {
        let mut cache = cache.borrow_mut();
        if cache.entries.len() >= CAPACITY {
            cache.entries.clear();
        }
        cache.entries.insert((parent, name.to_vec()), st.clone());
    }
}
