//! Laying text out: `column -t`, `expand`, `unexpand`, `fmt`, `join`, `split`.

use super::stream::{
    Lines, MEMORY_LIMIT, Stop, Writer, complain, files_or_stdin, invalid_option, open,
    read_all_limited,
};
use crate::exec::Interp;

/// All lines of the inputs (without their newlines).
async fn read_lines(sh: &Interp<'_>, cmd: &str, files: Vec<String>) -> Result<Vec<String>, i32> {
    let mut lines = Vec::new();
    for f in files_or_stdin(files) {
        let input = match open(sh, &f) {
            Ok(i) => i,
            Err(m) => return Err(complain(sh, &format!("{cmd}: {m}")).await),
        };
        let data = match read_all_limited(&input, MEMORY_LIMIT, &format!("{cmd}: {f}")).await {
            Ok(d) => d,
            Err(m) => return Err(complain(sh, &m).await),
        };
        let text = String::from_utf8_lossy(&data);
        lines.extend(text.lines().map(str::to_string));
    }
    Ok(lines)
}

async fn write_all(sh: &Interp<'_>, text: &str) -> i32 {
    let mut w = Writer::new(&sh.io.stdout);
    match w.write_str(text).await {
        Ok(()) => match w.flush().await {
            Ok(()) => 0,
            Err(Stop(s)) => s,
        },
        Err(Stop(s)) => s,
    }
}

/// `column -t [-s SEPARATORS] [-o OUTPUT_SEPARATOR] [FILE...]` (table mode; without `-t`,
/// the lines are put in columns across 80 characters).
pub async fn column(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let (mut table, mut seps, mut out_sep) = (false, None::<String>, "  ".to_string());
    let mut files = Vec::new();
    let mut i = 1;
    while i < argv.len() {
        let a = argv[i].as_str();
        match a {
            "-t" | "--table" => table = true,
            "-s" | "--separator" | "-o" | "--output-separator" => {
                i += 1;
                let v = argv.get(i).cloned().unwrap_or_default();
                if a.starts_with("-s") || a == "--separator" {
                    seps = Some(v);
                } else {
                    out_sep = v;
                }
            }
            s if s.starts_with("-s") => seps = Some(s[2..].to_string()),
            s if s.starts_with("-o") => out_sep = s[2..].to_string(),
            "-ts" => {
                table = true;
                i += 1;
                seps = argv.get(i).cloned();
            }
            s if s.starts_with("-t") && s.len() > 2 => {
                table = true;
                if let Some(rest) = s[2..].strip_prefix('s') {
                    seps = Some(rest.to_string());
                }
            }
            s if s.starts_with('-') && s.len() > 1 => {
                return complain(sh, &format!("column: invalid option -- '{}'", &s[1..])).await;
            }
            s => files.push(s.to_string()),
        }
        i += 1;
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

/// Tab stops from `-t N` or `-t A,B,C`.
fn tab_stops(spec: &str) -> Option<Vec<usize>> {
    let stops: Option<Vec<usize>> = spec
        .split([',', ' '])
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().ok())
        .collect();
    stops.filter(|s| !s.is_empty() && s.iter().all(|n| *n > 0))
}

/// The next tab stop after column `col`.
fn next_stop(stops: &[usize], col: usize) -> usize {
    if stops.len() == 1 {
        return (col / stops[0] + 1) * stops[0];
    }
    stops.iter().copied().find(|s| *s > col).unwrap_or(col + 1)
}

/// Options of `expand` and `unexpand`: tab stops, `-i`/`-a`, files.
fn tab_options(argv: &[String]) -> Result<(Vec<usize>, bool, Vec<String>), String> {
    let mut stops = vec![8];
    let mut flag = false;
    let mut files = Vec::new();
    let mut i = 1;
    while i < argv.len() {
        let a = argv[i].as_str();
        match a {
            "-t" | "--tabs" => {
                i += 1;
                let v = argv.get(i).cloned().unwrap_or_default();
                stops = tab_stops(&v)
                    .ok_or(format!("tab size contains invalid character(s): '{v}'"))?;
            }
            "-i" | "--initial" | "-a" | "--all" => flag = true,
            "--first-only" => flag = false,
            s if s.starts_with("--tabs=") => {
                stops = tab_stops(&s[7..]).ok_or(format!(
                    "tab size contains invalid character(s): '{}'",
                    &s[7..]
                ))?;
            }
            s if s.starts_with("-t") => {
                stops = tab_stops(&s[2..]).ok_or(format!(
                    "tab size contains invalid character(s): '{}'",
                    &s[2..]
                ))?;
            }
            s if s.starts_with('-')
                && s.len() > 1
                && s[1..].chars().all(|c| c.is_ascii_digit() || c == ',') =>
            {
                stops = tab_stops(&s[1..]).ok_or(format!("invalid tab size: '{}'", &s[1..]))?;
            }
            s if s.starts_with('-') && s.len() > 1 => {
                return Err(format!("invalid option -- '{}'", &s[1..]));
            }
            s => files.push(s.to_string()),
        }
        i += 1;
    }
    Ok((stops, flag, files))
}

/// `expand [-t N|LIST] [-i] [FILE...]`: tabs to spaces.
pub async fn expand(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let (stops, initial, files) = match tab_options(argv) {
        Ok(o) => o,
        Err(m) => return complain(sh, &format!("expand: {m}")).await,
    };
    let mut w = Writer::new(&sh.io.stdout);
    for f in files_or_stdin(files) {
        let input = match open(sh, &f) {
            Ok(i) => i,
            Err(m) => return complain(sh, &format!("expand: {m}")).await,
        };
        let mut lines = Lines::new(input);
        while let Ok(Some(line)) = lines.next().await {
            let text = String::from_utf8_lossy(&line);
            let mut out = String::with_capacity(text.len());
            let mut col = 0;
            let mut leading = true;
            for c in text.chars() {
                match c {
                    '\t' if !initial || leading => {
                        let stop = next_stop(&stops, col);
                        out.push_str(&" ".repeat(stop - col));
                        col = stop;
                    }
                    '\n' => out.push(c),
                    c => {
                        if c != ' ' && c != '\t' {
                            leading = false;
                        }
                        out.push(c);
                        col += 1;
                    }
                }
            }
            if let Err(Stop(s)) = w.write_str(&out).await {
                return s;
            }
        }
    }
    match w.flush().await {
        Ok(()) => 0,
        Err(Stop(s)) => s,
    }
}

/// `unexpand [-a] [-t N|LIST] [FILE...]`: leading (with `-a`, all) runs of blanks that
/// reach a tab stop become tabs.
pub async fn unexpand(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let (stops, mut all, files) = match tab_options(argv) {
        Ok(o) => o,
        Err(m) => return complain(sh, &format!("unexpand: {m}")).await,
    };
    // `-t` implies `-a`.
    if argv
        .iter()
        .any(|a| a.starts_with("-t") || a.starts_with("--tabs"))
    {
        all = true;
    }
    let mut w = Writer::new(&sh.io.stdout);
    for f in files_or_stdin(files) {
        let input = match open(sh, &f) {
            Ok(i) => i,
            Err(m) => return complain(sh, &format!("unexpand: {m}")).await,
        };
        let mut lines = Lines::new(input);
        while let Ok(Some(line)) = lines.next().await {
            let text = String::from_utf8_lossy(&line);
            let out = unexpand_line(&text, &stops, all);
            if let Err(Stop(s)) = w.write_str(&out).await {
                return s;
            }
        }
    }
    match w.flush().await {
        Ok(()) => 0,
        Err(Stop(s)) => s,
    }
}

fn unexpand_line(text: &str, stops: &[usize], all: bool) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut col = 0;
    // Blanks seen since the last tab stop or text.
    let mut pending = String::new();
    let mut leading = true;
    for (k, &c) in chars.iter().enumerate() {
        if (c == ' ' || c == '\t') && (leading || all) {
            if c == '\t' {
                col = next_stop(stops, col);
                pending.clear();
                out.push('\t');
                continue;
            }
            pending.push(' ');
            col += 1;
            if col == next_stop(stops, col - 1) {
                // A lone blank at a stop stays a blank unless more blanks follow it.
                let more = matches!(chars.get(k + 1), Some(' ' | '\t'));
                if pending.len() > 1 || more {
                    out.push('\t');
                } else {
                    out.push(' ');
                }
                pending.clear();
            }
            continue;
        }
        out.push_str(&pending);
        pending.clear();
        if c != '\n' {
            leading = false;
            col += 1;
        }
        out.push(c);
    }
    out.push_str(&pending);
    out
}

/// `fmt [-w WIDTH] [-s] [FILE...]`: paragraphs refilled to the width (greedily).
pub async fn fmt(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let mut width = 75usize;
    let mut split_only = false;
    let mut files = Vec::new();
    let mut i = 1;
    while i < argv.len() {
        let a = argv[i].as_str();
        match a {
            "-w" | "--width" => {
                i += 1;
                width = argv.get(i).and_then(|v| v.parse().ok()).unwrap_or(75);
            }
            "-s" | "--split-only" => split_only = true,
            s if s.starts_with("--width=") => width = s[8..].parse().unwrap_or(75),
            s if s.starts_with("-w") => width = s[2..].parse().unwrap_or(75),
            s if s.starts_with('-')
                && s.len() > 1
                && s[1..].chars().all(|c| c.is_ascii_digit()) =>
            {
                width = s[1..].parse().unwrap_or(75)
            }
            s if s.starts_with('-') && s.len() > 1 => {
                return complain(sh, &format!("fmt: invalid option -- '{}'", &s[1..])).await;
            }
            s => files.push(s.to_string()),
        }
        i += 1;
    }
    let lines = match read_lines(sh, "fmt", files).await {
        Ok(l) => l,
        Err(s) => return s,
    };
    let mut text = String::new();
    let mut paragraph: Vec<String> = Vec::new();
    let mut indent = String::new();
    let flush = |paragraph: &mut Vec<String>, indent: &str, text: &mut String| {
        let words: Vec<&str> = paragraph
            .iter()
            .flat_map(|l| l.split_whitespace())
            .collect();
        let mut line = String::new();
        for word in words {
            if !line.is_empty()
                && indent.len() + line.chars().count() + 1 + word.chars().count() > width
            {
                text.push_str(indent);
                text.push_str(&line);
                text.push('\n');
                line.clear();
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
        if !line.is_empty() {
            text.push_str(indent);
            text.push_str(&line);
            text.push('\n');
        }
        paragraph.clear();
    };
    for line in lines {
        if line.trim().is_empty() {
            flush(&mut paragraph, &indent, &mut text);
            text.push('\n');
            continue;
        }
        let this_indent: String = line.chars().take_while(|c| c.is_whitespace()).collect();
        if split_only || (!paragraph.is_empty() && this_indent != indent) {
            flush(&mut paragraph, &indent, &mut text);
        }
        if paragraph.is_empty() {
            indent = this_indent;
        }
        paragraph.push(line);
        if split_only {
            flush(&mut paragraph, &indent, &mut text);
        }
    }
    flush(&mut paragraph, &indent, &mut text);
    write_all(sh, &text).await
}

/// `join [-t CHAR] [-1 F] [-2 F] [-j F] [-a 1|2] [-v 1|2] [-e TEXT] [-o LIST] [-i] FILE1 FILE2`.
pub async fn join(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let mut sep: Option<char> = None;
    let (mut f1, mut f2) = (1usize, 1usize);
    let (mut unpaired, mut only) = (vec![false; 2], vec![false; 2]);
    let mut empty: Option<String> = None;
    let mut format: Option<Vec<(usize, usize)>> = None;
    let mut ignore_case = false;
    let mut files = Vec::new();
    let mut i = 1;
    while i < argv.len() {
        let a = argv[i].clone();
        let value = |i: &mut usize| -> String {
            if a.len() > 2 {
                a[2..].to_string()
            } else {
                *i += 1;
                argv.get(*i).cloned().unwrap_or_default()
            }
        };
        match a.get(..2).unwrap_or(&a) {
            "-t" => sep = value(&mut i).chars().next(),
            "-1" | "-2" | "-j" => {
                let v = value(&mut i);
                let Some(f) = v.parse::<usize>().ok().filter(|f| *f > 0) else {
                    return complain(sh, &format!("join: invalid field number: '{v}'")).await;
                };
                match &a[..2] {
                    "-1" => f1 = f,
                    "-2" => f2 = f,
                    _ => (f1, f2) = (f, f),
                }
            }
            "-a" | "-v" => {
                let which: usize = value(&mut i).parse().unwrap_or(0);
                if !(1..=2).contains(&which) {
                    return complain(sh, "join: invalid file number").await;
                }
                if a.starts_with("-a") {
                    unpaired[which - 1] = true;
                } else {
                    only[which - 1] = true;
                }
            }
            "-e" => empty = Some(value(&mut i)),
            "-o" => {
                let spec = value(&mut i);
                let fields: Option<Vec<(usize, usize)>> = spec
                    .split([',', ' '])
                    .filter(|s| !s.is_empty())
                    .map(|f| match f {
                        "0" => Some((0, 0)),
                        f => {
                            let (file, field) = f.split_once('.')?;
                            let file = file.parse().ok().filter(|n: &usize| (1..=2).contains(n))?;
                            let field = field.parse().ok().filter(|n: &usize| *n > 0)?;
                            Some((file, field))
                        }
                    })
                    .collect();
                match fields {
                    Some(f) => format = Some(f),
                    None => {
                        return complain(sh, &format!("join: invalid field specifier: '{spec}'"))
                            .await;
                    }
                }
            }
            "-i" => ignore_case = true,
            _ if a.starts_with('-') && a.len() > 1 => {
                return complain(
                    sh,
                    &format!(
                        "join: invalid option -- '{}'\nTry 'join --help' for more information.",
                        &a[1..]
                    ),
                )
                .await;
            }
            _ => files.push(a.clone()),
        }
        i += 1;
    }
    if files.len() != 2 {
        let msg = match files.as_slice() {
            [] => "missing operand".to_string(),
            [one] => format!("missing operand after '{one}'"),
            [_, _, extra, ..] => format!("extra operand '{extra}'"),
            _ => "missing operand".to_string(),
        };
        return complain(
            sh,
            &format!("join: {msg}\nTry 'join --help' for more information."),
        )
        .await;
    }
    let mut tables = Vec::new();
    for f in &files {
        match read_lines(sh, "join", vec![f.clone()]).await {
            Ok(l) => tables.push(l),
            Err(s) => return s,
        }
    }
    let split = |line: &str| -> Vec<String> {
        match sep {
            Some(c) => line.split(c).map(str::to_string).collect(),
            None => line.split_whitespace().map(str::to_string).collect(),
        }
    };
    let rows: Vec<Vec<Vec<String>>> = tables
        .iter()
        .map(|t| t.iter().map(|l| split(l)).collect())
        .collect();
    let keys = [f1, f2];
    let key = |row: &[String], which: usize| -> String {
        let k = row.get(keys[which] - 1).cloned().unwrap_or_default();
        if ignore_case { k.to_lowercase() } else { k }
    };
    let out_sep = sep.map(String::from).unwrap_or_else(|| " ".into());
    let fill = empty.clone().unwrap_or_default();
    let render = |left: Option<&Vec<String>>, right: Option<&Vec<String>>| -> String {
        let join_key = left
            .map(|r| r.get(keys[0] - 1).cloned().unwrap_or_default())
            .or_else(|| right.map(|r| r.get(keys[1] - 1).cloned().unwrap_or_default()))
            .unwrap_or_default();
        let mut parts = Vec::new();
        match &format {
            Some(spec) => {
                for (file, field) in spec {
                    let value = match (file, left, right) {
                        (0, _, _) => Some(join_key.clone()),
                        (1, Some(r), _) => r.get(field - 1).cloned(),
                        (2, _, Some(r)) => r.get(field - 1).cloned(),
                        _ => None,
                    };
                    parts.push(value.unwrap_or_else(|| fill.clone()));
                }
            }
            None => {
                parts.push(join_key);
                for (which, row) in [(0, left), (1, right)] {
                    if let Some(r) = row {
                        for (k, v) in r.iter().enumerate() {
                            if k != keys[which] - 1 {
                                parts.push(v.clone());
                            }
                        }
                    }
                }
            }
        }
        parts.join(&out_sep) + "\n"
    };
    let mut text = String::new();
    let (mut a, mut b) = (0, 0);
    let (left, right) = (&rows[0], &rows[1]);
    while a < left.len() || b < right.len() {
        let order = match (left.get(a), right.get(b)) {
            (Some(l), Some(r)) => key(l, 0).cmp(&key(r, 1)),
            (Some(_), None) => std::cmp::Ordering::Less,
            _ => std::cmp::Ordering::Greater,
        };
        match order {
            std::cmp::Ordering::Less => {
                if unpaired[0] || only[0] {
                    text.push_str(&render(Some(&left[a]), None));
                }
                a += 1;
            }
            std::cmp::Ordering::Greater => {
                if unpaired[1] || only[1] {
                    text.push_str(&render(None, Some(&right[b])));
                }
                b += 1;
            }
            std::cmp::Ordering::Equal => {
                // Every pairing of the lines that share this key.
                let k = key(&left[a], 0);
                let a_end = (a..left.len())
                    .find(|&x| key(&left[x], 0) != k)
                    .unwrap_or(left.len());
                let b_end = (b..right.len())
                    .find(|&x| key(&right[x], 1) != k)
                    .unwrap_or(right.len());
                if !only[0] && !only[1] {
                    for l in &left[a..a_end] {
                        for r in &right[b..b_end] {
                            text.push_str(&render(Some(l), Some(r)));
                        }
                    }
                }
                a = a_end;
                b = b_end;
            }
        }
    }
    write_all(sh, &text).await
}

/// `split [-l N | -b SIZE | -n CHUNKS] [-d] [-a LEN] [--additional-suffix=S] [FILE [PREFIX]]`.
pub async fn split(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    enum By {
        Lines(usize),
        Bytes(usize),
        Chunks(usize),
    }
    let mut by = By::Lines(1000);
    let (mut numeric, mut suffix_len, mut extra) = (false, 2usize, String::new());
    let mut operands = Vec::new();
    let mut i = 1;
    while i < argv.len() {
        let a = argv[i].clone();
        let value = |i: &mut usize| -> String {
            if a.len() > 2 && !a.starts_with("--") {
                a[2..].to_string()
            } else {
                *i += 1;
                argv.get(*i).cloned().unwrap_or_default()
            }
        };
        let bad = |what: &str, v: &str| format!("split: invalid number of {what}: '{v}'");
        match a.as_str() {
            s if s.starts_with("--additional-suffix=") => extra = s[20..].to_string(),
            "-d" | "--numeric-suffixes" => numeric = true,
            s if s.starts_with("-l") => {
                let v = value(&mut i);
                match v.parse() {
                    Ok(n) if n > 0 => by = By::Lines(n),
                    _ => return complain(sh, &bad("lines", &v)).await,
                }
            }
            s if s.starts_with("-b") => {
                let v = value(&mut i);
                match super::stream::parse_size(&v) {
                    Some(n) if n > 0 => by = By::Bytes(n),
                    _ => return complain(sh, &bad("bytes", &v)).await,
                }
            }
            s if s.starts_with("-n") => {
                let v = value(&mut i);
                match v.parse() {
                    Ok(n) if n > 0 => by = By::Chunks(n),
                    _ => return complain(sh, &bad("chunks", &v)).await,
                }
            }
            s if s.starts_with("-a") => {
                let v = value(&mut i);
                match v.parse() {
                    Ok(n) if n > 0 => suffix_len = n,
                    _ => {
                        return complain(sh, &format!("split: invalid suffix length: '{v}'")).await;
                    }
                }
            }
            s if s.starts_with('-') && s.len() > 1 => {
                return invalid_option(sh, "split", &s[1..]).await;
            }
            _ => operands.push(a.clone()),
        }
        i += 1;
    }
    let file = operands.first().cloned().unwrap_or_else(|| "-".into());
    let prefix = operands.get(1).cloned().unwrap_or_else(|| "x".into());
    let input = match open(sh, &file) {
        Ok(i) => i,
        Err(m) => return complain(sh, &format!("split: {m}")).await,
    };
    let data = match read_all_limited(&input, MEMORY_LIMIT, &format!("split: {file}")).await {
        Ok(d) => d,
        Err(m) => return complain(sh, &m).await,
    };
    let pieces: Vec<&[u8]> = match by {
        By::Bytes(n) => data.chunks(n).collect(),
        By::Chunks(n) => {
            let size = data.len() / n;
            (0..n)
                .map(|k| {
                    let start = k * size;
                    let end = if k + 1 == n { data.len() } else { start + size };
                    &data[start..end]
                })
                .collect()
        }
        By::Lines(n) => {
            let mut pieces = Vec::new();
            let mut start = 0;
            let mut count = 0;
            for (k, b) in data.iter().enumerate() {
                if *b == b'\n' {
                    count += 1;
                    if count == n {
                        pieces.push(&data[start..=k]);
                        start = k + 1;
                        count = 0;
                    }
                }
            }
            if start < data.len() {
                pieces.push(&data[start..]);
            }
            pieces
        }
    };
    for (k, piece) in pieces.iter().enumerate() {
        let Some(suffix) = suffix(k, suffix_len, numeric) else {
            return complain(sh, "split: output file suffixes exhausted").await;
        };
        let name = format!("{prefix}{suffix}{extra}");
        if let Err(e) = std::fs::write(sh.shell.path(&name), piece) {
            return complain(
                sh,
                &format!("split: {name}: {}", crate::exec::io_message(&e)),
            )
            .await;
        }
    }
    0
}

/// The `k`th suffix: `aa`, `ab`, ... (or `00`, `01`, ... with `-d`).
fn suffix(mut k: usize, len: usize, numeric: bool) -> Option<String> {
    let (base, first) = if numeric { (10, b'0') } else { (26, b'a') };
    let mut digits = vec![first; len];
    for d in digits.iter_mut().rev() {
        *d = first + (k % base) as u8;
        k /= base;
    }
    (k == 0).then(|| String::from_utf8_lossy(&digits).into_owned())
}
