//! The path-level operations, as steps inside a transaction. `crate::path_api` exposes them on
//! [`crate::Vfs`] and on [`crate::Batch`].

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::path::PathBuf;

use crate::error::{Result, VfsError};
use crate::tx::{Owner, STAT_COLUMNS, Tx, stat_from_row};
use crate::types::{ChangeKind, CopyOptions, FileType, Ino, PATH_MAX, SetAttr, Stat, TimeSet};

/// How [`crate::Vfs::open_path`] opens (the `O_*` flags of `open(2)` that concern the path).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpenPath {
    /// `O_CREAT`: create a regular file if missing.
    pub create: bool,
    /// `O_EXCL`: with `create`, fail if it exists.
    pub exclusive: bool,
    /// `O_TRUNC`: empty an existing regular file.
    pub truncate: bool,
    /// `O_DIRECTORY`: fail unless it is a directory.
    pub directory: bool,
    /// Follow a symlink in the last component (without: `O_NOFOLLOW`, ELOOP on a symlink).
    pub follow: bool,
    /// Permission bits of a created file.
    pub perm: u32,
}

impl Default for OpenPath {
    fn default() -> Self {
        OpenPath {
            create: false,
            exclusive: false,
            truncate: false,
            directory: false,
            follow: true,
            perm: 0o644,
        }
    }
}

/// One entry found by [`crate::Vfs::walk`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalkEntry {
    /// Absolute path.
    pub path: PathBuf,
    /// Its attributes (symlinks are not followed).
    pub stat: Stat,
    /// 0 for the starting point, 1 for its entries, and so on.
    pub depth: usize,
}

/// What opening existing `st` without creating or truncating gives.
pub(crate) fn check_existing(st: Stat, opts: &OpenPath) -> Result<Stat> {
    match st.kind {
        FileType::Symlink => Err(VfsError::Loop),
        FileType::Dir => Ok(st),
        _ if opts.directory => Err(VfsError::NotDir),
        _ => Ok(st),
    }
}

impl Tx<'_> {
    /// Creates or truncates `path` and writes `data` (a symlink in the last component is followed).
    pub(crate) fn path_write_file(&mut self, path: &[u8], data: &[u8], perm: u32) -> Result<Stat> {
        let ino = self.path_open_file(path, perm)?;
        self.replace_content(ino, data)?;
        self.log_ino(ChangeKind::Modified, ino)?;
        self.stat(ino)
    }

    /// The regular file at `path`, created empty with `perm` if missing.
    pub(crate) fn path_open_file(&mut self, path: &[u8], perm: u32) -> Result<Ino> {
        let r = self.resolve(path, true)?;
        match &r.found {
            Some(st) if st.kind == FileType::Dir => Err(VfsError::IsDir),
            Some(st) if st.kind.is_special() => Err(VfsError::NoDevice),
            Some(st) => Ok(st.ino),
            None if r.trailing_slash => Err(VfsError::IsDir),
            None => {
                let (parent, name) = r.for_create()?;
                Ok(self.create_file(parent, &name, perm, self.owner)?.ino)
            }
        }
    }

    /// `path_open` without creating or truncating (so it needs no write transaction).
    pub(crate) fn path_open_existing(&self, path: &[u8], opts: &OpenPath) -> Result<Stat> {
        check_existing(self.resolve(path, opts.follow)?.stat()?, opts)
    }

    /// `open(2)` at the path level: resolves (following a last symlink only with `follow`),
    /// creates, refuses or truncates as the options say, and returns what was opened.
    pub(crate) fn path_open(&mut self, path: &[u8], opts: &OpenPath) -> Result<Stat> {
        let r = self.resolve(path, opts.follow)?;
        match r.found {
            Some(st) => {
                if opts.create && opts.exclusive {
                    return Err(VfsError::Exists);
                }
                match st.kind {
                    FileType::Symlink => Err(VfsError::Loop),
                    FileType::Dir if opts.truncate => Err(VfsError::IsDir),
                    FileType::Dir => Ok(st),
                    _ if opts.directory => Err(VfsError::NotDir),
                    FileType::File if opts.truncate && st.size > 0 => {
                        self.truncate_content(st.ino, st.size, 0)?;
                        self.log_ino(ChangeKind::Modified, st.ino)?;
                        self.stat(st.ino)
                    }
                    // O_TRUNC means nothing to a FIFO or device; opening one is refused later.
                    _ => Ok(st),
                }
            }
            None if !opts.create => Err(VfsError::NotFound),
            None if opts.directory => Err(VfsError::Invalid("O_CREAT with O_DIRECTORY")),
            None if r.trailing_slash => Err(VfsError::IsDir),
            None => {
                let (parent, name) = r.for_create()?;
                self.create_file(parent, &name, opts.perm, self.owner)
            }
        }
    }

    /// Writes `data` at `offset` of `path` (created if missing), or at its end with `append`.
    pub(crate) fn path_write_at(
        &mut self,
        path: &[u8],
        offset: Option<u64>,
        data: &[u8],
    ) -> Result<Stat> {
        let ino = self.path_open_file(path, 0o644)?;
        let offset = match offset {
            Some(offset) => offset,
            None => self.stat(ino)?.size,
        };
        self.write_content(ino, offset, data)?;
        self.log_ino(ChangeKind::Modified, ino)?;
        self.stat(ino)
    }

    /// The content of the file at `path`, or `len` bytes of it from `offset`.
    pub(crate) fn path_read(&self, path: &[u8], offset: u64, len: u64) -> Result<Vec<u8>> {
        let st = self.resolve_ino(path)?;
        match st.kind {
            FileType::Dir => return Err(VfsError::IsDir),
            kind if kind.is_special() => return Err(VfsError::NoDevice),
            _ => {}
        }
        self.read_content(st.ino, st.size, offset, len)
    }

    pub(crate) fn path_mkdir(&mut self, path: &[u8], perm: u32) -> Result<Stat> {
        let (parent, name) = self.resolve(path, false)?.for_create()?;
        self.mkdir(parent, &name, perm, self.owner)
    }

    /// `mkdir -p`, with the rules of `std::fs::create_dir_all` and GNU `mkdir -p`: try the
    /// whole path first, create missing parents on ENOENT, and accept an existing directory
    /// (also through a symlink) but nothing else.
    pub(crate) fn path_mkdir_all(&mut self, path: &[u8], perm: u32) -> Result<Stat> {
        if path.len() >= PATH_MAX {
            return Err(VfsError::NameTooLong);
        }
        match self.path_mkdir(path, perm) {
            Ok(st) => return Ok(st),
            Err(VfsError::NotFound) => {}
            Err(e) => return self.existing_dir(path).ok_or(e),
        }
        let parent = parent_path(path).ok_or(VfsError::NotFound)?;
        self.path_mkdir_all(parent, perm)?;
        match self.path_mkdir(path, perm) {
            Ok(st) => Ok(st),
            Err(e) => self.existing_dir(path).ok_or(e),
        }
    }

    /// The directory `path` leads to (following symlinks), if it is one.
    fn existing_dir(&self, path: &[u8]) -> Option<Stat> {
        self.resolve(path, true)
            .ok()?
            .found
            .filter(|st| st.kind == FileType::Dir)
    }

    pub(crate) fn path_unlink(&mut self, path: &[u8]) -> Result<()> {
        let (parent, name, _) = self.resolve(path, false)?.for_entry()?;
        self.unlink(parent, &name)
    }

    pub(crate) fn path_rmdir(&mut self, path: &[u8]) -> Result<()> {
        let r = self.resolve(path, false)?;
        if r.name.is_none() {
            return Err(VfsError::Busy);
        }
        let (parent, name, _) = r.for_entry()?;
        self.rmdir(parent, &name)
    }

    /// `rm -r`: removes `path` and everything below it (symlinks are removed, not followed).
    pub(crate) fn path_remove_all(&mut self, path: &[u8]) -> Result<()> {
        let (parent, name, st) = self.resolve(path, false)?.for_entry()?;
        let logged = self.child_path(parent, &name)?;
        self.log(ChangeKind::Deleted, logged)?;
        self.remove_tree(parent, &name, &st)?;
        self.touch(parent)
    }

    /// Removes the entry `name` of `parent` and everything below it. Depth first with a stack
    /// of its own, not by recursion: a tree can be deeper than any thread's stack (a guest
    /// makes one level at a time through directory descriptors, and a rename stacks a tree
    /// on another).
    fn remove_tree(&mut self, parent: Ino, name: &[u8], st: &Stat) -> Result<()> {
        enum Step {
            Enter(Ino, Vec<u8>, Stat),
            Leave(Ino, Vec<u8>, Ino),
        }
        let mut steps = vec![Step::Enter(parent, name.to_vec(), st.clone())];
        while let Some(step) = steps.pop() {
            let (parent, name, ino) = match step {
                Step::Enter(parent, name, st) if st.kind == FileType::Dir => {
                    let children = self.readdir_stat(st.ino)?;
                    steps.push(Step::Leave(parent, name, st.ino));
                    steps.extend(
                        (children.into_iter())
                            .map(|(child, child_st)| Step::Enter(st.ino, child, child_st)),
                    );
                    continue;
                }
                Step::Enter(parent, name, st) => {
                    self.add_nlink(st.ino, -1)?;
                    (parent, name, st.ino)
                }
                Step::Leave(parent, name, ino) => {
                    self.add_nlink(parent, -1)?;
                    self.add_nlink(ino, -2)?;
                    (parent, name, ino)
                }
            };
            self.delete_dentry(parent, &name)?;
            self.drop_inode_if_unused(ino)?;
        }
        Ok(())
    }

    /// Entries of directory `ino` with their attributes, sorted by name.
    pub(crate) fn readdir_stat(&self, ino: Ino) -> Result<Vec<(Vec<u8>, Stat)>> {
        self.dir_stat(ino)?;
        let cols = STAT_COLUMNS
            .split(", ")
            .map(|c| format!("i.{c}"))
            .collect::<Vec<_>>()
            .join(", ");
        let mut stmt = self.conn.prepare_cached(&format!(
            "SELECT {cols}, d.name FROM dentries d CROSS JOIN inodes i ON i.ino = d.ino
             WHERE d.parent = ?1 ORDER BY d.name"
        ))?;
        // The name comes after the attributes.
        let name_at = STAT_COLUMNS.split(", ").count();
        let rows = stmt.query_map([ino], |r| {
            Ok((r.get::<_, Vec<u8>>(name_at)?, stat_from_row(r)?))
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    pub(crate) fn path_rename(&mut self, from: &[u8], to: &[u8]) -> Result<()> {
        // Both parent walks come before the entry checks, as in rename(2).
        let from = self.resolve(from, false)?;
        let r = self.resolve(to, false)?;
        let (parent, name, _) = from.for_entry()?;
        if let (Some(st), true) = (&r.found, r.trailing_slash)
            && st.kind != FileType::Dir
        {
            return Err(VfsError::NotDir);
        }
        let new_name = match r.name {
            Some(n) => n,
            None => return Err(VfsError::Busy),
        };
        self.rename(parent, &name, r.parent, &new_name, Default::default())
    }

    /// Copies a regular file's content and permissions, like `std::fs::copy` (sharing
    /// chunks: no bytes are copied).
    pub(crate) fn path_copy_file(&mut self, from: &[u8], to: &[u8]) -> Result<Stat> {
        let src = self.resolve_ino(from)?;
        match src.kind {
            FileType::Dir => return Err(VfsError::IsDir),
            kind if kind.is_special() => return Err(VfsError::NoDevice),
            _ => {}
        }
        let dst = self.path_open_file(to, src.perm)?;
        if dst == src.ino {
            return Err(VfsError::Invalid(
                "source and destination are the same file",
            ));
        }
        self.copy_content(src.ino, dst)?;
        // Like `std::fs::copy`, the destination takes the source's permission bits.
        let perm = SetAttr {
            perm: Some(src.perm),
            ..Default::default()
        };
        self.setattr(dst, &perm)
    }

    /// `cp -r`: copies a tree (symlinks as symlinks) to a new path, keeping what `how` says.
    pub(crate) fn path_copy_all(&mut self, from: &[u8], to: &[u8], how: CopyOptions) -> Result<()> {
        let src = self.resolve(from, false)?.stat()?;
        let (parent, name) = self.resolve(to, false)?.for_create()?;
        if src.kind == FileType::Dir && self.is_within(parent, src.ino)? {
            return Err(VfsError::Invalid("cannot copy a directory into itself"));
        }
        self.copy_tree(&src, parent, &name, how)
    }

    /// Copies `src` to the entry `name` of `parent`, and everything below it. With a stack of
    /// its own, as [`Tx::remove_tree`] is.
    fn copy_tree(&mut self, src: &Stat, parent: Ino, name: &[u8], how: CopyOptions) -> Result<()> {
        let mut steps = vec![(src.clone(), parent, name.to_vec())];
        // Directories get their times back last: each entry made in one touches it.
        let mut dirs = Vec::new();
        let mut made = 0u64;
        while let Some((src, parent, name)) = steps.pop() {
            made += 1;
            if let Some(limit) = how.max_entries
                && made > limit
            {
                return Err(VfsError::TooManyEntries { limit });
            }
            let owner = if how.owners {
                Owner {
                    uid: src.uid,
                    gid: src.gid,
                }
            } else {
                self.owner
            };
            let perm = src.perm & !how.mask;
            let dst = match src.kind {
                FileType::File => {
                    let dst = self.create_file(parent, &name, perm, owner)?;
                    self.copy_content(src.ino, dst.ino)?;
                    dst
                }
                FileType::Symlink => {
                    let target = self.readlink(src.ino)?;
                    self.symlink(parent, &name, &target, owner)?
                }
                FileType::Dir => {
                    let dst = self.mkdir(parent, &name, perm, owner)?;
                    // Reversed onto the stack: copied in name order.
                    for (child, child_st) in self.readdir_stat(src.ino)?.into_iter().rev() {
                        steps.push((child_st, dst.ino, child));
                    }
                    if how.times {
                        dirs.push((dst.ino, src.atime, src.mtime));
                    }
                    continue;
                }
                // As `cp -r` does: a new node of the same type (and device number).
                kind => self.mknod(parent, &name, kind, perm, src.rdev, owner)?,
            };
            if how.times {
                self.set_times(dst.ino, src.atime, src.mtime)?;
            }
        }
        for (ino, atime, mtime) in dirs.into_iter().rev() {
            self.set_times(ino, atime, mtime)?;
        }
        Ok(())
    }

    /// Gives `ino` the access and modification times `atime` and `mtime`.
    fn set_times(&mut self, ino: Ino, atime: i64, mtime: i64) -> Result<()> {
        let attr = SetAttr {
            atime: Some(TimeSet::At(atime)),
            mtime: Some(TimeSet::At(mtime)),
            ..SetAttr::default()
        };
        self.setattr(ino, &attr).map(|_| ())
    }

    pub(crate) fn path_mknod(
        &mut self,
        path: &[u8],
        kind: FileType,
        perm: u32,
        rdev: u64,
    ) -> Result<Stat> {
        let (parent, name) = self.resolve(path, false)?.for_create()?;
        self.mknod(parent, &name, kind, perm, rdev, self.owner)
    }

    pub(crate) fn path_symlink(&mut self, target: &[u8], link: &[u8]) -> Result<Stat> {
        let (parent, name) = self.resolve(link, false)?.for_create()?;
        self.symlink(parent, &name, target, self.owner)
    }

    pub(crate) fn path_hard_link(&mut self, src: &[u8], dst: &[u8]) -> Result<Stat> {
        let src = self.resolve(src, false)?.stat()?;
        let (parent, name) = self.resolve(dst, false)?.for_create()?;
        self.link(src.ino, parent, &name)
    }

    pub(crate) fn path_setattr(
        &mut self,
        path: &[u8],
        follow: bool,
        attr: &SetAttr,
    ) -> Result<Stat> {
        let st = self.resolve(path, follow)?.stat()?;
        self.setattr(st.ino, attr)
    }

    /// Sets owner, permissions and times at once (what importers restore).
    pub(crate) fn path_set_metadata(
        &mut self,
        path: &[u8],
        perm: Option<u32>,
        owner: Option<Owner>,
        mtime: Option<i64>,
    ) -> Result<Stat> {
        let attr = SetAttr {
            perm,
            uid: owner.map(|o| o.uid),
            gid: owner.map(|o| o.gid),
            mtime: mtime.map(TimeSet::At),
            atime: mtime.map(TimeSet::At),
            ..Default::default()
        };
        self.path_setattr(path, false, &attr)
    }

    /// Every entry at and below `path`, depth first, sorted by name at each level.
    pub(crate) fn walk(&self, path: &[u8]) -> Result<Vec<WalkEntry>> {
        let root = self.resolve(path, true)?.stat()?;
        let mut out = Vec::new();
        let mut stack = vec![WalkEntry {
            path: PathBuf::from(OsString::from_vec(crate::path::tidy(path))),
            stat: root,
            depth: 0,
        }];
        while let Some(entry) = stack.pop() {
            if entry.stat.kind == FileType::Dir {
                for (name, stat) in self.readdir_stat(entry.stat.ino)?.into_iter().rev() {
                    stack.push(WalkEntry {
                        path: entry.path.join(OsString::from_vec(name)),
                        stat,
                        depth: entry.depth + 1,
                    });
                }
            }
            out.push(entry);
        }
        Ok(out)
    }
}

/// The parent part of a path (`/a/b/` → `/a`), or `None` for the root.
fn parent_path(path: &[u8]) -> Option<&[u8]> {
    let mut end = path.len();
    while end > 0 && path[end - 1] == b'/' {
        end -= 1;
    }
    let cut = path[..end].iter().rposition(|b| *b == b'/')?;
    Some(if cut == 0 { b"/" } else { &path[..cut] })
}
