//! From the VFS's types to FUSE's: attributes, file types, times, errors, open flags, and the
//! inode numbering of a mount whose root is a VFS directory other than `/`.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use computer_vfs::{FileType, Ino, OpenFlags, ROOT_INO, Stat, TimeSet, VfsError};
use fuser::{Errno, FileAttr, INodeNo, TimeOrNow};

/// Inode numbers as the kernel sees them. FUSE's root is inode 1; the VFS directory mounted
/// there has another number, so the two swap places (VFS inode numbers are never reused, so
/// the swap is stable for the life of the mount).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Inodes {
    /// The VFS inode of the mounted directory.
    pub(crate) root: Ino,
}

impl Inodes {
    fn swap(self, ino: u64) -> u64 {
        if ino == ROOT_INO {
            self.root
        } else if ino == self.root {
            ROOT_INO
        } else {
            ino
        }
    }

    /// The VFS inode the kernel's `ino` names.
    pub(crate) fn vfs(self, ino: INodeNo) -> Ino {
        self.swap(ino.0)
    }

    /// The kernel's number for VFS inode `ino`.
    pub(crate) fn kernel(self, ino: Ino) -> INodeNo {
        INodeNo(self.swap(ino))
    }
}

pub(crate) fn kind(kind: FileType) -> fuser::FileType {
    match kind {
        FileType::File => fuser::FileType::RegularFile,
        FileType::Dir => fuser::FileType::Directory,
        FileType::Symlink => fuser::FileType::Symlink,
        FileType::Fifo => fuser::FileType::NamedPipe,
        FileType::Socket => fuser::FileType::Socket,
        FileType::CharDevice => fuser::FileType::CharDevice,
        FileType::BlockDevice => fuser::FileType::BlockDevice,
    }
}

/// Nanoseconds since the epoch (negative before it) as a `SystemTime`.
pub(crate) fn time(ns: i64) -> SystemTime {
    let magnitude = Duration::from_nanos(ns.unsigned_abs());
    if ns >= 0 {
        UNIX_EPOCH + magnitude
    } else {
        UNIX_EPOCH - magnitude
    }
}

/// A `SystemTime` as nanoseconds since the epoch, saturating.
fn nanos(t: SystemTime) -> i64 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_nanos()).unwrap_or(i64::MAX),
        Err(e) => i64::try_from(e.duration().as_nanos()).map_or(i64::MIN, |n| -n),
    }
}

pub(crate) fn time_set(t: TimeOrNow) -> TimeSet {
    match t {
        TimeOrNow::Now => TimeSet::Now,
        TimeOrNow::SpecificTime(t) => TimeSet::At(nanos(t)),
    }
}

/// What `stat(2)` shows for `st`, under the kernel's numbering.
pub(crate) fn file_attr(inodes: Inodes, st: &Stat) -> FileAttr {
    FileAttr {
        ino: inodes.kernel(st.ino),
        size: st.size,
        blocks: st.blocks(),
        atime: time(st.atime),
        mtime: time(st.mtime),
        ctime: time(st.ctime),
        crtime: time(st.ctime),
        kind: kind(st.kind),
        perm: (st.perm & 0o7777) as u16,
        nlink: st.nlink,
        uid: st.uid,
        gid: st.gid,
        // The kernel's encoding (`new_encode_dev`), which mknod handed us.
        rdev: st.rdev as u32,
        blksize: 4096,
        flags: 0,
    }
}

/// What a lookup of a name that does not exist answers: inode 0, which the kernel takes as
/// a negative entry to keep for the TTL.
pub(crate) fn absent() -> FileAttr {
    FileAttr {
        ino: INodeNo(0),
        size: 0,
        blocks: 0,
        atime: UNIX_EPOCH,
        mtime: UNIX_EPOCH,
        ctime: UNIX_EPOCH,
        crtime: UNIX_EPOCH,
        kind: fuser::FileType::RegularFile,
        perm: 0,
        nlink: 0,
        uid: 0,
        gid: 0,
        rdev: 0,
        blksize: 4096,
        flags: 0,
    }
}

/// The errno a VFS error means (the one mapping FUSE and WASI share).
pub(crate) fn errno(e: &VfsError) -> Errno {
    Errno::from_i32(e.errno())
}

/// `open(2)` flags as the VFS takes them.
pub(crate) fn open_flags(flags: i32) -> OpenFlags {
    let (read, write) = match flags & libc::O_ACCMODE {
        libc::O_WRONLY => (false, true),
        libc::O_RDWR => (true, true),
        _ => (true, false),
    };
    OpenFlags {
        read,
        write,
        append: flags & libc::O_APPEND != 0,
        truncate: write && flags & libc::O_TRUNC != 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mounted_directory_and_the_vfs_root_swap_numbers() {
        let inodes = Inodes { root: 7 };
        assert_eq!(inodes.vfs(INodeNo(1)), 7);
        assert_eq!(inodes.vfs(INodeNo(7)), 1);
        assert_eq!(inodes.vfs(INodeNo(9)), 9);
        assert_eq!(inodes.kernel(7), INodeNo(1));
        assert_eq!(inodes.kernel(1), INodeNo(7));
        let whole = Inodes { root: ROOT_INO };
        assert_eq!(whole.vfs(INodeNo(1)), 1);
    }

    #[test]
    fn times_before_and_after_the_epoch_round_trip() {
        for ns in [0, 1, 1_700_000_000_123_456_789, -5_000_000_001] {
            assert_eq!(nanos(time(ns)), ns);
        }
    }

    #[test]
    fn open_flags_follow_the_access_mode() {
        let f = open_flags(libc::O_WRONLY | libc::O_TRUNC | libc::O_APPEND);
        assert!(!f.read && f.write && f.truncate && f.append);
        let f = open_flags(libc::O_RDONLY | libc::O_TRUNC);
        assert!(f.read && !f.write && !f.truncate);
    }
}
