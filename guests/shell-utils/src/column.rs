//! `column`: columnate lists and tables.

use crate::layout::*;
use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{bad_usage, parser, string, value};

/// `column -t [-s SEPARATORS] [-o OUTPUT_SEPARATOR] [FILE...]` (table mode; without `-t`,
/// the lines are put in columns across 80 characters).
pub async fn column(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let (mut table, mut seps, mut out_sep) = (false, None::<String>, "  ".to_string());
    let mut files = Vec::new();
    let mut p = parser(argv);
    let parsed: Result<(), lexopt::Error> = (|| {
        while let Some(arg) = p.next()? {
            match arg {
                Short('t') | Long("table") => table = true,
                Short('s') | Long("separator") => seps = Some(value(&mut p)?),
                Short('o') | Long("output-separator") => out_sep = value(&mut p)?,
                Value(v) => files.push(string(v)),
                _ => return Err(arg.unexpected()),
            }
        }
        Ok(())
    })();
    if let Err(e) = parsed {
        return bad_usage(sh, "column", e, 1).await;
    }
    let lines = match read_lines(sh, "column", files).await {
        Ok(l) => l,
        Err(s) => return s,
    };
    let split = |line: &str| -> Vec<String> {
        match &seps {
            Some(s) => line
                .split(|c: char| s.contains(c))
                .map(str::to_string)
                .collect(),
            None => line.split_whitespace().map(str::to_string).collect(),
        }
    };
    let mut text = String::new();
    if table {
        let rows: Vec<Vec<String>> = lines
            .iter()
            .filter(|l| !l.trim().is_empty())
            .map(|l| split(l))
            .collect();
        let mut widths: Vec<usize> = Vec::new();
        for row in &rows {
            for (k, cell) in row.iter().enumerate() {
                let w = cell.chars().count();
                if widths.len() <= k {
                    widths.push(w);
                } else {
                    widths[k] = widths[k].max(w);
                }
            }
        }
        for row in &rows {
            for (k, cell) in row.iter().enumerate() {
                text.push_str(cell);
                // Every column but the table's last is padded, even at a short row's end.
                if k + 1 < widths.len() {
                    let fill = widths[k] - cell.chars().count();
                    text.push_str(&" ".repeat(fill));
                    text.push_str(&out_sep);
                }
            }
            text.push('\n');
        }
    } else {
        // Fill columns first, as wide as the longest entry rounded up to a tab stop.
        let entries: Vec<&String> = lines.iter().filter(|l| !l.is_empty()).collect();
        let longest = entries.iter().map(|e| e.chars().count()).max().unwrap_or(0);
        let width = (longest / 8 + 1) * 8;
        let per_row = (80 / width.max(1)).max(1);
        let rows = entries.len().div_ceil(per_row);
        for r in 0..rows {
            let mut line = String::new();
            let mut k = r;
            while k < entries.len() {
                let e = entries[k];
                line.push_str(e);
                if k + rows < entries.len() {
                    let len = e.chars().count();
                    let stop = (len / 8 + 1) * 8;
                    let mut col = len;
                    while col < width {
                        line.push('\t');
                        col = if col < stop { stop } else { col + 8 };
                    }
                }
                k += rows;
            }
            text.push_str(&line);
            text.push('\n');
        }
    }
    write_all(sh, &text).await
}

#[cfg(all(test, unix))]
mod tests {

    use crate::testing::stdout_of;

    #[test]
    fn aligns_a_table() {
        assert_eq!(
            stdout_of(&["column", "-t"], "a bb\nccc d\n"),
            "a    bb\nccc  d\n"
        );
    }
}
