//! Helpers of the byte dumpers (`hexdump`, `od`, `xxd`, `strings`): reading the inputs
//! whole and squeezing repeated rows.

use super::stream::{MEMORY_LIMIT, Stop, Writer, complain, files_or_stdin, open, read_all_limited};
use shell_base::Context;

/// The inputs one after another, after skipping `skip` bytes and keeping at most `limit`.
pub(crate) async fn read_inputs(
    sh: &dyn Context,
    cmd: &str,
    files: Vec<String>,
    skip: usize,
    limit: Option<usize>,
) -> Result<Vec<u8>, i32> {
    // Read no further than the bytes wanted, so `od -N4 /dev/zero` ends.
    let wanted = limit.map(|l| skip.saturating_add(l));
    let mut all = Vec::new();
    'files: for f in files_or_stdin(files) {
        let input = match open(sh, &f) {
            Ok(i) => i,
            Err(m) => return Err(complain(sh, &format!("{cmd}: {m}")).await),
        };
        let Some(wanted) = wanted else {
            match read_all_limited(&input, MEMORY_LIMIT, &format!("{cmd}: {f}")).await {
                Ok(data) => all.extend(data),
                Err(m) => return Err(complain(sh, &m).await),
            }
            continue;
        };
        loop {
            if all.len() >= wanted {
                break 'files;
            }
            match input.read().await {
                Ok(chunk) if chunk.is_empty() => break,
                Ok(chunk) => all.extend(chunk),
                Err(e) => {
                    let m = format!("{cmd}: {f}: {}", shell_base::errno::io_message(&e));
                    return Err(complain(sh, &m).await);
                }
            }
        }
    }
    let start = skip.min(all.len());
    let end = limit.map_or(all.len(), |l| (start + l).min(all.len()));
    Ok(all[start..end].to_vec())
}

pub(crate) async fn finish(w: &mut Writer, status: i32) -> i32 {
    match w.flush().await {
        Ok(()) => status,
        Err(Stop(s)) => s,
    }
}

/// `od` and `hexdump` without `-v`: a full row equal to the one before is not shown; the
/// first of such a run prints `*`.
pub(crate) struct Squeeze<'d> {
    previous: Option<&'d [u8]>,
    starred: bool,
    width: usize,
    off: bool,
}

impl<'d> Squeeze<'d> {
    pub(crate) fn new(width: usize, off: bool) -> Squeeze<'d> {
        Squeeze {
            previous: None,
            starred: false,
            width,
            off,
        }
    }

    /// Whether `row` is left out (a `*` written for the first of a run).
    pub(crate) async fn repeats(&mut self, row: &'d [u8], w: &mut Writer) -> bool {
        if !self.off && self.previous == Some(row) && row.len() == self.width {
            if !self.starred {
                let _ = w.write(b"*\n").await;
                self.starred = true;
            }
            return true;
        }
        self.starred = false;
        self.previous = Some(row);
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
