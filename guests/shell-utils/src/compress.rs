//! `xz`/`unxz`/`xzcat`, `bzip2`/`bunzip2`/`bzcat` and `zstd`/`unzstd`/`zstdcat`: compress and
//! decompress files or stdin a block at a time ([`pack`]), in each tool's conventions (which files it
//! removes, its messages and statuses). `gzip` has its own module.

use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{bad_usage, parser, string, value};
use shell_base::errno::io_message;

use std::cell::RefCell;
use std::rc::Rc;

use shell_base::io::Input;
use shell_base::path::normalize;

use crate::codec::Codec;
use crate::pack::{self, Counts, Failure, Sink};
use crate::stream::{Stop, Writer, complain};

/// The three tools.
#[derive(Clone, Copy, PartialEq)]
enum Tool {
    Xz,
    Bzip2,
    Zstd,
}

impl Tool {
    fn codec(self) -> Codec {
        match self {
            Tool::Xz => Codec::Xz,
            Tool::Bzip2 => Codec::Bzip2,
            Tool::Zstd => Codec::Zstd,
        }
    }
}

#[derive(Default)]
struct Options {
    decompress: bool,
    stdout: bool,
    keep: bool,
    force: bool,
    test: bool,
    quiet: bool,
    level: u32,
    output: Option<String>,
}

/// Any of the nine names.
pub async fn compress(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let cmd = argv[0].clone();
    let tool = match cmd.as_str() {
        "xz" | "unxz" | "xzcat" => Tool::Xz,
        "bzip2" | "bunzip2" | "bzcat" => Tool::Bzip2,
        _ => Tool::Zstd,
    };
    let mut o = Options {
        decompress: matches!(
            cmd.as_str(),
            "unxz" | "xzcat" | "bunzip2" | "bzcat" | "unzstd" | "zstdcat"
        ),
        stdout: cmd.ends_with("cat"),
        // zstd keeps its input unless told `--rm`.
        keep: tool == Tool::Zstd,
        // Each tool's default level.
        level: match tool {
            Tool::Xz => 6,
            Tool::Bzip2 => 9,
            Tool::Zstd => 3,
        },
        ..Options::default()
    };
    let mut files = Vec::new();
    let mut p = parser(argv);
    let parsed: Result<(), lexopt::Error> = (|| {
        while let Some(arg) = p.next()? {
            match arg {
                Short('d') | Long("decompress" | "uncompress") => o.decompress = true,
                Short('z') | Long("compress") => o.decompress = false,
                Short('c') | Long("stdout" | "to-stdout") => o.stdout = true,
                Short('k') | Long("keep") => o.keep = true,
                Long("rm") => o.keep = false,
                Short('f') | Long("force") => o.force = true,
                Short('t') | Long("test") => o.test = true,
                Short('q') | Long("quiet") => o.quiet = true,
                Short(c @ '0'..='9') => o.level = c.to_digit(10).unwrap_or(6),
                Long("fast") => o.level = 1,
                Long("best") => o.level = 9,
                Short('o') if tool == Tool::Zstd => o.output = Some(value(&mut p)?),
                Short('T') | Long("threads") => {
                    value(&mut p)?;
                }
                // Verbosity, extreme presets, small memory: nothing here depends on them.
                Short('v' | 'e' | 's' | 'V')
                | Long("verbose" | "extreme" | "small" | "no-progress") => {}
                Value(v) => files.push(string(v)),
                _ => return Err(arg.unexpected()),
            }
        }
        Ok(())
    })();
    if let Err(e) = parsed {
        return bad_usage(sh, &cmd, e, 1).await;
    }
    let mut run = Run {
        sh,
        cmd: &cmd,
        tool,
        o: &o,
        status: 0,
        out: None,
    };
    if files.is_empty() || files == ["-"] {
        return run.stdin().await;
    }
    for f in &files {
        run.file(f).await;
    }
    run.finish().await
}

struct Run<'a> {
    sh: &'a mut dyn Context,
    cmd: &'a str,
    tool: Tool,
    o: &'a Options,
    status: i32,
    out: Option<Writer>,
}

impl Run<'_> {
    /// An error (status 1; bzip2's bad data is 2, as its own).
    async fn error(&mut self, msg: String, status: i32) {
        self.status = self.status.max(status);
        if !self.o.quiet || status > 1 || self.tool != Tool::Xz {
            complain(self.sh, &msg).await;
        }
    }

    async fn finish(&mut self) -> i32 {
        if let Some(out) = &mut self.out
            && let Err(Stop(s)) = out.flush().await
        {
            return s;
        }
        self.status
    }

    /// The message for data that is not in the format.
    fn not_recognised(&self, name: &str) -> (String, i32) {
        match self.tool {
            Tool::Xz => (
                format!("{}: {name}: File format not recognized", self.cmd),
                1,
            ),
            Tool::Bzip2 => (format!("{}: {name} is not a bzip2 file.", self.cmd), 2),
            Tool::Zstd => (format!("zstd: {name}: unsupported format "), 1),
        }
    }

    /// The message for a conversion that failed, and its status; `Err` with the status the
    /// command stops with when standard output is gone.
    fn failed(&self, name: &str, target: Option<&str>, f: Failure) -> Result<(String, i32), i32> {
        Ok(match f {
            Failure::Read(e) => (format!("{}: {name}: {}", self.cmd, io_message(&e)), 1),
            Failure::Limit(e) => (format!("{}: {name}: {e}", self.cmd), 1),
            Failure::Data(e) if pack::ends_early(&e) => match self.tool {
                Tool::Xz => (format!("{}: {name}: Unexpected end of input", self.cmd), 1),
                Tool::Bzip2 => {
                    let m = "Compressed file ends unexpectedly; perhaps it is corrupted?";
                    (format!("{}: {name}: {m}", self.cmd), 2)
                }
                Tool::Zstd => (format!("{name} : Read error (39) : premature end "), 1),
            },
            Failure::Data(_) => self.not_recognised(name),
            Failure::Write(e) => {
                let target = target.unwrap_or(name);
                (format!("{}: {target}: {}", self.cmd, io_message(&e)), 1)
            }
            Failure::Said(msg) => (msg, 1),
            Failure::Stop(s) => return Err(s),
        })
    }

    /// Converts `input` (`size`: how much it holds, when known) into `sink`.
    async fn convert(
        &self,
        input: Input,
        size: Option<u64>,
        sink: &mut Sink<'_>,
    ) -> Result<Counts, Failure> {
        let codec = self.tool.codec();
        if self.o.decompress || self.o.test {
            let what = format!("{}: (stdin)", self.cmd);
            let source = pack::reader(&input, &what).await.map_err(Failure::Said)?;
            pack::decompress(codec, source, sink).await
        } else {
            pack::compress(codec, self.o.level, size, &input, sink).await
        }
    }

    /// bzip2's warning for what follows its last stream (the other tools fail on it).
    async fn trailing_garbage(&mut self, name: &str, counts: Counts) {
        if counts.trailing_garbage && !self.o.quiet {
            let msg = format!("\n{}: {name}: trailing garbage after EOF ignored", self.cmd);
            complain(self.sh, &msg).await;
        }
    }

    /// Converts `input` to standard output, or nowhere for `-t`.
    async fn onto_stdout(&mut self, input: Input, size: Option<u64>) -> Result<Counts, Failure> {
        let mut out = (self.out.take()).unwrap_or_else(|| Writer::new(&self.sh.io().stdout));
        let mut sink = if self.o.test {
            Sink::Nowhere
        } else {
            Sink::Out(&mut out)
        };
        let result = self.convert(input, size, &mut sink).await;
        self.out = Some(out);
        result
    }

    async fn stdin(&mut self) -> i32 {
        let input = self.sh.io().stdin.clone();
        match self.onto_stdout(input, None).await {
            Ok(counts) => self.trailing_garbage("(stdin)", counts).await,
            Err(f) => match self.failed("(stdin)", None, f) {
                Ok((msg, status)) => self.error(msg, status).await,
                Err(s) => return s,
            },
        }
        self.finish().await
    }

    async fn file(&mut self, f: &str) {
        let suffix = self.tool.codec().suffix();
        let path = self.sh.path(f);
        let (file, size) = match pack::open(&path) {
            Ok(f) => f,
            Err(e) => {
                let why = io_message(&e);
                let msg = match self.tool {
                    Tool::Xz => format!("{}: {f}: {why}", self.cmd),
                    Tool::Bzip2 => format!("{}: Can't open input file {f}: {why}.", self.cmd),
                    Tool::Zstd => format!("zstd: can't stat {f} : {why} -- ignored "),
                };
                return self.error(msg, 1).await;
            }
        };
        let to_stdout = self.o.stdout || self.o.test;
        let target = if to_stdout {
            None
        } else if let Some(o) = &self.o.output {
            Some(o.clone())
        } else if self.o.decompress {
            match f.strip_suffix(suffix) {
                Some(stem) if !stem.is_empty() => Some(stem.to_string()),
                _ => match self.tool {
                    Tool::Xz => {
                        // xz looks at the data first.
                        let decoded = pack::decompress(Codec::Xz, &file, &mut Sink::Nowhere).await;
                        let msg = if decoded.is_err() {
                            self.not_recognised(f)
                        } else {
                            let m = format!(
                                "{}: {f}: Filename has an unknown suffix, skipping",
                                self.cmd
                            );
                            (m, 2)
                        };
                        return self.error(msg.0, msg.1).await;
                    }
                    Tool::Bzip2 => {
                        let name = format!("{f}.out");
                        let msg = format!(
                            "{}: Can't guess original name for {f} -- using {name}",
                            self.cmd
                        );
                        complain(self.sh, &msg).await;
                        Some(name)
                    }
                    Tool::Zstd => {
                        let msg = format!(
                            "zstd: {f}: unknown suffix ({suffix} expected). Can't derive the output file name. Specify it with -o dstFileName. Ignoring."
                        );
                        return self.error(msg, 1).await;
                    }
                },
            }
        } else {
            if f.ends_with(suffix) && !self.o.force {
                let msg = match self.tool {
                    Tool::Xz => {
                        format!(
                            "{}: {f}: File already has `{suffix}' suffix, skipping",
                            self.cmd
                        )
                    }
                    Tool::Bzip2 => {
                        format!("{}: Input file {f} already has {suffix} suffix.", self.cmd)
                    }
                    Tool::Zstd => String::new(),
                };
                if !msg.is_empty() {
                    let status = if self.tool == Tool::Xz { 2 } else { 1 };
                    return self.error(msg, status).await;
                }
            }
            Some(format!("{f}{suffix}"))
        };
        if let Some(t) = &target
            && !self.o.force
            && self.sh.path(t).symlink_metadata().is_ok()
        {
            let msg = match self.tool {
                Tool::Xz => format!("{}: {t}: File exists", self.cmd),
                Tool::Bzip2 => format!("{}: Output file {t} already exists.", self.cmd),
                Tool::Zstd => format!("zstd: {t} already exists; not overwritten"),
            };
            return self.error(msg, 1).await;
        }
        let input = Input::File(Rc::new(RefCell::new(file)));
        let Some(target) = target else {
            match self.onto_stdout(input, Some(size)).await {
                Ok(counts) => self.trailing_garbage(f, counts).await,
                Err(e) => match self.failed(f, None, e) {
                    Ok((msg, status)) => self.error(msg, status).await,
                    Err(s) => self.status = s,
                },
            }
            return;
        };
        let out_path = self.sh.path(&target);
        // Made, the output would empty its input before it is read (`zstd f -o f`).
        let same = |p: &std::path::Path| normalize(&p.to_string_lossy());
        if same(&out_path) == same(&path) {
            let msg = match self.tool {
                Tool::Zstd => {
                    "zstd: Refusing to open an output file which will overwrite the input file "
                        .to_string()
                }
                _ => format!("{}: {target}: the output file is the input file", self.cmd),
            };
            return self.error(msg, 1).await;
        }
        let made = match std::fs::File::create(&out_path) {
            Ok(file) => self.convert(input, Some(size), &mut Sink::file(file)).await,
            Err(e) => Err(Failure::Write(e)),
        };
        let counts = match made {
            Ok(counts) => counts,
            Err(e) => {
                // What was made of a bad input goes, as the tools remove it.
                let _ = std::fs::remove_file(&out_path);
                if let Ok((msg, status)) = self.failed(f, Some(&target), e) {
                    self.error(msg, status).await;
                }
                return;
            }
        };
        self.trailing_garbage(f, counts).await;
        // The new file keeps the old one's permission bits, as the tools do.
        if let Ok(info) = self.sh.host().stat(&path.to_string_lossy(), true) {
            let _ = self
                .sh
                .host()
                .chmod(&out_path.to_string_lossy(), info.mode & 0o7777);
        }
        if self.tool == Tool::Zstd && !self.o.quiet {
            let (from, to) = (counts.read, counts.written);
            let ratio = if from == 0 {
                0.0
            } else {
                to as f64 / from as f64 * 100.0
            };
            let line = if self.o.decompress {
                format!("{f:<20}: {to} bytes ")
            } else {
                format!("{f:<20} :{ratio:6.2}%   ({from:>6} B => {to:>6} B, {target}) ")
            };
            complain(self.sh, &line).await;
        }
        if !self.o.keep {
            let _ = std::fs::remove_file(&path);
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::Native;

    #[test]
    fn each_tool_compresses_and_back() {
        for (pack, unpack, suffix) in [
            ("xz", "unxz", "xz"),
            ("bzip2", "bunzip2", "bz2"),
            ("zstd", "unzstd", "zst"),
        ] {
            let mut ctx = Native::new();
            ctx.write("f", "hello\n");
            assert_eq!(ctx.run(&[pack, "-q", "--rm", "f"], "").status, 0, "{pack}");
            assert!(!ctx.dir().join("f").exists(), "{pack} kept its input");
            let packed = format!("f.{suffix}");
            assert_eq!(
                ctx.run(&[unpack, "-q", packed.as_str()], "").status,
                0,
                "{unpack}"
            );
            assert_eq!(ctx.read("f"), "hello\n");
        }
    }
}
