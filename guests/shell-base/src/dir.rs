//! Directory listings for the commands that walk trees (`find`, `ls`, `du`, `grep -r`,
//! globs...): a directory's names and types in one host call where the host offers one
//! (the workspace's `list-directory`), where the standard library asks the host twice for
//! every entry (the entry, then its inode number for `d_ino`).

use std::path::Path;

pub use crate::host::{DirEntry as Entry, Kind};

impl Kind {
    /// The kind of a type the standard library gives.
    pub fn of(t: std::fs::FileType) -> Kind {
        if t.is_dir() {
            return Kind::Dir;
        }
        if t.is_file() {
            return Kind::File;
        }
        if t.is_symlink() {
            return Kind::Symlink;
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::FileTypeExt;
            if t.is_fifo() {
                return Kind::Fifo;
            }
            if t.is_socket() {
                return Kind::Socket;
            }
            if t.is_char_device() {
                return Kind::CharDevice;
            }
            if t.is_block_device() {
                return Kind::BlockDevice;
            }
        }
        Kind::Other
    }

    pub fn is_dir(self) -> bool {
        self == Kind::Dir
    }

    pub fn is_symlink(self) -> bool {
        self == Kind::Symlink
    }
}

/// The entries of directory `dir` (through symbolic links), sorted by name, without `.`
/// and `..`. Names that are not UTF-8 are left out (the workspace hands out none).
pub fn list(dir: &Path) -> std::io::Result<Vec<Entry>> {
    // The host answers for absolute paths in the workspace itself; anywhere else (a
    // read-only layer, a device directory, a relative path natively) and on any error, the
    // standard library lists, and its error is the one to report.
    if let Some(path) = dir.to_str().filter(|p| p.starts_with('/'))
        && let Ok(mut entries) = crate::host::current().list_directory(path)
    {
        if !entries.is_sorted_by(|a, b| a.name <= b.name) {
            entries.sort_unstable_by(|a, b| a.name.cmp(&b.name));
        }
        return Ok(entries);
    }
    let mut entries: Vec<Entry> = std::fs::read_dir(dir)?
        .filter_map(|e| {
            let e = e.ok()?;
            let kind = e.file_type().map_or(Kind::Other, Kind::of);
            Some(Entry {
                name: e.file_name().into_string().ok()?,
                kind,
            })
        })
        .collect();
    entries.sort_unstable_by(|a, b| a.name.cmp(&b.name));
    Ok(entries)
}

/// The names in directory `dir`, sorted (see [`list`]).
pub fn names(dir: &Path) -> std::io::Result<Vec<String>> {
    Ok(list(dir)?.into_iter().map(|e| e.name).collect())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn lists_sorted_names_and_kinds() {
        let dir = std::env::temp_dir().join(format!("shell-base-dir-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("b")).unwrap();
        std::fs::write(dir.join("c"), "").unwrap();
        std::fs::write(dir.join("a"), "").unwrap();
        std::os::unix::fs::symlink("c", dir.join("B")).unwrap();
        let listed = list(&dir).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        let got: Vec<(&str, Kind)> = listed.iter().map(|e| (e.name.as_str(), e.kind)).collect();
        assert_eq!(
            got,
            [
                ("B", Kind::Symlink),
                ("a", Kind::File),
                ("b", Kind::Dir),
                ("c", Kind::File)
            ]
        );
        assert!(list(&dir).is_err());
    }
}
