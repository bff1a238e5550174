//! What commands read and write with: files or stdin as a stream of lines or chunks, and a
//! buffered writer to stdout that reports a closed pipe (status 141, as SIGPIPE).

use std::cell::RefCell;
use std::rc::Rc;

use shell_base::Context;
pub use shell_base::context::{complain, out};
use shell_base::errno::io_message;
use shell_base::io::{Input, Output};
pub use shell_base::io::{MEMORY_LIMIT, read_all_limited};

/// A closed pipe or a failed write: the command stops with this status.
pub struct Stop(pub i32);

/// Buffered output to a stream, flushed in 64 KiB blocks and at the end.
pub struct Writer {
    out: Output,
    buf: Vec<u8>,
}

const BLOCK: usize = 64 * 1024;

impl Writer {
    pub fn new(out: &Output) -> Writer {
        Writer {
            out: out.clone(),
            buf: Vec::with_capacity(BLOCK),
        }
    }

    pub async fn write(&mut self, data: &[u8]) -> Result<(), Stop> {
        self.buf.extend_from_slice(data);
        if self.buf.len() >= BLOCK {
            self.flush().await?;
        }
        Ok(())
    }

    pub async fn write_str(&mut self, s: &str) -> Result<(), Stop> {
        self.write(s.as_bytes()).await
    }

    pub async fn flush(&mut self) -> Result<(), Stop> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let data = std::mem::take(&mut self.buf);
        match self.out.write_all(&data).await {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Err(Stop(141)),
            Err(_) => Err(Stop(1)),
        }
    }
}

/// An input read ahead into a buffer: `pending` is what is read and not yet used, `consume`
/// uses some, `fill` reads more. Lines and awk's records are cut from it.
pub struct Buffered {
    input: Input,
    buf: Vec<u8>,
    pos: usize,
    eof: bool,
}

impl Buffered {
    pub fn new(input: Input) -> Buffered {
        Buffered {
            input,
            buf: Vec::new(),
            pos: 0,
            eof: false,
        }
    }

    pub fn pending(&self) -> &[u8] {
        &self.buf[self.pos..]
    }

    pub fn consume(&mut self, n: usize) {
        self.pos = (self.pos + n).min(self.buf.len());
    }

    /// Whether the input has ended (what is pending is all there is).
    pub fn at_eof(&self) -> bool {
        self.eof
    }

    /// Reads another chunk; fails when what is pending (one line or record) passes the memory
    /// limit, naming it.
    pub async fn fill(&mut self) -> std::io::Result<()> {
        if self.pos > 0 {
            self.buf.drain(..self.pos);
            self.pos = 0;
        }
        let chunk = self.input.read().await?;
        if chunk.is_empty() {
            self.eof = true;
        }
        if self.buf.len() + chunk.len() > MEMORY_LIMIT {
            return Err(std::io::Error::other(format!(
                "a line or record longer than the {} MiB a command may hold in memory",
                MEMORY_LIMIT >> 20
            )));
        }
        self.buf.extend_from_slice(&chunk);
        Ok(())
    }
}

/// Two inputs read in step, to compare them a stretch at a time without holding either
/// (`cmp`, and `diff` before it reads whole files). An error says which side it came from.
pub struct InStep {
    sides: [Buffered; 2],
}

impl InStep {
    pub fn new(a: Input, b: Input) -> InStep {
        InStep {
            sides: [Buffered::new(a), Buffered::new(b)],
        }
    }

    /// Reads side `side` until it holds something or has ended.
    async fn ready(&mut self, side: usize) -> Result<(), (usize, std::io::Error)> {
        let s = &mut self.sides[side];
        while s.pending().is_empty() && !s.at_eof() {
            s.fill().await.map_err(|e| (side, e))?;
        }
        Ok(())
    }

    /// The next `n` bytes of side `side` (fewer where it ends first), left to be read.
    pub async fn peek(&mut self, side: usize, n: usize) -> Result<&[u8], (usize, std::io::Error)> {
        let s = &mut self.sides[side];
        while s.pending().len() < n && !s.at_eof() {
            s.fill().await.map_err(|e| (side, e))?;
        }
        Ok(&s.pending()[..n.min(s.pending().len())])
    }

    /// Reads and drops up to `n` bytes of side `side` (fewer where it ends first).
    pub async fn skip(&mut self, side: usize, mut n: u64) -> Result<(), (usize, std::io::Error)> {
        while n > 0 {
            self.ready(side).await?;
            let s = &mut self.sides[side];
            if s.pending().is_empty() {
                break;
            }
            let k = s
                .pending()
                .len()
                .min(usize::try_from(n).unwrap_or(usize::MAX));
            s.consume(k);
            n -= k as u64;
        }
        Ok(())
    }

    /// The next stretch of both sides, of one length, and past it; empty once either has
    /// ended ([`InStep::ended`] says which).
    pub async fn next(&mut self) -> Result<(&[u8], &[u8]), (usize, std::io::Error)> {
        self.ready(0).await?;
        self.ready(1).await?;
        let [a, b] = &mut self.sides;
        let n = a.pending().len().min(b.pending().len());
        let (x, y) = (a.pos, b.pos);
        a.consume(n);
        b.consume(n);
        Ok((&a.buf[x..x + n], &b.buf[y..y + n]))
    }

    /// Whether side `side` has nothing more.
    pub fn ended(&self, side: usize) -> bool {
        let s = &self.sides[side];
        s.pending().is_empty() && s.at_eof()
    }
}

/// Lines of an input (each with its `\n`, the last one perhaps without).
pub struct Lines {
    input: Buffered,
    delim: u8,
}

impl Lines {
    pub fn new(input: Input) -> Lines {
        Lines::with_delimiter(input, b'\n')
    }

    /// Records ending in `delim` (`\0` for `-z` options).
    pub fn with_delimiter(input: Input, delim: u8) -> Lines {
        Lines {
            input: Buffered::new(input),
            delim,
        }
    }

    /// Skips the complete lines read ahead that cannot hold `needle`: those before the line
    /// of its first occurrence, or all of them. How many lines and bytes were skipped.
    pub fn skip_lines_without(&mut self, needle: &[u8]) -> (u64, u64) {
        let rest = self.input.pending();
        let before = match memchr::memmem::find(rest, needle) {
            Some(at) => &rest[..at],
            None => rest,
        };
        let Some(last) = memchr::memrchr(self.delim, before) else {
            return (0, 0);
        };
        let lines = memchr::memchr_iter(self.delim, &before[..=last]).count() as u64;
        self.input.consume(last + 1);
        (lines, last as u64 + 1)
    }

    /// How many bytes were read past the lines handed out.
    pub fn read_ahead(&self) -> usize {
        self.input.pending().len()
    }

    /// The next line, or `None` at the end.
    pub async fn next(&mut self) -> std::io::Result<Option<Vec<u8>>> {
        loop {
            let rest = self.input.pending();
            if let Some(i) = rest.iter().position(|b| *b == self.delim) {
                let line = rest[..=i].to_vec();
                self.input.consume(i + 1);
                return Ok(Some(line));
            }
            if self.input.at_eof() {
                if rest.is_empty() {
                    return Ok(None);
                }
                let line = rest.to_vec();
                self.input.consume(line.len());
                return Ok(Some(line));
            }
            self.input.fill().await?;
        }
    }
}

/// Opens `name` for reading (`-` is standard input); the error is `NAME: message`.
pub fn open(sh: &dyn Context, name: &str) -> Result<Input, String> {
    match name {
        "-" | "/dev/stdin" => return Ok(sh.io().stdin.clone()),
        "/dev/null" => return Ok(Input::Null),
        _ => {}
    }
    // Open first, then ask the open file what it is: one path lookup, not two.
    let path = sh.path(name);
    let file = match std::fs::File::open(&path) {
        Ok(f) => f,
        // `/usr/bin/env` and the like read as a note that the command is built in.
        Err(_) if standard_path(sh, name).is_some() => {
            let base = name.rsplit('/').next().unwrap_or(name);
            let text = shell_base::registry::standard_file_text(base).into_bytes();
            return Ok(Input::Bytes(Rc::new(RefCell::new(std::io::Cursor::new(
                text,
            )))));
        }
        Err(e) => return Err(format!("{name}: {}", io_message(&e))),
    };
    if file.metadata().is_ok_and(|m| m.is_dir()) {
        return Err(format!("{name}: Is a directory"));
    }
    Ok(Input::File(Rc::new(RefCell::new(file))))
}

/// For `/usr/bin/NAME` and the like: NAME, when the shell has it built in.
pub fn standard_path<'p>(sh: &dyn Context, path: &'p str) -> Option<&'p str> {
    shell_base::registry::standard_path(path, |n| sh.has_command(n) || sh.is_builtin(n))
}

/// The names in directory `dir`, sorted by bytes (names that are not UTF-8 are left out).
pub fn sorted_names(dir: &std::path::Path) -> std::io::Result<Vec<String>> {
    shell_base::dir::names(dir)
}

/// All of file `name` (stdin for `-`), held to [`MEMORY_LIMIT`]; a message starts `cmd: `.
pub async fn read_file(sh: &dyn Context, cmd: &str, name: &str) -> Result<Vec<u8>, String> {
    let input = open(sh, name).map_err(|m| format!("{cmd}: {m}"))?;
    read_all_limited(&input, MEMORY_LIMIT, cmd).await
}

/// Reads file `name` (stdin for `-`) a chunk at a time into `take`, holding none of it; a
/// message starts `cmd: `.
pub async fn read_chunks(
    sh: &dyn Context,
    cmd: &str,
    name: &str,
    mut take: impl FnMut(&[u8]),
) -> Result<(), String> {
    let input = open(sh, name).map_err(|m| format!("{cmd}: {m}"))?;
    loop {
        let chunk = input
            .read()
            .await
            .map_err(|e| format!("{cmd}: {name}: {}", io_message(&e)))?;
        if chunk.is_empty() {
            return Ok(());
        }
        take(&chunk);
    }
}

/// Operands (`-` for stdin when there are none).
pub fn files_or_stdin(files: Vec<String>) -> Vec<String> {
    if files.is_empty() {
        vec!["-".into()]
    } else {
        files
    }
}

/// A size operand: decimal, `0x` hex, `0` octal, with GNU's suffixes (`k`, `K`, `M`, ...),
/// as much as memory can index ([`parse_count`] for offsets in files).
pub fn parse_size(text: &str) -> Option<usize> {
    usize::try_from(parse_count(text)?).ok()
}

/// [`parse_size`] for a count of bytes in a file, which may pass what a 32-bit guest's memory
/// can index.
pub fn parse_count(text: &str) -> Option<u64> {
    let t = text.trim();
    let (digits, mult) = match t
        .char_indices()
        .find(|(_, c)| c.is_ascii_alphabetic() && !t.starts_with("0x"))
    {
        Some((i, _)) => {
            let m: u64 = match &t[i..] {
                "b" => 512,
                "k" | "K" | "KiB" => 1 << 10,
                "kB" | "KB" => 1000,
                "m" | "M" | "MiB" => 1 << 20,
                "MB" => 1_000_000,
                "G" | "GiB" => 1 << 30,
                "GB" => 1_000_000_000,
                "T" | "TiB" => 1 << 40,
                "TB" => 1_000_000_000_000,
                "P" | "PiB" => 1 << 50,
                "E" | "EiB" => 1 << 60,
                _ => return None,
            };
            (&t[..i], m)
        }
        None => (t, 1),
    };
    let v = if let Some(h) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        u64::from_str_radix(h, 16).ok()?
    } else if digits.len() > 1 && digits.starts_with('0') {
        u64::from_str_radix(&digits[1..], 8).ok()?
    } else {
        digits.parse().ok()?
    };
    v.checked_mul(mult)
}
