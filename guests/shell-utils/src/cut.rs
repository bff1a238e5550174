//! `cut`: fields, characters, bytes; on bytes as GNU does in the C locale.

use super::stream::{Lines, Stop, Writer, complain, files_or_stdin, open};
use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{bad_usage, parser, string, usage, value};

/// A `cut` list: 1-based inclusive ranges.
fn parse_list(text: &str) -> Option<Vec<(usize, usize)>> {
    let mut ranges = Vec::new();
    for part in text.split(',') {
        let (a, b) = match part.split_once('-') {
            Some((a, b)) => (
                if a.is_empty() { 1 } else { a.parse().ok()? },
                if b.is_empty() {
                    usize::MAX
                } else {
                    b.parse().ok()?
                },
            ),
            None => {
                let n = part.parse().ok()?;
                (n, n)
            }
        };
        if a == 0 || b < a {
            return None;
        }
        ranges.push((a, b));
    }
    Some(ranges)
}

/// The list of `-f`, `-c` or `-b` (`flag`), or GNU's complaint about it.
fn list(text: &str, flag: char) -> Result<Vec<(usize, usize)>, lexopt::Error> {
    match parse_list(text) {
        Some(r) => Ok(r),
        None if text.split([',', '-']).any(|n| n == "0") => {
            let what = if flag == 'f' {
                "fields are"
            } else {
                "byte/character positions are"
            };
            Err(usage(format!("{what} numbered from 1")))
        }
        None => Err(usage(format!("invalid field value '{text}'"))),
    }
}

fn selected(ranges: &[(usize, usize)], i: usize, complement: bool) -> bool {
    ranges.iter().any(|(a, b)| *a <= i && i <= *b) != complement
}

/// `cut -f LIST [-d C] [-s] | -c LIST | -b LIST [--complement] [--output-delimiter S]`.
pub async fn cut(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let mut mode: Option<(char, Vec<(usize, usize)>)> = None;
    let mut delim = b'\t';
    let mut only_delimited = false;
    let mut complement = false;
    let mut out_delim: Option<Vec<u8>> = None;
    let mut files = Vec::new();
    let mut p = parser(argv);
    let parsed: Result<(), lexopt::Error> = (|| {
        while let Some(arg) = p.next()? {
            match arg {
                Long("complement") => complement = true,
                Short('s') | Long("only-delimited") => only_delimited = true,
                Long("output-delimiter") => out_delim = Some(value(&mut p)?.into_bytes()),
                Short('d') | Long("delimiter") => {
                    let v = value(&mut p)?;
                    if v.len() != 1 {
                        return Err(usage("the delimiter must be a single character"));
                    }
                    delim = v.as_bytes()[0];
                }
                // `-n` (with -b: never split a character) changes nothing in the C locale.
                Short('n') => {}
                Short('f') | Long("fields") => mode = Some(('f', list(&value(&mut p)?, 'f')?)),
                Short('c') | Long("characters") => mode = Some(('c', list(&value(&mut p)?, 'c')?)),
                Short('b') | Long("bytes") => mode = Some(('b', list(&value(&mut p)?, 'b')?)),
                Value(v) => files.push(string(v)),
                _ => return Err(arg.unexpected()),
            }
        }
        Ok(())
    })();
    if let Err(e) = parsed {
        return bad_usage(sh, "cut", e, 1).await;
    }
    let Some((kind, ranges)) = mode else {
        let e = usage("you must specify a list of bytes, characters, or fields");
        return bad_usage(sh, "cut", e, 1).await;
    };
    let out_delim = out_delim.unwrap_or_else(|| if kind == 'f' { vec![delim] } else { Vec::new() });
    let mut out = Writer::new(&sh.io().stdout);
    let mut status = 0;
    let files = files_or_stdin(files);
    for f in files {
        let input = match open(sh, &f) {
            Ok(i) => i,
            Err(m) => {
                status = complain(sh, &format!("cut: {m}")).await;
                continue;
            }
        };
        let mut lines = Lines::new(input);
        while let Ok(Some(line)) = lines.next().await {
            let body = line.strip_suffix(b"\n").unwrap_or(&line);
            let mut text: Vec<u8> = Vec::new();
            if kind == 'f' {
                if !body.contains(&delim) {
                    if only_delimited {
                        continue;
                    }
                    text.extend_from_slice(body);
                } else {
                    let mut first = true;
                    for (n, field) in body.split(|b| *b == delim).enumerate() {
                        if selected(&ranges, n + 1, complement) {
                            if !first {
                                text.extend_from_slice(&out_delim);
                            }
                            first = false;
                            text.extend_from_slice(field);
                        }
                    }
                }
            } else {
                // Characters and bytes alike in the C locale; ranges joined by the output
                // delimiter only when one was given.
                let mut last: Option<usize> = None;
                for (n, b) in body.iter().enumerate() {
                    if selected(&ranges, n + 1, complement) {
                        if last.is_some_and(|l| l + 1 != n) && !out_delim.is_empty() {
                            text.extend_from_slice(&out_delim);
                        }
                        text.push(*b);
                        last = Some(n);
                    }
                }
            }
            text.push(b'\n');
            if let Err(Stop(s)) = out.write(&text).await {
                return s;
            }
        }
    }
    match out.flush().await {
        Ok(()) => status,
        Err(Stop(s)) => s,
    }
}

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::{Native, stdout_of};

    #[test]
    fn fields_and_characters() {
        assert_eq!(
            stdout_of(&["cut", "-d", ":", "-f", "1,3"], "a:b:c\n"),
            "a:c\n"
        );
        assert_eq!(stdout_of(&["cut", "-c", "2-"], "hello\n"), "ello\n");
        let ran = Native::new().run(&["cut"], "");
        assert_eq!(ran.status, 1);
    }
}
