//! `comm`: compare two sorted files line by line.

use super::stream::{Lines, Stop, Writer, complain, open};
use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{bad_usage, parser, string, value};

/// `comm [-123] [--output-delimiter=STR] [--total] [-z] FILE1 FILE2` (both sorted).
pub async fn comm(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let mut hide = [false; 3];
    let mut files = Vec::new();
    let mut delimiter = b"\t".to_vec();
    let mut total = false;
    let mut end = b'\n';
    let mut p = parser(argv);
    let parsed: Result<(), lexopt::Error> = (|| {
        while let Some(arg) = p.next()? {
            match arg {
                Short(c @ '1'..='3') => hide[c as usize - '1' as usize] = true,
                Long("output-delimiter") => {
                    delimiter = value(&mut p)?.into_bytes();
                    // GNU's: an empty delimiter is a NUL.
                    if delimiter.is_empty() {
                        delimiter.push(0);
                    }
                }
                Long("total") => total = true,
                Short('z') | Long("zero-terminated") => end = 0,
                Long("check-order" | "nocheck-order") => {}
                Value(v) => files.push(string(v)),
                _ => return Err(arg.unexpected()),
            }
        }
        Ok(())
    })();
    if let Err(e) = parsed {
        return bad_usage(sh, "comm", e, 1).await;
    }
    if files.len() != 2 {
        let msg = if files.len() < 2 {
            format!(
                "comm: missing operand after '{}'",
                files.last().cloned().unwrap_or_else(|| "comm".into())
            )
        } else {
            format!("comm: extra operand '{}'", files[2])
        };
        return complain(
            sh,
            &format!("{msg}\nTry 'comm --help' for more information."),
        )
        .await;
    }
    let mut read = Vec::new();
    for f in &files {
        let input = match open(sh, f) {
            Ok(i) => i,
            Err(m) => return complain(sh, &format!("comm: {m}")).await,
        };
        let mut lines = Lines::with_delimiter(input, end);
        let mut v = Vec::new();
        while let Ok(Some(l)) = lines.next().await {
            v.push(l.strip_suffix(&[end]).map(<[u8]>::to_vec).unwrap_or(l));
        }
        read.push(v);
    }
    let (a, b) = (&read[0], &read[1]);
    let (mut i, mut j) = (0, 0);
    let mut text = Vec::new();
    let mut counts = [0usize; 3];
    let mut emit = |col: usize, line: &[u8], text: &mut Vec<u8>| {
        counts[col] += 1;
        if hide[col] {
            return;
        }
        for _ in (0..col).filter(|c| !hide[*c]) {
            text.extend_from_slice(&delimiter);
        }
        text.extend_from_slice(line);
        text.push(end);
    };
    // As GNU's, unsorted input is reported (once per file, when the merge reads past the
    // out-of-order line) and makes the status 1.
    let mut unsorted = [false; 2];
    let mut notes = Vec::new();
    let mut check = |file: usize, lines: &[Vec<u8>], at: usize| {
        if !unsorted[file] && at + 1 < lines.len() && lines[at + 1] < lines[at] {
            unsorted[file] = true;
            notes.push(format!("comm: file {} is not in sorted order", file + 1));
        }
    };
    while i < a.len() || j < b.len() {
        match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) if x == y => {
                emit(2, x, &mut text);
                check(0, a, i);
                check(1, b, j);
                i += 1;
                j += 1;
            }
            (Some(x), Some(y)) if x < y => {
                emit(0, x, &mut text);
                check(0, a, i);
                i += 1;
            }
            (Some(_), Some(y)) => {
                emit(1, y, &mut text);
                check(1, b, j);
                j += 1;
            }
            (Some(x), None) => {
                emit(0, x, &mut text);
                check(0, a, i);
                i += 1;
            }
            (None, Some(y)) => {
                emit(1, y, &mut text);
                check(1, b, j);
                j += 1;
            }
            (None, None) => break,
        }
    }
    if total {
        for n in counts {
            text.extend_from_slice(format!("{n}").as_bytes());
            text.extend_from_slice(&delimiter);
        }
        text.extend_from_slice(b"total");
        text.push(end);
    }
    let disordered = !notes.is_empty();
    if disordered {
        notes.push("comm: input is not in sorted order".into());
        complain(sh, &notes.join("\n")).await;
    }
    let mut w = Writer::new(&sh.io().stdout);
    match w.write(&text).await.and(w.flush().await) {
        Ok(()) => i32::from(disordered),
        Err(Stop(s)) => s,
    }
}

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::Native;

    #[test]
    fn three_columns() {
        let mut ctx = Native::new();
        ctx.write("a", "1\n2\n").write("b", "2\n3\n");
        assert_eq!(ctx.run(&["comm", "a", "b"], "").stdout, "1\n\t\t2\n\t3\n");
    }
}
