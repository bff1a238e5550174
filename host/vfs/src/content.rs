//! File content as fixed-size chunks, content-addressed by BLAKE3 and shared between files,
//! copies and snapshots. Holes (and all-zero chunks) are simply absent rows.
//!
//! Invariant: no chunk of a file stores bytes at or past the file's size, so growing a file
//! never needs to touch existing chunks (the gap reads as zeros).

use rusqlite::OptionalExtension;

use crate::error::{Result, VfsError};
use crate::tx::Tx;
use crate::types::Ino;

impl Tx<'_> {
    /// Reads up to `len` bytes at `offset` of a file whose size is `size`.
    pub(crate) fn read_content(
        &self,
        ino: Ino,
        size: u64,
        offset: u64,
        len: u64,
    ) -> Result<Vec<u8>> {
        if offset >= size || len == 0 {
            return Ok(Vec::new());
        }
        let end = size.min(offset.saturating_add(len));
        let cs = self.chunk_size;
        let mut out = vec![0u8; (end - offset) as usize];
        let mut stmt = self.conn.prepare_cached(
            // A join, not a scalar subquery: that would copy every blob once more.
            "SELECT f.idx, c.data FROM file_chunks f CROSS JOIN chunks c ON c.id = f.chunk
             WHERE f.ino = ?1 AND f.idx BETWEEN ?2 AND ?3",
        )?;
        let mut rows = stmt.query((ino, offset / cs, (end - 1) / cs))?;
        while let Some(row) = rows.next()? {
            let idx: u64 = row.get(0)?;
            let data = row.get_ref(1)?.as_blob()?;
            copy_overlap(idx * cs, data, offset, &mut out);
        }
        Ok(out)
    }

    /// The stored bytes of chunk `idx` (shorter than a chunk, or empty for a hole).
    pub(crate) fn load_chunk(&self, ino: Ino, idx: u64) -> Result<Vec<u8>> {
        Ok(self
            .conn
            .prepare_cached(
                "SELECT data FROM chunks
                 WHERE id = (SELECT chunk FROM file_chunks WHERE ino = ?1 AND idx = ?2)",
            )?
            .query_row((ino, idx), |r| r.get(0))
            .optional()?
            .unwrap_or_default())
    }

    /// Makes `data` chunk `idx` of `ino`, reusing an identical stored chunk; zeros become a hole.
    pub(crate) fn store_chunk(&mut self, ino: Ino, idx: u64, data: &[u8]) -> Result<()> {
        let old: Option<i64> = self
            .conn
            .prepare_cached("SELECT chunk FROM file_chunks WHERE ino = ?1 AND idx = ?2")?
            .query_row((ino, idx), |r| r.get(0))
            .optional()?;
        let new = if data.iter().all(|b| *b == 0) {
            None
        } else {
            Some(self.intern_chunk(data)?)
        };
        if old == new {
            return Ok(());
        }
        match new {
            Some(chunk) => {
                self.conn
                    .prepare_cached(
                        "INSERT INTO file_chunks (ino, idx, chunk) VALUES (?1, ?2, ?3)
                         ON CONFLICT (ino, idx) DO UPDATE SET chunk = excluded.chunk",
                    )?
                    .execute((ino, idx, chunk))?;
            }
            None => {
                self.conn
                    .prepare_cached("DELETE FROM file_chunks WHERE ino = ?1 AND idx = ?2")?
                    .execute((ino, idx))?;
            }
        }
        if let Some(old) = old {
            self.released(old);
        }
        Ok(())
    }

    /// The id of the stored chunk with these bytes, storing them if new.
    fn intern_chunk(&self, data: &[u8]) -> Result<i64> {
        let hash = blake3::hash(data);
        let hash = hash.as_bytes().as_slice();
        if let Some(id) = self
            .conn
            .prepare_cached("SELECT id FROM chunks WHERE hash = ?1")?
            .query_row([hash], |r| r.get(0))
            .optional()?
        {
            return Ok(id);
        }
        self.conn
            .prepare_cached("INSERT INTO chunks (hash, data) VALUES (?1, ?2)")?
            .execute((hash, data))?;
        Ok(self.conn.last_insert_rowid())
    }

    /// Fails with EFBIG when a file would grow past the per-file limit.
    pub(crate) fn check_file_size(&self, size: u64) -> Result<()> {
        if size > self.max_file_size {
            return Err(VfsError::FileTooLarge {
                limit: self.max_file_size,
            });
        }
        Ok(())
    }

    /// Writes `data` at `offset` (read-modify-write of partial chunks) and returns the new size.
    pub(crate) fn write_content(&mut self, ino: Ino, offset: u64, data: &[u8]) -> Result<u64> {
        let st = self.stat(ino)?;
        if data.is_empty() {
            return Ok(st.size); // POSIX: a write of nothing changes nothing
        }
        let end = offset
            .checked_add(data.len() as u64)
            .ok_or(VfsError::Invalid("offset overflows"))?;
        self.check_file_size(end)?;
        let cs = self.chunk_size;
        let mut pos = offset;
        while pos < end {
            let idx = pos / cs;
            let chunk_start = idx * cs;
            let within = (pos - chunk_start) as usize;
            let take = ((cs - (pos - chunk_start)).min(end - pos)) as usize;
            let src = &data[(pos - offset) as usize..(pos - offset) as usize + take];
            if within == 0 && (take as u64 == cs || chunk_start + take as u64 >= st.size) {
                // The chunk is wholly replaced (or nothing stored past what we write).
                self.store_chunk(ino, idx, src)?;
            } else {
                let mut chunk = self.load_chunk(ino, idx)?;
                if chunk.len() < within + take {
                    chunk.resize(within + take, 0);
                }
                chunk[within..within + take].copy_from_slice(src);
                self.store_chunk(ino, idx, &chunk)?;
            }
            pos += take as u64;
        }
        let size = st.size.max(end);
        if size != st.size {
            self.set_size(ino, size)?;
        }
        self.touch(ino)?;
        Ok(size)
    }

    /// Replaces the whole content of `ino` with `data`.
    pub(crate) fn replace_content(&mut self, ino: Ino, data: &[u8]) -> Result<()> {
        self.check_file_size(data.len() as u64)?;
        let cs = self.chunk_size as usize;
        let chunks = data.len().div_ceil(cs) as u64;
        self.release_chunks_from(ino, chunks)?;
        for (idx, piece) in data.chunks(cs).enumerate() {
            self.store_chunk(ino, idx as u64, piece)?;
        }
        self.set_size(ino, data.len() as u64)?;
        self.touch(ino)
    }

    /// Changes the size of `ino`, dropping or trimming chunks past the new end.
    pub(crate) fn truncate_content(
        &mut self,
        ino: Ino,
        old_size: u64,
        new_size: u64,
    ) -> Result<()> {
        self.check_file_size(new_size)?;
        if new_size < old_size {
            let cs = self.chunk_size;
            self.release_chunks_from(ino, new_size.div_ceil(cs))?;
            let keep = (new_size % cs) as usize;
            if keep != 0 {
                let idx = new_size / cs;
                let mut chunk = self.load_chunk(ino, idx)?;
                if chunk.len() > keep {
                    chunk.truncate(keep);
                    self.store_chunk(ino, idx, &chunk)?;
                }
            }
        }
        self.set_size(ino, new_size)?;
        self.touch(ino)
    }

    /// Drops chunks `first..` of `ino`.
    pub(crate) fn release_chunks_from(&mut self, ino: Ino, first: u64) -> Result<()> {
        let ids: Vec<i64> = self
            .conn
            .prepare_cached("DELETE FROM file_chunks WHERE ino = ?1 AND idx >= ?2 RETURNING chunk")?
            .query_map((ino, first), |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        for id in ids {
            self.released(id);
        }
        Ok(())
    }

    /// Makes `to` share all of `from`'s chunks: a copy costs rows, not bytes.
    pub(crate) fn copy_content(&mut self, from: Ino, to: Ino) -> Result<()> {
        let size = self.stat(from)?.size;
        self.check_file_size(size)?;
        self.release_chunks_from(to, 0)?;
        self.conn
            .prepare_cached(
                "INSERT INTO file_chunks (ino, idx, chunk) SELECT ?2, idx, chunk FROM file_chunks WHERE ino = ?1",
            )?
            .execute((from, to))?;
        self.set_size(to, size)?;
        self.touch(to)
    }
}

/// Copies the part of `data` (stored at file offset `data_start`) that falls inside `out`
/// (which starts at file offset `out_start`).
pub(crate) fn copy_overlap(data_start: u64, data: &[u8], out_start: u64, out: &mut [u8]) {
    let out_end = out_start + out.len() as u64;
    let data_end = data_start + data.len() as u64;
    let from = data_start.max(out_start);
    let to = data_end.min(out_end);
    if from < to {
        out[(from - out_start) as usize..(to - out_start) as usize]
            .copy_from_slice(&data[(from - data_start) as usize..(to - data_start) as usize]);
    }
}
