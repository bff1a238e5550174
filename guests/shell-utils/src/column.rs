//! `column`: columnate lists and tables, util-linux's: `-t` tables with named columns
//! (`-N`), right-aligned (`-R`) or hidden (`-H`) ones, and as JSON (`-J`).

use crate::layout::*;
use crate::stream::complain;
use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{bad_usage, parser, string, value};

/// What `-t` was asked for beyond the separators.
#[derive(Default)]
struct Table {
    names: Option<Vec<String>>,
    json: bool,
    json_name: Option<String>,
    right: Option<String>,
    hide: Option<String>,
    no_headings: bool,
}

/// `column -t [-s SEPARATORS] [-o OUTPUT_SEPARATOR] [-N NAMES] [-R COLUMNS] [-H COLUMNS]
/// [-d] [-J [-n NAME]] [FILE...]` (table mode; without `-t`, the lines are put in columns
/// across 80 characters).
pub async fn column(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let (mut table, mut seps, mut out_sep) = (false, None::<String>, "  ".to_string());
    let mut t = Table::default();
    let mut files = Vec::new();
    let mut p = parser(argv);
    let parsed: Result<(), lexopt::Error> = (|| {
        while let Some(arg) = p.next()? {
            match arg {
                Short('t') | Long("table") => table = true,
                Short('s') | Long("separator") => seps = Some(value(&mut p)?),
                Short('o') | Long("output-separator") => out_sep = value(&mut p)?,
                Short('N') | Long("table-columns") => {
                    t.names = Some(value(&mut p)?.split(',').map(str::to_string).collect());
                }
                Short('J') | Long("json") => (t.json, table) = (true, true),
                Short('n') | Long("table-name") => t.json_name = Some(value(&mut p)?),
                Short('R') | Long("table-right") => t.right = Some(value(&mut p)?),
                Short('H') | Long("table-hide") => t.hide = Some(value(&mut p)?),
                Short('d') | Long("table-noheadings") => t.no_headings = true,
                Value(v) => files.push(string(v)),
                _ => return Err(arg.unexpected()),
            }
        }
        Ok(())
    })();
    if let Err(e) = parsed {
        return bad_usage(sh, "column", e, 1).await;
    }
    if t.json && t.names.is_none() {
        return complain(sh, "column: option --table-columns required for --json").await;
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
        let mut rows: Vec<Vec<String>> = lines
            .iter()
            .filter(|l| !l.trim().is_empty())
            .map(|l| split(l))
            .collect();
        let names = t.names.clone().unwrap_or_default();
        if t.json {
            return write_all(sh, &json(&rows, &names, t.json_name.as_deref())).await;
        }
        let picked = |spec: &Option<String>| -> Vec<usize> {
            let Some(spec) = spec else { return Vec::new() };
            spec.split(',')
                .filter_map(|c| {
                    names
                        .iter()
                        .position(|n| n == c)
                        .or_else(|| c.parse::<usize>().ok()?.checked_sub(1))
                })
                .collect()
        };
        let (right, hidden) = (picked(&t.right), picked(&t.hide));
        if t.names.is_some() && !t.no_headings {
            rows.insert(0, names.clone());
        }
        let rows: Vec<Vec<(String, bool)>> = rows
            .into_iter()
            .map(|row| {
                row.into_iter()
                    .enumerate()
                    .filter(|(k, _)| !hidden.contains(k))
                    .map(|(k, cell)| (cell, right.contains(&k)))
                    .collect()
            })
            .collect();
        let mut widths: Vec<usize> = Vec::new();
        for row in &rows {
            for (k, (cell, _)) in row.iter().enumerate() {
                let w = cell.chars().count();
                if widths.len() <= k {
                    widths.push(w);
                } else {
                    widths[k] = widths[k].max(w);
                }
            }
        }
        let empty = (String::new(), false);
        for row in &rows {
            // A short row is padded through the table's columns (its last one empty), as
            // util-linux pads it.
            let upto = if row.len() < widths.len() {
                widths.len() - 1
            } else {
                row.len()
            };
            for k in 0..upto {
                let (cell, right) = row.get(k).unwrap_or(&empty);
                let fill = widths[k] - cell.chars().count();
                if *right {
                    text.push_str(&" ".repeat(fill));
                }
                text.push_str(cell);
                // Every column but the table's last is padded, even at a short row's end.
                if k + 1 < widths.len() {
                    if !*right {
                        text.push_str(&" ".repeat(fill));
                    }
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

/// `-J`: util-linux's JSON, each row an object of the named columns (a missing cell is
/// `null`), indented by three.
fn json(rows: &[Vec<String>], names: &[String], table: Option<&str>) -> String {
    if rows.is_empty() {
        return String::new();
    }
    // JSON strings as util-linux writes them: `"`, `\` and control characters escaped.
    let quote = |s: &str| serde_json::to_string(s).unwrap_or_default();
    let objects: Vec<String> = rows
        .iter()
        .map(|row| {
            let fields: Vec<String> = names
                .iter()
                .enumerate()
                .map(|(k, name)| {
                    let value = row.get(k).map_or("null".to_string(), |v| quote(v));
                    format!("         {}: {value}", quote(name))
                })
                .collect();
            format!("{{\n{}\n      }}", fields.join(",\n"))
        })
        .collect();
    format!(
        "{{\n   {}: [\n      {}\n   ]\n}}\n",
        quote(table.unwrap_or("table")),
        objects.join(",")
    )
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

    #[test]
    fn names_right_alignment_and_json() {
        let t = "a 1\nbb 22\n";
        assert_eq!(
            stdout_of(&["column", "-t", "-N", "name,num", "-R", "num"], t),
            "name  num\na       1\nbb     22\n"
        );
        assert_eq!(
            stdout_of(&["column", "-t", "-N", "name,num", "-H", "2"], t),
            "name\na\nbb\n"
        );
        assert_eq!(
            stdout_of(&["column", "-J", "-N", "x,y"], "a\n"),
            "{\n   \"table\": [\n      {\n         \"x\": \"a\",\n         \"y\": null\n      }\n   ]\n}\n"
        );
    }
}
