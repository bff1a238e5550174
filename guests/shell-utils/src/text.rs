//! Helpers of the line utilities: `head` and `tail`'s `-n`/`-c` counts and the parts of
//! files they print.

use super::stream::{Stop, Writer, complain, open};
use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{bad_usage, parser, string};

pub(crate) fn done(r: Result<(), Stop>, status: i32) -> i32 {
    match r {
        Ok(()) => status,
        Err(Stop(s)) => s,
    }
}

/// A count argument of `head`/`tail`: `N`, `-N`, `+N`, with `b k m` style suffixes.
pub(crate) fn count(text: &str) -> Option<(bool, u64)> {
    let (plus, digits) = match text.strip_prefix('+') {
        Some(d) => (true, d),
        None => (false, text.strip_prefix('-').unwrap_or(text)),
    };
    let (num, mult) = match digits.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((i, _)) => {
            let m = match &digits[i..] {
                "b" => 512,
                "k" | "K" | "KiB" => 1024,
                "kB" => 1000,
                "M" | "MiB" => 1 << 20,
                "MB" => 1_000_000,
                "G" | "GiB" => 1 << 30,
                _ => return None,
            };
            (&digits[..i], m)
        }
        None => (digits, 1),
    };
    Some((plus, num.parse::<u64>().ok()?.checked_mul(mult)?))
}

/// `head`/`tail` options: `-n N`, `-c N`, `-N`, `-q`, `-v`.
pub(crate) struct Span {
    pub(crate) bytes: bool,
    /// `+N` (tail: from line N) or `-N` (head: all but the last N).
    pub(crate) from_start: bool,
    pub(crate) all_but: bool,
    pub(crate) n: u64,
    pub(crate) headers: Option<bool>,
    pub(crate) files: Vec<String>,
}

pub(crate) async fn span(sh: &mut dyn Context, cmd: &str, argv: &[String]) -> Result<Span, i32> {
    let mut s = Span {
        bytes: false,
        from_start: false,
        all_but: false,
        n: 10,
        headers: None,
        files: Vec::new(),
    };
    // `head -5` and `tail -5` / `tail +5`: the historical forms.
    let mut args: Vec<String> = argv.to_vec();
    if let Some(first) = args.get(1).cloned()
        && first.len() > 1
        && (first.starts_with('-') || (cmd == "tail" && first.starts_with('+')))
        && first[1..].chars().all(|c| c.is_ascii_digit())
    {
        s.n = first[1..].parse().unwrap_or(10);
        s.from_start = first.starts_with('+');
        args.remove(1);
        // GNU tail takes the historical form with one file only.
        if cmd == "tail" && args.len() > 2 {
            let digits = &first[1..];
            return Err(complain(
                sh,
                &format!("tail: option used in invalid context -- {digits}"),
            )
            .await);
        }
    }
    let mut p = parser(&args);
    loop {
        let arg = match p.next() {
            Ok(Some(a)) => a,
            Ok(None) => break,
            Err(e) => return Err(bad_usage(sh, cmd, e, 1).await),
        };
        match arg {
            Short('n') | Long("lines") | Short('c') | Long("bytes") => {
                s.bytes = matches!(arg, Short('c') | Long("bytes"));
                let text = match p.value() {
                    Ok(v) => string(v),
                    Err(e) => return Err(bad_usage(sh, cmd, e, 1).await),
                };
                match count(&text) {
                    Some((plus, n)) => {
                        s.n = n;
                        s.from_start = plus && cmd == "tail";
                        s.all_but = text.starts_with('-') && cmd == "head";
                    }
                    None => {
                        let what = if s.bytes { "bytes" } else { "lines" };
                        complain(sh, &format!("{cmd}: invalid number of {what}: '{text}'")).await;
                        return Err(1);
                    }
                }
            }
            Short('q') | Long("quiet") | Long("silent") => s.headers = Some(false),
            Short('v') | Long("verbose") => s.headers = Some(true),
            Short('f') | Long("follow") | Short('F') => {}
            Value(v) => s.files.push(string(v)),
            other => return Err(bad_usage(sh, cmd, other.unexpected(), 1).await),
        }
    }
    Ok(s)
}

/// Opens one of `head`'s or `tail`'s files (the error worded as they word it; `None` after
/// it) and, when there are several, writes its `==> NAME <==` header, after a blank line
/// unless it is the `first` written.
pub(crate) async fn open_part(
    sh: &dyn Context,
    cmd: &str,
    f: &str,
    first: &mut bool,
    headers: bool,
    out: &mut Writer,
) -> Result<Option<shell_base::io::Input>, Stop> {
    let input = match open(sh, f) {
        Ok(input) => input,
        Err(m) => {
            let why = m.split_once(": ").map(|x| x.1).unwrap_or(&m);
            out.flush().await?;
            complain(sh, &format!("{cmd}: cannot open '{f}' for reading: {why}")).await;
            return Ok(None);
        }
    };
    if headers {
        let name = if f == "-" { "standard input" } else { f };
        let sep = if *first { "" } else { "\n" };
        *first = false;
        out.write_str(&format!("{sep}==> {name} <==\n")).await?;
    }
    Ok(Some(input))
}

/// Offsets just past each line's end (the last line may lack its `\n`).
pub(crate) fn line_ends(data: &[u8]) -> Vec<usize> {
    let mut ends: Vec<usize> = data
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .map(|(i, _)| i + 1)
        .collect();
    if data.last().is_some_and(|b| *b != b'\n') {
        ends.push(data.len());
    }
    ends
}
