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

/// Why `head` or `tail` refused a count.
#[derive(Debug, PartialEq)]
pub(crate) enum BadCount {
    Invalid,
    /// Past 2^64 - 1 (GNU adds "Value too large for defined data type").
    TooLarge,
}

/// A count argument of `head`/`tail`: `N`, `-N`, `+N`, with GNU's suffixes (`b`, then `k`,
/// `M`, `G` ... `Y` (coreutils 9.1's) in powers of 1024, or of 1000 with a `B` after them, `KiB` as `K`); a
/// suffix alone counts one of it.
pub(crate) fn count(text: &str) -> Result<(bool, u64), BadCount> {
    let (plus, digits) = match text.strip_prefix('+') {
        Some(d) => (true, d),
        None => (false, text.strip_prefix('-').unwrap_or(text)),
    };
    // GNU reads a count with `strtoumax`: blanks before it, or a `+` (which `tail` keeps in
    // the text it reads, so that `+k` is no number).
    let digits = if plus {
        digits
    } else {
        digits.trim_start_matches(|c: char| c.is_ascii_whitespace())
    };
    let (num, suffix) = digits.split_at(
        digits
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(digits.len()),
    );
    let scale: u128 = match suffix {
        "" => 1,
        "b" => 512,
        _ => {
            let mut chars = suffix.chars();
            let power = match chars.next() {
                Some('k' | 'K') => 1,
                Some('m' | 'M') => 2,
                Some('G') => 3,
                Some('T') => 4,
                Some('P') => 5,
                Some('E') => 6,
                Some('Z') => 7,
                Some('Y') => 8,
                _ => return Err(BadCount::Invalid),
            };
            let base: u128 = match chars.as_str() {
                "" | "iB" => 1024,
                "B" => 1000,
                _ => return Err(BadCount::Invalid),
            };
            base.pow(power)
        }
    };
    let n: u128 = match num {
        "" if suffix.is_empty() || plus => return Err(BadCount::Invalid),
        "" => 1,
        // Digits only, so a failure is an overflow.
        _ => num.parse().map_err(|_| BadCount::TooLarge)?,
    };
    let n = n.checked_mul(scale).ok_or(BadCount::TooLarge)?;
    Ok((plus, u64::try_from(n).map_err(|_| BadCount::TooLarge)?))
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
                    Ok((plus, n)) => {
                        s.n = n;
                        s.from_start = plus && cmd == "tail";
                        s.all_but = text.starts_with('-') && cmd == "head";
                    }
                    Err(bad) => {
                        let what = if s.bytes { "bytes" } else { "lines" };
                        let why = match bad {
                            BadCount::Invalid => "",
                            BadCount::TooLarge => ": Value too large for defined data type",
                        };
                        let m = format!("{cmd}: invalid number of {what}: '{text}'{why}");
                        complain(sh, &m).await;
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

#[cfg(test)]
mod tests {
    use super::{BadCount, count};

    #[test]
    fn counts_read_as_gnu_reads_them() {
        let n = |t: &str| count(t).map(|(_, n)| n);
        assert_eq!(n("5"), Ok(5));
        assert_eq!(n(" 5"), Ok(5));
        assert_eq!(n("-5"), Ok(5));
        assert_eq!(count("+5"), Ok((true, 5)));
        assert_eq!(n("2b"), Ok(1024));
        assert_eq!(n("k"), Ok(1024));
        assert_eq!(n("1kiB"), Ok(1024));
        assert_eq!(n("1KB"), Ok(1000));
        assert_eq!(n("1m"), Ok(1 << 20));
        assert_eq!(n("15E"), Ok(15 << 60));
        assert_eq!(n("0Y"), Ok(0));
        assert_eq!(n("18446744073709551615"), Ok(u64::MAX));
        for too_large in [
            "18446744073709551616",
            "16E",
            "1Z",
            "1Y",
            "99999999999999999999999999999999999999999k",
        ] {
            assert_eq!(n(too_large), Err(BadCount::TooLarge), "{too_large}");
        }
        for invalid in ["", "+k", "5 ", "1e", "1w", "1c", "1B", "1kb", "1Q", "x"] {
            assert_eq!(n(invalid), Err(BadCount::Invalid), "{invalid}");
        }
    }
}
