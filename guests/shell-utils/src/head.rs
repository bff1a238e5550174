//! `head`: streams, and stops reading once it has what it prints.

use std::collections::VecDeque;

use super::stream::{Lines, MEMORY_LIMIT, Stop, Writer, complain, files_or_stdin};
use crate::text::*;
use shell_base::Context;
use shell_base::errno::io_message;
use shell_base::io::Input;

/// `head [-n N|-c N] [FILE...]`: stops reading once it has enough.
pub async fn head(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let s = match span(sh, "head", argv).await {
        Ok(s) => s,
        Err(status) => return status,
    };
    let files = files_or_stdin(s.files.clone());
    let headers = s.headers.unwrap_or(files.len() > 1);
    let mut out = Writer::new(&sh.io().stdout);
    let mut status = 0;
    let mut first = true;
    for f in &files {
        let input = match open_part(sh, "head", f, &mut first, headers, &mut out).await {
            Ok(Some(input)) => input,
            Ok(None) => {
                status = 1;
                continue;
            }
            Err(Stop(st)) => return st,
        };
        let r = if s.all_but {
            match all_but_last(&input, s.n, s.bytes, &mut out).await {
                Ok(r) => r,
                Err(m) => {
                    status = complain(sh, &m).await;
                    Ok(())
                }
            }
        } else if s.bytes {
            let mut left = s.n as usize;
            let mut r = Ok(());
            while left > 0 {
                let chunk = match input.read().await {
                    Ok(c) if !c.is_empty() => c,
                    _ => break,
                };
                let take = chunk.len().min(left);
                left -= take;
                if take < chunk.len() {
                    input.unread(chunk.len() - take);
                }
                r = out.write(&chunk[..take]).await;
                if r.is_err() {
                    break;
                }
            }
            r
        } else {
            let mut lines = Lines::new(input.clone());
            let mut r = Ok(());
            for _ in 0..s.n {
                match lines.next().await {
                    Ok(Some(l)) => {
                        r = out.write(&l).await;
                        if r.is_err() {
                            break;
                        }
                    }
                    _ => break,
                }
            }
            // GNU's `head` leaves a file's offset after the last line it printed.
            input.unread(lines.read_ahead());
            r
        };
        if let Err(Stop(st)) = r {
            return st;
        }
    }
    done(out.flush().await, status)
}

/// `-n -N`, `-c -N`: all but the last `n` lines (or bytes), written as soon as `n` more
/// follow them, so only the last `n` are held (GNU's way); a message when those pass
/// [`MEMORY_LIMIT`].
async fn all_but_last(
    input: &Input,
    n: u64,
    bytes: bool,
    out: &mut Writer,
) -> Result<Result<(), Stop>, String> {
    // `held` starts at offset `start` of the input; `ends` are the offsets just past each
    // newline in it.
    let (mut held, mut start, mut ends) = (Vec::new(), 0u64, VecDeque::new());
    loop {
        let chunk = input
            .read()
            .await
            .map_err(|e| format!("head: {}", io_message(&e)))?;
        let at_end = chunk.is_empty();
        let base = start + held.len() as u64;
        held.extend_from_slice(&chunk);
        if !bytes {
            ends.extend(memchr::memchr_iter(b'\n', &chunk).map(|i| base + i as u64 + 1));
            // A last line without its newline is a line too.
            if at_end && held.last().is_some_and(|&b| b != b'\n') {
                ends.push_back(start + held.len() as u64);
            }
        }
        // What can go: all but the last `n` bytes, or up to the end of the line `n` lines
        // before the last.
        let upto = if bytes {
            (start + held.len() as u64).saturating_sub(n)
        } else {
            let keep = (ends.len() as u64).saturating_sub(n) as usize;
            if keep == 0 { start } else { ends[keep - 1] }
        };
        if upto > start {
            let k = (upto - start) as usize;
            if let Err(stop) = out.write(&held[..k]).await {
                return Ok(Err(stop));
            }
            held.drain(..k);
            start = upto;
            while ends.front().is_some_and(|&e| e <= upto) {
                ends.pop_front();
            }
        }
        if at_end {
            return Ok(Ok(()));
        }
        if held.len() > MEMORY_LIMIT {
            return Err(format!(
                "head: the last {n} {} take more than the {} MiB a command may hold in memory",
                if bytes { "bytes" } else { "lines" },
                MEMORY_LIMIT >> 20
            ));
        }
    }
}

#[cfg(all(test, unix))]
mod tests {

    use crate::testing::stdout_of;

    #[test]
    fn first_lines_and_bytes() {
        assert_eq!(stdout_of(&["head", "-n", "2"], "1\n2\n3\n"), "1\n2\n");
        assert_eq!(stdout_of(&["head", "-n", "-1"], "1\n2\n3\n"), "1\n2\n");
        assert_eq!(stdout_of(&["head", "-c", "3"], "abcdef"), "abc");
    }

    #[test]
    fn all_but_the_last_lines_and_bytes_across_blocks() {
        // Lines of every length up to past a 64 KiB read, the last without its newline.
        let mut text = String::new();
        for i in 0..400 {
            text.push_str(&"x".repeat(i * 331 % 70_000));
            text.push('\n');
        }
        text.push_str("tail");
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        for n in [0, 1, 2, 399, 400, 401, 1000] {
            let kept: String = lines[..lines.len().saturating_sub(n)].concat();
            let got = stdout_of(&["head", "-n", &format!("-{n}")], &text);
            assert!(
                got == kept,
                "-n -{n}: {} bytes, not {}",
                got.len(),
                kept.len()
            );
            let kept = &text[..text.len().saturating_sub(n * 1000)];
            let got = stdout_of(&["head", "-c", &format!("-{}", n * 1000)], &text);
            assert!(got == kept, "-c -{}: {} bytes", n * 1000, got.len());
        }
    }
}
