//! Directory listings for the commands that walk trees (`find`, `ls`, `du`, `grep -r`,
//! globs...): a directory's names and types in one host call where the host offers one
//! (the workspace's `list-directory`), where the standard library asks the host twice for
//! every entry (the entry, then its inode number for `d_ino`).

use std::path::Path;

pub use crate::host::{DirEntry as Entry, FileInfo, Kind};

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

    /// The kind that a `st_mode`'s type bits give.
    pub fn of_mode(mode: u32) -> Kind {
        match mode & 0o170000 {
            0o040000 => Kind::Dir,
            0o100000 => Kind::File,
            0o120000 => Kind::Symlink,
            0o010000 => Kind::Fifo,
            0o140000 => Kind::Socket,
            0o020000 => Kind::CharDevice,
            0o060000 => Kind::BlockDevice,
            _ => Kind::Other,
        }
    }

    /// The type bits of a `st_mode` of this kind (none for [`Kind::Other`]).
    pub fn mode_bits(self) -> u32 {
        match self {
            Kind::Dir => 0o040000,
            Kind::File => 0o100000,
            Kind::Symlink => 0o120000,
            Kind::Fifo => 0o010000,
            Kind::Socket => 0o140000,
            Kind::CharDevice => 0o020000,
            Kind::BlockDevice => 0o060000,
            Kind::Other => 0,
        }
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

/// The entries of directory `dir` (through symbolic links) with each one's inode (not
/// through a final link), sorted by name, without `.` and `..`: in one host call where the
/// host offers one, else a listing and a call for each entry. An entry gone between the
/// two is left out.
pub fn list_info(dir: &Path) -> std::io::Result<Vec<(String, FileInfo)>> {
    if let Some(path) = dir.to_str().filter(|p| p.starts_with('/'))
        && let Ok(mut entries) = crate::host::current().list_directory_info(path)
    {
        if !entries.is_sorted_by(|a, b| a.0 <= b.0) {
            entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        }
        return Ok(entries);
    }
    Ok(list(dir)?
        .into_iter()
        .filter_map(|e| Some((e.name.clone(), info(&dir.join(&e.name), false)?)))
        .collect())
}

/// The inode at `path` (through a final symbolic link when `follow`): from the host, else
/// (a read-only layer) what the standard library tells; `None` if neither finds it.
pub fn info(path: &Path, follow: bool) -> Option<FileInfo> {
    if let Ok(info) = crate::host::current().stat(&path.to_string_lossy(), follow) {
        return Some(info);
    }
    let meta = if follow {
        std::fs::metadata(path)
    } else {
        std::fs::symlink_metadata(path)
    };
    meta.ok().map(|m| FileInfo::from_std(&m))
}

/// The names in directory `dir`, sorted (see [`list`]).
pub fn names(dir: &Path) -> std::io::Result<Vec<String>> {
    Ok(list(dir)?.into_iter().map(|e| e.name).collect())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn modes_and_kinds_agree() {
        for kind in [
            Kind::Dir,
            Kind::File,
            Kind::Symlink,
            Kind::Fifo,
            Kind::Socket,
        ] {
            assert_eq!(Kind::of_mode(kind.mode_bits() | 0o644), kind);
        }
        assert_eq!(Kind::of_mode(0o644), Kind::Other);
    }

    #[test]
    fn lists_sorted_names_and_kinds() {
        let dir = std::env::temp_dir().join(format!("shell-base-dir-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("b")).unwrap();
        std::fs::write(dir.join("c"), "").unwrap();
        std::os::unix::fs::symlink("c", dir.join("B")).unwrap();
        std::fs::write(dir.join("a"), "12345").unwrap();
        let listed = list(&dir).unwrap();
        // With inodes: each entry's own (the link's, not its target's), in the same order.
        let with_info = list_info(&dir).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        let kinds: Vec<(&str, Kind, bool)> = with_info
            .iter()
            .map(|(name, i)| (name.as_str(), i.kind(), i.size == 5))
            .collect();
        assert_eq!(
            kinds,
            [
                ("B", Kind::Symlink, false),
                ("a", Kind::File, true),
                ("b", Kind::Dir, false),
                ("c", Kind::File, false)
            ]
        );
        assert!(list_info(&dir).is_err());
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
