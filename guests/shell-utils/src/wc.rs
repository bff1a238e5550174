//! `wc`: count lines, words and bytes.

use super::stream::{Stop, Writer, complain, files_or_stdin, open};
use crate::text::*;
use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{bad_usage, parser, string};

/// `wc [-lwcmL] [FILE...]`, with GNU's column widths.
pub async fn wc(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let (mut l, mut w, mut c, mut m, mut longest) = (false, false, false, false, false);
    let mut files = Vec::new();
    let mut p = parser(argv);
    loop {
        match p.next() {
            Ok(Some(Short('l') | Long("lines"))) => l = true,
            Ok(Some(Short('w') | Long("words"))) => w = true,
            Ok(Some(Short('c') | Long("bytes"))) => c = true,
            Ok(Some(Short('m') | Long("chars"))) => m = true,
            Ok(Some(Short('L') | Long("max-line-length"))) => longest = true,
            Ok(Some(Value(v))) => files.push(string(v)),
            Ok(Some(other)) => return bad_usage(sh, "wc", other.unexpected(), 1).await,
            Ok(None) => break,
            Err(e) => return bad_usage(sh, "wc", e, 1).await,
        }
    }
    if !(l || w || c || m || longest) {
        (l, w, c) = (true, true, true);
    }
    let given = files.len();
    let files = files_or_stdin(files);
    let mut rows: Vec<([u64; 5], String)> = Vec::new();
    let mut status = 0;
    let mut regular_total = 0u64;
    let mut any_stream = false;
    for f in &files {
        let input = match open(sh, f) {
            Ok(i) => i,
            Err(msg) => {
                status = complain(sh, &format!("wc: {msg}")).await;
                continue;
            }
        };
        let size = if f == "-" {
            any_stream = true;
            None
        } else {
            let meta = std::fs::metadata(sh.path(f)).ok();
            regular_total += meta.as_ref().map_or(0, |m| m.len());
            meta.filter(|m| m.is_file()).map(|m| m.len())
        };
        let mut counts = [0u64; 5];
        // Bytes alone of a regular file: its size, as GNU's wc takes it from `fstat`.
        if let Some(size) = size
            && c
            && !(l || w || m || longest)
        {
            counts[3] = size;
            rows.push((counts, f.clone()));
            continue;
        }
        // Words and line lengths need every byte looked at; lines alone, a search for
        // newlines.
        let per_byte = w || longest;
        let mut in_word = false;
        let mut line_len = 0u64;
        loop {
            let chunk = match input.read().await {
                Ok(c) if !c.is_empty() => c,
                _ => break,
            };
            counts[3] += chunk.len() as u64;
            if !per_byte {
                if l {
                    counts[0] += memchr::memchr_iter(b'\n', &chunk).count() as u64;
                }
                if m {
                    counts[2] += chunk.iter().filter(|b| **b & 0xC0 != 0x80).count() as u64;
                }
                continue;
            }
            for &b in &chunk {
                if b == b'\n' {
                    counts[0] += 1;
                    counts[4] = counts[4].max(line_len);
                    line_len = 0;
                } else if b == b'\t' {
                    line_len += 8 - line_len % 8;
                } else if b & 0xC0 != 0x80 {
                    line_len += 1;
                }
                let space = b.is_ascii_whitespace();
                if space {
                    in_word = false;
                } else if !in_word {
                    in_word = true;
                    counts[1] += 1;
                }
            }
            if m {
                counts[2] += chunk.iter().filter(|b| **b & 0xC0 != 0x80).count() as u64;
            }
        }
        counts[4] = counts[4].max(line_len);
        rows.push((counts, f.clone()));
    }
    if given > 1 {
        let mut total = [0u64; 5];
        for (r, _) in &rows {
            for i in 0..4 {
                total[i] += r[i];
            }
            total[4] = total[4].max(r[4]);
        }
        rows.push((total, "total".into()));
    }
    let shown = [l, w, m, c, longest];
    let columns = shown.iter().filter(|s| **s).count();
    let width = if columns == 1 && given <= 1 {
        1
    } else {
        let mut digits = 1;
        let mut t = regular_total;
        while t >= 10 {
            t /= 10;
            digits += 1;
        }
        if any_stream { digits.max(7) } else { digits }
    };
    let mut out = Writer::new(&sh.io().stdout);
    for (counts, name) in rows {
        let values = [counts[0], counts[1], counts[2], counts[3], counts[4]];
        let parts: Vec<String> = values
            .iter()
            .zip(shown)
            .filter(|(_, s)| *s)
            .map(|(v, _)| format!("{v:>width$}"))
            .collect();
        let mut line = parts.join(" ");
        if given > 0 || name == "total" {
            line.push(' ');
            line.push_str(&name);
        }
        line.push('\n');
        if let Err(Stop(s)) = out.write_str(&line).await {
            return s;
        }
    }
    done(out.flush().await, status)
}

#[cfg(all(test, unix))]
mod tests {

    use crate::testing::stdout_of;

    #[test]
    fn counts_lines_words_and_bytes() {
        assert_eq!(stdout_of(&["wc"], "a b\nc\n"), "      2       3       6\n");
        assert_eq!(stdout_of(&["wc", "-l"], "a\nb\n"), "2\n");
        assert_eq!(stdout_of(&["wc", "-lc"], "a\nbé\n"), "      2       6\n");
        assert_eq!(stdout_of(&["wc", "-m"], "a\nbé\n"), "5\n");
        assert_eq!(stdout_of(&["wc", "-lL"], "a\n\tb\n"), "      2       9\n");
    }

    /// `-c` alone of a regular file is its size, unread; with a redirection or another
    /// count the bytes are read.
    #[test]
    fn bytes_of_a_file_come_from_its_size() {
        let mut ctx = crate::testing::Native::new();
        ctx.write("f", "one\ntwo\n");
        assert_eq!(ctx.run(&["wc", "-c", "f"], "").stdout, "8 f\n");
        assert_eq!(ctx.run(&["wc", "-lc", "f"], "").stdout, "2 8 f\n");
        assert_eq!(
            ctx.run(&["wc", "-c", "f", "f"], "").stdout,
            " 8 f\n 8 f\n16 total\n"
        );
    }
}
