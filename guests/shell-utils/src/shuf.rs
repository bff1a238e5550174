//! `shuf`: write a random permutation of lines, arguments or a range of numbers.

use std::collections::HashMap;

use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{bad_usage, parser, plain, string, usage, value};
use shell_base::errno::io_message;

use crate::stream::{MEMORY_LIMIT, Stop, Writer, complain, read_file};

/// Where the items come from.
enum Source {
    Input(Option<String>),
    Echo(Vec<String>),
    Range(u64, u64),
}

/// xorshift64*: seeded from the shell's generator, or from `--random-source`'s bytes (so a
/// given source gives the same order every time, though not GNU's order).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number below `n` (> 0), without modulo bias.
    fn below(&mut self, n: u64) -> u64 {
        let zone = u64::MAX - u64::MAX % n;
        loop {
            let x = self.next();
            if x < zone {
                return x % n;
            }
        }
    }
}

/// `shuf [-rz] [-n COUNT] [-o FILE] [--random-source=FILE] [FILE | -e ARG... | -i LO-HI]`.
pub async fn shuf(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let mut echo = false;
    let mut range = None;
    let mut count: Option<u64> = None;
    let mut output = None;
    let mut source_file = None;
    let mut repeat = false;
    let mut zero = false;
    let mut operands = Vec::new();
    let mut p = parser(argv);
    let parsed: Result<(), lexopt::Error> = (|| {
        while let Some(arg) = p.next()? {
            match arg {
                Short('e') | Long("echo") => echo = true,
                Short('i') | Long("input-range") => {
                    let text = value(&mut p)?;
                    let bad = || plain(format!("invalid input range: '{text}'"));
                    let (lo, hi) = text.split_once('-').ok_or_else(bad)?;
                    let (lo, hi): (u64, u64) = (
                        lo.parse().map_err(|_| bad())?,
                        hi.parse().map_err(|_| bad())?,
                    );
                    if hi.checked_add(1).is_none_or(|h| h < lo) {
                        return Err(bad());
                    }
                    range = Some((lo, hi));
                }
                Short('n') | Long("head-count") => {
                    let text = value(&mut p)?;
                    let n = text
                        .parse::<u64>()
                        .map_err(|_| plain(format!("invalid line count: '{text}'")))?;
                    count = Some(count.map_or(n, |c| c.min(n)));
                }
                Short('o') | Long("output") => output = Some(value(&mut p)?),
                Long("random-source") => source_file = Some(value(&mut p)?),
                Short('r') | Long("repeat") => repeat = true,
                Short('z') | Long("zero-terminated") => zero = true,
                Value(v) => operands.push(string(v)),
                _ => return Err(arg.unexpected()),
            }
        }
        Ok(())
    })();
    if let Err(e) = parsed {
        return bad_usage(sh, "shuf", e, 1).await;
    }
    let source = match (echo, range) {
        (true, Some(_)) => {
            let e = usage("cannot combine -e and -i options");
            return bad_usage(sh, "shuf", e, 1).await;
        }
        (true, None) => Source::Echo(operands),
        (false, Some((lo, hi))) => {
            if let Some(extra) = operands.first() {
                return bad_usage(sh, "shuf", usage(format!("extra operand '{extra}'")), 1).await;
            }
            Source::Range(lo, hi)
        }
        (false, None) => {
            if let Some(extra) = operands.get(1) {
                return bad_usage(sh, "shuf", usage(format!("extra operand '{extra}'")), 1).await;
            }
            Source::Input(operands.pop())
        }
    };
    let mut rng = match &source_file {
        Some(f) => match read_file(sh, "shuf", f).await {
            Ok(bytes) => Rng(seed_of(&bytes)),
            Err(m) => return complain(sh, &m).await,
        },
        None => {
            let seed = (0..5).fold(0u64, |s, _| (s << 15) ^ u64::from(sh.random()));
            Rng(seed | 1)
        }
    };
    let sep = if zero { 0 } else { b'\n' };
    let items: Vec<Vec<u8>> = match source {
        Source::Input(file) => {
            let name = file.unwrap_or_else(|| "-".into());
            match read_file(sh, "shuf", &name).await {
                Ok(d) => d
                    .split(|b| *b == sep)
                    .map(<[u8]>::to_vec)
                    .collect::<Vec<_>>()
                    .split_last()
                    .map(|(last, rest)| {
                        let mut v = rest.to_vec();
                        if !last.is_empty() {
                            v.push(last.clone());
                        }
                        v
                    })
                    .unwrap_or_default(),
                Err(m) => return complain(sh, &m).await,
            }
        }
        Source::Echo(words) => words.into_iter().map(String::into_bytes).collect(),
        Source::Range(lo, hi) => {
            return write_range(sh, &mut rng, lo, hi, count, repeat, sep, output).await;
        }
    };
    let n = items.len() as u64;
    let picks: Vec<u64> = if repeat {
        if n == 0 {
            if count != Some(0) {
                return complain(sh, "shuf: no lines to repeat").await;
            }
            Vec::new()
        } else {
            let item = |i: u64| items[i as usize].clone();
            return emit_repeated(sh, &mut rng, n, count, sep, output, item).await;
        }
    } else {
        sample(&mut rng, n, count.unwrap_or(n).min(n))
    };
    let mut data = Vec::new();
    for i in picks {
        data.extend_from_slice(&items[i as usize]);
        data.push(sep);
    }
    emit(sh, &data, output).await
}

/// `-i LO-HI`: numbers, without making the whole range when only a few are wanted.
#[allow(clippy::too_many_arguments)]
async fn write_range(
    sh: &mut dyn Context,
    rng: &mut Rng,
    lo: u64,
    hi: u64,
    count: Option<u64>,
    repeat: bool,
    sep: u8,
    output: Option<String>,
) -> i32 {
    let n = hi - lo + 1;
    let line = |i: u64| format!("{}", lo + i).into_bytes();
    if repeat {
        return emit_repeated(sh, rng, n, count, sep, output, line).await;
    }
    let want = count.unwrap_or(n).min(n);
    if want > MEMORY_LIMIT as u64 / 8 {
        return complain(
            sh,
            &format!("shuf: memory exhausted (the range has {want} numbers)"),
        )
        .await;
    }
    let mut data = Vec::new();
    for i in sample(rng, n, want) {
        data.extend(line(i));
        data.push(sep);
    }
    emit(sh, &data, output).await
}

/// `want` distinct indices below `n` in random order (a partial Fisher–Yates shuffle over
/// a sparse map, so a large `n` costs nothing).
fn sample(rng: &mut Rng, n: u64, want: u64) -> Vec<u64> {
    let mut moved: HashMap<u64, u64> = HashMap::new();
    let mut picks = Vec::with_capacity(want as usize);
    for i in 0..want {
        let j = i + rng.below(n - i);
        let at_j = moved.get(&j).copied().unwrap_or(j);
        let at_i = moved.get(&i).copied().unwrap_or(i);
        moved.insert(j, at_i);
        picks.push(at_j);
    }
    picks
}

/// `-r`: items drawn with replacement from `n`, `count` of them or until the reader goes
/// away (or, with `-o`, until the file cannot grow).
async fn emit_repeated(
    sh: &mut dyn Context,
    rng: &mut Rng,
    n: u64,
    count: Option<u64>,
    sep: u8,
    output: Option<String>,
    item: impl Fn(u64) -> Vec<u8>,
) -> i32 {
    use std::io::Write;
    let mut file = match &output {
        Some(path) => match std::fs::File::create(sh.path(path)) {
            Ok(f) => Some(std::io::BufWriter::new(f)),
            Err(e) => return complain(sh, &format!("shuf: {path}: {}", io_message(&e))).await,
        },
        None => None,
    };
    let mut out = Writer::new(&sh.io().stdout);
    let mut written = 0u64;
    while count.is_none_or(|c| written < c) {
        let mut line = item(rng.below(n));
        line.push(sep);
        written += 1;
        if let Some(f) = &mut file {
            if let Err(e) = f.write_all(&line) {
                let path = output.as_deref().unwrap_or_default();
                return complain(sh, &format!("shuf: {path}: {}", io_message(&e))).await;
            }
        } else if let Err(Stop(s)) = out.write(&line).await {
            return s;
        }
    }
    if let Some(f) = &mut file
        && let Err(e) = f.flush()
    {
        let path = output.as_deref().unwrap_or_default();
        return complain(sh, &format!("shuf: {path}: {}", io_message(&e))).await;
    }
    match out.flush().await {
        Ok(()) => 0,
        Err(Stop(s)) => s,
    }
}

/// Writes the result to `-o FILE` (after all input is read, so it may be the input) or stdout.
async fn emit(sh: &mut dyn Context, data: &[u8], output: Option<String>) -> i32 {
    if let Some(path) = output {
        return match std::fs::write(sh.path(&path), data) {
            Ok(()) => 0,
            Err(e) => complain(sh, &format!("shuf: {path}: {}", io_message(&e))).await,
        };
    }
    let mut out = Writer::new(&sh.io().stdout);
    match out.write(data).await.and(out.flush().await) {
        Ok(()) => 0,
        Err(Stop(s)) => s,
    }
}

/// A seed from `--random-source`'s bytes (FNV-1a).
fn seed_of(bytes: &[u8]) -> u64 {
    let h = bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    h | 1
}
