//! `tail`: output the last part of files. A regular file is read back from its end, as GNU's
//! is, so `tail -n 20` of a large log reads a block or two; a pipe is read through, holding
//! only what its last part could still need.

use super::stream::{Lines, MEMORY_LIMIT, Stop, Writer, complain, files_or_stdin};
use crate::text::*;
use shell_base::Context;
use shell_base::errno::io_message;
use shell_base::io::{Input, READ_SIZE};
use std::cell::RefCell;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};

/// Why a file's part was not all written.
enum Failed {
    /// Output is closed: the command stops.
    Stop(Stop),
    /// The input could not be read: the command says so and goes on.
    Read(std::io::Error),
}

impl From<Stop> for Failed {
    fn from(s: Stop) -> Failed {
        Failed::Stop(s)
    }
}

impl From<std::io::Error> for Failed {
    fn from(e: std::io::Error) -> Failed {
        Failed::Read(e)
    }
}

/// `tail [-n N|-n +N|-c N|-c +N] [FILE...]`.
pub async fn tail(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let s = match span(sh, "tail", argv).await {
        Ok(s) => s,
        Err(status) => return status,
    };
    let files = files_or_stdin(s.files.clone());
    // `tail -n 0` prints nothing at all, not even headers (as GNU's).
    let nothing = s.n == 0 && !s.from_start;
    let headers = s.headers.unwrap_or(files.len() > 1) && !nothing;
    let mut out = Writer::new(&sh.io().stdout);
    let mut status = 0;
    let mut first = true;
    for f in &files {
        let input = match open_part(sh, "tail", f, &mut first, headers, &mut out).await {
            Ok(Some(input)) => input,
            Ok(None) => {
                status = 1;
                continue;
            }
            Err(Stop(st)) => return st,
        };
        let r = match &input {
            _ if s.from_start && !s.bytes => from_line(input, &s, &mut out).await,
            Input::File(file) if is_regular(file) => from_end(file, &s, &mut out).await,
            _ => from_stream(&input, &s, &mut out).await,
        };
        match r {
            Ok(()) => {}
            Err(Failed::Stop(Stop(st))) => return st,
            Err(Failed::Read(e)) => {
                if let Err(Stop(st)) = out.flush().await {
                    return st;
                }
                let name = if f == "-" { "standard input" } else { f };
                status = complain(
                    sh,
                    &format!("tail: error reading '{name}': {}", io_message(&e)),
                )
                .await;
            }
        }
    }
    done(out.flush().await, status)
}

/// `-n +N`: from line N on, as it comes.
async fn from_line(input: Input, s: &Span, out: &mut Writer) -> Result<(), Failed> {
    let mut lines = Lines::new(input);
    let mut n = 0u64;
    while let Some(l) = lines.next().await? {
        n += 1;
        if n >= s.n.max(1) {
            out.write(&l).await?;
        }
    }
    Ok(())
}

fn is_regular(file: &RefCell<File>) -> bool {
    file.borrow().metadata().is_ok_and(|m| m.is_file())
}

/// A regular file from where it is read (a redirection may have read some) to its end: the
/// part printed is found from the end, then copied.
async fn from_end(file: &RefCell<File>, s: &Span, out: &mut Writer) -> Result<(), Failed> {
    {
        let mut file = file.borrow_mut();
        let from = file.stream_position()?;
        let end = file.metadata()?.len().max(from);
        let start = match (s.bytes, s.from_start) {
            (true, true) => from.saturating_add(s.n.max(1) - 1).min(end),
            (true, false) => end.saturating_sub(s.n).max(from),
            (false, _) => last_lines(&mut file, from, end, s.n)?,
        };
        file.seek(SeekFrom::Start(start))?;
    }
    let mut buf = vec![0; READ_SIZE];
    loop {
        let n = file.borrow_mut().read(&mut buf)?;
        if n == 0 {
            return Ok(());
        }
        out.write(&buf[..n]).await?;
    }
}

/// Where the last `n` lines between `from` and `end` start, reading back a block at a time.
/// A newline at the very end ends the last line; without one the last line still counts.
fn last_lines(file: &mut File, from: u64, end: u64, n: u64) -> std::io::Result<u64> {
    let mut buf = vec![0; READ_SIZE];
    let (mut pos, mut left) = (end, n);
    while pos > from && left > 0 {
        let len = (pos - from).min(READ_SIZE as u64) as usize;
        pos -= len as u64;
        file.seek(SeekFrom::Start(pos))?;
        file.read_exact(&mut buf[..len])?;
        let block = if pos + len as u64 == end && buf[len - 1] == b'\n' {
            &buf[..len - 1]
        } else {
            &buf[..len]
        };
        for k in memchr::memrchr_iter(b'\n', block) {
            left -= 1;
            if left == 0 {
                return Ok(pos + k as u64 + 1);
            }
        }
    }
    Ok(if left == 0 { end } else { from })
}

/// Where the last `n` lines (or bytes, with `-c`) of `data` start.
fn tail_start(data: &[u8], s: &Span) -> usize {
    if s.bytes {
        return data
            .len()
            .saturating_sub(usize::try_from(s.n).unwrap_or(usize::MAX));
    }
    let body = data.strip_suffix(b"\n").unwrap_or(data);
    match s.n {
        0 => data.len(),
        n => memchr::memrchr_iter(b'\n', body)
            .nth(usize::try_from(n - 1).unwrap_or(usize::MAX))
            .map_or(0, |k| k + 1),
    }
}

/// A pipe or another stream, read through: `-c +N` skips and copies; otherwise what is
/// kept is cut back to the last part whenever it has doubled, so memory follows what is
/// printed, not the input's length.
async fn from_stream(input: &Input, s: &Span, out: &mut Writer) -> Result<(), Failed> {
    let mut skip = if s.from_start { s.n.max(1) - 1 } else { 0 };
    let mut kept: Vec<u8> = Vec::new();
    let mut cut_at = 1 << 20;
    loop {
        let chunk = input.read().await?;
        if chunk.is_empty() {
            break;
        }
        if s.from_start {
            let past = chunk.len().min(usize::try_from(skip).unwrap_or(usize::MAX));
            skip -= past as u64;
            out.write(&chunk[past..]).await?;
            continue;
        }
        kept.extend_from_slice(&chunk);
        if kept.len() >= cut_at {
            kept.drain(..tail_start(&kept, s));
            if kept.len() > MEMORY_LIMIT {
                return Err(Failed::Read(std::io::Error::other(format!(
                    "the last part is larger than the {} MiB a command may hold in memory",
                    MEMORY_LIMIT >> 20
                ))));
            }
            cut_at = (kept.len() * 2).max(1 << 20);
        }
    }
    out.write(&kept[tail_start(&kept, s)..]).await?;
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::{Native, stdout_of};

    #[test]
    fn last_lines_and_from_a_line() {
        assert_eq!(stdout_of(&["tail", "-n", "2"], "1\n2\n3\n"), "2\n3\n");
        assert_eq!(stdout_of(&["tail", "-n", "+2"], "1\n2\n3\n"), "2\n3\n");
        assert_eq!(stdout_of(&["tail", "-c", "2"], "abc\n"), "c\n");
    }

    /// A file read back from its end and the same bytes as a stream give the same part, with
    /// lines across the blocks it is read in, and without a last newline.
    #[test]
    fn from_the_end_and_as_a_stream_agree() {
        let mut ctx = Native::new();
        let long: String = (0..40_000).map(|i| format!("line {i}\n")).collect();
        for text in [long.as_str(), long.trim_end(), "", "\n", "a", "a\n\nb\n\n"] {
            ctx.write("f", text);
            for args in [
                ["-n", "3"],
                ["-n", "1"],
                ["-n", "0"],
                ["-c", "7"],
                ["-c", "+9"],
            ] {
                let argv = ["tail", args[0], args[1], "f"];
                let file = ctx.run(&argv, "");
                let stream = ctx.run(&argv[..3], text);
                assert_eq!(
                    file.stdout,
                    stream.stdout,
                    "{args:?} of {:?}",
                    &text[..text.len().min(9)]
                );
            }
        }
        ctx.write("f", &long);
        assert_eq!(
            ctx.run(&["tail", "-n", "2", "f"], "").stdout,
            "line 39998\nline 39999\n"
        );
        assert_eq!(
            ctx.run(&["tail", "-n", "30000", "f"], "")
                .stdout
                .lines()
                .count(),
            30_000
        );
    }
}
