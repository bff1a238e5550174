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
pub(crate) fn tab_options(argv: &[String]) -> Result<(Vec<usize>, bool, Vec<String>), String> {
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
