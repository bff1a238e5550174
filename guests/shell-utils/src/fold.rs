//! `fold`: wrap lines to a width.

use super::stream::{Lines, Stop, Writer, complain, files_or_stdin, open};
use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{bad_usage, dashed_number, number, parser, string, value};

/// `fold [-w N] [-s] [FILE...]`.
pub async fn fold(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let mut width = 80usize;
    let mut spaces = false;
    let mut files = Vec::new();
    let mut p = parser(argv);
    let columns = |v: &str| number::<usize>(v, "number of columns");
    let parsed: Result<(), lexopt::Error> = (|| {
        loop {
            // `fold -40`: the historical form of `-w 40`.
            if let Some(n) = dashed_number(&mut p) {
                width = columns(&n)?;
                continue;
            }
            let Some(arg) = p.next()? else { break };
            match arg {
                Short('s') | Long("spaces") => spaces = true,
                // Bytes and columns are the same in the C locale.
                Short('b') | Long("bytes") => {}
                Short('w') | Long("width") => width = columns(&value(&mut p)?)?,
                Value(v) => files.push(string(v)),
                _ => return Err(arg.unexpected()),
            }
        }
        Ok(())
    })();
    if let Err(e) = parsed {
        return bad_usage(sh, "fold", e, 1).await;
    }
    let width = width.max(1);
    let files = files_or_stdin(files);
    let mut w = Writer::new(&sh.io().stdout);
    for f in files {
        let input = match open(sh, &f) {
            Ok(i) => i,
            Err(m) => return complain(sh, &format!("fold: {m}")).await,
        };
        let mut lines = Lines::new(input);
        while let Ok(Some(line)) = lines.next().await {
            let (body, nl) = match line.strip_suffix(b"\n") {
                Some(b) => (b.to_vec(), true),
                None => (line.clone(), false),
            };
            let mut rest: &[u8] = &body;
            let mut out = Vec::new();
            while rest.len() > width {
                let mut cut = width;
                if spaces && let Some(p) = rest[..width].iter().rposition(|b| *b == b' ') {
                    cut = p + 1;
                }
                out.extend_from_slice(&rest[..cut]);
                out.push(b'\n');
                rest = &rest[cut..];
            }
            out.extend_from_slice(rest);
            if nl {
                out.push(b'\n');
            }
            if let Err(Stop(s)) = w.write(&out).await {
                return s;
            }
        }
    }
    match w.flush().await {
        Ok(()) => 0,
        Err(Stop(s)) => s,
    }
}

#[cfg(all(test, unix))]
mod tests {

    use crate::testing::stdout_of;

    #[test]
    fn wraps_at_the_width() {
        assert_eq!(
            stdout_of(&["fold", "-w", "3"], "abcdefg\n"),
            "abc\ndef\ng\n"
        );
    }
}
