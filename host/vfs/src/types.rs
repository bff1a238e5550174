//! Plain value types of the VFS API: inode numbers, attributes, directory entries, changes.

use std::ffi::OsString;
use std::path::PathBuf;

/// An inode number. The root directory is [`ROOT_INO`]; numbers are never reused.
pub type Ino = u64;

/// The inode number of `/`, as FUSE expects.
pub const ROOT_INO: Ino = 1;

/// A file handle returned by [`crate::Vfs::open_file`].
pub type Fh = u64;

/// The longest name of one directory entry, in bytes.
pub const NAME_MAX: usize = 255;

/// The longest path, in bytes.
pub const PATH_MAX: usize = 4096;

/// How many symlinks one path resolution may follow before failing with ELOOP (Linux's limit).
pub const SYMLINK_MAX: u32 = 40;

/// The kind of an inode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FileType {
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// A symbolic link.
    Symlink,
    /// A named pipe (FIFO). Stored as an inode like any other; it carries no data and cannot
    /// be opened through the VFS (there is no pipe behind it; a FUSE mount's kernel makes one).
    Fifo,
    /// A Unix domain socket's name. Stored; cannot be opened.
    Socket,
    /// A character device node: its device number is [`Stat::rdev`]. Stored, never opened:
    /// mounts are `nodev` and no export makes one on the host.
    CharDevice,
    /// A block device node, as [`FileType::CharDevice`].
    BlockDevice,
}

impl FileType {
    /// The `S_IF*` bits of this type.
    pub fn mode_bits(self) -> u32 {
        match self {
            FileType::File => libc::S_IFREG,
            FileType::Dir => libc::S_IFDIR,
            FileType::Symlink => libc::S_IFLNK,
            FileType::Fifo => libc::S_IFIFO,
            FileType::Socket => libc::S_IFSOCK,
            FileType::CharDevice => libc::S_IFCHR,
            FileType::BlockDevice => libc::S_IFBLK,
        }
    }

    /// The type encoded in a full `st_mode`.
    pub fn from_mode(mode: u32) -> Option<FileType> {
        match mode & libc::S_IFMT {
            libc::S_IFREG => Some(FileType::File),
            libc::S_IFDIR => Some(FileType::Dir),
            libc::S_IFLNK => Some(FileType::Symlink),
            libc::S_IFIFO => Some(FileType::Fifo),
            libc::S_IFSOCK => Some(FileType::Socket),
            libc::S_IFCHR => Some(FileType::CharDevice),
            libc::S_IFBLK => Some(FileType::BlockDevice),
            _ => None,
        }
    }

    /// Whether this is a FIFO, socket or device node: an inode with no content that the VFS
    /// stores but never opens.
    pub fn is_special(self) -> bool {
        matches!(
            self,
            FileType::Fifo | FileType::Socket | FileType::CharDevice | FileType::BlockDevice
        )
    }

    /// The type's name in the APIs' JSON and the bindings: `file`, `dir`, `symlink`, `fifo`,
    /// `socket`, `char-device` or `block-device`.
    pub fn name(self) -> &'static str {
        match self {
            FileType::File => "file",
            FileType::Dir => "dir",
            FileType::Symlink => "symlink",
            FileType::Fifo => "fifo",
            FileType::Socket => "socket",
            FileType::CharDevice => "char-device",
            FileType::BlockDevice => "block-device",
        }
    }

    /// What `ls` and `find -printf %y` print for this type (`-`, `d`, `l`, `p`, `s`, `c`, `b`).
    pub fn letter(self) -> char {
        match self {
            FileType::File => '-',
            FileType::Dir => 'd',
            FileType::Symlink => 'l',
            FileType::Fifo => 'p',
            FileType::Socket => 's',
            FileType::CharDevice => 'c',
            FileType::BlockDevice => 'b',
        }
    }
}

/// The attributes of an inode (what `stat(2)` returns). Times are nanoseconds since the Unix epoch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stat {
    /// Inode number.
    pub ino: Ino,
    /// File type.
    pub kind: FileType,
    /// Permission bits (`mode & 0o7777`).
    pub perm: u32,
    /// Owner user id.
    pub uid: u32,
    /// Owner group id.
    pub gid: u32,
    /// Number of hard links (directories: 2 + subdirectories).
    pub nlink: u32,
    /// Size in bytes (symlinks: length of the target; FIFOs, sockets and devices: 0).
    pub size: u64,
    /// The device number of a character or block device node (`st_rdev`); 0 for the rest.
    pub rdev: u64,
    /// Last access (not updated by reads: the VFS behaves as `noatime`).
    pub atime: i64,
    /// Last content modification.
    pub mtime: i64,
    /// Last status change.
    pub ctime: i64,
}

impl Stat {
    /// The full `st_mode` (type bits and permission bits).
    pub fn mode(&self) -> u32 {
        self.kind.mode_bits() | self.perm
    }

    /// 512-byte blocks, as `st_blocks` reports them (holes of sparse files are not counted exactly).
    pub fn blocks(&self) -> u64 {
        self.size.div_ceil(512)
    }

    /// Whether this is a directory.
    pub fn is_dir(&self) -> bool {
        self.kind == FileType::Dir
    }

    /// Whether this is a regular file.
    pub fn is_file(&self) -> bool {
        self.kind == FileType::File
    }

    /// Whether this is a symbolic link.
    pub fn is_symlink(&self) -> bool {
        self.kind == FileType::Symlink
    }
}

/// How [`crate::Vfs::copy_all_with`] makes each copy: what `cp`'s umask and `-p` decide.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CopyOptions {
    /// Permission bits cleared on every copy (a umask; 0 keeps the source's bits).
    pub mask: u32,
    /// The copies keep their sources' owners and groups; else they are the workspace
    /// owner's.
    pub owners: bool,
    /// The copies keep their sources' access and modification times; else they are new.
    pub times: bool,
    /// At most this many entries are made, or nothing is (`E2BIG`): a copy is one
    /// transaction that nothing interrupts, and a hostile guest doubles a tree with each.
    pub max_entries: Option<u64>,
}

impl Default for CopyOptions {
    /// What [`crate::Vfs::copy_all`] does: permissions and owners kept, times new.
    fn default() -> Self {
        CopyOptions {
            mask: 0,
            owners: true,
            times: false,
            max_entries: None,
        }
    }
}

/// Which attributes [`crate::Vfs::setattr`] changes; `None` leaves one as it is.
#[derive(Debug, Clone, Default)]
pub struct SetAttr {
    /// New permission bits (the file type cannot change).
    pub perm: Option<u32>,
    /// New owner.
    pub uid: Option<u32>,
    /// New group.
    pub gid: Option<u32>,
    /// New size: truncates or extends with zeros.
    pub size: Option<u64>,
    /// New access time.
    pub atime: Option<TimeSet>,
    /// New modification time.
    pub mtime: Option<TimeSet>,
}

/// A timestamp to set: a given time or the current time (`UTIME_NOW`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeSet {
    /// Nanoseconds since the Unix epoch.
    At(i64),
    /// The time of the operation.
    Now,
}

/// One entry of a directory listing (without `.` and `..`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirEntry {
    /// The entry's name.
    pub name: OsString,
    /// The inode it names.
    pub ino: Ino,
    /// The inode's type.
    pub kind: FileType,
}

/// How a file is opened by [`crate::Vfs::open_file`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OpenFlags {
    /// Reads are allowed.
    pub read: bool,
    /// Writes are allowed.
    pub write: bool,
    /// Every write goes to the end of the file.
    pub append: bool,
    /// Truncate to zero length when opening.
    pub truncate: bool,
}

impl OpenFlags {
    /// Read only.
    pub const READ: OpenFlags = OpenFlags {
        read: true,
        write: false,
        append: false,
        truncate: false,
    };
    /// Read and write.
    pub const READ_WRITE: OpenFlags = OpenFlags {
        read: true,
        write: true,
        append: false,
        truncate: false,
    };
    /// Write only.
    pub const WRITE: OpenFlags = OpenFlags {
        read: false,
        write: true,
        append: false,
        truncate: false,
    };
}

/// Filesystem statistics, as `statfs(2)` reports them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatFs {
    /// Block size used for the counts below.
    pub block_size: u32,
    /// Total blocks (the quota, or used + a large free amount when there is none).
    pub blocks: u64,
    /// Free blocks.
    pub blocks_free: u64,
    /// Number of inodes in use.
    pub files: u64,
    /// Free inodes (no real limit).
    pub files_free: u64,
    /// Longest name.
    pub name_max: u32,
    /// Bytes of deduplicated content stored in the database.
    pub bytes_stored: u64,
}

/// What happened to a path at some revision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChangeKind {
    /// The path was created (a rename records the new path as created).
    Created,
    /// Its content or attributes changed.
    Modified,
    /// The path was removed (a rename records the old path as deleted).
    Deleted,
    /// The whole tree was replaced (snapshot restore): re-read everything.
    Reset,
}

impl ChangeKind {
    pub(crate) fn code(self) -> i64 {
        match self {
            ChangeKind::Created => 1,
            ChangeKind::Modified => 2,
            ChangeKind::Deleted => 3,
            ChangeKind::Reset => 4,
        }
    }

    pub(crate) fn from_code(code: i64) -> ChangeKind {
        match code {
            1 => ChangeKind::Created,
            2 => ChangeKind::Modified,
            3 => ChangeKind::Deleted,
            _ => ChangeKind::Reset,
        }
    }
}

/// One entry of the change log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// The revision that made the change.
    pub rev: u64,
    /// What happened.
    pub kind: ChangeKind,
    /// The absolute path it happened to (for a directory rename: the directory; its subtree moved with it).
    pub path: PathBuf,
}

/// A snapshot's description.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotInfo {
    /// Its name.
    pub name: String,
    /// When it was taken, nanoseconds since the Unix epoch.
    pub created: i64,
    /// The workspace revision it captured.
    pub rev: u64,
    /// Number of inodes in it.
    pub inodes: u64,
    /// Logical size of its files in bytes.
    pub bytes: u64,
}
