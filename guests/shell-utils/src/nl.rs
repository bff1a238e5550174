//! `nl`: number lines of files.

use super::stream::{Lines, Stop, Writer, complain, files_or_stdin, open};
use shell_base::Context;

/// `nl [-b a|t] [-w N] [-s SEP] [FILE]`.
pub async fn nl(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let mut all = false;
    let mut width = 6usize;
    let mut sep = "\t".to_string();
    // `-n ln|rn|rz`, `-v START`, `-i INCREMENT`.
    let mut format = "rn".to_string();
    let (mut start, mut step) = (1i64, 1i64);
    let mut files = Vec::new();
    let mut i = 1;
    while i < argv.len() {
        let a = argv[i].as_str();
        let mut value = |inline: &str| -> String {
            if !inline.is_empty() {
                return inline.to_string();
            }
            i += 1;
            argv.get(i).cloned().unwrap_or_default()
        };
        if let Some(v) = a.strip_prefix("-b") {
            all = value(v) == "a";
        } else if let Some(v) = a.strip_prefix("-w") {
            width = value(v).parse().unwrap_or(6);
        } else if let Some(v) = a.strip_prefix("-s") {
            sep = value(v);
        } else if let Some(v) = a.strip_prefix("-n") {
            format = value(v);
        } else if let Some(v) = a.strip_prefix("-v") {
            start = value(v).parse().unwrap_or(1);
        } else if let Some(v) = a.strip_prefix("-i") {
            step = value(v).parse().unwrap_or(1);
        } else {
            files.push(a.to_string());
        }
        i += 1;
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
