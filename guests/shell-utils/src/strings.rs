//! `strings`: the printable runs of bytes in a file.

use super::stream::{Stop, Writer, complain, files_or_stdin};
use crate::dump::*;
use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{bad_usage, dashed_number, parser, plain, string, value};

/// `strings [-n MIN] [-t d|o|x] [-a] [FILE...]`: runs of printable characters.
pub async fn strings(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let (mut min, mut radix) = (4usize, None);
    let mut files = Vec::new();
    let mut p = parser(argv);
    let parsed: Result<(), lexopt::Error> = (|| {
        let length = |v: &str| match v.parse::<usize>() {
            Ok(n) if n > 0 => Ok(n),
            _ => Err(plain(format!("invalid minimum string length {v}"))),
        };
        loop {
            // `strings -8`: the historical form of `-n 8`.
            if let Some(n) = dashed_number(&mut p) {
                min = length(&n)?;
                continue;
            }
            let Some(arg) = p.next()? else { break };
            match arg {
                // The whole file is always scanned.
                Short('a') | Long("all") => {}
                Short('n') | Long("bytes") => min = length(&value(&mut p)?)?,
                Short('t') | Long("radix") => radix = value(&mut p)?.chars().next(),
                Value(v) => files.push(string(v)),
                _ => return Err(arg.unexpected()),
            }
        }
        Ok(())
    })();
    if let Err(e) = parsed {
        return bad_usage(sh, "strings", e, 1).await;
    }
    let mut w = Writer::new(&sh.io().stdout);
    let mut status = 0;
    for f in files_or_stdin(files) {
        // binutils' wording for what cannot be read.
        if f != "-" {
            let path = sh.path(&f);
            let why = match std::fs::metadata(&path) {
                Err(_) => Some(format!("strings: '{f}': No such file")),
                Ok(m) if m.is_dir() => Some(format!("strings: Warning: '{f}' is a directory")),
                Ok(_) => None,
            };
            if let Some(m) = why {
                status = complain(sh, &m).await;
                continue;
            }
        }
        let mut rows = Rows::new(sh, "strings", vec![f], 0, None);
        let mut found = Runs::new(min, radix);
        while let Some(chunk) = rows.next(CHUNK).await {
            let text = found.scan(&chunk);
            if let Err(Stop(s)) = w.write(&text).await {
                return s;
            }
        }
        if found.writing
            && let Err(Stop(s)) = w.write(b"\n").await
        {
            return s;
        }
        status = status.max(rows.status);
    }
    finish(&mut w, status).await
}

/// How much of a file `strings` reads at a time.
const CHUNK: usize = 64 * 1024;

/// The printable runs of one file, found a chunk at a time: a run is written once it is
/// long enough, and then as it goes on (a file without a newline is one long run).
struct Runs {
    min: usize,
    radix: Option<char>,
    /// The start of a run not yet long enough to write.
    run: Vec<u8>,
    start: u64,
    /// Inside a run already written.
    writing: bool,
    offset: u64,
}

impl Runs {
    fn new(min: usize, radix: Option<char>) -> Runs {
        Runs {
            min,
            radix,
            run: Vec::new(),
            start: 0,
            writing: false,
            offset: 0,
        }
    }

    /// What `chunk`, the next bytes, adds to the output.
    fn scan(&mut self, chunk: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        for &b in chunk {
            if (0x20..0x7f).contains(&b) || b == b'\t' {
                if self.writing {
                    out.push(b);
                } else {
                    if self.run.is_empty() {
                        self.start = self.offset;
                    }
                    self.run.push(b);
                    if self.run.len() >= self.min {
                        let start = self.start;
                        let prefix = match self.radix {
                            Some('d') => format!("{start:7} "),
                            Some('o') => format!("{start:7o} "),
                            Some('x') => format!("{start:7x} "),
                            _ => String::new(),
                        };
                        out.extend_from_slice(prefix.as_bytes());
                        out.append(&mut self.run);
                        self.writing = true;
                    }
                }
            } else {
                if self.writing {
                    out.push(b'\n');
                    self.writing = false;
                }
                self.run.clear();
            }
            self.offset += 1;
        }
        out
    }
}

#[cfg(all(test, unix))]
mod tests {

    use crate::testing::stdout_of;

    #[test]
    fn printable_runs() {
        assert_eq!(
            stdout_of(&["strings"], "\u{1}\u{2}hello\u{0}hi\u{0}world\n"),
            "hello\nworld\n"
        );
    }
}
