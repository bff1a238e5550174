//! The `Vfs` handle: opening a workspace file, running transactions, and the inode API.

use std::cell::RefCell;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, TryLockError};

use rusqlite::{Connection, OpenFlags as DbFlags};

use crate::cache::LookupCache;
use crate::error::{Result, VfsError};
use crate::handles::OpenFiles;
use crate::inode_ops::{RenameFlags, XattrMode};
use crate::schema::{self, DEFAULT_CHUNK_SIZE, meta_get, meta_set};
use crate::tx::{DirPaths, Owner, Tx};
use crate::types::{ChangeKind, DirEntry, Fh, FileType, Ino, NAME_MAX, SetAttr, Stat, StatFs};
use crate::wal_index::{Stamp, WalIndex};

/// How to open a workspace file.
#[derive(Debug, Clone)]
pub struct VfsOptions {
    /// Create the file (and its parent directories) if it does not exist. Default: true.
    pub create: bool,
    /// Refuse every change with EROFS. Default: false.
    pub read_only: bool,
    /// `synchronous=FULL`: also survive power loss, at the cost of an fsync per commit.
    /// Default: false (`NORMAL`, which survives any process crash).
    pub full_sync: bool,
    /// Chunk size for a new workspace, 64 KiB to 1 MiB. Default: 256 KiB.
    pub chunk_size: u64,
    /// The owner of a new workspace (see [`Vfs::owner`]). Default: the process's effective
    /// user and group.
    pub owner: Option<Owner>,
}

impl Default for VfsOptions {
    fn default() -> Self {
        VfsOptions {
            create: true,
            read_only: false,
            full_sync: false,
            chunk_size: DEFAULT_CHUNK_SIZE,
            owner: None,
        }
    }
}

/// The process's effective user and group: `/proc/self` is owned by them (root where there
/// is no `/proc`).
pub fn process_owner() -> Owner {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self")
        .map(|m| Owner {
            uid: m.uid(),
            gid: m.gid(),
        })
        .unwrap_or_default()
}

/// Default limit on the size of one file (EFBIG past it): 4 GiB.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 4 << 30;

pub(crate) struct Inner {
    /// Reached through [`Inner::conn`], which first ends a held read transaction, except by
    /// the read and write transactions here.
    db: Connection,
    /// The WAL-index header under which a read transaction was left open for the next read
    /// (see [`Vfs::hold_reads`]); `None` when no transaction is open between calls.
    held: Option<Stamp>,
    pub(crate) files: OpenFiles,
    pub(crate) cache: RefCell<LookupCache>,
    /// Tells whether anything was committed since the cache was last checked.
    pub(crate) wal: WalIndex,
    /// Directory paths carried between write transactions.
    pub(crate) dir_paths: DirPaths,
    /// The workspace's settings, as of a `PRAGMA data_version` (none: read them again).
    pub(crate) settings: Option<(i64, Settings)>,
}

/// What every write transaction needs from `meta`. They change only through this API, so they
/// are read again only after another connection committed or one of ours changed them.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Settings {
    quota: u64,
    max_file_size: u64,
    owner: Owner,
}

impl Settings {
    fn read(conn: &Connection) -> Result<Settings> {
        let (quota, max_file_size) = conn
            .prepare_cached(
                "SELECT (SELECT value FROM meta WHERE key = 'quota_bytes'),
                        (SELECT value FROM meta WHERE key = 'max_file_size')",
            )?
            .query_row([], |r| Ok((r.get::<_, u64>(0)?, r.get::<_, u64>(1)?)))?;
        Ok(Settings {
            quota,
            max_file_size,
            owner: schema::meta_owner(conn)?,
        })
    }
}

/// A workspace filesystem stored in one SQLite database. Cheap to share between threads
/// (`Arc<Vfs>`); several processes may open the same file.
pub struct Vfs {
    slot: Mutex<Slot>,
    /// Live [`ReadHold`]s: while there is one, a read leaves its transaction open for the
    /// next read.
    holds: AtomicUsize,
    /// Fixed when the workspace is created.
    chunk_size: u64,
    read_only: bool,
    full_sync: bool,
    location: Option<PathBuf>,
}

/// The open state, or nothing while the workspace sleeps (see [`Vfs::sleep`]).
struct Slot {
    inner: Option<Inner>,
    /// The last handle number given out before the workspace went to sleep: numbers are never
    /// given twice.
    last_fh: Fh,
}

/// The locked, open state of a workspace.
pub(crate) struct Locked<'a>(MutexGuard<'a, Slot>);

impl std::ops::Deref for Locked<'_> {
    type Target = Inner;
    fn deref(&self) -> &Inner {
        // `Vfs::lock` opens the state before it hands out a `Locked`, and nothing else
        // empties the slot while the lock is held.
        self.0
            .inner
            .as_ref()
            .expect("Vfs::lock wakes the workspace")
    }
}

impl std::ops::DerefMut for Locked<'_> {
    fn deref_mut(&mut self) -> &mut Inner {
        self.0
            .inner
            .as_mut()
            .expect("Vfs::lock wakes the workspace")
    }
}

impl Inner {
    /// The connection, for anything but the read and write transactions of this module: a
    /// read transaction held open between calls is ended first, so that what runs next is
    /// neither inside it nor sees an old snapshot.
    pub(crate) fn conn(&mut self) -> &Connection {
        self.end_held();
        &self.db
    }

    /// [`Inner::conn`], mutable (for rusqlite's own transactions).
    pub(crate) fn conn_mut(&mut self) -> &mut Connection {
        self.end_held();
        &mut self.db
    }

    /// Ends the read transaction held open between calls, if any.
    fn end_held(&mut self) {
        if self.held.take().is_some() && !self.db.is_autocommit() {
            // A failed rollback leaves nothing to undo: the transaction only read.
            let _ = self
                .db
                .prepare_cached("ROLLBACK")
                .and_then(|mut s| s.execute([]));
        }
    }
}

/// Keeps reads sharing one SQLite read transaction while it lives (see [`Vfs::hold_reads`]).
#[must_use = "reads are held only while the guard lives"]
pub struct ReadHold<'a>(&'a Vfs);

impl Drop for ReadHold<'_> {
    fn drop(&mut self) {
        if self.0.holds.fetch_sub(1, Ordering::AcqRel) == 1 {
            // Waits for the lock: nothing may stay open once the last hold is gone.
            let mut slot = self.0.slot.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(inner) = slot.inner.as_mut() {
                inner.end_held();
            }
        }
    }
}

impl std::fmt::Debug for Vfs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Vfs")
            .field("location", &self.location)
            .field("read_only", &self.read_only)
            .finish()
    }
}

impl Vfs {
    /// Opens the workspace at `path`, creating it if needed.
    pub fn open(path: impl AsRef<Path>) -> Result<Vfs> {
        Vfs::open_with(path, &VfsOptions::default())
    }

    /// Opens the workspace at `path` with options.
    pub fn open_with(path: impl AsRef<Path>, options: &VfsOptions) -> Result<Vfs> {
        let path = path.as_ref();
        if !(64 * 1024..=1024 * 1024).contains(&options.chunk_size) {
            return Err(VfsError::Invalid("chunk size must be 64 KiB to 1 MiB"));
        }
        if path.is_dir() {
            return Err(VfsError::NotAWorkspace(format!(
                "{} is a directory",
                path.display()
            )));
        }
        let exists = path.exists();
        if !exists {
            if !options.create || options.read_only {
                return Err(VfsError::NotFound);
            }
            if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
                // A new folder for workspaces is the owner's alone.
                use std::os::unix::fs::DirBuilderExt;
                std::fs::DirBuilder::new()
                    .recursive(true)
                    .mode(0o700)
                    .create(parent)?;
            }
            // The file is made readable by its owner only (SQLite gives its -wal and -shm
            // files the same mode), before SQLite opens it.
            use std::os::unix::fs::OpenOptionsExt;
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(path)
            {
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(e.into()),
            }
        }
        let flags = if options.read_only {
            DbFlags::SQLITE_OPEN_READ_ONLY | DbFlags::SQLITE_OPEN_NO_MUTEX
        } else {
            DbFlags::SQLITE_OPEN_READ_WRITE
                | DbFlags::SQLITE_OPEN_CREATE
                | DbFlags::SQLITE_OPEN_NO_MUTEX
        };
        let conn = Connection::open_with_flags(path, flags)?;
        Vfs::from_connection(conn, options, Some(path.to_path_buf()))
    }

    /// A throwaway workspace in memory.
    pub fn in_memory() -> Result<Vfs> {
        let conn = Connection::open_in_memory()?;
        Vfs::from_connection(conn, &VfsOptions::default(), None)
    }

    fn from_connection(
        mut conn: Connection,
        options: &VfsOptions,
        location: Option<PathBuf>,
    ) -> Result<Vfs> {
        conn.busy_timeout(std::time::Duration::from_secs(30))?;
        // Identify the file (and create or migrate the schema) before changing any setting of it.
        let owner = options.owner.unwrap_or_else(process_owner);
        schema::prepare(&mut conn, options.chunk_size, options.read_only, owner)?;
        schema::configure(&conn, options.full_sync, options.read_only)?;
        let chunk_size = meta_get(&conn, "chunk_size")? as u64;
        let in_memory = location.is_none();
        let vfs = Vfs {
            holds: AtomicUsize::new(0),
            chunk_size,
            slot: Mutex::new(Slot {
                inner: Some(Inner {
                    db: conn,
                    held: None,
                    files: OpenFiles::default(),
                    cache: RefCell::default(),
                    wal: WalIndex::Unknown,
                    dir_paths: DirPaths::default(),
                    settings: None,
                }),
                last_fh: 0,
            }),
            read_only: options.read_only,
            full_sync: options.full_sync,
            location,
        };
        if !vfs.read_only {
            vfs.collect_orphans()?;
            // That transaction read the database, so SQLite has mapped the WAL index.
            let mut inner = vfs.lock()?;
            inner.wal = WalIndex::find(inner.conn(), true, in_memory);
        }
        Ok(vfs)
    }

    /// Closes the database connection of an idle workspace, giving back its memory (the page
    /// cache, prepared statements, SQLite's own buffers) and its three file descriptors; the
    /// next use opens it again, transparently. Refused (false) while a handle is open and for
    /// an in-memory workspace; true if the workspace sleeps now.
    pub fn sleep(&self) -> bool {
        let mut slot = self.slot.lock().unwrap_or_else(|e| e.into_inner());
        let Some(inner) = &slot.inner else {
            return true;
        };
        if self.location.is_none() || !inner.files.is_idle() {
            return false;
        }
        slot.last_fh = inner.files.last_fh();
        slot.inner = None;
        true
    }

    /// Whether the workspace is asleep (see [`Vfs::sleep`]).
    pub fn is_asleep(&self) -> bool {
        self.slot
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .inner
            .is_none()
    }

    /// Opens the database again after [`Vfs::sleep`]. The file must still be the workspace it
    /// was: one deleted meanwhile is an error, never a new empty workspace.
    fn wake(&self, last_fh: Fh) -> Result<Inner> {
        let path = self
            .location
            .as_deref()
            .ok_or(VfsError::Invalid("an in-memory workspace never sleeps"))?;
        // SQLite would make a missing or empty file a new, empty workspace.
        let gone = match std::fs::metadata(path) {
            Ok(meta) if meta.is_file() && meta.len() > 0 => None,
            Ok(meta) if meta.is_file() => Some("was emptied while the workspace was asleep"),
            _ => Some("is gone (the workspace was asleep)"),
        };
        if let Some(what) = gone {
            return Err(VfsError::NotAWorkspace(format!(
                "{} {what}",
                path.display()
            )));
        }
        let flags = if self.read_only {
            DbFlags::SQLITE_OPEN_READ_ONLY | DbFlags::SQLITE_OPEN_NO_MUTEX
        } else {
            DbFlags::SQLITE_OPEN_READ_WRITE | DbFlags::SQLITE_OPEN_NO_MUTEX
        };
        let mut conn = Connection::open_with_flags(path, flags)?;
        conn.busy_timeout(std::time::Duration::from_secs(30))?;
        schema::prepare(&mut conn, self.chunk_size, self.read_only, Owner::default())?;
        schema::configure(&conn, self.full_sync, self.read_only)?;
        if meta_get(&conn, "chunk_size")? as u64 != self.chunk_size {
            return Err(VfsError::NotAWorkspace(format!(
                "{} was replaced by another workspace while asleep",
                path.display()
            )));
        }
        // That read mapped the WAL index.
        let wal = WalIndex::find(&conn, !self.read_only, false);
        Ok(Inner {
            db: conn,
            held: None,
            files: OpenFiles::starting_after(last_fh),
            cache: RefCell::default(),
            wal,
            dir_paths: DirPaths::default(),
            settings: None,
        })
    }

    /// The database file, or `None` for an in-memory workspace.
    pub fn location(&self) -> Option<&Path> {
        self.location.as_deref()
    }

    /// Whether every change is refused.
    pub fn is_read_only(&self) -> bool {
        self.read_only
    }

    /// Locks the workspace's state, opening the database again if it was asleep.
    pub(crate) fn lock(&self) -> Result<Locked<'_>> {
        // A panic while holding the lock cannot leave SQLite inconsistent (the transaction
        // rolls back on drop), so a poisoned lock is safe to keep using.
        let mut slot = self.slot.lock().unwrap_or_else(|e| e.into_inner());
        if slot.inner.is_none() {
            let inner = self.wake(slot.last_fh)?;
            slot.inner = Some(inner);
        }
        Ok(Locked(slot))
    }

    /// Runs `f` in a write transaction (one revision), committing if it succeeds.
    pub(crate) fn write_tx<T>(&self, f: impl FnOnce(&mut Tx<'_>) -> Result<T>) -> Result<T> {
        let mut inner = self.lock()?;
        self.write_locked(&mut inner, f)
    }

    pub(crate) fn write_locked<T>(
        &self,
        inner: &mut Inner,
        f: impl FnOnce(&mut Tx<'_>) -> Result<T>,
    ) -> Result<T> {
        if self.read_only {
            return Err(VfsError::ReadOnly);
        }
        inner.end_held();
        let Inner {
            db: conn,
            files,
            cache,
            wal,
            dir_paths,
            settings,
            ..
        } = inner;
        let cache = cache.get_mut();
        let is_open = |ino: Ino| files.keep_if_open(ino);
        // Until this commits, the cache is not known to be current: the next read checks it
        // in a transaction.
        cache.set_stamp(None);
        let tx = Transaction::begin(conn, true)?;
        let result = (|| {
            // Holding the write lock: the cache and the settings are current unless another
            // connection committed since they were read.
            let version = crate::cache::data_version(tx.conn)?;
            cache.validate_for_write(version);
            // Taken out: if anything below fails, they are gone (see `DirPaths`).
            let known_paths = dir_paths.take(version);
            let current = match settings {
                Some((seen, current)) if *seen == version => *current,
                _ => Settings::read(tx.conn)?,
            };
            *settings = None;
            let mut t = Tx::new(
                tx.conn,
                &is_open,
                None,
                self.chunk_size,
                current.max_file_size,
            );
            t.owner = current.owner;
            t.with_dir_paths(known_paths);
            let value = f(&mut t)?;
            t.finish()?;
            if current.quota > 0 && meta_get(tx.conn, "bytes_stored")? as u64 > current.quota {
                return Err(VfsError::NoSpace {
                    quota: current.quota,
                });
            }
            let touched = t.take_touched();
            let (rev, paths) = (t.rev, t.take_dir_paths());
            tx.commit()?;
            Ok((value, rev, paths, touched, version, current))
        })();
        let (value, rev, paths, touched, version, current) = match result {
            Ok(done) => done,
            Err(e) => {
                // What the transaction did is rolled back, or, if the commit's outcome is
                // in doubt, unknown: start over.
                cache.clear();
                return Err(e);
            }
        };
        // Our commit changed the header: unless no other connection can exist, the next read
        // checks the cache in a transaction (`PRAGMA data_version` shows only others' commits,
        // so what was kept stays).
        let after = matches!(wal, WalIndex::Private)
            .then(|| wal.stamp())
            .flatten();
        if !touched.settings {
            *settings = Some((version, current));
        }
        cache.committed(touched, after);
        dir_paths.keep(paths);
        if let Some(rev) = rev {
            crate::changes::committed(rev);
        }
        Ok(value)
    }

    /// Runs `f` in a read transaction: it sees one consistent state.
    pub(crate) fn read_tx<T>(&self, f: impl FnOnce(&Tx<'_>) -> Result<T>) -> Result<T> {
        let mut inner = self.lock()?;
        self.read_locked(&mut inner, f)
    }

    /// Several changes in one transaction and one revision (e.g. an import batch). Nothing is
    /// written unless `f` succeeds.
    pub fn batch<T>(&self, f: impl FnOnce(&mut Batch<'_, '_>) -> Result<T>) -> Result<T> {
        let mut inner = self.lock()?;
        self.flush_dirty(&mut inner)?;
        self.write_locked(&mut inner, |tx| f(&mut Batch { tx }))
    }

    /// Deletes inodes with no links left behind by a process that died with files open.
    fn collect_orphans(&self) -> Result<()> {
        self.write_tx(|tx| {
            let orphans: Vec<Ino> = tx
                .conn
                .prepare("SELECT ino FROM inodes WHERE nlink <= 0")?
                .query_map([], |r| r.get(0))?
                .collect::<rusqlite::Result<_>>()?;
            for ino in orphans {
                tx.drop_inode(ino)?;
            }
            Ok(())
        })
    }

    // ---- the inode API (FUSE, WASI) ----

    /// Looks `name` up in directory `parent` (`.` and `..` work too). Like every attribute
    /// the inode API returns, the size includes writes still buffered in open handles (a
    /// kernel told a smaller size would take it for the end of the file).
    pub fn lookup(&self, parent: Ino, name: &OsStr) -> Result<Stat> {
        let mut inner = self.lock()?;
        let cached = from_cache(&mut inner, |c| c.entry(parent, name.as_bytes()).cloned());
        let mut st = match cached {
            Some(st) => st,
            None => self.read_locked(&mut inner, |tx| tx.lookup_stat(parent, name.as_bytes()))?,
        };
        inner.files.overlay(&mut st);
        Ok(st)
    }

    /// The attributes of `ino`, including writes still buffered in open handles.
    pub fn getattr(&self, ino: Ino) -> Result<Stat> {
        let mut inner = self.lock()?;
        let mut st = match from_cache(&mut inner, |c| c.attr(ino).cloned()) {
            Some(st) => st,
            None => self.read_locked(&mut inner, |tx| tx.stat(ino))?,
        };
        inner.files.overlay(&mut st);
        Ok(st)
    }

    pub(crate) fn read_locked<T>(
        &self,
        inner: &mut Inner,
        f: impl FnOnce(&Tx<'_>) -> Result<T>,
    ) -> Result<T> {
        let holding = self.holds.load(Ordering::Acquire) > 0;
        if inner.held.is_some() && !(holding && inner.held == inner.wal.stamp()) {
            inner.end_held();
        }
        let Inner {
            db: conn,
            held,
            files,
            cache,
            wal,
            ..
        } = inner;
        let is_open = |ino: Ino| files.keep_if_open(ino);
        if held.is_some() {
            // Nothing was committed since this transaction began (the header would differ):
            // its snapshot is the newest, and the cache was checked in it.
            let t = Tx::new(conn, &is_open, Some(&*cache), self.chunk_size, u64::MAX);
            let result = f(&t);
            if result.is_err() {
                inner.end_held();
            }
            return result;
        }
        // Read before the transaction begins, so that a commit racing with its start shows
        // as a different header next time (see `LookupCache::validate`).
        let before = wal.stamp();
        let tx = Transaction::begin(conn, false)?;
        cache.get_mut().validate(tx.conn, before)?;
        // Reads never check the file-size limit.
        let t = Tx::new(tx.conn, &is_open, Some(&*cache), self.chunk_size, u64::MAX);
        let result = f(&t);
        if holding && result.is_ok() && before.is_some() && wal.stamp() == before {
            // Left open for the next read, which uses it while the header stays the same.
            tx.keep_open();
            *held = before;
        }
        result
    }

    /// While the returned guard lives, a read leaves its SQLite read transaction open, and
    /// the next read uses it as long as nothing was committed meanwhile (the WAL-index header
    /// is unchanged): a burst of small reads (a shell's `grep -r`) then costs one transaction
    /// instead of one each, with the locks and the `stat` of the file that each takes. Any
    /// change through this handle ends it first. An open read transaction keeps other
    /// connections' checkpoints from wrapping the log around, so a holder calls
    /// [`Vfs::release_reads`] whenever it may wait (the isolate does at every tick).
    pub fn hold_reads(&self) -> ReadHold<'_> {
        self.holds.fetch_add(1, Ordering::AcqRel);
        ReadHold(self)
    }

    /// Whether a read transaction is held open now.
    #[cfg(test)]
    pub(crate) fn holds_a_read(&self) -> bool {
        self.lock().is_ok_and(|inner| inner.held.is_some())
    }

    /// Ends a read transaction held open by [`Vfs::hold_reads`], unless the workspace is busy
    /// (its lock taken: then the holder is reading or writing and ends it itself).
    pub fn release_reads(&self) {
        let mut slot = match self.slot.try_lock() {
            Ok(slot) => slot,
            Err(TryLockError::Poisoned(e)) => e.into_inner(),
            Err(TryLockError::WouldBlock) => return,
        };
        if let Some(inner) = slot.inner.as_mut() {
            inner.end_held();
        }
    }

    /// Changes attributes; a new size truncates or extends the file.
    pub fn setattr(&self, ino: Ino, attr: &SetAttr) -> Result<Stat> {
        let mut inner = self.lock()?;
        if attr.size.is_some() || attr.mtime.is_some() {
            self.flush_ino(&mut inner, ino)?;
        }
        let mut st = self.write_locked(&mut inner, |tx| tx.setattr(ino, attr))?;
        inner.files.overlay(&mut st);
        Ok(st)
    }

    /// The entries of directory `ino`, sorted by name, without `.` and `..`.
    pub fn readdir(&self, ino: Ino) -> Result<Vec<DirEntry>> {
        self.read_tx(|tx| tx.readdir(ino))
    }

    /// The attributes of several inodes, read in one transaction (what FUSE's `readdirplus`
    /// needs for a page of entries; one `getattr` each costs a transaction each), with writes
    /// still buffered in open handles. An inode that is gone gives its error in its place.
    pub fn getattr_many(&self, inos: &[Ino]) -> Result<Vec<Result<Stat>>> {
        let mut inner = self.lock()?;
        let cached = from_cache(&mut inner, |c| {
            inos.iter()
                .map(|&ino| c.attr(ino).cloned().map(Ok))
                .collect::<Option<Vec<_>>>()
        });
        let mut list = match cached {
            Some(list) => list,
            None => self.read_locked(&mut inner, |tx| {
                Ok(inos.iter().map(|&ino| tx.stat(ino)).collect::<Vec<_>>())
            })?,
        };
        for st in list.iter_mut().flatten() {
            inner.files.overlay(st);
        }
        Ok(list)
    }

    /// Creates an empty regular file.
    pub fn create(&self, parent: Ino, name: &OsStr, perm: u32, owner: Owner) -> Result<Stat> {
        self.write_tx(|tx| tx.create_file(parent, name.as_bytes(), perm, owner))
    }

    /// Creates a directory.
    pub fn mkdir(&self, parent: Ino, name: &OsStr, perm: u32, owner: Owner) -> Result<Stat> {
        self.write_tx(|tx| tx.mkdir(parent, name.as_bytes(), perm, owner))
    }

    /// Creates a FIFO, socket or device node `name` (`mknod(2)`; `rdev` is a device's
    /// number). The store keeps it as an inode; the VFS never opens it ([`VfsError::NoDevice`]).
    pub fn mknod(
        &self,
        parent: Ino,
        name: &OsStr,
        kind: FileType,
        perm: u32,
        rdev: u64,
        owner: Owner,
    ) -> Result<Stat> {
        self.write_tx(|tx| tx.mknod(parent, name.as_bytes(), kind, perm, rdev, owner))
    }

    /// Creates a symbolic link `name` pointing at `target`.
    pub fn symlink_at(
        &self,
        parent: Ino,
        name: &OsStr,
        target: &OsStr,
        owner: Owner,
    ) -> Result<Stat> {
        self.write_tx(|tx| tx.symlink(parent, name.as_bytes(), target.as_bytes(), owner))
    }

    /// Adds a hard link to `ino`.
    pub fn link(&self, ino: Ino, new_parent: Ino, new_name: &OsStr) -> Result<Stat> {
        let mut inner = self.lock()?;
        let mut st = self.write_locked(&mut inner, |tx| {
            tx.link(ino, new_parent, new_name.as_bytes())
        })?;
        inner.files.overlay(&mut st);
        Ok(st)
    }

    /// The target of symlink `ino`.
    pub fn readlink(&self, ino: Ino) -> Result<Vec<u8>> {
        self.read_tx(|tx| tx.readlink(ino))
    }

    /// Removes a non-directory entry; the inode lives on while it has links or open handles.
    pub fn unlink(&self, parent: Ino, name: &OsStr) -> Result<()> {
        self.write_tx(|tx| tx.unlink(parent, name.as_bytes()))
    }

    /// Removes an empty directory.
    pub fn rmdir(&self, parent: Ino, name: &OsStr) -> Result<()> {
        self.write_tx(|tx| tx.rmdir(parent, name.as_bytes()))
    }

    /// Renames an entry, replacing the target as `rename(2)` does.
    pub fn rename_entry(
        &self,
        parent: Ino,
        name: &OsStr,
        new_parent: Ino,
        new_name: &OsStr,
        flags: RenameFlags,
    ) -> Result<()> {
        self.write_tx(|tx| {
            tx.rename(
                parent,
                name.as_bytes(),
                new_parent,
                new_name.as_bytes(),
                flags,
            )
        })
    }

    /// An extended attribute's value (ENODATA if absent).
    pub fn getxattr(&self, ino: Ino, name: &OsStr) -> Result<Vec<u8>> {
        self.read_tx(|tx| tx.getxattr(ino, name.as_bytes()))
    }

    /// The names of an inode's extended attributes.
    pub fn listxattr(&self, ino: Ino) -> Result<Vec<Vec<u8>>> {
        self.read_tx(|tx| tx.listxattr(ino))
    }

    /// Sets an extended attribute.
    pub fn setxattr(&self, ino: Ino, name: &OsStr, value: &[u8], mode: XattrMode) -> Result<()> {
        self.write_tx(|tx| tx.setxattr(ino, name.as_bytes(), value, mode))
    }

    /// Removes an extended attribute.
    pub fn removexattr(&self, ino: Ino, name: &OsStr) -> Result<()> {
        self.write_tx(|tx| tx.removexattr(ino, name.as_bytes()))
    }

    /// Filesystem statistics.
    pub fn statfs(&self) -> Result<StatFs> {
        self.read_tx(|tx| {
            let bytes_stored = meta_get(tx.conn, "bytes_stored")? as u64;
            let quota = meta_get(tx.conn, "quota_bytes")? as u64;
            let files: u64 = tx
                .conn
                .prepare_cached("SELECT count(*) FROM inodes")?
                .query_row([], |r| r.get(0))?;
            let block_size = 4096u64;
            let used = bytes_stored.div_ceil(block_size);
            let total = if quota > 0 {
                quota.div_ceil(block_size).max(used)
            } else {
                used + (1 << 30) // no quota: report 4 TiB free
            };
            Ok(StatFs {
                block_size: block_size as u32,
                blocks: total,
                blocks_free: total - used,
                files,
                files_free: u32::MAX as u64,
                name_max: NAME_MAX as u32,
                bytes_stored,
            })
        })
    }

    /// The current revision (bumped by every committed change).
    pub fn revision(&self) -> Result<u64> {
        self.read_tx(|tx| Ok(meta_get(tx.conn, "rev")? as u64))
    }

    /// Sets the size quota in bytes of stored (deduplicated) content; 0 means none.
    /// Changes that would exceed it fail with ENOSPC and are not written.
    pub fn set_quota(&self, bytes: u64) -> Result<()> {
        self.write_tx(|tx| {
            tx.touched_settings();
            meta_set(tx.conn, "quota_bytes", bytes as i64)
        })
    }

    /// The workspace's owner: who owns the files and directories that the path-level API
    /// (the tools, the CLI, the isolate, imports) creates. Set when the workspace is made
    /// ([`VfsOptions::owner`], by default the user that made it).
    pub fn owner(&self) -> Result<Owner> {
        self.read_tx(|tx| schema::meta_owner(tx.conn))
    }

    /// Makes `owner` the workspace's owner, and gives it every inode the old owner had (so
    /// that a container running as that user, or a person's `computer mount`, can write
    /// what the tools made). Logged as one `Reset` change.
    pub fn set_owner(&self, owner: Owner) -> Result<()> {
        let old = self.owner()?;
        self.write_tx(|tx| {
            meta_set(tx.conn, "owner_uid", i64::from(owner.uid))?;
            meta_set(tx.conn, "owner_gid", i64::from(owner.gid))?;
            tx.touched_settings();
            tx.touched_all();
            tx.conn.execute(
                "UPDATE inodes SET uid = ?1 WHERE uid = ?2",
                (owner.uid, old.uid),
            )?;
            tx.conn.execute(
                "UPDATE inodes SET gid = ?1 WHERE gid = ?2",
                (owner.gid, old.gid),
            )?;
            tx.log(ChangeKind::Reset, Some(b"/".to_vec()))
        })
    }

    /// Sets the largest allowed file size (EFBIG past it).
    pub fn set_max_file_size(&self, bytes: u64) -> Result<()> {
        self.write_tx(|tx| {
            tx.touched_settings();
            meta_set(tx.conn, "max_file_size", bytes.min(i64::MAX as u64) as i64)
        })
    }

    /// The largest file size allowed (EFBIG past it).
    pub fn max_file_size(&self) -> Result<u64> {
        self.read_tx(|tx| Ok(meta_get(tx.conn, "max_file_size")? as u64))
    }

    /// Rewrites the database file compactly (SQLite's `VACUUM`, then a checkpoint that
    /// empties the write-ahead log): the space of deleted files goes back to the host's disk,
    /// and each file's chunks lie together again, so a cold read is a sequential one (after
    /// much writing and deleting, a chunk's pages are scattered over the file). Needs free
    /// disk space about the size of the file; changes wait while it runs. Inode numbers and
    /// everything else stay as they were.
    pub fn compact(&self) -> Result<Compacted> {
        if self.read_only {
            return Err(VfsError::ReadOnly);
        }
        let mut inner = self.lock()?;
        let size = |conn: &rusqlite::Connection| -> Result<u64> {
            Ok(conn.query_row(
                "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()",
                [],
                |r| r.get::<_, i64>(0),
            )? as u64)
        };
        let before = size(inner.conn())?;
        inner.conn().execute_batch("VACUUM")?;
        // The rewritten pages are in the log until checkpointed; a reader elsewhere may
        // hold part of it back (it is then copied by a later checkpoint).
        inner
            .conn()
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
        Ok(Compacted {
            before,
            after: size(inner.conn())?,
        })
    }

    /// Copies the workspace's database file, whole and consistent, to `dest` (replaced if
    /// there): the write-ahead log is first copied into the file, and changes wait until the
    /// copy is done. The copy's pages are where the file's are, so two copies taken a change
    /// apart differ only in the pages it wrote (what a cluster node pushes). Fails while
    /// another connection's reader holds part of the log back (`Busy`), and for an in-memory
    /// workspace.
    pub fn copy_file_to(&self, dest: &Path) -> Result<u64> {
        let source = self.location.as_deref().ok_or(VfsError::Invalid(
            "an in-memory workspace has no file to copy",
        ))?;
        let mut inner = self.lock()?;
        let (busy, log, copied): (i64, i64, i64) =
            inner
                .conn()
                .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?))
                })?;
        if busy != 0 || log != copied {
            return Err(VfsError::Busy);
        }
        Ok(std::fs::copy(source, dest)?)
    }

    /// Runs SQLite's integrity check; `Corrupt` with its report if it fails.
    pub fn check_integrity(&self) -> Result<()> {
        let mut inner = self.lock()?;
        let mut stmt = inner.conn().prepare("PRAGMA integrity_check")?;
        let report: Vec<String> = stmt
            .query_map([], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        if report == ["ok"] {
            Ok(())
        } else {
            Err(VfsError::Corrupt(report.join("; ")))
        }
    }
}

/// What [`Vfs::compact`] did: the database's size before and after, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Compacted {
    /// Bytes of database pages before.
    pub before: u64,
    /// Bytes of database pages after.
    pub after: u64,
}

/// Changes made inside [`Vfs::batch`]: the path API, all in one transaction.
pub struct Batch<'a, 'c> {
    pub(crate) tx: &'a mut Tx<'c>,
}

/// Answers from the cache alone when nothing has been committed since it was last checked.
pub(crate) fn from_cache<T>(
    inner: &mut Inner,
    f: impl FnOnce(&LookupCache) -> Option<T>,
) -> Option<T> {
    let cache = inner.cache.get_mut();
    if cache.is_current(inner.wal.stamp()) {
        f(cache)
    } else {
        None
    }
}

/// A transaction whose BEGIN, COMMIT and ROLLBACK are cached prepared statements (rusqlite's
/// `Transaction` parses them anew each time, a measurable share of a small operation).
/// Dropped without `commit`, it rolls back.
struct Transaction<'c> {
    conn: &'c Connection,
    open: bool,
}

impl<'c> Transaction<'c> {
    /// `immediate` takes the write lock at once, so that a read-then-write transaction never
    /// fails to upgrade its lock when another connection wrote meanwhile.
    fn begin(conn: &'c Connection, immediate: bool) -> Result<Transaction<'c>> {
        let sql = if immediate {
            "BEGIN IMMEDIATE"
        } else {
            "BEGIN"
        };
        conn.prepare_cached(sql)?.execute([])?;
        Ok(Transaction { conn, open: true })
    }

    fn commit(mut self) -> Result<()> {
        self.conn.prepare_cached("COMMIT")?.execute([])?;
        self.open = false;
        Ok(())
    }

    /// Leaves a read transaction open on the connection (`Inner::held` records it).
    fn keep_open(mut self) {
        self.open = false;
    }
}

impl Drop for Transaction<'_> {
    fn drop(&mut self) {
        if self.open {
            // Nothing to report to: the caller already has the error that got us here.
            let _ = self
                .conn
                .prepare_cached("ROLLBACK")
                .and_then(|mut s| s.execute([]));
        }
    }
}
