//! `head`: streams, and stops reading once it has what it prints.

use super::stream::{
    Lines, MEMORY_LIMIT, Stop, Writer, complain, files_or_stdin, read_all_limited,
};
use crate::text::*;
use shell_base::Context;

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
            // All but the last N: needs the whole input.
            match read_all_limited(&input, MEMORY_LIMIT, "head").await {
                Ok(data) => {
                    let keep = if s.bytes {
                        data.len().saturating_sub(s.n as usize)
                    } else {
                        let ends: Vec<usize> = line_ends(&data);
                        let total = ends.len();
                        let keep_lines = total.saturating_sub(s.n as usize);
                        if keep_lines == 0 {
                            0
                        } else {
                            ends[keep_lines - 1]
                        }
                    };
                    out.write(&data[..keep]).await
                }
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

#[cfg(all(test, unix))]
mod tests {

    use crate::testing::stdout_of;

    #[test]
    fn first_lines_and_bytes() {
        assert_eq!(stdout_of(&["head", "-n", "2"], "1\n2\n3\n"), "1\n2\n");
        assert_eq!(stdout_of(&["head", "-n", "-1"], "1\n2\n3\n"), "1\n2\n");
        assert_eq!(stdout_of(&["head", "-c", "3"], "abcdef"), "abc");
    }
}
