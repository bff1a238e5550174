//! Helpers of the byte dumpers (`hexdump`, `od`, `xxd`, `strings`): their inputs a row at a
//! time, and squeezing repeated rows.

use super::stream::{Stop, Writer, complain, files_or_stdin, open};
use shell_base::Context;
use shell_base::io::Input;

/// The inputs one after another, after skipping `skip` bytes and keeping at most `limit`,
/// handed out a row at a time: a dump of a file holds a chunk of it, never the whole.
pub(crate) struct Rows<'s> {
    sh: &'s dyn Context,
    cmd: &'s str,
    files: std::vec::IntoIter<String>,
    input: Option<(String, Input)>,
    buf: Vec<u8>,
    /// Where in `buf` the next row starts.
    pos: usize,
    /// Bytes still to skip.
    skip: u64,
    /// Bytes skipped.
    skipped: u64,
    /// Bytes still to hand out.
    left: Option<u64>,
    /// Bytes handed out.
    pub(crate) taken: u64,
    /// Whether any input opened.
    pub(crate) opened: bool,
    /// 1 once an input could not be opened or read (the others are still dumped).
    pub(crate) status: i32,
}

impl<'s> Rows<'s> {
    pub(crate) fn new(
        sh: &'s dyn Context,
        cmd: &'s str,
        files: Vec<String>,
        skip: u64,
        limit: Option<u64>,
    ) -> Rows<'s> {
        Rows {
            sh,
            cmd,
            files: files_or_stdin(files).into_iter(),
            input: None,
            buf: Vec::new(),
            pos: 0,
            skip,
            skipped: 0,
            left: limit,
            taken: 0,
            opened: false,
            status: 0,
        }
    }

    /// The next `width` bytes (fewer only at the end), or `None` at the end. An input that
    /// cannot be opened or read is reported and passed over.
    pub(crate) async fn next(&mut self, width: usize) -> Option<Vec<u8>> {
        // Read no further than the bytes wanted, so that `od -N4 /dev/zero` ends.
        let wanted = |rows: &Rows| {
            let have = (rows.buf.len() - rows.pos) as u64;
            have < width as u64 && rows.left.is_none_or(|l| have < l)
        };
        while wanted(self) {
            let Some((name, input)) = &self.input else {
                let Some(f) = self.files.next() else {
                    break;
                };
                match open(self.sh, &f) {
                    Ok(input) => {
                        self.input = Some((f, input));
                        self.opened = true;
                    }
                    Err(m) => {
                        self.status = complain(self.sh, &format!("{}: {m}", self.cmd)).await;
                    }
                }
                continue;
            };
            match input.read().await {
                Ok(chunk) if chunk.is_empty() => self.input = None,
                Ok(chunk) => {
                    let skipped = chunk
                        .len()
                        .min(usize::try_from(self.skip).unwrap_or(usize::MAX));
                    self.skip -= skipped as u64;
                    self.skipped += skipped as u64;
                    self.buf.drain(..self.pos);
                    self.pos = 0;
                    self.buf.extend_from_slice(&chunk[skipped..]);
                }
                Err(e) => {
                    let m = format!(
                        "{}: {name}: {}",
                        self.cmd,
                        shell_base::errno::io_message(&e)
                    );
                    self.status = complain(self.sh, &m).await;
                    self.input = None;
                }
            }
        }
        self.row(width)
    }

    /// The next row from what was read.
    fn row(&mut self, width: usize) -> Option<Vec<u8>> {
        let mut n = (self.buf.len() - self.pos).min(width);
        if let Some(left) = self.left {
            n = n.min(usize::try_from(left).unwrap_or(usize::MAX));
        }
        if n == 0 {
            return None;
        }
        let row = self.buf[self.pos..self.pos + n].to_vec();
        self.pos += n;
        self.taken += n as u64;
        if let Some(left) = &mut self.left {
            *left -= n as u64;
        }
        Some(row)
    }

    /// Where in the combined input the next row starts.
    pub(crate) fn offset(&self) -> u64 {
        self.skipped + self.taken
    }

    /// Whether the skip went past the end of everything read.
    pub(crate) fn skipped_past_end(&self) -> bool {
        self.skip > 0
    }
}

pub(crate) async fn finish(w: &mut Writer, status: i32) -> i32 {
    match w.flush().await {
        Ok(()) => status,
        Err(Stop(s)) => s,
    }
}

/// `od` and `hexdump` without `-v`: a full row equal to the one before is not shown; the
/// first of such a run prints `*`.
pub(crate) struct Squeeze {
    previous: Option<Vec<u8>>,
    starred: bool,
    width: usize,
    off: bool,
}

impl Squeeze {
    pub(crate) fn new(width: usize, off: bool) -> Squeeze {
        Squeeze {
            previous: None,
            starred: false,
            width,
            off,
        }
    }

    /// Whether `row` is left out (a `*` written for the first of a run).
    pub(crate) async fn repeats(&mut self, row: &[u8], w: &mut Writer) -> bool {
        if !self.off && self.previous.as_deref() == Some(row) && row.len() == self.width {
            if !self.starred {
                let _ = w.write(b"*\n").await;
                self.starred = true;
            }
            return true;
        }
        self.starred = false;
        match &mut self.previous {
            Some(previous) => {
                previous.clear();
                previous.extend_from_slice(row);
            }
            None => self.previous = Some(row.to_vec()),
        }
        false
    }
}

pub(crate) fn printable(b: u8) -> char {
    if (0x20..0x7f).contains(&b) {
        b as char
    } else {
        '.'
    }
}
