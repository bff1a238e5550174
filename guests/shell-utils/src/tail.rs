//! `tail`: output the last part of files.

use super::stream::{
    Lines, MEMORY_LIMIT, Stop, Writer, complain, files_or_stdin, read_all_limited,
};
use crate::text::*;
use shell_base::Context;

/// `tail [-n N|-n +N|-c N] [FILE...]`.
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
    for (i, f) in files.iter().enumerate() {
        let input = match open_part(sh, "tail", f, i == 0, headers, &mut out).await {
            Ok(Some(input)) => input,
            Ok(None) => {
                status = 1;
                continue;
            }
            Err(Stop(st)) => return st,
        };
        let r = if s.from_start && !s.bytes {
            // From line N on: streams.
            let mut lines = Lines::new(input);
            let mut n = 0u64;
            let mut r = Ok(());
            while let Ok(Some(l)) = lines.next().await {
                n += 1;
                if n >= s.n.max(1) {
                    r = out.write(&l).await;
                    if r.is_err() {
                        break;
                    }
                }
            }
            r
        } else {
            match read_all_limited(&input, MEMORY_LIMIT, "tail").await {
                Ok(data) => {
                    let start = if s.bytes && s.from_start {
                        (s.n.max(1) as usize - 1).min(data.len())
                    } else if s.bytes {
                        data.len().saturating_sub(s.n as usize)
                    } else {
                        let ends = line_ends(&data);
                        let skip = ends.len().saturating_sub(s.n as usize);
                        if skip == 0 { 0 } else { ends[skip - 1] }
                    };
                    out.write(&data[start..]).await
                }
                Err(m) => {
                    status = complain(sh, &m).await;
                    Ok(())
                }
            }
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
    fn last_lines_and_from_a_line() {
        assert_eq!(stdout_of(&["tail", "-n", "2"], "1\n2\n3\n"), "2\n3\n");
        assert_eq!(stdout_of(&["tail", "-n", "+2"], "1\n2\n3\n"), "2\n3\n");
        assert_eq!(stdout_of(&["tail", "-c", "2"], "abc\n"), "c\n");
    }
}
