//! Helpers of the layout utilities (`column`, `expand`, `unexpand`, `fmt`, `join`,
//! `split`): whole inputs as lines, and tab stops.

use super::stream::{MEMORY_LIMIT, Stop, Writer, complain, files_or_stdin, open, read_all_limited};
use shell_base::Context;

/// All lines of the inputs (without their newlines).
pub(crate) async fn read_lines(
    sh: &dyn Context,
    cmd: &str,
    files: Vec<String>,
) -> Result<Vec<String>, i32> {
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

pub(crate) async fn write_all(sh: &dyn Context, text: &str) -> i32 {
    let mut w = Writer::new(&sh.io().stdout);
    match w.write_str(text).await {
        Ok(()) => match w.flush().await {
            Ok(()) => 0,
            Err(Stop(s)) => s,
        },
        Err(Stop(s)) => s,
    }
}

/// Tab stops from `-t N` or `-t A,B,C`.
pub(crate) fn tab_stops(spec: &str) -> Option<Vec<usize>> {
    let stops: Option<Vec<usize>> = spec
        .split([',', ' '])
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().ok())
        .collect();
    stops.filter(|s| !s.is_empty() && s.iter().all(|n| *n > 0))
}

/// The next tab stop after column `col`.
pub(crate) fn next_stop(stops: &[usize], col: usize) -> usize {
    if stops.len() == 1 {
        return (col / stops[0] + 1) * stops[0];
    }
    stops.iter().copied().find(|s| *s > col).unwrap_or(col + 1)
}

/// Options of `expand` and `unexpand`: tab stops, `-i`/`-a`, files.
pub(crate) struct TabOptions {
    pub(crate) stops: Vec<usize>,
    /// `-i` (expand: leading tabs only) or `-a` (unexpand: all blanks).
    pub(crate) flag: bool,
    /// Whether `-t` was given (it implies unexpand's `-a`).
    pub(crate) tabs_given: bool,
    pub(crate) files: Vec<String>,
}

pub(crate) fn tab_options(argv: &[String]) -> Result<TabOptions, lexopt::Error> {
    use lexopt::prelude::*;
    let mut o = TabOptions {
        stops: vec![8],
        flag: false,
        tabs_given: false,
        files: Vec::new(),
    };
    let stops = |v: &str, what: &str| {
        tab_stops(v).ok_or_else(|| shell_base::args::plain(format!("{what}: '{v}'")))
    };
    let mut p = shell_base::args::parser(argv);
    loop {
        // `-4` and `-4,8`: the historical form of `-t`.
        let is_list = |n: &str| n.chars().all(|c| c.is_ascii_digit() || c == ',');
        if let Some(list) = shell_base::args::dashed(&mut p, is_list) {
            o.stops = stops(&list, "invalid tab size")?;
            continue;
        }
        let Some(arg) = p.next()? else { break };
        match arg {
            Short('t') | Long("tabs") => {
                let v = shell_base::args::value(&mut p)?;
                o.stops = stops(&v, "tab size contains invalid character(s)")?;
                o.tabs_given = true;
            }
            Short('i' | 'a') | Long("initial" | "all") => o.flag = true,
            Long("first-only") => o.flag = false,
            Value(v) => o.files.push(shell_base::args::string(v)),
            _ => return Err(arg.unexpected()),
        }
    }
    Ok(o)
}
