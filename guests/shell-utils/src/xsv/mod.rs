//! `xsv`: CSV tables for agents, with xsv 0.13's commands, options and output (`headers`,
//! `count`, `select`, `search`, `sort`, `slice`, `frequency`, `join`, `stats`, `table`, `fmt`),
//! on the `csv` crate as xsv itself is. Each command reads a file or stdin whole (at most the
//! memory limit) and writes CSV, or an aligned table.

mod select;
mod stats;

use std::collections::HashMap;

use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{bad_usage, parser, plain, string, usage, value};

use crate::stream::{MEMORY_LIMIT, Stop, Writer, complain, open, read_all_limited};

/// Each command's usage line, as its errors show it.
const USAGES: &[(&str, &str)] = &[
    ("count", "[options] [<input>]"),
    ("fmt", "[options] [<input>]"),
    ("frequency", "[options] [<input>]"),
    ("headers", "[options] [<input>...]"),
    ("join", "[options] <columns1> <input1> <columns2> <input2>"),
    ("search", "[options] <regex> [<input>]"),
    ("select", "[options] [--] <selection> [<input>]"),
    ("slice", "[options] [<input>]"),
    ("sort", "[options] [<input>]"),
    ("stats", "[options] [<input>]"),
    ("table", "[options] [<input>]"),
];

/// xsv's own command names, as its message for an unknown one lists them.
const VARIANTS: &str = "[\"Cat\", \"Count\", \"FixLengths\", \"Flatten\", \"Fmt\", \"Frequency\", \"Headers\", \"Help\", \"Index\", \"Input\", \"Join\", \"Partition\", \"Sample\", \"Search\", \"Select\", \"Slice\", \"Sort\", \"Split\", \"Stats\", \"Table\"]";

/// The commands, for `xsv` alone and `xsv --list`.
const COMMANDS: &[(&str, &str)] = &[
    ("count", "Count records"),
    ("fmt", "Format CSV output (change field delimiter)"),
    ("frequency", "Show frequency tables"),
    ("headers", "Show header names"),
    ("join", "Join CSV files"),
    ("search", "Search CSV data with regexes"),
    ("select", "Select columns from CSV"),
    ("slice", "Slice records from CSV"),
    ("sort", "Sort CSV data"),
    ("stats", "Compute basic statistics"),
    ("table", "Align CSV data into columns"),
];

/// Options most commands take.
struct Common {
    delimiter: u8,
    no_headers: bool,
    output: Option<String>,
}

/// A table read in: its header row (empty with `--no-headers`) and its records.
pub struct Table {
    headers: Vec<String>,
    rows: Vec<Vec<String>>,
}

/// `xsv COMMAND [OPTIONS] [ARGS]`.
pub async fn xsv(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let Some(command) = argv.get(1).cloned() else {
        return list(sh, 1).await;
    };
    if command == "--list" || command == "-h" || command == "--help" {
        return list(sh, 0).await;
    }
    if command == "--version" {
        return crate::stream::out(sh, "0.13.0\n").await;
    }
    let rest: Vec<String> = std::iter::once(format!("xsv {command}"))
        .chain(argv[2..].iter().cloned())
        .collect();
    let result = match command.as_str() {
        "count" => count(sh, &rest).await,
        "fmt" => fmt(sh, &rest).await,
        "frequency" => frequency(sh, &rest).await,
        "headers" => headers(sh, &rest).await,
        "join" => join(sh, &rest).await,
        "search" => search(sh, &rest).await,
        "select" => select(sh, &rest).await,
        "slice" => slice(sh, &rest).await,
        "sort" => sort(sh, &rest).await,
        "stats" => stats::stats(sh, &rest).await,
        "table" => table(sh, &rest).await,
        other => {
            let msg =
                format!("Could not match '{other}' with any of the allowed variants: {VARIANTS}");
            return complain(sh, &msg).await;
        }
    };
    match result {
        Ok(status) => status,
        Err(Failure::Usage(lexopt::Error::UnexpectedOption(flag))) => {
            let usage = USAGES
                .iter()
                .find(|(name, _)| *name == command)
                .map_or("", |(_, u)| u);
            let msg = format!(
                "Unknown flag: '{flag}'\n\nUsage:\n    xsv {command} {usage}\n    xsv {command} --help"
            );
            complain(sh, &msg).await
        }
        Err(Failure::Usage(e)) => bad_usage(sh, &rest[0], e, 1).await,
        Err(Failure::Message(m)) => complain(sh, &m).await,
        Err(Failure::Stop(s)) => s,
    }
}

async fn list(sh: &mut dyn Context, status: i32) -> i32 {
    let mut text = String::from("Usage:\n    xsv <command> [<args>...]\n\nCommands:\n");
    for (name, about) in COMMANDS {
        text.push_str(&format!("    {name:<12}{about}\n"));
    }
    if status == 0 {
        crate::stream::out(sh, &text).await
    } else {
        complain(sh, text.trim_end()).await
    }
}

/// Why a command stopped.
pub enum Failure {
    Usage(lexopt::Error),
    Message(String),
    Stop(i32),
}

impl From<lexopt::Error> for Failure {
    fn from(e: lexopt::Error) -> Failure {
        Failure::Usage(e)
    }
}

impl From<Stop> for Failure {
    fn from(Stop(s): Stop) -> Failure {
        Failure::Stop(s)
    }
}

type Outcome = Result<i32, Failure>;

impl Common {
    fn new() -> Common {
        Common {
            delimiter: b',',
            no_headers: false,
            output: None,
        }
    }

    /// Takes `-d`, `-n` and `-o` out of `argv`, wherever they are (before a `--`).
    fn take(argv: &[String]) -> Result<(Common, Vec<String>), Failure> {
        let mut c = Common::new();
        let mut rest = vec![argv[0].clone()];
        let mut words = argv[1..].iter();
        while let Some(w) = words.next() {
            let (name, inline) = match w.split_once('=') {
                Some((n, v)) if n.starts_with("--") => (n, Some(v.to_string())),
                _ => (w.as_str(), None),
            };
            let mut arg = |what: &str| -> Result<String, Failure> {
                inline
                    .clone()
                    .or_else(|| words.next().cloned())
                    .ok_or_else(|| {
                        Failure::Usage(plain(format!(
                            "Expected argument for flag '{what}' but reached end of arguments."
                        )))
                    })
            };
            match name {
                "--" => {
                    rest.push(w.clone());
                    rest.extend(words.cloned());
                    break;
                }
                "-d" | "--delimiter" => c.delimiter = delimiter(&arg(name)?)?,
                "-n" | "--no-headers" => c.no_headers = true,
                "-o" | "--output" => c.output = Some(arg(name)?),
                _ => rest.push(w.clone()),
            }
        }
        Ok((c, rest))
    }

    /// Reads `file` (stdin when `None` or `-`).
    async fn read(&self, sh: &dyn Context, file: Option<&str>) -> Result<Table, Failure> {
        read_table(sh, file, self.delimiter, self.no_headers).await
    }

    /// Writes `rows` (after the header row, unless `--no-headers`) as CSV.
    async fn write(&self, sh: &dyn Context, headers: &[String], rows: &[Vec<String>]) -> Outcome {
        let mut w = csv::WriterBuilder::new()
            .flexible(true)
            .from_writer(Vec::new());
        if !self.no_headers && !headers.is_empty() {
            w.write_record(headers).map_err(csv_error)?;
        }
        for r in rows {
            w.write_record(r).map_err(csv_error)?;
        }
        let data = w
            .into_inner()
            .map_err(|e| Failure::Message(e.to_string()))?;
        emit(sh, &data, self.output.as_deref()).await
    }
}

/// A one-byte delimiter (`\t` written as such is a tab).
fn delimiter(text: &str) -> Result<u8, lexopt::Error> {
    match text {
        r"\t" => Ok(b'\t'),
        t if t.len() == 1 => Ok(t.as_bytes()[0]),
        t => Err(plain(format!(
            "Could not convert '{t}' to a single ASCII character."
        ))),
    }
}

/// The csv crate's messages are xsv's (they start `CSV error:`).
fn csv_error(e: csv::Error) -> Failure {
    Failure::Message(e.to_string())
}

/// Reads a whole CSV input.
async fn read_table(
    sh: &dyn Context,
    file: Option<&str>,
    delimiter: u8,
    no_headers: bool,
) -> Result<Table, Failure> {
    let name = file.unwrap_or("-");
    let input = open(sh, name).map_err(|m| {
        // xsv says what Rust's io::Error says on Linux.
        let why = m
            .strip_prefix(&format!("{name}: "))
            .unwrap_or(&m)
            .to_string();
        let why = if why == "No such file or directory" {
            format!("{why} (os error 2)")
        } else {
            why
        };
        Failure::Message(format!("failed to open {name}: {why}"))
    })?;
    let data = read_all_limited(&input, MEMORY_LIMIT, "xsv")
        .await
        .map_err(Failure::Message)?;
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .has_headers(false)
        .from_reader(&data[..]);
    let mut rows = Vec::new();
    for record in reader.records() {
        let record = record.map_err(csv_error)?;
        rows.push(record.iter().map(str::to_string).collect::<Vec<_>>());
    }
    let headers = if no_headers || rows.is_empty() {
        Vec::new()
    } else {
        rows.remove(0)
    };
    Ok(Table { headers, rows })
}

/// Writes to `-o FILE` or stdout.
async fn emit(sh: &dyn Context, data: &[u8], output: Option<&str>) -> Outcome {
    if let Some(path) = output {
        std::fs::write(sh.path(path), data).map_err(|e| {
            Failure::Message(format!("{path}: {}", shell_base::errno::io_message(&e)))
        })?;
        return Ok(0);
    }
    let mut out = Writer::new(&sh.io().stdout);
    out.write(data).await?;
    out.flush().await?;
    Ok(0)
}

/// The columns `spec` picks (all of them without one).
fn columns(spec: Option<&str>, t: &Table, no_headers: bool) -> Result<Vec<usize>, Failure> {
    let width = t.headers.len().max(t.rows.first().map_or(0, Vec::len));
    let names: Vec<String> = if no_headers {
        (1..=width).map(|i| i.to_string()).collect()
    } else {
        t.headers.clone()
    };
    match spec {
        None => Ok((0..width).collect()),
        Some(s) => select::select(s, &names, !no_headers).map_err(Failure::Message),
    }
}

fn pick(row: &[String], cols: &[usize]) -> Vec<String> {
    cols.iter()
        .map(|&i| row.get(i).cloned().unwrap_or_default())
        .collect()
}

/// Aligns rows of cells into columns as xsv's tabwriter does: each column as wide as its
/// widest cell (at least `min`) plus `pad`; the last cell of a row is not padded.
fn align(rows: &[Vec<String>], min: usize, pad: usize) -> String {
    let mut widths: Vec<usize> = Vec::new();
    for r in rows {
        for (i, c) in r.iter().enumerate() {
            if i + 1 < r.len() {
                let w = c.chars().count().max(min) + pad;
                if widths.len() <= i {
                    widths.resize(i + 1, 0);
                }
                widths[i] = widths[i].max(w);
            }
        }
    }
    let mut text = String::new();
    for r in rows {
        for (i, c) in r.iter().enumerate() {
            text.push_str(c);
            if i + 1 < r.len() {
                let fill = widths[i] - c.chars().count();
                text.push_str(&" ".repeat(fill));
            }
        }
        text.push('\n');
    }
    text
}

/// `xsv headers [-j] [FILE]`.
async fn headers(sh: &mut dyn Context, argv: &[String]) -> Outcome {
    let (c, argv) = Common::take(argv)?;
    let argv = &argv;
    let mut just = false;
    let mut file = None;
    let mut p = parser(argv);
    while let Some(arg) = p.next()? {
        match arg {
            Short('j') | Long("just-names") => just = true,
            Value(v) => file = Some(string(v)),
            _ => return Err(arg.unexpected().into()),
        }
    }
    let t = c.read(sh, file.as_deref()).await?;
    let text = if just {
        t.headers.iter().map(|h| format!("{h}\n")).collect()
    } else {
        let rows: Vec<Vec<String>> = t
            .headers
            .iter()
            .enumerate()
            .map(|(i, h)| vec![(i + 1).to_string(), h.clone()])
            .collect();
        align(&rows, 2, 2)
    };
    emit(sh, text.as_bytes(), None).await
}

/// `xsv count [FILE]`.
async fn count(sh: &mut dyn Context, argv: &[String]) -> Outcome {
    let (c, argv) = Common::take(argv)?;
    let argv = &argv;
    let mut file = None;
    let mut p = parser(argv);
    while let Some(arg) = p.next()? {
        match arg {
            Value(v) => file = Some(string(v)),
            _ => return Err(arg.unexpected().into()),
        }
    }
    let t = c.read(sh, file.as_deref()).await?;
    emit(sh, format!("{}\n", t.rows.len()).as_bytes(), None).await
}

/// `xsv select SELECTION [FILE]`.
async fn select(sh: &mut dyn Context, argv: &[String]) -> Outcome {
    let (c, argv) = Common::take(argv)?;
    let argv = &argv;
    let mut words = Vec::new();
    let mut p = parser(argv);
    while let Some(arg) = p.next()? {
        match arg {
            Value(v) => words.push(string(v)),
            _ => return Err(arg.unexpected().into()),
        }
    }
    let Some(spec) = words.first().cloned() else {
        return Err(usage("missing SELECTION").into());
    };
    let t = c.read(sh, words.get(1).map(String::as_str)).await?;
    let cols = columns(Some(&spec), &t, c.no_headers)?;
    let rows: Vec<Vec<String>> = t.rows.iter().map(|r| pick(r, &cols)).collect();
    c.write(sh, &pick(&t.headers, &cols), &rows).await
}

/// `xsv search [-i] [-v] [-s SELECTION] REGEX [FILE]`.
async fn search(sh: &mut dyn Context, argv: &[String]) -> Outcome {
    let (c, argv) = Common::take(argv)?;
    let argv = &argv;
    let (mut ignore_case, mut invert) = (false, false);
    let mut spec = None;
    let mut words = Vec::new();
    let mut p = parser(argv);
    while let Some(arg) = p.next()? {
        match arg {
            Short('i') | Long("ignore-case") => ignore_case = true,
            Short('v') | Long("invert-match") => invert = true,
            Short('s') | Long("select") => spec = Some(value(&mut p)?),
            Value(v) => words.push(string(v)),
            _ => return Err(arg.unexpected().into()),
        }
    }
    let Some(pattern) = words.first().cloned() else {
        return Err(usage("missing REGEX").into());
    };
    let re = regex::RegexBuilder::new(&pattern)
        .case_insensitive(ignore_case)
        .build()
        // xsv shows the error's debug form.
        .map_err(|e| Failure::Message(format!("{e:?}")))?;
    let t = c.read(sh, words.get(1).map(String::as_str)).await?;
    let cols = columns(spec.as_deref(), &t, c.no_headers)?;
    let rows: Vec<Vec<String>> = t
        .rows
        .into_iter()
        .filter(|r| pick(r, &cols).iter().any(|f| re.is_match(f)) != invert)
        .collect();
    c.write(sh, &t.headers, &rows).await
}

/// `xsv sort [-s SELECTION] [-N] [-R] [FILE]`: stable, by bytes or (`-N`) as numbers, where
/// what is not a number comes first.
async fn sort(sh: &mut dyn Context, argv: &[String]) -> Outcome {
    let (c, argv) = Common::take(argv)?;
    let argv = &argv;
    let (mut numeric, mut reverse) = (false, false);
    let mut spec = None;
    let mut file = None;
    let mut p = parser(argv);
    while let Some(arg) = p.next()? {
        match arg {
            Short('N') | Long("numeric") => numeric = true,
            Short('R') | Long("reverse") => reverse = true,
            Short('s') | Long("select") => spec = Some(value(&mut p)?),
            Value(v) => file = Some(string(v)),
            _ => return Err(arg.unexpected().into()),
        }
    }
    let mut t = c.read(sh, file.as_deref()).await?;
    let cols = columns(spec.as_deref(), &t, c.no_headers)?;
    t.rows.sort_by(|a, b| {
        let (ka, kb) = (pick(a, &cols), pick(b, &cols));
        let ord = if numeric {
            let num = |k: &[String]| -> Vec<Option<f64>> {
                k.iter().map(|f| f.trim().parse().ok()).collect()
            };
            num(&ka)
                .partial_cmp(&num(&kb))
                .unwrap_or(std::cmp::Ordering::Equal)
        } else {
            ka.cmp(&kb)
        };
        if reverse { ord.reverse() } else { ord }
    });
    c.write(sh, &t.headers, &t.rows).await
}

/// `xsv slice [-s START] [-e END] [-l LEN] [-i INDEX] [FILE]`.
async fn slice(sh: &mut dyn Context, argv: &[String]) -> Outcome {
    let (c, argv) = Common::take(argv)?;
    let argv = &argv;
    let (mut start, mut end, mut len, mut index) = (None, None, None, None);
    let mut file = None;
    let mut p = parser(argv);
    let num = |p: &mut lexopt::Parser| -> Result<usize, lexopt::Error> {
        let v = value(p)?;
        v.parse()
            .map_err(|_| plain(format!("Could not decode '{v}' as a number.")))
    };
    while let Some(arg) = p.next()? {
        match arg {
            Short('s') | Long("start") => start = Some(num(&mut p)?),
            Short('e') | Long("end") => end = Some(num(&mut p)?),
            Short('l') | Long("len") => len = Some(num(&mut p)?),
            Short('i') | Long("index") => index = Some(num(&mut p)?),
            Value(v) => file = Some(string(v)),
            _ => return Err(arg.unexpected().into()),
        }
    }
    let t = c.read(sh, file.as_deref()).await?;
    let (from, to) = match (index, start, end, len) {
        (Some(i), ..) => (i, i.saturating_add(1)),
        (None, s, _, Some(l)) => (s.unwrap_or(0), s.unwrap_or(0).saturating_add(l)),
        (None, s, e, None) => (s.unwrap_or(0), e.unwrap_or(usize::MAX)),
    };
    let rows: Vec<Vec<String>> = t
        .rows
        .into_iter()
        .skip(from)
        .take(to.saturating_sub(from))
        .collect();
    c.write(sh, &t.headers, &rows).await
}

/// `xsv frequency [-s SELECTION] [-l LIMIT] [--asc] [--no-nulls] [FILE]`: `field,value,count`
/// for each column, most frequent first (ties in the order first seen).
async fn frequency(sh: &mut dyn Context, argv: &[String]) -> Outcome {
    let (c, argv) = Common::take(argv)?;
    let argv = &argv;
    let mut limit = 10usize;
    let (mut asc, mut no_nulls) = (false, false);
    let mut spec = None;
    let mut file = None;
    let mut p = parser(argv);
    while let Some(arg) = p.next()? {
        match arg {
            Short('s') | Long("select") => spec = Some(value(&mut p)?),
            Short('l') | Long("limit") => {
                let v = value(&mut p)?;
                limit = v
                    .parse()
                    .map_err(|_| plain(format!("Could not decode '{v}' as a number.")))?;
            }
            Short('a') | Long("asc") => asc = true,
            Long("no-nulls") => no_nulls = true,
            Short('j') | Long("jobs") => {
                value(&mut p)?;
            }
            Value(v) => file = Some(string(v)),
            _ => return Err(arg.unexpected().into()),
        }
    }
    let t = c.read(sh, file.as_deref()).await?;
    let cols = columns(spec.as_deref(), &t, c.no_headers)?;
    let mut rows = Vec::new();
    for &col in &cols {
        let name = if c.no_headers {
            (col + 1).to_string()
        } else {
            t.headers.get(col).cloned().unwrap_or_default()
        };
        let mut counts: Vec<(String, usize)> = Vec::new();
        let mut at: HashMap<String, usize> = HashMap::new();
        for r in &t.rows {
            let v = r.get(col).cloned().unwrap_or_default();
            if v.is_empty() && no_nulls {
                continue;
            }
            let key = if v.is_empty() {
                "(NULL)".to_string()
            } else {
                v
            };
            match at.get(&key) {
                Some(&i) => counts[i].1 += 1,
                None => {
                    at.insert(key.clone(), counts.len());
                    counts.push((key, 1));
                }
            }
        }
        if asc {
            counts.sort_by_key(|c| c.1);
        } else {
            counts.sort_by_key(|c| std::cmp::Reverse(c.1));
        }
        if limit > 0 {
            counts.truncate(limit);
        }
        for (v, n) in counts {
            rows.push(vec![name.clone(), v, n.to_string()]);
        }
    }
    let header = ["field", "value", "count"].map(String::from);
    let out = Common {
        no_headers: false,
        ..c
    };
    out.write(sh, &header, &rows).await
}

/// `xsv join [--left|--right|--full|--cross] [--no-case] COLUMNS1 FILE1 COLUMNS2 FILE2`.
async fn join(sh: &mut dyn Context, argv: &[String]) -> Outcome {
    let (c, argv) = Common::take(argv)?;
    let argv = &argv;
    let (mut left, mut right, mut full, mut cross, mut fold) = (false, false, false, false, false);
    let mut words = Vec::new();
    let mut p = parser(argv);
    while let Some(arg) = p.next()? {
        match arg {
            Long("left") => left = true,
            Long("right") => right = true,
            Long("full") => full = true,
            Long("cross") => cross = true,
            Long("no-case") => fold = true,
            Long("nulls") => {}
            Value(v) => words.push(string(v)),
            _ => return Err(arg.unexpected().into()),
        }
    }
    if words.len() != 4 {
        return Err(usage("expected COLUMNS1 INPUT1 COLUMNS2 INPUT2").into());
    }
    let a = c.read(sh, Some(&words[1])).await?;
    let b = c.read(sh, Some(&words[3])).await?;
    let ca = columns(Some(&words[0]), &a, c.no_headers)?;
    let cb = columns(Some(&words[2]), &b, c.no_headers)?;
    let key = |r: &[String], cols: &[usize]| -> Vec<String> {
        pick(r, cols)
            .into_iter()
            .map(|f| if fold { f.to_lowercase() } else { f })
            .collect()
    };
    let blank = |n: usize| vec![String::new(); n];
    let (wa, wb) = (
        a.headers.len().max(a.rows.first().map_or(0, Vec::len)),
        b.headers.len().max(b.rows.first().map_or(0, Vec::len)),
    );
    let mut rows = Vec::new();
    if cross {
        for x in &a.rows {
            for y in &b.rows {
                rows.push([x.clone(), y.clone()].concat());
            }
        }
    } else if right && !full {
        for y in &b.rows {
            let k = key(y, &cb);
            let matches: Vec<&Vec<String>> = a.rows.iter().filter(|x| key(x, &ca) == k).collect();
            if matches.is_empty() {
                rows.push([blank(wa), y.clone()].concat());
            }
            for x in matches {
                rows.push([x.clone(), y.clone()].concat());
            }
        }
    } else {
        let mut used = vec![false; b.rows.len()];
        for x in &a.rows {
            let k = key(x, &ca);
            let mut any = false;
            for (j, y) in b.rows.iter().enumerate() {
                if key(y, &cb) == k {
                    any = true;
                    used[j] = true;
                    rows.push([x.clone(), y.clone()].concat());
                }
            }
            if !any && (left || full) {
                rows.push([x.clone(), blank(wb)].concat());
            }
        }
        if full {
            for (j, y) in b.rows.iter().enumerate() {
                if !used[j] {
                    rows.push([blank(wa), y.clone()].concat());
                }
            }
        }
    }
    let headers = [a.headers, b.headers].concat();
    c.write(sh, &headers, &rows).await
}

/// `xsv table [-w MIN] [-p PAD] [FILE]`.
async fn table(sh: &mut dyn Context, argv: &[String]) -> Outcome {
    let (c, argv) = Common::take(argv)?;
    let argv = &argv;
    let (mut min, mut pad) = (2usize, 2usize);
    let mut file = None;
    let mut p = parser(argv);
    while let Some(arg) = p.next()? {
        match arg {
            Short('w') | Long("width") => {
                min = value(&mut p)?
                    .parse()
                    .map_err(|_| plain("Could not decode the width."))?;
            }
            Short('p') | Long("pad") => {
                pad = value(&mut p)?
                    .parse()
                    .map_err(|_| plain("Could not decode the padding."))?;
            }
            Short('c') | Long("condense") => {
                value(&mut p)?;
            }
            Value(v) => file = Some(string(v)),
            _ => return Err(arg.unexpected().into()),
        }
    }
    // Every row is padded out in memory: keep the columns to a sane width.
    const MAX_WIDTH: usize = 4096;
    if min > MAX_WIDTH || pad > MAX_WIDTH {
        let m = format!("xsv table: --width and --pad are at most {MAX_WIDTH}");
        return Err(Failure::Message(m));
    }
    // The table shows the header row as a row.
    let t = read_table(sh, file.as_deref(), c.delimiter, true).await?;
    let text = align(&t.rows, min, pad);
    emit(sh, text.as_bytes(), c.output.as_deref()).await
}

/// `xsv fmt [-t DELIM] [--crlf] [--quote-always] [FILE]`.
async fn fmt(sh: &mut dyn Context, argv: &[String]) -> Outcome {
    let (c, argv) = Common::take(argv)?;
    let argv = &argv;
    let mut out_delim = b',';
    let (mut crlf, mut always) = (false, false);
    let mut file = None;
    let mut p = parser(argv);
    while let Some(arg) = p.next()? {
        match arg {
            Short('t') | Long("out-delimiter") => out_delim = delimiter(&value(&mut p)?)?,
            Long("crlf") => crlf = true,
            Long("quote-always") => always = true,
            Long("ascii") => out_delim = 0x1f,
            Value(v) => file = Some(string(v)),
            _ => return Err(arg.unexpected().into()),
        }
    }
    let t = read_table(sh, file.as_deref(), c.delimiter, true).await?;
    let mut w = csv::WriterBuilder::new()
        .flexible(true)
        .delimiter(out_delim)
        .terminator(if crlf {
            csv::Terminator::CRLF
        } else {
            csv::Terminator::Any(b'\n')
        })
        .quote_style(if always {
            csv::QuoteStyle::Always
        } else {
            csv::QuoteStyle::Necessary
        })
        .from_writer(Vec::new());
    for r in &t.rows {
        w.write_record(r).map_err(csv_error)?;
    }
    let data = w
        .into_inner()
        .map_err(|e| Failure::Message(e.to_string()))?;
    emit(sh, &data, c.output.as_deref()).await
}

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::Native;

    #[test]
    fn select_sort_and_align() {
        let mut ctx = Native::new();
        ctx.write("p.csv", "name,age\nbob,25\nann,31\n");
        assert_eq!(
            ctx.run(&["xsv", "select", "age", "p.csv"], "").stdout,
            "age\n25\n31\n"
        );
        assert_eq!(
            ctx.run(&["xsv", "sort", "-s", "name", "p.csv"], "").stdout,
            "name,age\nann,31\nbob,25\n"
        );
        assert_eq!(
            ctx.run(&["xsv", "headers", "p.csv"], "").stdout,
            "1   name\n2   age\n"
        );
        assert_eq!(
            ctx.run(&["xsv", "table", "p.csv"], "").stdout,
            "name  age\nbob   25\nann   31\n"
        );
        let edge = ["xsv", "slice", "-i", "18446744073709551615", "p.csv"];
        assert_eq!(ctx.run(&edge, "").stdout, "name,age\n");
        let table = ctx.run(&["xsv", "table", "-w", "100000", "p.csv"], "");
        assert_eq!(table.status, 1);
        assert!(table.stderr.contains("at most 4096"), "{}", table.stderr);
        let stats = ctx.run(&["xsv", "stats", "-s", "age", "p.csv"], "").stdout;
        assert_eq!(stats.lines().nth(1), Some("age,Integer,56,25,31,2,2,28,3"));
    }
}
