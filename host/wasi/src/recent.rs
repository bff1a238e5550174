//! The inode numbers of what the guest just listed or stat'ed, for `metadata-hash-at`.
//!
//! wasi-libc asks `metadata-hash-at` right after `stat-at` (for `st_ino`) and for every entry
//! a `read_dir` returns (for `d_ino`). Answering those from the listing or the stat just made
//! spares a lookup each. A listing is kept as it came from the store, in name order, and
//! searched by halving: no per-entry key is built or hashed (a `find` lists every directory).

use std::sync::Arc;

use computer_vfs::FileType;

/// One listed entry.
#[derive(Debug)]
pub(crate) struct Listed {
    pub(crate) name: String,
    pub(crate) ino: u64,
    pub(crate) kind: FileType,
}

/// A directory's entries, in name order when `sorted`.
#[derive(Debug)]
pub(crate) struct Listing {
    pub(crate) layer: u32,
    pub(crate) dir: u64,
    pub(crate) entries: Vec<Listed>,
    sorted: bool,
}

impl Listing {
    pub(crate) fn new(layer: u32, dir: u64, entries: Vec<Listed>) -> Listing {
        // The store lists by the names' bytes, which is `str` order for UTF-8; a name made
        // lossy is not, and then the search is a scan.
        let sorted = entries.windows(2).all(|w| w[0].name < w[1].name);
        Listing {
            layer,
            dir,
            entries,
            sorted,
        }
    }

    fn find(&self, name: &str) -> Option<&Listed> {
        if self.sorted {
            let at = self
                .entries
                .binary_search_by(|e| e.name.as_str().cmp(name))
                .ok()?;
            Some(&self.entries[at])
        } else {
            self.entries.iter().find(|e| e.name == name)
        }
    }
}

/// The last listing and the last stat. Any change the guest makes forgets both; a concurrent
/// change elsewhere can make a number stale, the same race `d_ino` has on POSIX. Keyed by
/// layer too: inode numbers repeat across layers.
#[derive(Debug, Default)]
pub(crate) struct Recent {
    listing: Option<Arc<Listing>>,
    /// (layer, directory inode, path, follow) and the inode found.
    stat: Option<(u32, u64, String, bool, u64)>,
}

impl Recent {
    pub(crate) fn listed(&mut self, listing: Arc<Listing>) {
        self.listing = Some(listing);
    }

    pub(crate) fn statted(&mut self, layer: u32, dir: u64, path: String, follow: bool, ino: u64) {
        self.stat = Some((layer, dir, path, follow, ino));
    }

    pub(crate) fn clear(&mut self) {
        *self = Recent::default();
    }

    /// The inode `path` under `dir` was just seen to name, if it was.
    pub(crate) fn ino(&self, layer: u32, dir: u64, path: &str, follow: bool) -> Option<u64> {
        if let Some((l, d, p, f, ino)) = &self.stat
            && (*l, *d, *f) == (layer, dir, follow)
            && p == path
        {
            return Some(*ino);
        }
        let listing = self.listing.as_ref()?;
        if (listing.layer, listing.dir) != (layer, dir) {
            return None;
        }
        // Following a link leads elsewhere: only what the listing itself names is known.
        listing
            .find(path)
            .filter(|e| !(follow && e.kind == FileType::Symlink))
            .map(|e| e.ino)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed(name: &str, ino: u64, kind: FileType) -> Listed {
        Listed {
            name: name.into(),
            ino,
            kind,
        }
    }

    #[test]
    fn answers_only_for_what_was_listed_or_statted_there() {
        let mut recent = Recent::default();
        let entries = vec![
            listed("a", 10, FileType::File),
            listed("b", 11, FileType::Symlink),
            listed("c", 12, FileType::Dir),
        ];
        recent.listed(Arc::new(Listing::new(0, 1, entries)));
        assert_eq!(recent.ino(0, 1, "a", true), Some(10));
        assert_eq!(recent.ino(0, 1, "c", false), Some(12));
        // A link is known as itself, not where it leads.
        assert_eq!(recent.ino(0, 1, "b", false), Some(11));
        assert_eq!(recent.ino(0, 1, "b", true), None);
        // Another directory, another layer, a name not listed.
        assert_eq!(recent.ino(0, 2, "a", false), None);
        assert_eq!(recent.ino(1, 1, "a", false), None);
        assert_eq!(recent.ino(0, 1, "d", false), None);
        recent.statted(0, 5, "x/y".into(), true, 42);
        assert_eq!(recent.ino(0, 5, "x/y", true), Some(42));
        assert_eq!(recent.ino(0, 5, "x/y", false), None);
        assert_eq!(recent.ino(0, 1, "a", false), Some(10));
        recent.clear();
        assert_eq!(recent.ino(0, 1, "a", false), None);
        assert_eq!(recent.ino(0, 5, "x/y", true), None);
    }

    #[test]
    fn a_listing_out_of_order_is_scanned() {
        // Names made lossy need not sort as the store sorted their bytes.
        let entries = vec![
            listed("z", 1, FileType::File),
            listed("\u{fffd}", 2, FileType::File),
            listed("a", 3, FileType::File),
        ];
        let mut recent = Recent::default();
        recent.listed(Arc::new(Listing::new(0, 1, entries)));
        assert_eq!(recent.ino(0, 1, "a", false), Some(3));
        assert_eq!(recent.ino(0, 1, "z", false), Some(1));
    }
}
