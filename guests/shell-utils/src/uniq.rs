//! `uniq`: `-c -d -u -i -f -s -w`, comparing bytes as GNU does in the C locale.

use super::stream::{Lines, Stop, Writer, complain, open};
use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{bad_usage, parser};

/// `uniq [-c] [-d] [-u] [-i] [-f N] [-s N] [-w N] [INPUT [OUTPUT]]`.
pub async fn uniq(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let (mut count, mut dups, mut uniques, mut fold) = (false, false, false, false);
    // `-D`: every line of each repeated group.
    let mut all_repeated = false;
    let (mut skip_fields, mut skip_chars, mut width) = (0usize, 0usize, usize::MAX);
    let mut operands = Vec::new();
    let mut p = parser(argv);
    loop {
        let arg = match p.next() {
            Ok(Some(a)) => a,
            Ok(None) => break,
            Err(e) => return bad_usage(sh, "uniq", e, 1).await,
        };
        let number = |p: &mut lexopt::Parser| {
            p.value()
                .ok()
                .and_then(|v| v.to_string_lossy().parse::<usize>().ok())
                .unwrap_or(0)
        };
        match arg {
            Short('c') | Long("count") => count = true,
            Short('d') | Long("repeated") => dups = true,
            Short('D') | Long("all-repeated") => all_repeated = true,
            Short('u') | Long("unique") => uniques = true,
            Short('i') | Long("ignore-case") => fold = true,
            Short('f') | Long("skip-fields") => skip_fields = number(&mut p),
            Short('s') | Long("skip-chars") => skip_chars = number(&mut p),
            Short('w') | Long("check-chars") => width = number(&mut p),
            Value(v) => operands.push(v.to_string_lossy().into_owned()),
            other => return bad_usage(sh, "uniq", other.unexpected(), 1).await,
        }
    }
    let input_name = operands.first().cloned().unwrap_or_else(|| "-".into());
    let input = match open(sh, &input_name) {
        Ok(i) => i,
        Err(m) => return complain(sh, &format!("uniq: {m}")).await,
    };
    let key = |line: &[u8]| -> Vec<u8> {
        let body = line.strip_suffix(b"\n").unwrap_or(line);
        let mut i = 0;
        for _ in 0..skip_fields {
            while i < body.len() && (body[i] == b' ' || body[i] == b'\t') {
                i += 1;
            }
            while i < body.len() && body[i] != b' ' && body[i] != b'\t' {
                i += 1;
            }
        }
        i = (i + skip_chars).min(body.len());
        let end = i.saturating_add(width).min(body.len());
        let k = &body[i..end];
        if fold {
            k.to_ascii_lowercase()
        } else {
            k.to_vec()
        }
    };
    let target = match operands.get(1) {
        Some(path) => match std::fs::File::create(sh.path(path)) {
            Ok(f) => shell_base::io::Output::File(std::rc::Rc::new(std::cell::RefCell::new(f))),
            Err(e) => {
                return complain(
                    sh,
                    &format!("uniq: {path}: {}", shell_base::errno::io_message(&e)),
                )
                .await;
            }
        },
        None => sh.io().stdout.clone(),
    };
    let mut out = Writer::new(&target);
    let mut lines = Lines::new(input);
    // The group so far: its first line, key and size, and (for `-D`) the rest of it.
    let mut current: Option<(Vec<u8>, Vec<u8>, u64)> = None;
    let mut rest: Vec<Vec<u8>> = Vec::new();
    let emit = |line: Vec<u8>, n: u64, rest: &mut Vec<Vec<u8>>| {
        let show = if all_repeated {
            n > 1
        } else {
            (!dups || n > 1) && (!uniques || n == 1)
        };
        let mut text = Vec::new();
        if show {
            for l in std::iter::once(line).chain(rest.drain(..)) {
                if count {
                    text.extend(format!("{n:7} ").bytes());
                }
                text.extend_from_slice(&l);
                if text.last() != Some(&b'\n') {
                    text.push(b'\n');
                }
            }
        }
        rest.clear();
        text
    };
    loop {
        let next = lines.next().await.ok().flatten();
        match (next, current.take()) {
            (Some(l), Some((cl, ck, n))) => {
                let k = key(&l);
                if k == ck {
                    if all_repeated {
                        rest.push(l);
                    }
                    current = Some((cl, ck, n + 1));
                } else {
                    let text = emit(cl, n, &mut rest);
                    if let Err(Stop(s)) = out.write(&text).await {
                        return s;
                    }
                    current = Some((l, k, 1));
                }
            }
            (Some(l), None) => {
                let k = key(&l);
                current = Some((l, k, 1));
            }
            (None, Some((cl, _, n))) => {
                let text = emit(cl, n, &mut rest);
                if let Err(Stop(s)) = out.write(&text).await {
                    return s;
                }
                break;
            }
            (None, None) => break,
        }
    }
    match out.flush().await {
        Ok(()) => 0,
        Err(Stop(s)) => s,
    }
}

#[cfg(all(test, unix))]
mod tests {

    use crate::testing::stdout_of;

    #[test]
    fn counts_adjacent_repeats() {
        assert_eq!(
            stdout_of(&["uniq", "-c"], "a\na\nb\na\n"),
            "      2 a\n      1 b\n      1 a\n"
        );
        assert_eq!(stdout_of(&["uniq", "-d"], "a\na\nb\n"), "a\n");
    }
}
