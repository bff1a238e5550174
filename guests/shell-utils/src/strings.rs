//! `strings`: the printable runs of bytes in a file.

use super::stream::{Stop, Writer, files_or_stdin};
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
    for f in files_or_stdin(files) {
        let data = match read_inputs(sh, "strings", vec![f], 0, None).await {
            Ok(d) => d,
            Err(s) => return s,
        };
        let mut start = 0;
        for (k, b) in data.iter().chain(std::iter::once(&0u8)).enumerate() {
            if (0x20..0x7f).contains(b) || *b == b'\t' {
                continue;
            }
            if k - start >= min {
                let text = String::from_utf8_lossy(&data[start..k]);
                let line = match radix {
                    Some('d') => format!("{start:7} {text}\n"),
                    Some('o') => format!("{start:7o} {text}\n"),
                    Some('x') => format!("{start:7x} {text}\n"),
                    _ => format!("{text}\n"),
                };
                if let Err(Stop(s)) = w.write(line.as_bytes()).await {
                    return s;
                }
            }
            start = k + 1;
        }
    }
    finish(&mut w, 0).await
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
