//! `gzip`, `gunzip` and `zcat`, over the gzip [`Codec`] (flate2).

use std::cell::RefCell;
use std::rc::Rc;

use super::stream::{Stop, Writer, complain};
use crate::codec::Codec;
use crate::pack::{self, Counts, Failure, Sink};
use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{bad_usage, parser, string};
use shell_base::errno::io_message;
use shell_base::io::Input;

/// `gzip [-d] [-c] [-k] [-f] [FILE...]`, `gunzip`, `zcat`.
pub async fn gzip(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let mut decompress = argv[0] == "gunzip" || argv[0] == "zcat";
    let mut to_stdout = argv[0] == "zcat";
    let mut keep = false;
    // `-t`: check the files decompress; `-l`: list their sizes.
    let (mut test, mut list) = (false, false);
    let mut files = Vec::new();
    let mut p = parser(argv);
    let parsed: Result<(), lexopt::Error> = (|| {
        while let Some(arg) = p.next()? {
            match arg {
                Short('d') | Long("decompress" | "uncompress") => decompress = true,
                Short('c') | Long("stdout" | "to-stdout") => to_stdout = true,
                Short('k') | Long("keep") => keep = true,
                Short('t') | Long("test") => test = true,
                Short('l') | Long("list") => list = true,
                // Names, times and levels change nothing that is checked here.
                Short('f' | 'n' | 'N' | 'q' | '1'..='9')
                | Long("force" | "no-name" | "name" | "quiet" | "fast" | "best") => {}
                Value(v) => files.push(string(v)),
                _ => return Err(arg.unexpected()),
            }
        }
        Ok(())
    })();
    if let Err(e) = parsed {
        return bad_usage(sh, "gzip", e, 1).await;
    }
    // gunzip and zcat are gzip, as GNU's scripts are: messages say gzip.
    let name = "gzip";
    let mut out = Writer::new(&sh.io().stdout);
    // The message for a conversion of `f` that failed; `Err`: stop with this status.
    let failed = |f: &str, target: &str, e: Failure| match e {
        Failure::Read(e) => Ok(format!("{name}: {f}: {}", io_message(&e))),
        Failure::Limit(e) => Ok(format!("{name}: {f}: {e}")),
        // GNU's decompressor starts these messages on a new line.
        Failure::Data(e) if pack::ends_early(&e) => {
            Ok(format!("\n{name}: {f}: unexpected end of file"))
        }
        Failure::Data(_) => Ok(format!("\n{name}: {f}: not in gzip format")),
        Failure::Write(e) => Ok(format!("{name}: {target}: {}", io_message(&e))),
        Failure::Said(msg) => Ok(msg),
        Failure::Stop(s) => Err(s),
    };
    if files.is_empty() {
        let input = sh.io().stdin.clone();
        let result = if decompress || test {
            let mut sink = if test {
                Sink::Nowhere
            } else {
                Sink::Out(&mut out)
            };
            match pack::reader(&input, "gzip: stdin").await {
                Ok(source) => pack::decompress(Codec::Gzip, source, &mut sink).await,
                Err(msg) => Err(Failure::Said(msg)),
            }
        } else {
            pack::compress(Codec::Gzip, 6, None, &input, &mut Sink::Out(&mut out)).await
        };
        let status = match result {
            Ok(counts) => trailing_garbage(sh, "stdin", counts).await,
            Err(e) => {
                return match failed("stdin", "stdin", e) {
                    Ok(msg) => complain(sh, &msg).await,
                    Err(s) => s,
                };
            }
        };
        return match out.flush().await {
            Ok(()) => status,
            Err(Stop(s)) => s,
        };
    }
    let mut status = 0;
    if list {
        let _ = out
            .write_str("         compressed        uncompressed  ratio uncompressed_name\n")
            .await;
    }
    for f in files {
        let path = sh.path(&f);
        let (file, size) = match pack::open(&path) {
            Ok(opened) => opened,
            Err(e) => {
                status = complain(sh, &format!("{name}: {f}: {}", io_message(&e))).await;
                continue;
            }
        };
        if test || list {
            let plain = match pack::decompress(Codec::Gzip, &file, &mut Sink::Nowhere).await {
                Ok(counts) => {
                    status = status.max(trailing_garbage(sh, &f, counts).await);
                    counts.written
                }
                Err(e) => {
                    if let Ok(msg) = failed(&f, &f, e) {
                        status = complain(sh, msg.trim_start()).await;
                    }
                    continue;
                }
            };
            if list {
                let (c, u) = (size as f64, plain as f64);
                let ratio = if u == 0.0 { 0.0 } else { (u - c) / u * 100.0 };
                let stem = f.strip_suffix(".gz").unwrap_or(&f);
                let line = format!("{size:>19} {plain:>19} {ratio:>5.1}% {stem}\n");
                if let Err(Stop(s)) = out.write_str(&line).await {
                    return s;
                }
            }
            continue;
        }
        if !decompress && !to_stdout && f.ends_with(".gz") {
            complain(
                sh,
                &format!("{name}: {f} already has .gz suffix -- unchanged"),
            )
            .await;
            continue;
        }
        let target = if decompress {
            // To standard output (`zcat`, `-c`) the name needs no suffix.
            let stem = if to_stdout { Some(f.as_str()) } else { None };
            let Some(stem) =
                stem.or_else(|| f.strip_suffix(".gz").or_else(|| f.strip_suffix(".tgz")))
            else {
                status = complain(sh, &format!("{name}: {f}: unknown suffix -- ignored"))
                    .await
                    .max(2);
                continue;
            };
            stem.to_string()
        } else {
            format!("{f}.gz")
        };
        let input = Input::File(Rc::new(RefCell::new(file)));
        let convert = async |sink: &mut Sink<'_>| {
            if decompress {
                let source = pack::reader(&input, name).await.map_err(Failure::Said)?;
                pack::decompress(Codec::Gzip, source, sink).await
            } else {
                pack::compress(Codec::Gzip, 6, Some(size), &input, sink).await
            }
        };
        let out_path = sh.path(&target);
        let result = if to_stdout {
            convert(&mut Sink::Out(&mut out)).await
        } else {
            match std::fs::File::create(&out_path) {
                Ok(made) => convert(&mut Sink::file(made)).await,
                Err(e) => Err(Failure::Write(e)),
            }
        };
        match result {
            Ok(counts) => status = status.max(trailing_garbage(sh, &f, counts).await),
            Err(e) => {
                if !to_stdout {
                    // What was made of a bad input goes, as gzip removes it.
                    let _ = std::fs::remove_file(&out_path);
                }
                match failed(&f, &target, e) {
                    Ok(msg) => status = complain(sh, &msg).await,
                    Err(s) => return s,
                }
                continue;
            }
        }
        if !to_stdout && !keep {
            let _ = std::fs::remove_file(&path);
        }
    }
    match out.flush().await {
        Ok(()) => status,
        Err(Stop(s)) => s,
    }
}

/// GNU's warning for what follows the last member but zeros: the status is 2, and what
/// was decompressed stands.
async fn trailing_garbage(sh: &mut dyn Context, name: &str, counts: Counts) -> i32 {
    if !counts.trailing_garbage {
        return 0;
    }
    let msg = format!("\ngzip: {name}: decompression OK, trailing garbage ignored");
    complain(sh, &msg).await;
    2
}

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::Native;

    #[test]
    fn compresses_and_back() {
        let mut ctx = Native::new();
        ctx.write("f", "hello\n");
        assert_eq!(ctx.run(&["gzip", "f"], "").status, 0);
        assert!(!ctx.dir().join("f").exists());
        assert_eq!(ctx.run(&["zcat", "f.gz"], "").stdout, "hello\n");
        assert_eq!(ctx.run(&["gunzip", "f.gz"], "").status, 0);
        assert_eq!(ctx.read("f"), "hello\n");
    }
}
