//! `nl`: number lines of files.

use super::stream::{Lines, Stop, Writer, complain, files_or_stdin, open};
use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{bad_usage, number, parser, string, value};

/// `nl [-b a|t] [-w N] [-s SEP] [FILE]`.
pub async fn nl(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let mut all = false;
    let mut width = 6usize;
    let mut sep = "\t".to_string();
    // `-n ln|rn|rz`, `-v START`, `-i INCREMENT`.
    let mut format = "rn".to_string();
    let (mut start, mut step) = (1i64, 1i64);
    let mut files = Vec::new();
    let mut p = parser(argv);
    let parsed: Result<(), lexopt::Error> = (|| {
        while let Some(arg) = p.next()? {
            match arg {
                Short('b') | Long("body-numbering") => all = value(&mut p)? == "a",
                Short('w') | Long("number-width") => {
                    width = number(&value(&mut p)?, "line number field width")?
                }
                Short('s') | Long("number-separator") => sep = value(&mut p)?,
                Short('n') | Long("number-format") => format = value(&mut p)?,
                Short('v') | Long("starting-line-number") => {
                    start = number(&value(&mut p)?, "starting line number")?
                }
                Short('i') | Long("line-increment") => {
                    step = number(&value(&mut p)?, "line number increment")?
                }
                Value(v) => files.push(string(v)),
                _ => return Err(arg.unexpected()),
            }
        }
        Ok(())
    })();
    if let Err(e) = parsed {
        return bad_usage(sh, "nl", e, 1).await;
    }
    let files = files_or_stdin(files);
    let mut w = Writer::new(&sh.io().stdout);
    let mut n = start;
    let mut status = 0;
    for f in files {
        let input = match open(sh, &f) {
            Ok(i) => i,
            Err(m) => {
                status = complain(sh, &format!("nl: {m}")).await;
                continue;
            }
        };
        let mut lines = Lines::new(input);
        while let Ok(Some(line)) = lines.next().await {
            let blank = line == b"\n" || line.is_empty();
            // Unnumbered lines get blanks where the number and separator would be.
            let prefix = if blank && !all {
                " ".repeat(width + sep.chars().count())
            } else {
                let number = match format.as_str() {
                    "ln" => format!("{n:<width$}"),
                    "rz" => format!("{n:0>width$}"),
                    _ => format!("{n:>width$}"),
                };
                n += step;
                format!("{number}{sep}")
            };
            if let Err(Stop(s)) = w.write_str(&prefix).await {
                return s;
            }
            if let Err(Stop(s)) = w.write(&line).await {
                return s;
            }
        }
    }
    match w.flush().await {
        Ok(()) => status,
        Err(Stop(s)) => s,
    }
}

#[cfg(all(test, unix))]
mod tests {

    use crate::testing::stdout_of;

    #[test]
    fn numbers_non_empty_lines() {
        assert_eq!(
            stdout_of(&["nl"], "a\n\nb\n"),
            "     1\ta\n       \n     2\tb\n"
        );
    }
}
