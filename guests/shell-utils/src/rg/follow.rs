//! A walk that follows symbolic links to directories (`-L`) itself: walkdir's own following
//! checks for loops with the `same-file` crate, which has no WASI support and fails every
//! directory. Here a link to a directory starts a walk of its own where it stands, with
//! the same filters, and a link back to one of its ancestors is reported as a loop.

use std::path::{Path, PathBuf};

use ignore::DirEntry;

/// Makes the walk of a directory (`path`, down to `max_depth` levels) with the run's filters.
pub type Make<'a> = Box<dyn Fn(&Path, Option<usize>) -> ignore::Walk + 'a>;

/// One entry: where it is, how deep below the root, and what it is (through a link when
/// links are followed).
pub struct Entry {
    pub entry: DirEntry,
    pub depth: usize,
    pub is_dir: bool,
    pub is_file: bool,
}

pub struct Walk<'a> {
    make: Make<'a>,
    /// The walks under way: the root's, then one per link being walked, with its depth.
    stack: Vec<(ignore::Walk, usize)>,
    max_depth: Option<usize>,
    follow: bool,
}

impl<'a> Walk<'a> {
    pub fn new(root: &Path, max_depth: Option<usize>, follow: bool, make: Make<'a>) -> Walk<'a> {
        let first = make(root, max_depth);
        Walk {
            make,
            stack: vec![(first, 0)],
            max_depth,
            follow,
        }
    }

    /// The ancestor of `link` (up to the walk's root) that `target` is, if any.
    fn ancestor_of(link: &Path, target: u64) -> Option<PathBuf> {
        link.ancestors()
            .skip(1)
            .find(|a| crate::fileinfo::info(a, true).is_ok_and(|i| i.ino == target))
            .map(Path::to_path_buf)
    }
}

impl Iterator for Walk<'_> {
    type Item = Result<Entry, ignore::Error>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let nested = self.stack.len() > 1;
            let (walk, base) = self.stack.last_mut()?;
            let base = *base;
            let entry = match walk.next() {
                None => {
                    self.stack.pop();
                    continue;
                }
                Some(Err(e)) => return Some(Err(e)),
                Some(Ok(entry)) => entry,
            };
            // A link's own walk starts with the link, which its parent's walk gave already.
            if nested && entry.depth() == 0 {
                continue;
            }
            let depth = base + entry.depth();
            let kind = entry.file_type();
            let mut is_dir = kind.is_some_and(|k| k.is_dir());
            let mut is_file = kind.is_some_and(|k| k.is_file());
            if self.follow && entry.path_is_symlink() {
                let meta = std::fs::metadata(entry.path()).ok();
                is_dir = meta.as_ref().is_some_and(|m| m.is_dir());
                is_file = meta.as_ref().is_some_and(|m| m.is_file());
                if is_dir && depth > 0 && self.max_depth.is_none_or(|m| depth < m) {
                    let target = crate::fileinfo::info(entry.path(), true).map(|i| i.ino);
                    if let Some(ancestor) = target
                        .ok()
                        .and_then(|ino| Walk::ancestor_of(entry.path(), ino))
                    {
                        return Some(Err(ignore::Error::Loop {
                            ancestor,
                            child: entry.path().to_path_buf(),
                        }));
                    }
                    let below = (self.make)(entry.path(), self.max_depth.map(|m| m - depth));
                    self.stack.push((below, depth));
                }
            }
            return Some(Ok(Entry {
                entry,
                depth,
                is_dir,
                is_file,
            }));
        }
    }
}
