//! `cut`: fields, characters, bytes; on bytes as GNU does in the C locale.

use super::stream::{Lines, Stop, Writer, complain, files_or_stdin, open};
use shell_base::Context;

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
    let mut i = 1;
    let usage = "Try 'cut --help' for more information.";
    while i < argv.len() {
        let a = argv[i].clone();
        let take = |i: &mut usize, inline: &str| -> Option<String> {
            if !inline.is_empty() {
                return Some(inline.to_string());
            }
            *i += 1;
            argv.get(*i).cloned()
        };
        if a == "--complement" {
            complement = true;
        } else if a == "-s" || a == "--only-delimited" {
            only_delimited = true;
        } else if let Some(v) = a.strip_prefix("--output-delimiter=") {
            out_delim = Some(v.as_bytes().to_vec());
        } else if let Some(v) = a.strip_prefix("--delimiter=") {
            delim = v.bytes().next().unwrap_or(b'\t');
        } else if a.starts_with('-') && a.get(1..2).is_some_and(|f| "fcbd".contains(f)) {
            let flag = a.as_bytes()[1] as char;
            let Some(v) = take(&mut i, &a[2..]) else {
                return complain(
                    sh,
                    &format!("cut: option requires an argument -- '{flag}'\n{usage}"),
                )
                .await;
            };
            if flag == 'd' {
                if v.len() != 1 {
                    return complain(
                        sh,
                        &format!("cut: the delimiter must be a single character\n{usage}"),
                    )
                    .await;
                }
                delim = v.as_bytes()[0];
            } else {
                match parse_list(&v) {
                    Some(r) => mode = Some((flag, r)),
                    None if v.split([',', '-']).any(|n| n == "0") => {
                        let what = if flag == 'f' {
                            "fields are"
                        } else {
                            "byte/character positions are"
                        };
                        return complain(sh, &format!("cut: {what} numbered from 1\n{usage}"))
                            .await;
                    }
                    None => {
                        return complain(sh, &format!("cut: invalid field value '{v}'\n{usage}"))
                            .await;
                    }
                }
            }
        } else if a.starts_with('-') && a != "-" {
            return complain(
                sh,
                &format!(
                    "cut: invalid option -- '{}'\n{usage}",
                    a.chars().nth(1).unwrap_or('-')
                ),
            )
            .await;
        } else {
            files.push(a);
        }
        i += 1;
    }
    let Some((kind, ranges)) = mode else {
        return complain(
            sh,
            &format!("cut: you must specify a list of bytes, characters, or fields\n{usage}"),
        )
        .await;
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
