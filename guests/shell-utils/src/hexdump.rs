//! `hexdump` and `hd`: inputs read and printed a row at a time.

use super::stream::{Stop, Writer, complain, parse_count};
use crate::dump::*;
use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{bad_usage, parser, plain, string, value};

/// `hexdump [-C] [-n LEN] [-s SKIP] [-v] [FILE...]`; `hd` is `hexdump -C`.
pub async fn hexdump(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let mut canonical = argv[0] == "hd";
    let (mut len, mut skip, mut all_rows) = (None, 0, false);
    let mut files = Vec::new();
    let mut p = parser(argv);
    let parsed: Result<(), lexopt::Error> = (|| {
        let size = |v: String, what: &str| {
            parse_count(&v).ok_or_else(|| plain(format!("bad {what} value")))
        };
        while let Some(arg) = p.next()? {
            match arg {
                Short('C') | Long("canonical") => canonical = true,
                Short('v') | Long("no-squeezing") => all_rows = true,
                Short('n') | Long("length") => len = Some(size(value(&mut p)?, "length")?),
                Short('s') | Long("skip") => skip = size(value(&mut p)?, "skip")?,
                Value(v) => files.push(string(v)),
                _ => return Err(arg.unexpected()),
            }
        }
        Ok(())
    })();
    if let Err(e) = parsed {
        return bad_usage(sh, "hexdump", e, 1).await;
    }
    let mut w = Writer::new(&sh.io().stdout);
    let mut rows = Rows::new(sh, "hexdump", files, skip, len);
    let mut squeeze = Squeeze::new(16, all_rows);
    while let Some(row) = rows.next(16).await {
        if squeeze.repeats(&row, &mut w).await {
            continue;
        }
        let offset = rows.offset() - row.len() as u64;
        let line = if canonical {
            let mut hexes = String::new();
            for (j, b) in row.iter().enumerate() {
                if j == 8 {
                    hexes.push(' ');
                }
                hexes.push_str(&format!("{b:02x} "));
            }
            let text: String = row.iter().map(|b| printable(*b)).collect();
            format!("{offset:08x}  {hexes:<50}|{text}|\n")
        } else {
            let words: Vec<String> = row
                .chunks(2)
                .map(|p| {
                    format!(
                        "{:04x}",
                        p[0] as u16 | (*p.get(1).unwrap_or(&0) as u16) << 8
                    )
                })
                .collect();
            format!("{offset:07x} {:<39}\n", words.join(" "))
        };
        if let Err(Stop(s)) = w.write(line.as_bytes()).await {
            return s;
        }
    }
    if !rows.opened {
        let _ = w.flush().await;
        return complain(sh, "hexdump: all input file arguments failed").await;
    }
    if rows.offset() > 0 {
        let end = rows.offset();
        let last = if canonical {
            format!("{end:08x}\n")
        } else {
            format!("{end:07x}\n")
        };
        let _ = w.write(last.as_bytes()).await;
    }
    let status = rows.status;
    finish(&mut w, status).await
}

#[cfg(all(test, unix))]
mod tests {

    use crate::testing::stdout_of;

    #[test]
    fn canonical_dump() {
        assert_eq!(
            stdout_of(&["hexdump", "-C"], "AB"),
            "00000000  41 42                                             |AB|\n00000002\n"
        );
    }
}
