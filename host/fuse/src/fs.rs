//! The `fuser::Filesystem` over the VFS's inode API: every request is one VFS call (which
//! takes the VFS's lock), so the mount can run several worker threads.

use std::collections::{HashMap, HashSet};
use std::ffi::{OsStr, OsString};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::Duration;

use computer_vfs::{Committed, FileType, Owner, RenameFlags, SetAttr, Vfs, VfsError, XattrMode};
use fuser::{
    AccessFlags, BsdFileFlags, Errno, FileHandle, FopenFlags, Generation, INodeNo, InitFlags,
    KernelConfig, LockOwner, OpenFlags, ReplyAttr, ReplyCreate, ReplyData, ReplyDirectory,
    ReplyDirectoryPlus, ReplyEmpty, ReplyEntry, ReplyOpen, ReplyStatfs, ReplyWrite, ReplyXattr,
    Request, TimeOrNow, WriteFlags,
};

use crate::attr::{self, Inodes, errno, file_attr};
use crate::known::KnownDirs;
use crate::own::OwnRevs;
use crate::pages::OpenedVersions;

/// Largest write the kernel sends in one request (it needs `FUSE_MAX_PAGES`).
const MAX_WRITE: u32 = 1 << 20;

/// One entry of an open directory: kernel inode, type, name.
type Listed = (INodeNo, fuser::FileType, OsString);

/// An open directory: its listing, read at `opendir` when the kernel will read it, or at the
/// first `readdir` when the kernel was told to keep the listing it cached (it asks only if
/// that listing is incomplete).
struct OpenDir {
    ino: INodeNo,
    listing: OnceLock<Arc<Vec<Listed>>>,
}

/// Entries whose attributes readdirplus reads at once (a reply holds fewer than this).
const PLUS_BATCH: usize = 256;

/// The filesystem the kernel talks to.
pub(crate) struct VfsFs {
    vfs: Arc<Vfs>,
    inodes: Inodes,
    /// How long the kernel may trust attributes and entries (changes made elsewhere are
    /// also pushed to it by the invalidator).
    ttl: Duration,
    /// Open directories: their listing as of `opendir` (or the first `readdir`), so that
    /// paging through a large directory reads it once.
    dirs: Mutex<HashMap<u64, Arc<OpenDir>>>,
    next_dir: AtomicU64,
    /// The directory entries handed to the kernel (the invalidator reads them).
    known: Arc<KnownDirs>,
    /// The revisions committed for the kernel's metadata requests (the invalidator skips them).
    own: Arc<OwnRevs>,
    /// Each file's and directory's version at its last open: whether its cached pages (a
    /// directory's: its listing) are still good.
    opened: OpenedVersions,
    /// The VFS handles of the files the kernel has open: a commit that held only their
    /// writes holds nothing the kernel's pages lack.
    handles: Mutex<HashSet<u64>>,
}

impl VfsFs {
    pub(crate) fn new(
        vfs: Arc<Vfs>,
        inodes: Inodes,
        ttl: Duration,
        known: Arc<KnownDirs>,
        own: Arc<OwnRevs>,
    ) -> VfsFs {
        VfsFs {
            vfs,
            inodes,
            ttl,
            dirs: Mutex::default(),
            next_dir: AtomicU64::new(1),
            known,
            own,
            opened: OpenedVersions::default(),
            handles: Mutex::default(),
        }
    }

    fn handles(&self) -> MutexGuard<'_, HashSet<u64>> {
        // Inserts and removes only: a panic elsewhere cannot leave the set inconsistent.
        self.handles.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs `commit` (a flush, fsync or release of a kernel's handle of `ino`). When what it
    /// committed was written through the mount alone, the kernel's pages hold it already:
    /// the revision is the mount's own (the invalidator leaves it out) and the file's new
    /// version is recorded, so that the next open keeps the pages. When it also held another
    /// writer's bytes (the isolate's buffered writes to the same file), or failed (the
    /// pages may hold bytes never stored), the next open drops them.
    fn commit(
        &self,
        ino: INodeNo,
        commit: impl FnOnce() -> Result<Option<Committed>, VfsError>,
    ) -> Result<(), VfsError> {
        let mine = |done: &Option<Committed>| {
            done.as_ref().is_some_and(|c| {
                let handles = self.handles();
                c.writers.iter().all(|fh| handles.contains(fh))
            })
        };
        let (result, ours) = self.own.note_if(commit, mine);
        match &result {
            Ok(None) => {}
            Ok(Some(done)) if ours => self.opened.wrote(ino, &done.before, &done.after),
            _ => self.opened.forget(ino),
        }
        result.map(drop)
    }

    fn dirs(&self) -> MutexGuard<'_, HashMap<u64, Arc<OpenDir>>> {
        // Inserts and removes only: a panic elsewhere cannot leave the map inconsistent.
        self.dirs.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn entry(&self, reply: ReplyEntry, result: Result<computer_vfs::Stat, VfsError>) {
        match result {
            Ok(st) => reply.entry(&self.ttl, &file_attr(self.inodes, &st), Generation(0)),
            Err(e) => reply.error(errno(&e)),
        }
    }

    /// An entry for `name` in `parent`, noted if it is a directory.
    fn named_entry(
        &self,
        reply: ReplyEntry,
        parent: INodeNo,
        name: &OsStr,
        result: Result<computer_vfs::Stat, VfsError>,
    ) {
        if let Ok(st) = &result
            && st.is_dir()
        {
            self.known.saw(parent, name, self.inodes.kernel(st.ino));
        }
        self.entry(reply, result);
    }

    fn attr(&self, reply: ReplyAttr, result: Result<computer_vfs::Stat, VfsError>) {
        match result {
            Ok(st) => reply.attr(&self.ttl, &file_attr(self.inodes, &st)),
            Err(e) => reply.error(errno(&e)),
        }
    }

    fn listing(&self, ino: INodeNo) -> Result<Vec<Listed>, VfsError> {
        let dir = self.inodes.vfs(ino);
        let parent = if ino == INodeNo::ROOT {
            ino
        } else {
            self.inodes
                .kernel(self.vfs.lookup(dir, OsStr::new(".."))?.ino)
        };
        let dot = fuser::FileType::Directory;
        let mut list = vec![(ino, dot, ".".into()), (parent, dot, "..".into())];
        list.extend(
            self.vfs
                .readdir(dir)?
                .into_iter()
                .map(|e| (self.inodes.kernel(e.ino), attr::kind(e.kind), e.name)),
        );
        Ok(list)
    }

    /// The listing of open directory `fh`, read now if it was not at `opendir`.
    fn open_listing(&self, fh: FileHandle) -> Result<Arc<Vec<Listed>>, Errno> {
        let dir = self.dirs().get(&fh.0).cloned().ok_or(Errno::EBADF)?;
        if let Some(list) = dir.listing.get() {
            return Ok(Arc::clone(list));
        }
        let list = Arc::new(self.listing(dir.ino).map_err(|e| errno(&e))?);
        // Two readers of one handle at once: the first listing read is the handle's.
        Ok(Arc::clone(dir.listing.get_or_init(|| list)))
    }
}

fn owner(req: &Request) -> Owner {
    Owner {
        uid: req.uid(),
        gid: req.gid(),
    }
}

fn empty(reply: ReplyEmpty, result: Result<(), VfsError>) {
    match result {
        Ok(()) => reply.ok(),
        Err(e) => reply.error(errno(&e)),
    }
}

impl fuser::Filesystem for VfsFs {
    fn init(&mut self, _req: &Request, config: &mut KernelConfig) -> std::io::Result<()> {
        // Larger requests for large files; the kernel clamps what it cannot do.
        let _ = config.set_max_write(MAX_WRITE);
        let _ = config.set_max_readahead(MAX_WRITE);
        // Each is an optimisation: ask for those the kernel offers, one at a time. Not
        // `FUSE_ATOMIC_O_TRUNC`: with it the kernel empties its pages and size for `O_TRUNC`
        // when it sends the open, before it checks that no process runs the file, so
        // `open(O_RDONLY|O_TRUNC)` of a running program crashed it and still said ETXTBSY
        // (pjdfstest's `open::etxtbsy`, now and then). Without it the kernel truncates
        // through `setattr`, after that check.
        for wanted in [
            InitFlags::FUSE_DO_READDIRPLUS,
            InitFlags::FUSE_READDIRPLUS_AUTO,
            InitFlags::FUSE_PARALLEL_DIROPS,
        ] {
            let _ = config.add_capabilities(wanted);
        }
        Ok(())
    }

    fn lookup(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEntry) {
        match self.vfs.lookup(self.inodes.vfs(parent), name) {
            // A negative entry: the kernel trusts the name's absence for the TTL, so that a
            // program probing for files (an import path, a create) asks once. The invalidator
            // drops it when another writer makes the name.
            Err(VfsError::NotFound) => reply.entry(&self.ttl, &attr::absent(), Generation(0)),
            found => self.named_entry(reply, parent, name, found),
        }
    }

    fn getattr(&self, _req: &Request, ino: INodeNo, _fh: Option<FileHandle>, reply: ReplyAttr) {
        self.attr(reply, self.vfs.getattr(self.inodes.vfs(ino)));
    }

    fn setattr(
        &self,
        _req: &Request,
        ino: INodeNo,
        mode: Option<u32>,
        uid: Option<u32>,
        gid: Option<u32>,
        size: Option<u64>,
        atime: Option<TimeOrNow>,
        mtime: Option<TimeOrNow>,
        _ctime: Option<std::time::SystemTime>,
        _fh: Option<FileHandle>,
        _crtime: Option<std::time::SystemTime>,
        _chgtime: Option<std::time::SystemTime>,
        _bkuptime: Option<std::time::SystemTime>,
        _flags: Option<BsdFileFlags>,
        reply: ReplyAttr,
    ) {
        let set = SetAttr {
            perm: mode.map(|m| m & 0o7777),
            uid,
            gid,
            size,
            atime: atime.map(attr::time_set),
            mtime: mtime.map(attr::time_set),
        };
        let vino = self.inodes.vfs(ino);
        // A size set through the mount (`truncate`, or an open's `O_TRUNC`): the kernel cut
        // its own pages to match, so they stay good for the next open, as after a write.
        let before = size.and_then(|_| self.vfs.getattr(vino).ok());
        let set = self.own.note(|| self.vfs.setattr(vino, &set));
        match (&before, &set) {
            (Some(before), Ok(after)) => self.opened.wrote(ino, before, after),
            (Some(_), Err(_)) => self.opened.forget(ino),
            _ => {}
        }
        self.attr(reply, set);
    }

    fn readlink(&self, _req: &Request, ino: INodeNo, reply: ReplyData) {
        match self.vfs.readlink(self.inodes.vfs(ino)) {
            Ok(target) => reply.data(&target),
            Err(e) => reply.error(errno(&e)),
        }
    }

    fn mknod(
        &self,
        req: &Request,
        parent: INodeNo,
        name: &OsStr,
        mode: u32,
        umask: u32,
        rdev: u32,
        reply: ReplyEntry,
    ) {
        let perm = mode & !umask & 0o7777;
        let parent = self.inodes.vfs(parent);
        let made = match FileType::from_mode(mode) {
            Some(FileType::File) => self
                .own
                .note(|| self.vfs.create(parent, name, perm, owner(req))),
            // Stored as inodes. The kernel itself makes the pipe of a FIFO it opens; devices
            // are never opened (the mount is `nodev`).
            Some(kind) if kind.is_special() => self.own.note(|| {
                self.vfs
                    .mknod(parent, name, kind, perm, u64::from(rdev), owner(req))
            }),
            _ => return reply.error(Errno::EINVAL),
        };
        self.entry(reply, made);
    }

    fn mkdir(
        &self,
        req: &Request,
        parent: INodeNo,
        name: &OsStr,
        mode: u32,
        umask: u32,
        reply: ReplyEntry,
    ) {
        let perm = mode & !umask & 0o7777;
        let made = self.own.note(|| {
            self.vfs
                .mkdir(self.inodes.vfs(parent), name, perm, owner(req))
        });
        self.named_entry(reply, parent, name, made);
    }

    fn unlink(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEmpty) {
        let removed = self
            .own
            .note(|| self.vfs.unlink(self.inodes.vfs(parent), name));
        empty(reply, removed);
    }

    fn rmdir(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEmpty) {
        let removed = self
            .own
            .note(|| self.vfs.rmdir(self.inodes.vfs(parent), name));
        if removed.is_ok() {
            self.known.gone(parent, name);
        }
        empty(reply, removed);
    }

    fn symlink(
        &self,
        req: &Request,
        parent: INodeNo,
        link_name: &OsStr,
        target: &Path,
        reply: ReplyEntry,
    ) {
        let parent = self.inodes.vfs(parent);
        let made = self.own.note(|| {
            self.vfs
                .symlink_at(parent, link_name, target.as_os_str(), owner(req))
        });
        self.entry(reply, made);
    }

    fn rename(
        &self,
        _req: &Request,
        parent: INodeNo,
        name: &OsStr,
        newparent: INodeNo,
        newname: &OsStr,
        flags: fuser::RenameFlags,
        reply: ReplyEmpty,
    ) {
        if flags.contains(fuser::RenameFlags::RENAME_WHITEOUT) {
            return reply.error(Errno::EINVAL);
        }
        let flags = RenameFlags {
            no_replace: flags.contains(fuser::RenameFlags::RENAME_NOREPLACE),
            exchange: flags.contains(fuser::RenameFlags::RENAME_EXCHANGE),
        };
        let (from, to) = (self.inodes.vfs(parent), self.inodes.vfs(newparent));
        let renamed = self
            .own
            .note(|| self.vfs.rename_entry(from, name, to, newname, flags));
        if renamed.is_ok() {
            let known = &self.known;
            known.renamed((parent, name), (newparent, newname), flags.exchange);
        }
        empty(reply, renamed);
    }

    fn link(
        &self,
        _req: &Request,
        ino: INodeNo,
        newparent: INodeNo,
        newname: &OsStr,
        reply: ReplyEntry,
    ) {
        let (ino, parent) = (self.inodes.vfs(ino), self.inodes.vfs(newparent));
        let linked = self.own.note(|| self.vfs.link(ino, parent, newname));
        self.entry(reply, linked);
    }

    fn open(&self, _req: &Request, ino: INodeNo, flags: OpenFlags, reply: ReplyOpen) {
        // The kernel keeps the file's cached pages only if nothing changed the file since its
        // last open here, so a process sees what the isolate or the tools wrote since it
        // last read (`pages.rs`).
        let open = attr::open_flags(flags.0);
        let vino = self.inodes.vfs(ino);
        let opened = self.vfs.getattr(vino).and_then(|st| {
            if !open.truncate {
                return Ok((self.vfs.open_stat(&st, open)?, st));
            }
            // The kernel sends `O_TRUNC` only with atomic_o_trunc, which the mount does not
            // ask for; should it come, the truncation is the mount's own.
            let fh = self.own.note(|| self.vfs.open_stat(&st, open))?;
            Ok((fh, self.vfs.getattr(vino).unwrap_or(st)))
        });
        match opened {
            Ok((fh, st)) => {
                self.handles().insert(fh);
                let keep = self.opened.may_keep(ino, &st, open.truncate);
                let flags = if keep {
                    FopenFlags::FOPEN_KEEP_CACHE
                } else {
                    FopenFlags::empty()
                };
                reply.opened(FileHandle(fh), flags)
            }
            Err(e) => reply.error(errno(&e)),
        }
    }

    fn forget(&self, _req: &Request, ino: INodeNo, _nlookup: u64) {
        self.opened.forget(ino);
    }

    fn read(
        &self,
        _req: &Request,
        _ino: INodeNo,
        fh: FileHandle,
        offset: u64,
        size: u32,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyData,
    ) {
        // The kernel takes a short read for the end of the file (and shrinks its idea of the
        // file's size), so read until `size` bytes or the real end: the VFS returns at most
        // `MAX_READ` bytes per call.
        let mut data = Vec::new();
        while data.len() < size as usize {
            let want = u64::from(size) - data.len() as u64;
            match self.vfs.read(fh.0, offset + data.len() as u64, want) {
                Ok(part) if part.is_empty() => break,
                Ok(part) if data.is_empty() => data = part,
                Ok(part) => data.extend_from_slice(&part),
                Err(e) => return reply.error(errno(&e)),
            }
        }
        reply.data(&data);
    }

    fn write(
        &self,
        _req: &Request,
        _ino: INodeNo,
        fh: FileHandle,
        offset: u64,
        data: &[u8],
        _write_flags: WriteFlags,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyWrite,
    ) {
        match self.vfs.write(fh.0, offset, data) {
            Ok(n) => reply.written(u32::try_from(n).unwrap_or(u32::MAX)),
            Err(e) => reply.error(errno(&e)),
        }
    }

    fn flush(
        &self,
        _req: &Request,
        ino: INodeNo,
        fh: FileHandle,
        _lock_owner: LockOwner,
        reply: ReplyEmpty,
    ) {
        empty(reply, self.commit(ino, || self.vfs.flush_handle(fh.0)));
    }

    fn release(
        &self,
        _req: &Request,
        ino: INodeNo,
        fh: FileHandle,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        _flush: bool,
        reply: ReplyEmpty,
    ) {
        let released = self.commit(ino, || self.vfs.release_handle(fh.0));
        self.handles().remove(&fh.0);
        empty(reply, released);
    }

    fn fsync(
        &self,
        _req: &Request,
        ino: INodeNo,
        fh: FileHandle,
        _datasync: bool,
        reply: ReplyEmpty,
    ) {
        empty(reply, self.commit(ino, || self.vfs.flush_handle(fh.0)));
    }

    fn opendir(&self, _req: &Request, ino: INodeNo, _flags: OpenFlags, reply: ReplyOpen) {
        // The kernel caches the listing it reads (in the directory's pages) and keeps it
        // across opens while the directory is unchanged: every change to its entries moves
        // its change time, ours or another writer's, so a listing is never served stale.
        // The attributes are read before the listing: a change between the two can only
        // make the next open drop a good listing.
        let opened = self.vfs.getattr(self.inodes.vfs(ino)).and_then(|st| {
            let keep = self.opened.may_keep(ino, &st, false);
            let listing = OnceLock::new();
            if !keep {
                // A failed open leaves the kernel's old listing in place: it must not be
                // kept at the next open either.
                let list = self.listing(ino).inspect_err(|_| self.opened.forget(ino))?;
                let _ = listing.set(Arc::new(list));
            }
            Ok((keep, OpenDir { ino, listing }))
        });
        match opened {
            Ok((keep, dir)) => {
                let fh = self.next_dir.fetch_add(1, Ordering::Relaxed);
                self.dirs().insert(fh, Arc::new(dir));
                let mut flags = FopenFlags::FOPEN_CACHE_DIR;
                if keep {
                    flags |= FopenFlags::FOPEN_KEEP_CACHE;
                }
                reply.opened(FileHandle(fh), flags);
            }
            Err(e) => reply.error(errno(&e)),
        }
    }

    fn readdir(
        &self,
        _req: &Request,
        _ino: INodeNo,
        fh: FileHandle,
        offset: u64,
        mut reply: ReplyDirectory,
    ) {
        let list = match self.open_listing(fh) {
            Ok(list) => list,
            Err(e) => return reply.error(e),
        };
        let start = usize::try_from(offset).unwrap_or(usize::MAX);
        for (i, (ino, kind, name)) in list.iter().enumerate().skip(start) {
            if reply.add(*ino, i as u64 + 1, *kind, name) {
                break;
            }
        }
        reply.ok();
    }

    fn readdirplus(
        &self,
        _req: &Request,
        dir: INodeNo,
        fh: FileHandle,
        offset: u64,
        mut reply: ReplyDirectoryPlus,
    ) {
        let list = match self.open_listing(fh) {
            Ok(list) => list,
            Err(e) => return reply.error(e),
        };
        let start = usize::try_from(offset).unwrap_or(usize::MAX);
        // Attributes are read now (not at opendir: the kernel must not be told an older size
        // than a write it has seen since), a batch per transaction.
        let page = list.get(start..).unwrap_or_default();
        'batches: for (b, batch) in page.chunks(PLUS_BATCH).enumerate() {
            let inos: Vec<_> = batch
                .iter()
                .map(|(ino, _, _)| self.inodes.vfs(*ino))
                .collect();
            let stats = match self.vfs.getattr_many(&inos) {
                Ok(stats) => stats,
                Err(e) => return reply.error(errno(&e)),
            };
            for (j, ((ino, _, name), st)) in batch.iter().zip(stats).enumerate() {
                // An entry removed since opendir is left out.
                let Ok(st) = st else { continue };
                let offset = (start + b * PLUS_BATCH + j) as u64 + 1;
                let attr = file_attr(self.inodes, &st);
                if st.is_dir() && name != "." && name != ".." {
                    self.known.saw(dir, name, attr.ino);
                }
                if reply.add(*ino, offset, name, &self.ttl, &attr, Generation(0)) {
                    break 'batches;
                }
            }
        }
        reply.ok();
    }

    fn releasedir(
        &self,
        _req: &Request,
        _ino: INodeNo,
        fh: FileHandle,
        _flags: OpenFlags,
        reply: ReplyEmpty,
    ) {
        self.dirs().remove(&fh.0);
        reply.ok();
    }

    fn fsyncdir(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        _datasync: bool,
        reply: ReplyEmpty,
    ) {
        // Directory changes are committed when they are made.
        reply.ok();
    }

    fn statfs(&self, _req: &Request, _ino: INodeNo, reply: ReplyStatfs) {
        match self.vfs.statfs() {
            Ok(s) => reply.statfs(
                s.blocks,
                s.blocks_free,
                s.blocks_free,
                s.files,
                s.files_free,
                s.block_size,
                s.name_max,
                s.block_size,
            ),
            Err(e) => reply.error(errno(&e)),
        }
    }

    fn setxattr(
        &self,
        _req: &Request,
        ino: INodeNo,
        name: &OsStr,
        value: &[u8],
        flags: i32,
        _position: u32,
        reply: ReplyEmpty,
    ) {
        let mode = if flags & libc::XATTR_CREATE != 0 {
            XattrMode::Create
        } else if flags & libc::XATTR_REPLACE != 0 {
            XattrMode::Replace
        } else {
            XattrMode::Upsert
        };
        let ino = self.inodes.vfs(ino);
        let set = self.own.note(|| self.vfs.setxattr(ino, name, value, mode));
        empty(reply, set);
    }

    fn getxattr(&self, _req: &Request, ino: INodeNo, name: &OsStr, size: u32, reply: ReplyXattr) {
        match self.vfs.getxattr(self.inodes.vfs(ino), name) {
            Ok(value) => sized(reply, size, &value),
            Err(e) => reply.error(errno(&e)),
        }
    }

    fn listxattr(&self, _req: &Request, ino: INodeNo, size: u32, reply: ReplyXattr) {
        match self.vfs.listxattr(self.inodes.vfs(ino)) {
            Ok(names) => {
                let mut list = Vec::new();
                for name in names {
                    list.extend_from_slice(&name);
                    list.push(0);
                }
                sized(reply, size, &list);
            }
            Err(e) => reply.error(errno(&e)),
        }
    }

    fn removexattr(&self, _req: &Request, ino: INodeNo, name: &OsStr, reply: ReplyEmpty) {
        let removed = self
            .own
            .note(|| self.vfs.removexattr(self.inodes.vfs(ino), name));
        empty(reply, removed);
    }

    fn access(&self, _req: &Request, ino: INodeNo, _mask: AccessFlags, reply: ReplyEmpty) {
        // The mount has `default_permissions`: the kernel checks the permission bits itself
        // and does not ask. Should it ask, existence is what is left to check.
        empty(reply, self.vfs.getattr(self.inodes.vfs(ino)).map(drop));
    }

    fn create(
        &self,
        req: &Request,
        parent: INodeNo,
        name: &OsStr,
        mode: u32,
        umask: u32,
        flags: i32,
        reply: ReplyCreate,
    ) {
        let parent = self.inodes.vfs(parent);
        let perm = mode & !umask & 0o7777;
        let mut open = attr::open_flags(flags);
        let st = match self
            .own
            .note(|| self.vfs.create(parent, name, perm, owner(req)))
        {
            // Made just now, empty: `O_TRUNC` has nothing to cut (and would commit again).
            Ok(st) => {
                open.truncate = false;
                st
            }
            // Made by another writer since the kernel's lookup: open it, as open(2) would.
            Err(VfsError::Exists) if flags & libc::O_EXCL == 0 => {
                match self.vfs.lookup(parent, name) {
                    Ok(st) => st,
                    Err(e) => return reply.error(errno(&e)),
                }
            }
            Err(e) => return reply.error(errno(&e)),
        };
        match self.vfs.open_stat(&st, open) {
            Ok(fh) => {
                self.handles().insert(fh);
                // As an open: the kernel's pages of it start from here.
                let _ = self
                    .opened
                    .may_keep(self.inodes.kernel(st.ino), &st, open.truncate);
                reply.created(
                    &self.ttl,
                    &file_attr(self.inodes, &st),
                    Generation(0),
                    FileHandle(fh),
                    FopenFlags::empty(),
                )
            }
            Err(e) => reply.error(errno(&e)),
        }
    }

    fn fallocate(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        length: u64,
        mode: i32,
        reply: ReplyEmpty,
    ) {
        // Only plain allocation, which for this store means: the file is at least this long.
        if mode != 0 {
            return reply.error(Errno::EOPNOTSUPP);
        }
        let ino = self.inodes.vfs(ino);
        let result = self.vfs.getattr(ino).and_then(|st| {
            let end = offset.saturating_add(length);
            if end > st.size {
                let set = SetAttr {
                    size: Some(end),
                    ..SetAttr::default()
                };
                self.vfs.setattr(ino, &set)?;
            }
            Ok(())
        });
        empty(reply, result);
    }
}

/// An xattr reply: the size when asked for it (`size` 0), ERANGE when it does not fit.
fn sized(reply: ReplyXattr, size: u32, value: &[u8]) {
    let len = u32::try_from(value.len()).unwrap_or(u32::MAX);
    if size == 0 {
        reply.size(len);
    } else if len > size {
        reply.error(Errno::ERANGE);
    } else {
        reply.data(value);
    }
}
