//! `mapfile`/`readarray`: lines of input into an indexed array.

use crate::builtins::read::*;
use crate::interp::Builtin;
use crate::interp::Interp;
use crate::vars::Key;

/// `mapfile [-t] [-n COUNT] [-s COUNT] [-O ORIGIN] [-d DELIM] [ARRAY]` (also `readarray`).
pub async fn mapfile(sh: &mut Interp<'_>, args: &[String]) -> i32 {
    let mut trim = false;
    let mut count = usize::MAX;
    let mut skip = 0usize;
    let mut origin: Option<i64> = None;
    let mut delim = b'\n';
    let mut name = "MAPFILE".to_string();
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        let mut next = || {
            i += 1;
            args.get(i).cloned().unwrap_or_default()
        };
        match a {
            "-t" => trim = true,
            "-n" => count = next().parse().unwrap_or(0),
            "-s" => skip = next().parse().unwrap_or(0),
            "-O" => origin = next().parse().ok(),
            "-d" => delim = next().bytes().next().unwrap_or(0),
            "-u" | "-C" | "-c" => {
                next();
            }
            n => name = n.to_string(),
        }
        i += 1;
    }
    if count == 0 {
        count = usize::MAX;
    }
    let input = sh.io.stdin.clone();
    let mut lines = Vec::new();
    let mut seen = 0usize;
    while lines.len() < count {
        let (mut bytes, eof) = read_record(&input, Some(delim), None).await;
        if eof && bytes.is_empty() {
            break;
        }
        if !trim && !eof {
            bytes.push(delim);
        }
        seen += 1;
        if seen > skip {
            lines.push(String::from_utf8_lossy(&bytes).into_owned());
        }
        if eof {
            break;
        }
    }
    if origin.is_none() {
        sh.shell.vars.remove(&name);
    }
    let start = origin.unwrap_or(0);
    let items = lines
        .into_iter()
        .enumerate()
        .map(|(k, l)| (Some(Key::Index(start + k as i64)), l))
        .collect();
    match sh.shell.assign_array(&name, items, origin.is_some()) {
        Ok(()) => 0,
        Err(msg) => {
            sh.error(&format!("mapfile: {msg}")).await;
            1
        }
    }
}

/// `mapfile`'s registration.
pub const MAPFILE: Builtin = Builtin {
    name: "mapfile",
    run: status!(mapfile),
    usage: "[-t] [-n count] [-s count] [-O origin] [-d delim] [array]",
    about: "Read lines from the standard input into an indexed array variable",
    special: false,
    declaration: None,
};

/// `readarray`'s registration.
pub const READARRAY: Builtin = Builtin {
    name: "readarray",
    run: status!(mapfile),
    usage: "[-t] [-n count] [-s count] [-O origin] [-d delim] [array]",
    about: "Read lines from a file into an array variable",
    special: false,
    declaration: None,
};
