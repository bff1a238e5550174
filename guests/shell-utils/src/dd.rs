//! `dd`: copy a file in blocks, converting on the way, with GNU's operands, record counts and
//! statistics.

use std::io::{Read, Seek, SeekFrom, Write};

use shell_base::Context;
use shell_base::errno::io_message;

use crate::stream::{Buffered, Stop, Writer, complain};

/// What the operands ask for.
#[derive(Default)]
struct Job {
    input: Option<String>,
    output: Option<String>,
    ibs: usize,
    obs: usize,
    /// `bs=` given: each input block is written as it was read.
    bs: bool,
    count: Option<u64>,
    skip: u64,
    seek: u64,
    notrunc: bool,
    sync: bool,
    noerror: bool,
    ucase: bool,
    lcase: bool,
    swab: bool,
    excl: bool,
    nocreat: bool,
    fullblock: bool,
    skip_bytes: bool,
    count_bytes: bool,
    seek_bytes: bool,
    append: bool,
    /// `status=`: 0 none, 1 noxfer, 2 the default, 3 progress.
    status: u8,
}

/// Largest block size accepted (GNU's own limit is larger; ours keeps memory bounded).
const MAX_BLOCK: usize = 64 * 1024 * 1024;

/// A size operand: digits with an optional suffix (`c`, `w`, `b`, `kB`, `K`, `MB`, `M`, ...;
/// `xM` means `M`), and products of them (`2x3`).
fn size(text: &str) -> Option<u64> {
    text.split('x').try_fold(1u64, |acc, part| {
        let end = part
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(part.len());
        let n: u64 = part[..end].parse().ok()?;
        let mult: u64 = match &part[end..] {
            "" | "c" => 1,
            "w" => 2,
            "b" => 512,
            suffix => {
                let (letter, rest) = suffix.split_at(1);
                let power = "KMGTPE".find(letter.to_ascii_uppercase().as_str())? as u32 + 1;
                let base: u64 = match rest {
                    "" | "iB" => 1024,
                    "B" => 1000,
                    _ => return None,
                };
                base.checked_pow(power)?
            }
        };
        acc.checked_mul(n.checked_mul(mult)?)
    })
}

fn parse(argv: &[String]) -> Result<Job, String> {
    let mut job = Job {
        ibs: 512,
        obs: 512,
        status: 2,
        ..Job::default()
    };
    let invalid = |v: &str| format!("invalid number: '{v}'");
    // `--` may end the (absent) options.
    let skip = usize::from(argv.get(1).is_some_and(|a| a == "--"));
    for arg in &argv[1 + skip..] {
        let Some((key, v)) = arg.split_once('=') else {
            return Err(format!(
                "unrecognized operand '{arg}'\nTry 'dd --help' for more information."
            ));
        };
        let block = |v: &str| -> Result<usize, String> {
            match size(v) {
                Some(0) | None => Err(invalid(v)),
                Some(n) if n > MAX_BLOCK as u64 => Err(format!(
                    "invalid number: '{v}': the block size limit is {} MiB",
                    MAX_BLOCK >> 20
                )),
                Some(n) => Ok(n as usize),
            }
        };
        let number = |v: &str| size(v).ok_or_else(|| invalid(v));
        match key {
            "if" => job.input = Some(v.to_string()),
            "of" => job.output = Some(v.to_string()),
            "bs" => {
                job.ibs = block(v)?;
                job.obs = job.ibs;
                job.bs = true;
            }
            "ibs" => job.ibs = block(v)?,
            "obs" => job.obs = block(v)?,
            "cbs" => {
                block(v)?;
            }
            "count" => job.count = Some(number(v)?),
            "skip" | "iseek" => job.skip = number(v)?,
            "seek" | "oseek" => job.seek = number(v)?,
            "conv" | "iflag" | "oflag" => {
                for flag in v.split(',') {
                    match (key, flag) {
                        ("conv", "notrunc") => job.notrunc = true,
                        ("conv", "sync") => job.sync = true,
                        ("conv", "noerror") => job.noerror = true,
                        ("conv", "ucase") => job.ucase = true,
                        ("conv", "lcase") => job.lcase = true,
                        ("conv", "swab") => job.swab = true,
                        ("conv", "excl") => job.excl = true,
                        ("conv", "nocreat") => job.nocreat = true,
                        ("conv", "fsync" | "fdatasync" | "sparse") => {}
                        ("iflag", "fullblock") => job.fullblock = true,
                        ("iflag", "skip_bytes") => job.skip_bytes = true,
                        ("iflag", "count_bytes") => job.count_bytes = true,
                        ("oflag", "seek_bytes") => job.seek_bytes = true,
                        ("oflag", "append") => job.append = true,
                        (
                            _,
                            "direct" | "dsync" | "sync" | "nocache" | "noatime" | "nonblock"
                            | "binary" | "text" | "noctty" | "nofollow" | "directory",
                        ) => {}
                        _ => {
                            let what = match key {
                                "conv" => "conversion",
                                "iflag" => "input flag",
                                _ => "output flag",
                            };
                            return Err(format!(
                                "invalid {what}: '{flag}'\nTry 'dd --help' for more information."
                            ));
                        }
                    }
                }
            }
            "status" => {
                job.status = match v {
                    "none" => 0,
                    "noxfer" => 1,
                    "progress" => 3,
                    _ => {
                        return Err(format!(
                            "invalid status level: '{v}'\nTry 'dd --help' for more information."
                        ));
                    }
                }
            }
            _ => {
                return Err(format!(
                    "unrecognized operand '{arg}'\nTry 'dd --help' for more information."
                ));
            }
        }
    }
    if job.ucase && job.lcase {
        return Err("cannot combine lcase and ucase".into());
    }
    if job.excl && job.nocreat {
        return Err("cannot combine excl and nocreat".into());
    }
    Ok(job)
}

/// Where blocks come from: a file (seekable) or stdin.
enum Source {
    File(std::fs::File),
    Stream(Buffered),
}

impl Source {
    /// One read of up to `n` bytes (a pipe may give fewer; a file gives fewer only at its end).
    async fn read(&mut self, n: usize) -> std::io::Result<Vec<u8>> {
        match self {
            Source::File(f) => {
                let mut buf = vec![0; n];
                let mut got = 0;
                while got < n {
                    match f.read(&mut buf[got..])? {
                        0 => break,
                        k => got += k,
                    }
                }
                buf.truncate(got);
                Ok(buf)
            }
            Source::Stream(b) => {
                if b.pending().is_empty() && !b.at_eof() {
                    b.fill().await?;
                }
                let take = b.pending().len().min(n);
                let data = b.pending()[..take].to_vec();
                b.consume(take);
                Ok(data)
            }
        }
    }

    /// A read of exactly `n` bytes unless the input ends (`iflag=fullblock`).
    async fn read_full(&mut self, n: usize) -> std::io::Result<Vec<u8>> {
        let mut data = self.read(n).await?;
        while data.len() < n {
            let more = self.read(n - data.len()).await?;
            if more.is_empty() {
                break;
            }
            data.extend(more);
        }
        Ok(data)
    }
}

/// Where blocks go.
enum Sink {
    File(std::fs::File),
    Stdout(Writer),
}

/// Whole and partial records, as the statistics count them.
#[derive(Default)]
struct Records {
    full: u64,
    partial: u64,
}

impl Records {
    fn add(&mut self, len: usize, block: usize) {
        if len == block {
            self.full += 1;
        } else {
            self.partial += 1;
        }
    }
}

/// `dd [OPERAND]...`.
pub async fn dd(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let job = match parse(argv) {
        Ok(j) => j,
        Err(m) => return complain(sh, &format!("dd: {m}")).await,
    };
    let started = std::time::Instant::now();
    let mut source = match &job.input {
        None => Source::Stream(Buffered::new(sh.io().stdin.clone())),
        Some(name) => match std::fs::File::open(sh.path(name)) {
            Ok(f) => Source::File(f),
            Err(e) => {
                let m = format!("dd: failed to open '{name}': {}", io_message(&e));
                return complain(sh, &m).await;
            }
        },
    };
    let mut sink = match &job.output {
        None => Sink::Stdout(Writer::new(&sh.io().stdout)),
        Some(name) => {
            let mut o = std::fs::OpenOptions::new();
            o.write(true);
            if job.append {
                o.append(true);
            }
            if job.excl {
                o.create_new(true);
            } else if !job.nocreat {
                o.create(true);
            }
            match o.open(sh.path(name)) {
                Ok(f) => Sink::File(f),
                Err(e) => {
                    let m = format!("dd: failed to open '{name}': {}", io_message(&e));
                    return complain(sh, &m).await;
                }
            }
        }
    };
    // Skip input: by seeking a file, by reading a stream.
    let skip = if job.skip_bytes {
        job.skip
    } else {
        job.skip.saturating_mul(job.ibs as u64)
    };
    if skip > 0 {
        let skipped = match &mut source {
            Source::File(f) => f.seek(SeekFrom::Start(skip)).map(|_| ()),
            Source::Stream(_) => {
                let mut left = skip;
                let mut result = Ok(());
                while left > 0 {
                    match source.read(left.min(65536) as usize).await {
                        Ok(d) if d.is_empty() => break,
                        Ok(d) => left -= d.len() as u64,
                        Err(e) => {
                            result = Err(e);
                            break;
                        }
                    }
                }
                result
            }
        };
        if let Err(e) = skipped {
            let name = job.input.as_deref().unwrap_or("standard input");
            return complain(
                sh,
                &format!("dd: '{name}': cannot skip: {}", io_message(&e)),
            )
            .await;
        }
    }
    let seek = if job.seek_bytes {
        job.seek
    } else {
        job.seek.saturating_mul(job.obs as u64)
    };
    if let Sink::File(f) = &mut sink {
        let prepared = if job.notrunc || job.append {
            Ok(())
        } else {
            f.set_len(seek)
        };
        if let Err(e) = prepared.and_then(|()| f.seek(SeekFrom::Start(seek)).map(|_| ())) {
            let name = job.output.as_deref().unwrap_or_default();
            return complain(
                sh,
                &format!("dd: '{name}': cannot seek: {}", io_message(&e)),
            )
            .await;
        }
    } else if seek > 0 {
        // Standard output is a stream here, and a stream cannot seek.
        return complain(sh, "dd: 'standard output': cannot seek: Illegal seek").await;
    }
    let (mut rin, mut rout) = (Records::default(), Records::default());
    let mut bytes: u64 = 0;
    let mut pending: Vec<u8> = Vec::new();
    let mut failure = None;
    let mut read_total: u64 = 0;
    loop {
        let want = match job.count {
            Some(c) if job.count_bytes => {
                if read_total >= c {
                    break;
                }
                (c - read_total).min(job.ibs as u64) as usize
            }
            Some(c) if rin.full + rin.partial >= c => break,
            _ => job.ibs,
        };
        let read = if job.fullblock {
            source.read_full(want).await
        } else {
            source.read(want).await
        };
        let mut block = match read {
            Ok(b) => b,
            Err(e) => {
                failure = Some(format!(
                    "dd: error reading '{}': {}",
                    job.input.as_deref().unwrap_or("standard input"),
                    io_message(&e)
                ));
                break;
            }
        };
        if block.is_empty() {
            break;
        }
        read_total += block.len() as u64;
        rin.add(block.len(), job.ibs);
        if job.sync && block.len() < job.ibs {
            block.resize(job.ibs, 0);
        }
        if job.swab {
            for pair in block.chunks_exact_mut(2) {
                pair.swap(0, 1);
            }
        }
        if job.ucase {
            block.make_ascii_uppercase();
        } else if job.lcase {
            block.make_ascii_lowercase();
        }
        if job.bs {
            if let Err(m) = put(&mut sink, &block, &job).await {
                failure = Some(m);
                break;
            }
            rout.add(block.len(), job.obs);
            bytes += block.len() as u64;
            continue;
        }
        pending.extend(block);
        while pending.len() >= job.obs {
            let rest = pending.split_off(job.obs);
            if let Err(m) = put(&mut sink, &pending, &job).await {
                failure = Some(m);
                break;
            }
            rout.full += 1;
            bytes += job.obs as u64;
            pending = rest;
        }
        if failure.is_some() {
            break;
        }
    }
    if failure.is_none() && !pending.is_empty() {
        match put(&mut sink, &pending, &job).await {
            Ok(()) => {
                rout.partial += 1;
                bytes += pending.len() as u64;
            }
            Err(m) => failure = Some(m),
        }
    }
    let flushed = match &mut sink {
        Sink::Stdout(w) => w.flush().await.map_err(|Stop(s)| s),
        Sink::File(f) => f.flush().map_err(|_| 1),
    };
    let mut report = Vec::new();
    if let Some(m) = &failure {
        report.push(m.clone());
    }
    if job.status >= 1 {
        report.push(format!("{}+{} records in", rin.full, rin.partial));
        report.push(format!("{}+{} records out", rout.full, rout.partial));
    }
    if job.status >= 2 {
        report.push(transfer(bytes, started.elapsed().as_secs_f64()));
    }
    if !report.is_empty() {
        complain(sh, &report.join("\n")).await;
    }
    match flushed {
        Err(s) => s,
        Ok(()) => i32::from(failure.is_some()),
    }
}

async fn put(sink: &mut Sink, data: &[u8], job: &Job) -> Result<(), String> {
    match sink {
        Sink::Stdout(w) => w
            .write(data)
            .await
            .map_err(|_| "dd: error writing 'standard output': Broken pipe".to_string()),
        Sink::File(f) => f.write_all(data).map_err(|e| {
            format!(
                "dd: error writing '{}': {}",
                job.output.as_deref().unwrap_or_default(),
                io_message(&e)
            )
        }),
    }
}

/// GNU's last line: `N bytes (S, I) copied, T s, R/s`.
fn transfer(bytes: u64, secs: f64) -> String {
    let human = |n: f64, base: f64, units: &[&str]| -> String {
        let mut v = n;
        let mut i = 0;
        while v >= base && i + 1 < units.len() {
            v /= base;
            i += 1;
        }
        if v < 10.0 && i > 0 {
            format!("{v:.1} {}", units[i])
        } else {
            format!("{v:.0} {}", units[i])
        }
    };
    let si = ["B", "kB", "MB", "GB", "TB", "PB", "EB"];
    let iec = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let amount = if bytes >= 1000 {
        format!(
            "{bytes} bytes ({}, {}) copied",
            human(bytes as f64, 1000.0, &si),
            human(bytes as f64, 1024.0, &iec)
        )
    } else if bytes == 1 {
        "1 byte copied".to_string()
    } else {
        format!("{bytes} bytes copied")
    };
    let rate = if secs > 0.0 {
        format!("{}/s", human(bytes as f64 / secs, 1000.0, &si))
    } else {
        "Infinity B/s".to_string()
    };
    format!("{amount}, {secs:.6} s, {rate}")
}

#[cfg(all(test, unix))]
mod tests {
    use super::size;
    use crate::testing::Native;

    #[test]
    fn sizes_and_blocks() {
        assert_eq!(size("2x3"), Some(6));
        assert_eq!(size("1K"), Some(1024));
        assert_eq!(size("1kB"), Some(1000));
        assert_eq!(size("2b"), Some(1024));
        assert_eq!(size("1M"), Some(1 << 20));
        assert_eq!(size("x"), None);
        let mut ctx = Native::new();
        ctx.write("hw", "hello world\n");
        let ran = ctx.run(&["dd", "if=hw", "bs=4", "count=2", "status=noxfer"], "");
        assert_eq!(ran.stdout, "hello wo");
        assert_eq!(ran.stderr, "2+0 records in\n2+0 records out\n");
    }
}
