//! Open file handles. Writes through handles are buffered per inode in memory and committed in
//! one transaction on flush, fsync, release, or when the buffer grows past a limit: committing
//! every small write would cost a transaction each and rewrite whole chunks over and over.
//! All handles of one inode in this process share the buffer, so they see each other's writes.

use std::collections::{BTreeMap, HashMap};

use crate::content::copy_overlap;
use crate::error::{Result, VfsError};
use crate::tx::Tx;
use crate::types::{ChangeKind, Fh, FileType, Ino, OpenFlags, Stat};
use crate::vfs::{Inner, Vfs, from_cache};

/// The most one `read` call returns (a short read, as POSIX allows): callers such as guests
/// may ask for any length, and a sparse file can be far larger than memory.
pub const MAX_READ: u64 = 16 << 20;

/// Buffered bytes of one inode above which they are committed without waiting for a flush.
const DIRTY_LIMIT: usize = 32 << 20;

/// Buffered bytes of all open files of this `Vfs` above which a write commits its own file's:
/// many open files must not hold many times [`DIRTY_LIMIT`] in memory.
const ALL_DIRTY_LIMIT: usize = 256 << 20;

#[derive(Debug)]
struct Handle {
    ino: Ino,
    flags: OpenFlags,
}

#[derive(Debug, Default)]
struct OpenFile {
    handles: usize,
    /// Chunk index → the chunk's whole new content (may be shorter than a chunk).
    dirty: BTreeMap<u64, Vec<u8>>,
    dirty_bytes: usize,
    /// Size including buffered writes; `None` until the first buffered write.
    size: Option<u64>,
    mtime: Option<i64>,
    /// The handles whose writes are buffered (in the order of their first write).
    writers: Vec<Fh>,
}

/// A commit of one file's buffered writes: which handles wrote what it held, and the file's
/// attributes as that transaction found and left them (no other commit comes between).
#[derive(Debug, Clone)]
pub struct Committed {
    /// The handles whose writes it committed.
    pub writers: Vec<Fh>,
    /// The file just before it.
    pub before: Stat,
    /// The file just after it.
    pub after: Stat,
}

/// The handle table of one `Vfs`.
#[derive(Debug, Default)]
pub(crate) struct OpenFiles {
    next_fh: Fh,
    handles: HashMap<Fh, Handle>,
    files: HashMap<Ino, OpenFile>,
    /// Open inodes that lost their last link.
    orphans: std::cell::RefCell<std::collections::HashSet<Ino>>,
}

impl OpenFiles {
    /// A table whose first handle comes after `last` (a workspace waking up).
    pub(crate) fn starting_after(last: Fh) -> OpenFiles {
        OpenFiles {
            next_fh: last,
            ..OpenFiles::default()
        }
    }

    /// The last handle number given out.
    pub(crate) fn last_fh(&self) -> Fh {
        self.next_fh
    }

    /// No handle open, so no file held (an orphan or buffered writes live only while one is).
    pub(crate) fn is_idle(&self) -> bool {
        self.handles.is_empty() && self.files.is_empty()
    }

    /// Called when `ino` loses its last link: true (keep it) if a handle has it open, and then
    /// it is remembered, so that closing the last handle deletes it without asking the database.
    /// (A transaction that rolls back may leave a stale entry; the deletion re-checks the links.)
    pub(crate) fn keep_if_open(&self, ino: Ino) -> bool {
        let open = self.files.contains_key(&ino);
        if open {
            self.orphans.borrow_mut().insert(ino);
        }
        open
    }

    /// Applies buffered size and mtime to attributes read from the database.
    pub(crate) fn overlay(&self, st: &mut Stat) {
        if let Some(file) = self.files.get(&st.ino) {
            if let Some(size) = file.size {
                st.size = size;
            }
            if let Some(mtime) = file.mtime {
                st.mtime = mtime;
                st.ctime = st.ctime.max(mtime);
            }
        }
    }

    fn handle(&self, fh: Fh) -> Result<&Handle> {
        self.handles.get(&fh).ok_or(VfsError::BadHandle)
    }

    fn has_dirty(&self) -> bool {
        self.files.values().any(|f| f.size.is_some())
    }
}

impl Vfs {
    /// Opens regular file `ino`. `truncate` (with `write`) empties it now.
    pub fn open_file(&self, ino: Ino, flags: OpenFlags) -> Result<Fh> {
        let st = {
            let mut inner = self.lock()?;
            match from_cache(&mut inner, |c| c.attr(ino).cloned()) {
                Some(st) => st,
                None => self.read_locked(&mut inner, |tx| tx.stat(ino))?,
            }
        };
        self.open_stat(&st, flags)
    }

    /// Like [`Vfs::open_file`] for an inode whose attributes the caller just read (from
    /// [`Vfs::open_path`]), saving a lookup.
    pub fn open_stat(&self, st: &Stat, flags: OpenFlags) -> Result<Fh> {
        let ino = st.ino;
        match st.kind {
            FileType::Dir if flags.write || flags.truncate => return Err(VfsError::IsDir),
            FileType::Symlink => return Err(VfsError::Loop),
            // Nothing stands behind it here: no pipe, no listener, no device.
            kind if kind.is_special() => return Err(VfsError::NoDevice),
            _ => {}
        }
        if (flags.write || flags.truncate) && self.is_read_only() {
            return Err(VfsError::ReadOnly);
        }
        let mut inner = self.lock()?;
        if flags.truncate && flags.write && st.kind == FileType::File {
            self.flush_ino(&mut inner, ino)?;
            self.write_locked(&mut inner, |tx| {
                let size = tx.stat(ino)?.size;
                tx.truncate_content(ino, size, 0)?;
                tx.log_ino(ChangeKind::Modified, ino)
            })?;
        }
        let files = &mut inner.files;
        files.next_fh += 1;
        let fh = files.next_fh;
        files.handles.insert(fh, Handle { ino, flags });
        files.files.entry(ino).or_default().handles += 1;
        Ok(fh)
    }

    /// The inode a handle is open on.
    pub fn handle_ino(&self, fh: Fh) -> Result<Ino> {
        Ok(self.lock()?.files.handle(fh)?.ino)
    }

    /// Reads up to `len` bytes (at most [`MAX_READ`]) at `offset`, including writes still buffered.
    pub fn read(&self, fh: Fh, offset: u64, len: u64) -> Result<Vec<u8>> {
        let mut inner = self.lock()?;
        let handle = inner.files.handle(fh)?;
        if !handle.flags.read {
            return Err(VfsError::BadHandle);
        }
        let ino = handle.ino;
        let len = len.min(MAX_READ);
        let pending = inner.files.files.get(&ino).and_then(|f| f.size);
        // At the end of a file nothing changed since: no transaction (a program reads a
        // small file to the empty read that says it ended).
        if pending.is_none()
            && from_cache(&mut inner, |c| c.attr(ino).cloned())
                .is_some_and(|st| st.kind == FileType::File && offset >= st.size)
        {
            return Ok(Vec::new());
        }
        // One transaction: the size and the bytes are read from the same snapshot.
        let (mut st, cs, mut out) = self.read_locked(&mut inner, |tx| {
            let st = tx.stat(ino)?;
            if st.kind == FileType::Dir {
                return Err(VfsError::IsDir);
            }
            let size = pending.unwrap_or(st.size);
            let end = size.min(offset.saturating_add(len));
            let data = if offset < end {
                tx.read_content(ino, st.size, offset, end - offset)?
            } else {
                Vec::new()
            };
            Ok((st, tx.chunk_size, data))
        })?;
        inner.files.overlay(&mut st);
        let end = st.size.min(offset.saturating_add(len));
        if offset >= end {
            return Ok(Vec::new());
        }
        out.resize((end - offset) as usize, 0);
        if let Some(file) = inner.files.files.get(&ino) {
            for (idx, data) in file.dirty.range(offset / cs..=(end - 1) / cs) {
                let start = idx * cs;
                // A buffered chunk replaces the whole chunk: clear it, then copy.
                let from = start.max(offset);
                let to = (start + cs).min(end);
                out[(from - offset) as usize..(to - offset) as usize].fill(0);
                copy_overlap(start, data, offset, &mut out);
            }
        }
        Ok(out)
    }

    /// Writes `data` at `offset` (at the end for append handles); returns the bytes written.
    pub fn write(&self, fh: Fh, offset: u64, data: &[u8]) -> Result<usize> {
        let mut inner = self.lock()?;
        let handle = inner.files.handle(fh)?;
        if !handle.flags.write {
            return Err(VfsError::BadHandle);
        }
        let (ino, append) = (handle.ino, handle.flags.append);
        if data.is_empty() {
            return Ok(0);
        }
        let (st, cs, max, quota, stored) = self.read_locked(&mut inner, |tx| {
            let quota = crate::schema::meta_get(tx.conn, "quota_bytes")? as u64;
            let stored = match quota {
                0 => 0,
                _ => crate::schema::meta_get(tx.conn, "bytes_stored")? as u64,
            };
            Ok((
                tx.stat(ino)?,
                tx.chunk_size,
                tx.max_file_size,
                quota,
                stored,
            ))
        })?;
        let db_size = st.size;
        let size = inner
            .files
            .files
            .get(&ino)
            .and_then(|f| f.size)
            .unwrap_or(db_size);
        let offset = if append { size } else { offset };
        let end = offset
            .checked_add(data.len() as u64)
            .ok_or(VfsError::Invalid("offset overflows"))?;
        if end > max {
            return Err(VfsError::FileTooLarge { limit: max });
        }
        // The quota is checked when buffered writes are committed, which may be at a close
        // whose error nobody sees: a write that grows the file past it fails here instead.
        if quota > 0 && stored.saturating_add(end.saturating_sub(db_size)) > quota {
            return Err(VfsError::NoSpace { quota });
        }
        let mut pos = offset;
        while pos < end {
            let idx = pos / cs;
            let within = (pos - idx * cs) as usize;
            let take = ((cs - within as u64).min(end - pos)) as usize;
            let buffered = inner
                .files
                .files
                .get(&ino)
                .is_some_and(|f| f.dirty.contains_key(&idx));
            let base = if buffered || (within == 0 && idx * cs + take as u64 >= db_size) {
                None
            } else {
                Some(self.read_locked(&mut inner, |tx| tx.load_chunk(ino, idx))?)
            };
            let file = inner.files.files.entry(ino).or_default();
            let chunk = file
                .dirty
                .entry(idx)
                .or_insert_with(|| base.unwrap_or_default());
            let before = chunk.len();
            if chunk.len() < within + take {
                chunk.resize(within + take, 0);
            }
            let src = &data[(pos - offset) as usize..(pos - offset) as usize + take];
            chunk[within..within + take].copy_from_slice(src);
            file.dirty_bytes += chunk.len() - before + take;
            pos += take as u64;
        }
        let file = inner.files.files.entry(ino).or_default();
        file.size = Some(size.max(end));
        file.mtime = Some(crate::util::now_ns());
        if !file.writers.contains(&fh) {
            file.writers.push(fh);
        }
        let over = file.dirty_bytes > DIRTY_LIMIT
            || inner
                .files
                .files
                .values()
                .map(|f| f.dirty_bytes)
                .sum::<usize>()
                > ALL_DIRTY_LIMIT;
        if over {
            self.flush_ino(&mut inner, ino)?;
        }
        Ok(data.len())
    }

    /// Commits buffered writes of the handle's file.
    pub fn flush(&self, fh: Fh) -> Result<()> {
        self.flush_handle(fh).map(drop)
    }

    /// [`Vfs::flush`], saying what the commit held (`None`: nothing was buffered).
    pub fn flush_handle(&self, fh: Fh) -> Result<Option<Committed>> {
        let mut inner = self.lock()?;
        let ino = inner.files.handle(fh)?.ino;
        self.commit_buffered(&mut inner, ino)
    }

    /// Commits buffered writes (with `full_sync` the commit is also on disk).
    pub fn fsync(&self, fh: Fh) -> Result<()> {
        self.flush(fh)
    }

    /// Closes a handle, committing its file's buffered writes. An unlinked file is deleted
    /// when its last handle closes. The handle is gone even if the commit fails.
    pub fn release(&self, fh: Fh) -> Result<()> {
        self.release_handle(fh).map(drop)
    }

    /// [`Vfs::release`], saying what its commit held (`None`: nothing was buffered).
    pub fn release_handle(&self, fh: Fh) -> Result<Option<Committed>> {
        let mut inner = self.lock()?;
        let ino = inner.files.handle(fh)?.ino;
        let flushed = self.commit_buffered(&mut inner, ino);
        inner.files.handles.remove(&fh);
        let last = match inner.files.files.get_mut(&ino) {
            Some(file) => {
                file.handles = file.handles.saturating_sub(1);
                file.handles == 0
            }
            None => false,
        };
        if last {
            inner.files.files.remove(&ino);
            let unlinked = inner.files.orphans.get_mut().remove(&ino);
            if unlinked && !self.is_read_only() {
                self.write_locked(&mut inner, |tx| tx.drop_inode_if_unused(ino))?;
            }
        }
        flushed
    }

    /// Commits the buffered writes of `ino`, if any.
    pub(crate) fn flush_ino(&self, inner: &mut Inner, ino: Ino) -> Result<()> {
        self.commit_buffered(inner, ino).map(drop)
    }

    /// Commits the buffered writes of `ino`, if any, saying what the commit held (`None`
    /// when nothing was buffered, or the file is gone).
    fn commit_buffered(&self, inner: &mut Inner, ino: Ino) -> Result<Option<Committed>> {
        let Some(file) = inner.files.files.get_mut(&ino) else {
            return Ok(None);
        };
        let Some(size) = file.size.take() else {
            return Ok(None);
        };
        let dirty = std::mem::take(&mut file.dirty);
        file.dirty_bytes = 0;
        let mtime = file.mtime.take();
        let writers = std::mem::take(&mut file.writers);
        let result = self.write_locked(inner, |tx| commit(tx, ino, size, &dirty, mtime));
        match result {
            Ok(stats) => Ok(stats.map(|(before, after)| Committed {
                writers,
                before,
                after,
            })),
            Err(e) => {
                // Kept buffered so that a later flush (after freeing space, say) can retry.
                if let Some(file) = inner.files.files.get_mut(&ino) {
                    file.size = Some(size);
                    file.dirty = dirty;
                    file.mtime = mtime;
                    file.writers = writers;
                }
                Err(e)
            }
        }
    }

    /// Commits every buffered write in this process (before path-level operations, so that
    /// they see what was written through handles).
    pub(crate) fn flush_dirty(&self, inner: &mut Inner) -> Result<()> {
        if !inner.files.has_dirty() {
            return Ok(());
        }
        let inos: Vec<Ino> = inner
            .files
            .files
            .iter()
            .filter(|(_, f)| f.size.is_some())
            .map(|(ino, _)| *ino)
            .collect();
        for ino in inos {
            self.flush_ino(inner, ino)?;
        }
        Ok(())
    }
}

fn commit(
    tx: &mut Tx<'_>,
    ino: Ino,
    size: u64,
    dirty: &BTreeMap<u64, Vec<u8>>,
    mtime: Option<i64>,
) -> Result<Option<(Stat, Stat)>> {
    let st = match tx.stat(ino) {
        Ok(st) => st,
        // Deleted by another process meanwhile: the writes have nowhere to go.
        Err(VfsError::NotFound) => return Ok(None),
        Err(e) => return Err(e),
    };
    tx.check_file_size(size)?;
    let cs = tx.chunk_size;
    for (idx, data) in dirty {
        let keep = size.saturating_sub(idx * cs).min(data.len() as u64) as usize;
        tx.store_chunk(ino, *idx, &data[..keep])?;
    }
    if size != st.size {
        tx.set_size(ino, size)?;
    }
    tx.touch(ino)?;
    if let Some(mtime) = mtime {
        tx.touched_ino(ino);
        tx.conn
            .prepare_cached("UPDATE inodes SET mtime = ?2 WHERE ino = ?1")?
            .execute((ino, mtime))?;
    }
    tx.log_ino(ChangeKind::Modified, ino)?;
    Ok(Some((st, tx.stat(ino)?)))
}
