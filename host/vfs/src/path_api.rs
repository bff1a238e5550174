//! The path-level API on [`Vfs`] (and the import subset on [`Batch`]): what tools, the CLI and
//! git use. Paths are absolute; a relative path is taken from the root. Every call sees one
//! consistent state (one transaction, or for reads the lookup cache while nothing has been
//! committed since it was checked), including what was written through open handles.

use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

use crate::error::{Result, VfsError};
use crate::path::tidy;
use crate::path_ops::{OpenPath, WalkEntry};
use crate::tx::{Owner, Tx};
use crate::types::{CopyOptions, DirEntry, FileType, SetAttr, Stat, TimeSet};
use crate::vfs::{Batch, Vfs, from_cache};

fn bytes(path: &Path) -> &[u8] {
    path.as_os_str().as_bytes()
}

impl Vfs {
    fn path_write<T>(&self, f: impl FnOnce(&mut Tx<'_>) -> Result<T>) -> Result<T> {
        let mut inner = self.lock()?;
        self.flush_dirty(&mut inner)?;
        self.write_locked(&mut inner, f)
    }

    fn path_read<T>(&self, f: impl FnOnce(&Tx<'_>) -> Result<T>) -> Result<T> {
        let mut inner = self.lock()?;
        if !self.is_read_only() {
            self.flush_dirty(&mut inner)?;
        }
        self.read_locked(&mut inner, f)
    }

    /// Opens `path` as `open(2)` would (creating or truncating as asked) and returns what was
    /// opened; pass its inode to [`Vfs::open_file`] for a handle.
    pub fn open_path(&self, path: impl AsRef<Path>, opts: &OpenPath) -> Result<Stat> {
        let path = bytes(path.as_ref());
        if !opts.create && !opts.truncate {
            // Nothing to change (most opens are this): from the cache while it is current,
            // else in a read transaction.
            let mut inner = self.lock()?;
            if !self.is_read_only() {
                self.flush_dirty(&mut inner)?;
            }
            if let Some(st) = from_cache(&mut inner, |c| c.resolve(path, opts.follow)) {
                return crate::path_ops::check_existing(st, opts);
            }
            return self.read_locked(&mut inner, |tx| tx.path_open_existing(path, opts));
        }
        self.path_write(|tx| tx.path_open(path, opts))
    }

    /// Changes attributes of `path` (of the symlink itself unless `follow`).
    pub fn setattr_path(
        &self,
        path: impl AsRef<Path>,
        follow: bool,
        attr: &SetAttr,
    ) -> Result<Stat> {
        self.path_write(|tx| tx.path_setattr(bytes(path.as_ref()), follow, attr))
    }

    /// One current path of inode `ino` (any of its links), or `None` if it has none.
    pub fn path_of(&self, ino: crate::types::Ino) -> Result<Option<PathBuf>> {
        let mut inner = self.lock()?;
        let path = match from_cache(&mut inner, |c| c.path(ino).cloned()) {
            Some(path) => Some(path),
            None => {
                let path = self.read_locked(&mut inner, |tx| tx.path_of(ino))?;
                if let Some(path) = &path {
                    inner.cache.get_mut().put_path(ino, path.clone());
                }
                path
            }
        };
        Ok(path.map(|p| PathBuf::from(OsString::from_vec(p))))
    }

    /// Attributes of `path`, following symlinks.
    pub fn stat(&self, path: impl AsRef<Path>) -> Result<Stat> {
        self.path_stat(bytes(path.as_ref()), true)
    }

    /// Attributes of `path` itself (a symlink is not followed).
    pub fn lstat(&self, path: impl AsRef<Path>) -> Result<Stat> {
        self.path_stat(bytes(path.as_ref()), false)
    }

    fn path_stat(&self, path: &[u8], follow: bool) -> Result<Stat> {
        let mut inner = self.lock()?;
        if !self.is_read_only() {
            self.flush_dirty(&mut inner)?;
        }
        if let Some(st) = from_cache(&mut inner, |c| c.resolve(path, follow)) {
            return Ok(st);
        }
        self.read_locked(&mut inner, |tx| tx.resolve(path, follow)?.stat())
    }

    /// Whether `path` exists (following symlinks).
    pub fn exists(&self, path: impl AsRef<Path>) -> Result<bool> {
        match self.stat(path) {
            Ok(_) => Ok(true),
            Err(VfsError::NotFound | VfsError::NotDir) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// The whole content of a file.
    pub fn read_file(&self, path: impl AsRef<Path>) -> Result<Vec<u8>> {
        self.path_read(|tx| tx.path_read(bytes(path.as_ref()), 0, u64::MAX))
    }

    /// Up to `len` bytes of a file from `offset`.
    pub fn read_range(&self, path: impl AsRef<Path>, offset: u64, len: u64) -> Result<Vec<u8>> {
        self.path_read(|tx| tx.path_read(bytes(path.as_ref()), offset, len))
    }

    /// Creates or replaces a file's content (new files get mode 0644; parents must exist).
    pub fn write_file(&self, path: impl AsRef<Path>, data: impl AsRef<[u8]>) -> Result<Stat> {
        self.path_write(|tx| tx.path_write_file(bytes(path.as_ref()), data.as_ref(), 0o644))
    }

    /// Appends to a file, creating it if missing.
    pub fn append(&self, path: impl AsRef<Path>, data: impl AsRef<[u8]>) -> Result<Stat> {
        self.path_write(|tx| tx.path_write_at(bytes(path.as_ref()), None, data.as_ref()))
    }

    /// Writes at `offset` without truncating (a gap past the end reads as zeros).
    pub fn write_at(
        &self,
        path: impl AsRef<Path>,
        offset: u64,
        data: impl AsRef<[u8]>,
    ) -> Result<Stat> {
        self.path_write(|tx| tx.path_write_at(bytes(path.as_ref()), Some(offset), data.as_ref()))
    }

    /// Truncates or extends a file.
    pub fn truncate(&self, path: impl AsRef<Path>, size: u64) -> Result<Stat> {
        let attr = SetAttr {
            size: Some(size),
            ..Default::default()
        };
        self.path_write(|tx| tx.path_setattr(bytes(path.as_ref()), true, &attr))
    }

    /// Creates one directory (mode 0755); the parent must exist.
    pub fn create_dir(&self, path: impl AsRef<Path>) -> Result<Stat> {
        self.path_write(|tx| tx.path_mkdir(bytes(path.as_ref()), 0o755))
    }

    /// `mkdir -p`.
    pub fn create_dir_all(&self, path: impl AsRef<Path>) -> Result<Stat> {
        self.path_write(|tx| tx.path_mkdir_all(bytes(path.as_ref()), 0o755))
    }

    /// The entries of a directory, sorted by name.
    pub fn read_dir(&self, path: impl AsRef<Path>) -> Result<Vec<DirEntry>> {
        self.path_read(|tx| {
            let st = tx.resolve(bytes(path.as_ref()), true)?.stat()?;
            tx.readdir(st.ino)
        })
    }

    /// The entries of a directory (through symbolic links) with the attributes of each
    /// (not following links), sorted by name: one read for `ls -l` or `du` of a directory.
    pub fn read_dir_stat(&self, path: impl AsRef<Path>) -> Result<Vec<(OsString, Stat)>> {
        self.path_read(|tx| {
            let st = tx.resolve(bytes(path.as_ref()), true)?.stat()?;
            Ok(tx
                .readdir_plus(st.ino)?
                .into_iter()
                .map(|(name, st)| (OsString::from_vec(name), st))
                .collect())
        })
    }

    /// Removes a file or symlink (EISDIR for a directory).
    pub fn remove_file(&self, path: impl AsRef<Path>) -> Result<()> {
        self.path_write(|tx| tx.path_unlink(bytes(path.as_ref())))
    }

    /// Removes an empty directory.
    pub fn remove_dir(&self, path: impl AsRef<Path>) -> Result<()> {
        self.path_write(|tx| tx.path_rmdir(bytes(path.as_ref())))
    }

    /// `rm -r`: removes a file, a symlink or a whole directory tree, in one transaction.
    pub fn remove_all(&self, path: impl AsRef<Path>) -> Result<()> {
        self.path_write(|tx| tx.path_remove_all(bytes(path.as_ref())))
    }

    /// Renames, replacing the target as `rename(2)` does.
    pub fn rename(&self, from: impl AsRef<Path>, to: impl AsRef<Path>) -> Result<()> {
        self.path_write(|tx| tx.path_rename(bytes(from.as_ref()), bytes(to.as_ref())))
    }

    /// Copies a file (content and permissions). The copy shares the content's chunks.
    pub fn copy(&self, from: impl AsRef<Path>, to: impl AsRef<Path>) -> Result<Stat> {
        self.path_write(|tx| tx.path_copy_file(bytes(from.as_ref()), bytes(to.as_ref())))
    }

    /// `cp -r` to a new path: directories, files and symlinks, permissions and owners kept.
    pub fn copy_all(&self, from: impl AsRef<Path>, to: impl AsRef<Path>) -> Result<()> {
        self.copy_all_with(from, to, CopyOptions::default())
    }

    /// `cp -r` to a new path, in one change: what each copy keeps is `how`'s to say. Fails
    /// with `EEXIST` when `to` exists (nothing is merged) and `EINVAL` for a directory into
    /// itself.
    pub fn copy_all_with(
        &self,
        from: impl AsRef<Path>,
        to: impl AsRef<Path>,
        how: CopyOptions,
    ) -> Result<()> {
        self.path_write(|tx| tx.path_copy_all(bytes(from.as_ref()), bytes(to.as_ref()), how))
    }

    /// Creates symlink `link` pointing at `target`.
    pub fn symlink(&self, target: impl AsRef<Path>, link: impl AsRef<Path>) -> Result<Stat> {
        self.path_write(|tx| tx.path_symlink(bytes(target.as_ref()), bytes(link.as_ref())))
    }

    /// The target of a symlink.
    pub fn read_link(&self, path: impl AsRef<Path>) -> Result<PathBuf> {
        self.path_read(|tx| {
            let st = tx.resolve(bytes(path.as_ref()), false)?.stat()?;
            tx.readlink(st.ino)
        })
        .map(|t| PathBuf::from(std::ffi::OsString::from_vec(t)))
    }

    /// Creates hard link `dst` to `src`.
    pub fn hard_link(&self, src: impl AsRef<Path>, dst: impl AsRef<Path>) -> Result<Stat> {
        self.path_write(|tx| tx.path_hard_link(bytes(src.as_ref()), bytes(dst.as_ref())))
    }

    /// `chmod`.
    pub fn set_permissions(&self, path: impl AsRef<Path>, perm: u32) -> Result<Stat> {
        let attr = SetAttr {
            perm: Some(perm),
            ..Default::default()
        };
        self.path_write(|tx| tx.path_setattr(bytes(path.as_ref()), true, &attr))
    }

    /// `chown`: sets the owner and the group (`None` keeps one), of the link itself unless
    /// `follow`.
    pub fn set_owner_of(
        &self,
        path: impl AsRef<Path>,
        uid: Option<u32>,
        gid: Option<u32>,
        follow: bool,
    ) -> Result<Stat> {
        let attr = SetAttr {
            uid,
            gid,
            ..Default::default()
        };
        self.path_write(|tx| tx.path_setattr(bytes(path.as_ref()), follow, &attr))
    }

    /// `mkfifo`: a FIFO at `path`, kept as an inode (see [`Vfs::mknod`]).
    pub fn make_fifo(&self, path: impl AsRef<Path>, perm: u32) -> Result<Stat> {
        self.path_write(|tx| tx.path_mknod(bytes(path.as_ref()), FileType::Fifo, perm, 0))
    }

    /// Sets access and modification times (of the link itself when `path` is a symlink).
    pub fn set_times(
        &self,
        path: impl AsRef<Path>,
        atime: Option<TimeSet>,
        mtime: Option<TimeSet>,
    ) -> Result<Stat> {
        let attr = SetAttr {
            atime,
            mtime,
            ..Default::default()
        };
        self.path_write(|tx| tx.path_setattr(bytes(path.as_ref()), false, &attr))
    }

    /// Every entry at and below `path` (symlinks not followed), depth first, sorted by name.
    pub fn walk(&self, path: impl AsRef<Path>) -> Result<Vec<WalkEntry>> {
        self.path_read(|tx| tx.walk(bytes(path.as_ref())))
    }

    /// Paths matching a shell-style glob (`*` and `?` stay within one component, `**` crosses
    /// directories, `{a,b}` and `[..]` work), sorted.
    pub fn glob(&self, pattern: &str) -> Result<Vec<PathBuf>> {
        let absolute = String::from_utf8_lossy(&tidy(pattern.as_bytes())).into_owned();
        let matcher = globset::GlobBuilder::new(&absolute)
            .literal_separator(true)
            .build()
            .map_err(|_| VfsError::Invalid("bad glob pattern"))?
            .compile_matcher();
        // Walk only below the part before the first wildcard.
        let base: Vec<&str> = absolute
            .split('/')
            .take_while(|c| !c.contains(['*', '?', '[', '{']))
            .collect();
        let base = if base.len() <= 1 {
            "/".to_string()
        } else {
            base.join("/")
        };
        let entries = match self.walk(&base) {
            Ok(entries) => entries,
            Err(VfsError::NotFound | VfsError::NotDir) => return Ok(Vec::new()),
            Err(e) => return Err(e),
        };
        Ok(entries
            .into_iter()
            .map(|e| e.path)
            .filter(|p| matcher.is_match(p))
            .collect())
    }
}

impl Batch<'_, '_> {
    /// See [`Vfs::write_file`]; `perm` is the mode of a new file.
    pub fn write_file(&mut self, path: impl AsRef<Path>, data: &[u8], perm: u32) -> Result<Stat> {
        self.tx.path_write_file(bytes(path.as_ref()), data, perm)
    }

    /// See [`Vfs::write_at`].
    pub fn write_at(&mut self, path: impl AsRef<Path>, offset: u64, data: &[u8]) -> Result<Stat> {
        self.tx
            .path_write_at(bytes(path.as_ref()), Some(offset), data)
    }

    /// See [`Vfs::create_dir_all`].
    pub fn create_dir_all(&mut self, path: impl AsRef<Path>) -> Result<Stat> {
        self.tx.path_mkdir_all(bytes(path.as_ref()), 0o755)
    }

    /// See [`Vfs::symlink`].
    pub fn symlink(&mut self, target: impl AsRef<Path>, link: impl AsRef<Path>) -> Result<Stat> {
        self.tx
            .path_symlink(bytes(target.as_ref()), bytes(link.as_ref()))
    }

    /// A FIFO, socket or device node at `path` (see [`Vfs::mknod`]).
    pub fn mknod(
        &mut self,
        path: impl AsRef<Path>,
        kind: FileType,
        perm: u32,
        rdev: u64,
    ) -> Result<Stat> {
        self.tx.path_mknod(bytes(path.as_ref()), kind, perm, rdev)
    }

    /// See [`Vfs::hard_link`].
    pub fn hard_link(&mut self, src: impl AsRef<Path>, dst: impl AsRef<Path>) -> Result<Stat> {
        self.tx
            .path_hard_link(bytes(src.as_ref()), bytes(dst.as_ref()))
    }

    /// See [`Vfs::lstat`].
    pub fn lstat(&mut self, path: impl AsRef<Path>) -> Result<Stat> {
        self.tx.resolve(bytes(path.as_ref()), false)?.stat()
    }

    /// See [`Vfs::remove_all`].
    pub fn remove_all(&mut self, path: impl AsRef<Path>) -> Result<()> {
        self.tx.path_remove_all(bytes(path.as_ref()))
    }

    /// Restores permissions, owner and mtime (also atime) of `path` itself (no symlink following).
    pub fn set_metadata(
        &mut self,
        path: impl AsRef<Path>,
        perm: Option<u32>,
        owner: Option<Owner>,
        mtime: Option<i64>,
    ) -> Result<Stat> {
        self.tx
            .path_set_metadata(bytes(path.as_ref()), perm, owner, mtime)
    }
}
