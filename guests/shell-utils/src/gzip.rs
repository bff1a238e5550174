//! `gzip`, `gunzip` and `zcat`, over the gzip [`Codec`] (flate2).

use super::stream::{MEMORY_LIMIT, Stop, Writer, complain, read_all_limited};
use crate::codec::Codec;
use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{bad_usage, parser, string};
use shell_base::errno::io_message;

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
    let name = "gzip".to_string();
    let mut out = Writer::new(&sh.io().stdout);
    if files.is_empty() {
        let data = match read_all_limited(&sh.io().stdin.clone(), MEMORY_LIMIT, &name).await {
            Ok(d) => d,
            Err(m) => return complain(sh, &m).await,
        };
        let result = if decompress {
            Codec::Gzip.decompress(&data, MEMORY_LIMIT)
        } else {
            Codec::Gzip.compress(&data, 6)
        };
        return match result {
            Ok(bytes) => match out.write(&bytes).await.and(out.flush().await) {
                Ok(()) => 0,
                Err(Stop(s)) => s,
            },
            Err(e) if e.kind() == std::io::ErrorKind::Other => {
                complain(sh, &format!("{name}: stdin: {e}")).await
            }
            Err(_) => complain(sh, &format!("{name}: stdin: not in gzip format")).await,
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
        let data = match std::fs::read(&path) {
            Ok(d) => d,
            Err(e) => {
                status = complain(sh, &format!("{name}: {f}: {}", io_message(&e))).await;
                continue;
            }
        };
        if test || list {
            let Ok(plain) = Codec::Gzip.decompress(&data, MEMORY_LIMIT) else {
                status = complain(sh, &format!("{name}: {f}: not in gzip format")).await;
                continue;
            };
            if list {
                let (c, u) = (data.len() as f64, plain.len() as f64);
                let ratio = if u == 0.0 { 0.0 } else { (u - c) / u * 100.0 };
                let stem = f.strip_suffix(".gz").unwrap_or(&f);
                let line = format!(
                    "{:>19} {:>19} {ratio:>5.1}% {stem}\n",
                    data.len(),
                    plain.len()
                );
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
        let (result, target) = if decompress {
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
            (
                Codec::Gzip.decompress(&data, MEMORY_LIMIT),
                stem.to_string(),
            )
        } else {
            (Codec::Gzip.compress(&data, 6), format!("{f}.gz"))
        };
        let bytes = match result {
            Ok(b) => b,
            // A limit, not bad data.
            Err(e) if e.kind() == std::io::ErrorKind::Other => {
                status = complain(sh, &format!("{name}: {f}: {e}")).await;
                continue;
            }
            Err(_) => {
                // GNU's decompressor starts this message on a new line.
                // (gunzip and zcat are gzip, and say so.)
                status = complain(sh, &format!("\ngzip: {f}: not in gzip format")).await;
                continue;
            }
        };
        if to_stdout {
            if let Err(Stop(s)) = out.write(&bytes).await {
                return s;
            }
            continue;
        }
        if let Err(e) = std::fs::write(sh.path(&target), &bytes) {
            status = complain(sh, &format!("{name}: {target}: {}", io_message(&e))).await;
            continue;
        }
        if !keep {
            let _ = std::fs::remove_file(&path);
        }
    }
    match out.flush().await {
        Ok(()) => status,
        Err(Stop(s)) => s,
    }
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
