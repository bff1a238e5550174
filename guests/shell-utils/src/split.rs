//! `split`: split a file into pieces.

use super::stream::{MEMORY_LIMIT, complain, open, read_all_limited};
use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{bad_usage, parser, plain, string, value};

enum By {
    Lines(usize),
    Bytes(usize),
    Chunks(usize),
}

/// What `split` was asked for.
struct Options {
    by: By,
    numeric: bool,
    suffix_len: usize,
    extra: String,
    operands: Vec<String>,
}

fn options(argv: &[String]) -> Result<Options, lexopt::Error> {
    let mut o = Options {
        by: By::Lines(1000),
        numeric: false,
        suffix_len: 2,
        extra: String::new(),
        operands: Vec::new(),
    };
    let positive = |v: &str, what: &str| match v.parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(plain(format!("invalid number of {what}: '{v}'"))),
    };
    let mut p = parser(argv);
    while let Some(arg) = p.next()? {
        match arg {
            Long("additional-suffix") => o.extra = value(&mut p)?,
            Short('d') | Long("numeric-suffixes") => o.numeric = true,
            Short('l') | Long("lines") => o.by = By::Lines(positive(&value(&mut p)?, "lines")?),
            Short('b') | Long("bytes") => {
                let v = value(&mut p)?;
                match super::stream::parse_size(&v) {
                    Some(n) if n > 0 => o.by = By::Bytes(n),
                    _ => return Err(plain(format!("invalid number of bytes: '{v}'"))),
                }
            }
            Short('n') | Long("number") => o.by = By::Chunks(positive(&value(&mut p)?, "chunks")?),
            Short('a') | Long("suffix-length") => {
                let v = value(&mut p)?;
                match v.parse() {
                    Ok(n) if n > 0 => o.suffix_len = n,
                    _ => return Err(plain(format!("invalid suffix length: '{v}'"))),
                }
            }
            Value(v) => o.operands.push(string(v)),
            _ => return Err(arg.unexpected()),
        }
    }
    Ok(o)
}

/// `split [-l N | -b SIZE | -n CHUNKS] [-d] [-a LEN] [--additional-suffix=S] [FILE [PREFIX]]`.
pub async fn split(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let Options {
        by,
        numeric,
        suffix_len,
        extra,
        operands,
    } = match options(argv) {
        Ok(o) => o,
        Err(e) => return bad_usage(sh, "split", e, 1).await,
    };
    let file = operands.first().cloned().unwrap_or_else(|| "-".into());
    let prefix = operands.get(1).cloned().unwrap_or_else(|| "x".into());
    let input = match open(sh, &file) {
        Ok(i) => i,
        Err(m) => return complain(sh, &format!("split: {m}")).await,
    };
    let data = match read_all_limited(&input, MEMORY_LIMIT, &format!("split: {file}")).await {
        Ok(d) => d,
        Err(m) => return complain(sh, &m).await,
    };
    let pieces: Vec<&[u8]> = match by {
        By::Bytes(n) => data.chunks(n).collect(),
        By::Chunks(n) => {
            let size = data.len() / n;
            (0..n)
                .map(|k| {
                    let start = k * size;
                    let end = if k + 1 == n { data.len() } else { start + size };
                    &data[start..end]
                })
                .collect()
        }
        By::Lines(n) => {
            let mut pieces = Vec::new();
            let mut start = 0;
            let mut count = 0;
            for (k, b) in data.iter().enumerate() {
                if *b == b'\n' {
                    count += 1;
                    if count == n {
                        pieces.push(&data[start..=k]);
                        start = k + 1;
                        count = 0;
                    }
                }
            }
            if start < data.len() {
                pieces.push(&data[start..]);
            }
            pieces
        }
    };
    for (k, piece) in pieces.iter().enumerate() {
        let Some(suffix) = suffix(k, suffix_len, numeric) else {
            return complain(sh, "split: output file suffixes exhausted").await;
        };
        let name = format!("{prefix}{suffix}{extra}");
        if let Err(e) = std::fs::write(sh.path(&name), piece) {
            return complain(
                sh,
                &format!("split: {name}: {}", shell_base::errno::io_message(&e)),
            )
            .await;
        }
    }
    0
}

/// The `k`th suffix: `aa`, `ab`, ... (or `00`, `01`, ... with `-d`).
fn suffix(mut k: usize, len: usize, numeric: bool) -> Option<String> {
    let (base, first) = if numeric { (10, b'0') } else { (26, b'a') };
    let mut digits = vec![first; len];
    for d in digits.iter_mut().rev() {
        *d = first + (k % base) as u8;
        k /= base;
    }
    (k == 0).then(|| String::from_utf8_lossy(&digits).into_owned())
}

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::Native;

    #[test]
    fn pieces_of_n_lines() {
        let mut ctx = Native::new();
        assert_eq!(ctx.run(&["split", "-l", "2"], "1\n2\n3\n").status, 0);
        assert_eq!(
            (ctx.read("xaa"), ctx.read("xab")),
            ("1\n2\n".into(), "3\n".into())
        );
    }
}
