//! The inode operations (what FUSE and `wasi:filesystem` call), as steps inside a transaction.
//! They follow Linux's rules and error codes for each system call.

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;

use rusqlite::OptionalExtension;

use crate::error::{Result, VfsError};
use crate::tx::{Owner, Tx};
use crate::types::{
    ChangeKind, DirEntry, FileType, Ino, PATH_MAX, ROOT_INO, SetAttr, Stat, TimeSet,
};
use crate::util::{check_name, is_dot};

/// Flags of [`crate::Vfs::rename`] (Linux `renameat2`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RenameFlags {
    /// Fail with EEXIST instead of replacing an existing target (`RENAME_NOREPLACE`).
    pub no_replace: bool,
    /// Swap the two entries atomically; both must exist (`RENAME_EXCHANGE`).
    pub exchange: bool,
}

/// How [`crate::Vfs::setxattr`] treats an existing attribute.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum XattrMode {
    /// Create or replace.
    #[default]
    Upsert,
    /// Fail with EEXIST if it exists (`XATTR_CREATE`).
    Create,
    /// Fail with ENODATA if it does not exist (`XATTR_REPLACE`).
    Replace,
}

/// Listings longer than this are not put in the lookup cache (it would push out the rest).
const LISTING_KEPT: usize = 1024;

impl Tx<'_> {
    /// Checks that `name` may be created in directory `parent`.
    fn check_new_entry(&self, parent: Ino, name: &[u8]) -> Result<()> {
        check_name(name)?;
        self.dir_stat(parent)?;
        if is_dot(name) || self.lookup(parent, name)?.is_some() {
            return Err(VfsError::Exists);
        }
        Ok(())
    }

    fn new_inode(
        &mut self,
        parent: Ino,
        name: &[u8],
        mode: u32,
        owner: Owner,
        nlink: u32,
    ) -> Result<Ino> {
        self.check_new_entry(parent, name)?;
        let ino = self.insert_inode(mode, owner.uid, owner.gid, nlink)?;
        self.insert_dentry(parent, name, ino)?;
        self.touch(parent)?;
        let path = self.child_path(parent, name)?;
        self.log(ChangeKind::Created, path)?;
        Ok(ino)
    }

    pub(crate) fn lookup_stat(&self, parent: Ino, name: &[u8]) -> Result<Stat> {
        check_name(name)?;
        let dir = self.dir_stat(parent)?;
        match name {
            b"." => Ok(dir),
            b".." => self.stat(self.parent_of(parent)?),
            _ => self.lookup_entry(parent, name)?.ok_or(VfsError::NotFound),
        }
    }

    /// The parent directory of directory `ino` (the root is its own parent).
    pub(crate) fn parent_of(&self, ino: Ino) -> Result<Ino> {
        if ino == ROOT_INO {
            return Ok(ROOT_INO);
        }
        self.conn
            .prepare_cached("SELECT parent FROM dentries WHERE ino = ?1 LIMIT 1")?
            .query_row([ino], |r| r.get(0))
            .optional()?
            .ok_or(VfsError::NotFound)
    }

    pub(crate) fn create_file(
        &mut self,
        parent: Ino,
        name: &[u8],
        perm: u32,
        owner: Owner,
    ) -> Result<Stat> {
        let ino = self.new_inode(parent, name, libc::S_IFREG | (perm & 0o7777), owner, 1)?;
        self.stat(ino)
    }

    pub(crate) fn mkdir(
        &mut self,
        parent: Ino,
        name: &[u8],
        perm: u32,
        owner: Owner,
    ) -> Result<Stat> {
        let ino = self.new_inode(parent, name, libc::S_IFDIR | (perm & 0o7777), owner, 2)?;
        self.add_nlink(parent, 1)?;
        self.stat(ino)
    }

    /// A FIFO, socket or device node (`rdev` is kept for devices only).
    pub(crate) fn mknod(
        &mut self,
        parent: Ino,
        name: &[u8],
        kind: FileType,
        perm: u32,
        rdev: u64,
        owner: Owner,
    ) -> Result<Stat> {
        if !kind.is_special() {
            return Err(VfsError::Invalid(
                "mknod makes FIFOs, sockets and device nodes",
            ));
        }
        let mode = kind.mode_bits() | (perm & 0o7777);
        let ino = self.new_inode(parent, name, mode, owner, 1)?;
        if matches!(kind, FileType::CharDevice | FileType::BlockDevice) && rdev != 0 {
            self.touched_ino(ino);
            self.conn
                .prepare_cached("UPDATE inodes SET rdev = ?2 WHERE ino = ?1")?
                .execute((ino, rdev as i64))?;
        }
        self.stat(ino)
    }

    pub(crate) fn symlink(
        &mut self,
        parent: Ino,
        name: &[u8],
        target: &[u8],
        owner: Owner,
    ) -> Result<Stat> {
        if target.is_empty() {
            return Err(VfsError::NotFound);
        }
        if target.contains(&0) {
            return Err(VfsError::Invalid("symlink target contains a NUL byte"));
        }
        if target.len() >= PATH_MAX {
            return Err(VfsError::NameTooLong);
        }
        let ino = self.new_inode(parent, name, libc::S_IFLNK | 0o777, owner, 1)?;
        self.conn
            .prepare_cached("INSERT INTO symlinks (ino, target) VALUES (?1, ?2)")?
            .execute((ino, target))?;
        self.set_size(ino, target.len() as u64)?;
        self.stat(ino)
    }

    pub(crate) fn link(&mut self, ino: Ino, new_parent: Ino, new_name: &[u8]) -> Result<Stat> {
        let st = self.stat(ino)?;
        if st.kind == FileType::Dir {
            return Err(VfsError::NotPermitted);
        }
        self.check_new_entry(new_parent, new_name)?;
        self.insert_dentry(new_parent, new_name, ino)?;
        self.add_nlink(ino, 1)?;
        self.touch(new_parent)?;
        let path = self.child_path(new_parent, new_name)?;
        self.log(ChangeKind::Created, path)?;
        self.stat(ino)
    }

    pub(crate) fn readlink(&self, ino: Ino) -> Result<Vec<u8>> {
        self.conn
            .prepare_cached("SELECT target FROM symlinks WHERE ino = ?1")?
            .query_row([ino], |r| r.get(0))
            .optional()?
            .ok_or_else(|| match self.stat(ino) {
                Err(e) => e,
                Ok(_) => VfsError::Invalid("not a symbolic link"),
            })
    }

    pub(crate) fn unlink(&mut self, parent: Ino, name: &[u8]) -> Result<()> {
        check_name(name)?;
        self.dir_stat(parent)?;
        if is_dot(name) {
            return Err(VfsError::IsDir);
        }
        let ino = self.lookup(parent, name)?.ok_or(VfsError::NotFound)?;
        if self.stat(ino)?.kind == FileType::Dir {
            return Err(VfsError::IsDir);
        }
        let path = self.child_path(parent, name)?;
        self.log(ChangeKind::Deleted, path)?;
        self.delete_dentry(parent, name)?;
        self.touch(parent)?;
        self.add_nlink(ino, -1)?;
        self.drop_inode_if_unused(ino)
    }

    pub(crate) fn rmdir(&mut self, parent: Ino, name: &[u8]) -> Result<()> {
        check_name(name)?;
        self.dir_stat(parent)?;
        match name {
            b"." => return Err(VfsError::Invalid("cannot remove '.'")),
            b".." => return Err(VfsError::NotEmpty),
            _ => {}
        }
        let ino = self.lookup(parent, name)?.ok_or(VfsError::NotFound)?;
        self.dir_stat(ino)?;
        if self.has_children(ino)? {
            return Err(VfsError::NotEmpty);
        }
        let path = self.child_path(parent, name)?;
        self.log(ChangeKind::Deleted, path)?;
        self.delete_dentry(parent, name)?;
        self.add_nlink(parent, -1)?;
        self.touch(parent)?;
        self.add_nlink(ino, -2)?;
        self.drop_inode_if_unused(ino)
    }

    /// Whether directory `ino` is `ancestor` or lies below it.
    /// Walks up at most `PATH_MAX` levels: a deeper directory (a rename can stack trees that
    /// deep) gets an error, never a wrong "no".
    pub(crate) fn is_within(&self, mut ino: Ino, ancestor: Ino) -> Result<bool> {
        for _ in 0..PATH_MAX {
            if ino == ancestor {
                return Ok(true);
            }
            if ino == ROOT_INO {
                return Ok(false);
            }
            ino = self.parent_of(ino)?;
        }
        Err(VfsError::Corrupt(format!(
            "a directory more than {PATH_MAX} levels deep, or a cycle in the tree"
        )))
    }

    pub(crate) fn rename(
        &mut self,
        parent: Ino,
        name: &[u8],
        new_parent: Ino,
        new_name: &[u8],
        flags: RenameFlags,
    ) -> Result<()> {
        check_name(name)?;
        check_name(new_name)?;
        self.dir_stat(parent)?;
        if new_parent != parent {
            self.dir_stat(new_parent)?;
        }
        if is_dot(name) || is_dot(new_name) {
            return Err(VfsError::Busy);
        }
        let src = self.lookup(parent, name)?.ok_or(VfsError::NotFound)?;
        let src_st = self.stat(src)?;
        let dst = self.lookup(new_parent, new_name)?;
        if flags.exchange {
            let dst = dst.ok_or(VfsError::NotFound)?;
            return self.exchange(parent, name, src, new_parent, new_name, dst);
        }
        if dst == Some(src) {
            return Ok(());
        }
        if flags.no_replace && dst.is_some() {
            return Err(VfsError::Exists);
        }
        let src_is_dir = src_st.kind == FileType::Dir;
        if src_is_dir && self.is_within(new_parent, src)? {
            return Err(VfsError::Invalid("cannot move a directory into itself"));
        }
        let dst_st = dst.map(|d| self.stat(d)).transpose()?;
        // The target is an ancestor of the source: Linux reports ENOTEMPTY before type checks.
        if let Some(dst_st) = &dst_st
            && dst_st.kind == FileType::Dir
            && self.is_within(parent, dst_st.ino)?
        {
            return Err(VfsError::NotEmpty);
        }
        if let Some(dst_st) = &dst_st {
            match (src_is_dir, dst_st.kind == FileType::Dir) {
                (true, false) => return Err(VfsError::NotDir),
                (false, true) => return Err(VfsError::IsDir),
                (true, true) if self.has_children(dst_st.ino)? => {
                    return Err(VfsError::NotEmpty);
                }
                _ => {}
            }
        }
        let old_path = self.child_path(parent, name)?;
        let new_path = self.child_path(new_parent, new_name)?;
        self.log(ChangeKind::Deleted, old_path)?;
        if let Some(dst_st) = dst_st {
            self.delete_dentry(new_parent, new_name)?;
            if dst_st.kind == FileType::Dir {
                self.add_nlink(dst_st.ino, -2)?;
                self.add_nlink(new_parent, -1)?;
            } else {
                self.add_nlink(dst_st.ino, -1)?;
            }
            self.drop_inode_if_unused(dst_st.ino)?;
        }
        self.delete_dentry(parent, name)?;
        self.insert_dentry(new_parent, new_name, src)?;
        self.paths_moved();
        if src_is_dir && parent != new_parent {
            self.add_nlink(parent, -1)?;
            self.add_nlink(new_parent, 1)?;
        }
        self.touch(parent)?;
        if new_parent != parent {
            self.touch(new_parent)?;
        }
        self.touch_ctime(src)?;
        self.log(ChangeKind::Created, new_path)
    }

    fn exchange(
        &mut self,
        parent: Ino,
        name: &[u8],
        src: Ino,
        new_parent: Ino,
        new_name: &[u8],
        dst: Ino,
    ) -> Result<()> {
        if src == dst {
            return Ok(());
        }
        let src_dir = self.stat(src)?.kind == FileType::Dir;
        let dst_dir = self.stat(dst)?.kind == FileType::Dir;
        if (src_dir && self.is_within(new_parent, src)?)
            || (dst_dir && self.is_within(parent, dst)?)
        {
            return Err(VfsError::Invalid("cannot move a directory into itself"));
        }
        self.paths_moved();
        self.touched_name(parent, name);
        self.touched_name(new_parent, new_name);
        self.conn
            .prepare_cached("UPDATE dentries SET ino = ?3 WHERE parent = ?1 AND name = ?2")?
            .execute((parent, name, dst))?;
        self.conn
            .prepare_cached("UPDATE dentries SET ino = ?3 WHERE parent = ?1 AND name = ?2")?
            .execute((new_parent, new_name, src))?;
        if parent != new_parent && src_dir != dst_dir {
            let delta = if src_dir { 1 } else { -1 };
            self.add_nlink(new_parent, delta)?;
            self.add_nlink(parent, -delta)?;
        }
        for ino in [parent, new_parent] {
            self.touch(ino)?;
        }
        for ino in [src, dst] {
            self.touch_ctime(ino)?;
        }
        let a = self.child_path(parent, name)?;
        let b = self.child_path(new_parent, new_name)?;
        self.log(ChangeKind::Modified, a)?;
        self.log(ChangeKind::Modified, b)
    }

    /// Entries of directory `ino` with their attributes, sorted by name; in a read
    /// transaction they also go to the cache, since a listing is mostly followed by a stat
    /// or an open of what it lists (`ls -l`, `find`, `grep -r`, `git status`).
    pub(crate) fn readdir_plus(&self, ino: Ino) -> Result<Vec<(Vec<u8>, Stat)>> {
        let entries = self.readdir_stat(ino)?;
        if self.cache.is_some() && entries.len() <= LISTING_KEPT {
            crate::cache::put_listing(self.cache, ino, &entries);
        }
        Ok(entries)
    }

    pub(crate) fn readdir(&self, ino: Ino) -> Result<Vec<DirEntry>> {
        if self.cache.is_some() {
            let entries = self.readdir_plus(ino)?;
            return Ok(entries
                .into_iter()
                .map(|(name, st)| DirEntry {
                    name: OsString::from_vec(name),
                    ino: st.ino,
                    kind: st.kind,
                })
                .collect());
        }
        self.dir_stat(ino)?;
        let mut stmt = self.conn.prepare_cached(
            "SELECT d.name, d.ino, (SELECT mode FROM inodes WHERE ino = d.ino) FROM dentries d
             WHERE d.parent = ?1 ORDER BY d.name",
        )?;
        let rows = stmt.query_map([ino], |r| {
            Ok(DirEntry {
                name: OsString::from_vec(r.get(0)?),
                ino: r.get(1)?,
                kind: FileType::from_mode(r.get(2)?).unwrap_or(FileType::File),
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    pub(crate) fn setattr(&mut self, ino: Ino, attr: &SetAttr) -> Result<Stat> {
        let st = self.stat(ino)?;
        self.touched_ino(ino);
        if let Some(perm) = attr.perm {
            self.conn
                .prepare_cached("UPDATE inodes SET mode = ?2 WHERE ino = ?1")?
                .execute((ino, st.kind.mode_bits() | (perm & 0o7777)))?;
        }
        if let Some(uid) = attr.uid {
            self.conn
                .prepare_cached("UPDATE inodes SET uid = ?2 WHERE ino = ?1")?
                .execute((ino, uid))?;
        }
        if let Some(gid) = attr.gid {
            self.conn
                .prepare_cached("UPDATE inodes SET gid = ?2 WHERE ino = ?1")?
                .execute((ino, gid))?;
        }
        if let Some(size) = attr.size {
            match st.kind {
                FileType::Dir => return Err(VfsError::IsDir),
                FileType::Symlink => return Err(VfsError::Invalid("cannot truncate a symlink")),
                FileType::File => self.truncate_content(ino, st.size, size)?,
                // What truncate(2) says of a FIFO, socket or device node.
                _ => return Err(VfsError::Invalid("only regular files can be truncated")),
            }
        }
        let now = self.now;
        let resolve = |t: TimeSet| match t {
            TimeSet::At(ns) => ns,
            TimeSet::Now => now,
        };
        if let Some(atime) = attr.atime {
            self.conn
                .prepare_cached("UPDATE inodes SET atime = ?2 WHERE ino = ?1")?
                .execute((ino, resolve(atime)))?;
        }
        if let Some(mtime) = attr.mtime {
            self.conn
                .prepare_cached("UPDATE inodes SET mtime = ?2 WHERE ino = ?1")?
                .execute((ino, resolve(mtime)))?;
        }
        self.touch_ctime(ino)?;
        self.log_ino(ChangeKind::Modified, ino)?;
        self.stat(ino)
    }

    pub(crate) fn getxattr(&self, ino: Ino, name: &[u8]) -> Result<Vec<u8>> {
        self.stat(ino)?;
        self.conn
            .prepare_cached("SELECT value FROM xattrs WHERE ino = ?1 AND name = ?2")?
            .query_row((ino, name), |r| r.get(0))
            .optional()?
            .ok_or(VfsError::NoAttribute)
    }

    pub(crate) fn listxattr(&self, ino: Ino) -> Result<Vec<Vec<u8>>> {
        self.stat(ino)?;
        let mut stmt = self
            .conn
            .prepare_cached("SELECT name FROM xattrs WHERE ino = ?1 ORDER BY name")?;
        let names = stmt.query_map([ino], |r| r.get(0))?;
        Ok(names.collect::<rusqlite::Result<_>>()?)
    }

    pub(crate) fn setxattr(
        &mut self,
        ino: Ino,
        name: &[u8],
        value: &[u8],
        mode: XattrMode,
    ) -> Result<()> {
        if name.is_empty() || name.len() > 255 {
            return Err(VfsError::Invalid("xattr name must be 1 to 255 bytes"));
        }
        if value.len() > 64 * 1024 {
            return Err(VfsError::Invalid("xattr value over 64 KiB"));
        }
        let exists = self.getxattr(ino, name).is_ok();
        match (mode, exists) {
            (XattrMode::Create, true) => return Err(VfsError::Exists),
            (XattrMode::Replace, false) => return Err(VfsError::NoAttribute),
            _ => {}
        }
        self.conn
            .prepare_cached("INSERT OR REPLACE INTO xattrs (ino, name, value) VALUES (?1, ?2, ?3)")?
            .execute((ino, name, value))?;
        self.touch_ctime(ino)?;
        self.log_ino(ChangeKind::Modified, ino)
    }

    pub(crate) fn removexattr(&mut self, ino: Ino, name: &[u8]) -> Result<()> {
        self.stat(ino)?;
        let n = self
            .conn
            .prepare_cached("DELETE FROM xattrs WHERE ino = ?1 AND name = ?2")?
            .execute((ino, name))?;
        if n == 0 {
            return Err(VfsError::NoAttribute);
        }
        self.touch_ctime(ino)?;
        self.log_ino(ChangeKind::Modified, ino)
    }
}
