//! `cmp [-b] [-l|-s] [-i SKIP1[:SKIP2]] [-n LIMIT] FILE1 [FILE2 [SKIP1 [SKIP2]]]`: compare
//! two files byte by byte, as GNU diffutils 3.8 does. Both are read in step, a stretch at a
//! time, so files of any size compare in little memory.

use super::stream::{InStep, Stop, Writer, complain, open, parse_count};
use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{diffutils_bad_usage, parser, string, usage, value};
use shell_base::errno::io_message;
use shell_base::io::Input;
use std::io::Seek;

/// What to compare and what to say of it.
#[derive(Default)]
struct Options {
    /// `-s`: the status only.
    silent: bool,
    /// `-l`: every differing byte.
    verbose: bool,
    /// `-b`: the differing bytes too.
    print_bytes: bool,
    /// `-i`, or operands 3 and 4: bytes of each file left out before comparing.
    skip: [u64; 2],
    /// `-n`: at most this many bytes compared.
    limit: Option<u64>,
}

/// `cmp`: status 0 same, 1 different, 2 trouble.
pub async fn cmp(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let mut o = Options::default();
    let mut operands = Vec::new();
    let mut p = parser(argv);
    let parsed: Result<(), lexopt::Error> = (|| {
        while let Some(arg) = p.next()? {
            match arg {
                Short('s') | Long("quiet" | "silent") => o.silent = true,
                Short('l') | Long("verbose") => o.verbose = true,
                Short('b') | Long("print-bytes") => o.print_bytes = true,
                Short('i') | Long("ignore-initial") => o.skip = skips(&value(&mut p)?)?,
                Short('n') | Long("bytes") => {
                    let n = count(&value(&mut p)?, "--bytes")?;
                    o.limit = Some(o.limit.map_or(n, |l| l.min(n)));
                }
                Value(v) => operands.push(string(v)),
                _ => return Err(arg.unexpected()),
            }
            if o.silent && o.verbose {
                return Err(usage("options -l and -s are incompatible"));
            }
        }
        if operands.is_empty() {
            let last = argv.last().map_or("cmp", String::as_str);
            return Err(usage(format!("missing operand after '{last}'")));
        }
        // Operands 3 and 4 are the skips, in place of `-i`'s.
        for (side, text) in operands.iter().skip(2).take(2).enumerate() {
            o.skip[side] = count(text, "--ignore-initial")?;
        }
        match operands.get(4) {
            Some(extra) => Err(usage(format!("extra operand '{extra}'"))),
            None => Ok(()),
        }
    })();
    if let Err(e) = parsed {
        return diffutils_bad_usage(sh, "cmp", e).await;
    }
    let names = [
        operands[0].as_str(),
        operands.get(1).map_or("-", String::as_str),
    ];
    match compare(sh, &o, names).await {
        Ok(status) => status,
        Err(Stop(status)) => status,
    }
}

/// `-i`'s `SKIP1[:SKIP2]`: one count for both files, or one for each.
fn skips(text: &str) -> Result<[u64; 2], lexopt::Error> {
    let (first, second) = text.split_once(':').unwrap_or((text, text));
    Ok([
        count(first, "--ignore-initial")?,
        count(second, "--ignore-initial")?,
    ])
}

/// A byte count with GNU's suffixes, up to the largest file offset (2^63 - 1); the message
/// names the option it was given to.
fn count(text: &str, option: &str) -> Result<u64, lexopt::Error> {
    parse_count(text)
        .filter(|&n| n <= i64::MAX as u64 && !text.trim_start().starts_with('-'))
        .ok_or_else(|| usage(format!("invalid {option} value '{text}'")))
}

/// Compares the files; the status, or a stop for a failed write.
async fn compare(sh: &mut dyn Context, o: &Options, names: [&str; 2]) -> Result<i32, Stop> {
    let mut inputs = Vec::with_capacity(2);
    for name in names {
        match open(sh, name) {
            Ok(input) => inputs.push(input),
            Err(m) => {
                complain(sh, &format!("cmp: {m}")).await;
                return Ok(2);
            }
        }
    }
    let sizes = [regular_size(&inputs[0]), regular_size(&inputs[1])];
    // As GNU's: the same file from the same place is the same, and for `-s` two regular
    // files of different sizes differ, unread.
    if names[0] == names[1] && o.skip[0] == o.skip[1] {
        return Ok(0);
    }
    if let ([Some(a), Some(b)], true, None) = (sizes, o.silent, o.limit)
        && a.saturating_sub(o.skip[0]) != b.saturating_sub(o.skip[1])
    {
        return Ok(1);
    }
    let mut pair = InStep::new(inputs.remove(0), inputs.remove(0));
    let mut out = Writer::new(&sh.io().stdout);
    let trouble =
        |(side, e): (usize, std::io::Error)| format!("cmp: {}: {}", names[side], io_message(&e));
    for side in 0..2 {
        if let Err(e) = pair.skip(side, o.skip[side]).await {
            complain(sh, &trouble(e)).await;
            return Ok(2);
        }
    }
    // `-l`'s positions are as wide as the last one could be: the shorter regular file's.
    let most = sizes
        .iter()
        .zip(o.skip)
        .filter_map(|(size, skip)| size.map(|s| s.saturating_sub(skip)))
        .chain(o.limit)
        .min()
        .unwrap_or(i64::MAX as u64);
    let width = most.max(1).to_string().len();
    let mut left = o.limit.unwrap_or(u64::MAX);
    let (mut at, mut line, mut last_was_newline, mut differs) = (0u64, 1u64, false, false);
    while left > 0 {
        let (x, y) = match pair.next().await {
            Ok(stretch) => stretch,
            Err(e) => {
                out.flush().await?;
                complain(sh, &trouble(e)).await;
                return Ok(2);
            }
        };
        let n = x.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        let (x, y) = (&x[..n], &y[..n]);
        if n == 0 {
            break;
        }
        if o.verbose {
            for (k, (a, b)) in x.iter().zip(y).enumerate().filter(|(_, (a, b))| a != b) {
                let position = at + k as u64 + 1;
                let text = if o.print_bytes {
                    format!(
                        "{position:>width$} {a:>3o} {:<4} {b:>3o} {}\n",
                        shown(*a),
                        shown(*b)
                    )
                } else {
                    format!("{position:>width$} {a:>3o} {b:>3o}\n")
                };
                out.write_str(&text).await?;
                differs = true;
            }
        } else if x != y {
            if o.silent {
                return Ok(1);
            }
            let k = x.iter().zip(y).position(|(a, b)| a != b).unwrap_or(0);
            line += newlines(&x[..k]);
            let (a, b) = (names[0], names[1]);
            let position = at + k as u64 + 1;
            let text = if o.print_bytes {
                let (p, q) = (x[k], y[k]);
                format!(
                    "{a} {b} differ: byte {position}, line {line} is {p:>3o} {} {q:>3o} {}\n",
                    shown(p),
                    shown(q)
                )
            } else {
                format!("{a} {b} differ: char {position}, line {line}\n")
            };
            out.write_str(&text).await?;
            out.flush().await?;
            return Ok(1);
        } else if !o.silent {
            line += newlines(x);
        }
        last_was_newline = x.last() == Some(&b'\n');
        at += n as u64;
        left -= n as u64;
    }
    out.flush().await?;
    // One file ended first (and no limit stopped the comparison before it did).
    let short = (0..2).find(|&side| pair.ended(side) && !pair.ended(1 - side));
    let Some(short) = short.filter(|_| left > 0) else {
        return Ok(i32::from(differs));
    };
    if !o.silent {
        let name = names[short];
        let text = if at == 0 {
            format!("cmp: EOF on {name} which is empty")
        } else if o.verbose {
            format!("cmp: EOF on {name} after byte {at}")
        } else if last_was_newline {
            // After a newline, the lines read; within a line, that line.
            format!("cmp: EOF on {name} after byte {at}, line {}", line - 1)
        } else {
            format!("cmp: EOF on {name} after byte {at}, in line {line}")
        };
        complain(sh, &text).await;
    }
    Ok(1)
}

/// The newlines in `data`: a count the compiler turns into wide compares, where finding
/// each one would stop at every line.
fn newlines(data: &[u8]) -> u64 {
    data.iter().filter(|&&b| b == b'\n').count() as u64
}

/// What is left to read of an input that is a regular file (a redirection may have read
/// some), for the shortcuts and `-l`'s width, as GNU takes it from `fstat`.
fn regular_size(input: &Input) -> Option<u64> {
    let Input::File(file) = input else {
        return None;
    };
    let mut file = file.borrow_mut();
    let meta = file.metadata().ok().filter(|m| m.is_file())?;
    Some(meta.len().saturating_sub(file.stream_position().ok()?))
}

/// A byte as `-b` shows it: `M-` for the high bit, `^X` for a control character.
fn shown(byte: u8) -> String {
    let (high, low) = (byte >= 0x80, byte & 0x7f);
    let mut s = String::from(if high { "M-" } else { "" });
    match low {
        0x7f => s.push_str("^?"),
        c if c < 0x20 => {
            s.push('^');
            s.push(char::from(c + 0x40));
        }
        c => s.push(char::from(c)),
    }
    s
}

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::Native;

    #[test]
    fn first_difference() {
        let mut ctx = Native::new();
        ctx.write("a", "abc").write("b", "abd");
        let ran = ctx.run(&["cmp", "a", "b"], "");
        assert_eq!(
            (ran.status, ran.stdout.as_str()),
            (1, "a b differ: char 3, line 1\n")
        );
    }

    /// Counts past what a 32-bit guest's memory indexes, with GNU's suffixes, up to 2^63 - 1.
    #[test]
    fn counts_are_file_offsets() {
        let ok = |t: &str| super::count(t, "--bytes").ok();
        assert_eq!(ok("5000000000"), Some(5_000_000_000));
        assert_eq!(ok("5G"), Some(5 << 30));
        assert_eq!(ok("1E"), Some(1 << 60));
        assert_eq!(ok("9223372036854775807"), Some(i64::MAX as u64));
        assert_eq!(ok("18446744073709551615"), None);
        assert_eq!(ok("-1"), None);
    }

    #[test]
    fn shown_bytes_are_gnus() {
        let all: Vec<String> = [0x01, b'a', 0x7f, 0x80, 0xff, 0xe9]
            .map(super::shown)
            .into();
        assert_eq!(all, ["^A", "a", "^?", "M-^@", "M-^?", "M-i"]);
    }
}
