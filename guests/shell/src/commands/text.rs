//! Line and text tools, as GNU coreutils do them: `cat`, `head`, `tail`, `wc`, `sort`,
//! `uniq`, `cut`, `tr`, `rev`, `tac`, `nl`, `seq`, `tee`, `basename`, `dirname`. Each streams
//! where it can (`head` stops reading early); `sort` and `tac` hold their input, within
//! [`MEMORY_LIMIT`].

use lexopt::prelude::*;

use super::stream::{
    Lines, MEMORY_LIMIT, Stop, Writer, bad_usage, complain, files_or_stdin, open, read_all_limited,
};
use crate::exec::Interp;

fn parser(argv: &[String]) -> lexopt::Parser {
    lexopt::Parser::from_args(argv[1..].iter().cloned())
}

fn value_string(v: std::ffi::OsString) -> String {
    v.to_string_lossy().into_owned()
}

fn done(r: Result<(), Stop>, status: i32) -> i32 {
    match r {
        Ok(()) => status,
        Err(Stop(s)) => s,
    }
}

/// `cat [-nbsAETv] [FILE...]`.
pub async fn cat(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let (mut number, mut nonblank, mut squeeze, mut ends, mut tabs, mut nonprint) =
        (false, false, false, false, false, false);
    let mut files = Vec::new();
    let mut p = parser(argv);
    loop {
        match p.next() {
            Ok(Some(Short('n') | Long("number"))) => number = true,
            Ok(Some(Short('b') | Long("number-nonblank"))) => nonblank = true,
            Ok(Some(Short('s') | Long("squeeze-blank"))) => squeeze = true,
            Ok(Some(Short('E') | Long("show-ends"))) => ends = true,
            Ok(Some(Short('T') | Long("show-tabs"))) => tabs = true,
            Ok(Some(Short('v') | Long("show-nonprinting"))) => nonprint = true,
            Ok(Some(Short('A') | Long("show-all"))) => (nonprint, ends, tabs) = (true, true, true),
            Ok(Some(Short('e'))) => (nonprint, ends) = (true, true),
            Ok(Some(Short('t'))) => (nonprint, tabs) = (true, true),
            Ok(Some(Short('u'))) => {}
            Ok(Some(Value(v))) => files.push(value_string(v)),
            Ok(Some(other)) => return bad_usage(sh, "cat", other.unexpected(), 1).await,
            Ok(None) => break,
            Err(e) => return bad_usage(sh, "cat", e, 1).await,
        }
    }
    let plain = !(number || nonblank || squeeze || ends || tabs || nonprint);
    let mut out = Writer::new(&sh.io.stdout);
    let mut status = 0;
    let mut line_no = 0u64;
    let mut blank_run = false;
    for f in files_or_stdin(files) {
        let input = match open(sh, &f) {
            Ok(i) => i,
            Err(m) => {
                status = complain(sh, &format!("cat: {m}")).await;
                continue;
            }
        };
        if plain {
            loop {
                match input.read().await {
                    Ok(chunk) if chunk.is_empty() => break,
                    Ok(chunk) => {
                        if let Err(Stop(s)) = out.write(&chunk).await {
                            return s;
                        }
                    }
                    Err(e) => {
                        status =
                            complain(sh, &format!("cat: {f}: {}", crate::exec::io_message(&e)))
                                .await;
                        break;
                    }
                }
            }
            continue;
        }
        let mut lines = Lines::new(input);
        while let Ok(Some(line)) = lines.next().await {
            let blank = line == b"\n";
            if squeeze && blank && blank_run {
                continue;
            }
            blank_run = blank;
            let mut text = Vec::new();
            if (number && !nonblank) || (nonblank && !blank) {
                line_no += 1;
                text.extend(format!("{line_no:6}\t").bytes());
            }
            let (body, nl) = match line.strip_suffix(b"\n") {
                Some(b) => (b, true),
                None => (&line[..], false),
            };
            for &b in body {
                match b {
                    b'\t' if tabs => text.extend(b"^I"),
                    b'\t' | b' '..=b'~' => text.push(b),
                    _ if nonprint => text.extend(caret(b)),
                    _ => text.push(b),
                }
            }
            if nl {
                if ends {
                    text.push(b'$');
                }
                text.push(b'\n');
            }
            if let Err(Stop(s)) = out.write(&text).await {
                return s;
            }
        }
    }
    done(out.flush().await, status)
}

/// `cat -v`'s notation for a byte: `^X`, `M-x`, `^?`.
fn caret(b: u8) -> Vec<u8> {
    let mut v = Vec::new();
    let mut c = b;
    if c >= 0x80 {
        v.extend(b"M-");
        c -= 0x80;
    }
    match c {
        0..=31 => v.extend([b'^', c + 64]),
        127 => v.extend(b"^?"),
        c => v.push(c),
    }
    v
}

/// A count argument of `head`/`tail`: `N`, `-N`, `+N`, with `b k m` style suffixes.
fn count(text: &str) -> Option<(bool, u64)> {
    let (plus, digits) = match text.strip_prefix('+') {
        Some(d) => (true, d),
        None => (false, text.strip_prefix('-').unwrap_or(text)),
    };
    let (num, mult) = match digits.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((i, _)) => {
            let m = match &digits[i..] {
                "b" => 512,
                "k" | "K" | "KiB" => 1024,
                "kB" => 1000,
                "M" | "MiB" => 1 << 20,
                "MB" => 1_000_000,
                "G" | "GiB" => 1 << 30,
                _ => return None,
            };
            (&digits[..i], m)
        }
        None => (digits, 1),
    };
    Some((plus, num.parse::<u64>().ok()?.checked_mul(mult)?))
}

/// `head`/`tail` options: `-n N`, `-c N`, `-N`, `-q`, `-v`.
struct Span {
    bytes: bool,
    /// `+N` (tail: from line N) or `-N` (head: all but the last N).
    from_start: bool,
    all_but: bool,
    n: u64,
    headers: Option<bool>,
    files: Vec<String>,
}

async fn span(sh: &mut Interp<'_>, cmd: &str, argv: &[String]) -> Result<Span, i32> {
    let mut s = Span {
        bytes: false,
        from_start: false,
        all_but: false,
        n: 10,
        headers: None,
        files: Vec::new(),
    };
    // `head -5` and `tail -5` / `tail +5`: the historical forms.
    let mut args: Vec<String> = argv.to_vec();
    if let Some(first) = args.get(1).cloned()
        && first.len() > 1
        && (first.starts_with('-') || (cmd == "tail" && first.starts_with('+')))
        && first[1..].chars().all(|c| c.is_ascii_digit())
    {
        s.n = first[1..].parse().unwrap_or(10);
        s.from_start = first.starts_with('+');
        args.remove(1);
        // GNU tail takes the historical form with one file only.
        if cmd == "tail" && args.len() > 2 {
            let digits = &first[1..];
            return Err(complain(
                sh,
                &format!("tail: option used in invalid context -- {digits}"),
            )
            .await);
        }
    }
    let mut p = parser(&args);
    loop {
        let arg = match p.next() {
            Ok(Some(a)) => a,
            Ok(None) => break,
            Err(e) => return Err(bad_usage(sh, cmd, e, 1).await),
        };
        match arg {
            Short('n') | Long("lines") | Short('c') | Long("bytes") => {
                s.bytes = matches!(arg, Short('c') | Long("bytes"));
                let text = match p.value() {
                    Ok(v) => value_string(v),
                    Err(e) => return Err(bad_usage(sh, cmd, e, 1).await),
                };
                match count(&text) {
                    Some((plus, n)) => {
                        s.n = n;
                        s.from_start = plus && cmd == "tail";
                        s.all_but = text.starts_with('-') && cmd == "head";
                    }
                    None => {
                        let what = if s.bytes { "bytes" } else { "lines" };
                        complain(sh, &format!("{cmd}: invalid number of {what}: '{text}'")).await;
                        return Err(1);
                    }
                }
            }
            Short('q') | Long("quiet") | Long("silent") => s.headers = Some(false),
            Short('v') | Long("verbose") => s.headers = Some(true),
            Short('f') | Long("follow") | Short('F') => {}
            Value(v) => s.files.push(value_string(v)),
            other => return Err(bad_usage(sh, cmd, other.unexpected(), 1).await),
        }
    }
    Ok(s)
}

/// Opens one of `head`'s or `tail`'s files (the error worded as they word it; `None` after
/// it) and, when there are several, writes its `==> NAME <==` header.
async fn open_part(
    sh: &Interp<'_>,
    cmd: &str,
    f: &str,
    first: bool,
    headers: bool,
    out: &mut Writer,
) -> Result<Option<crate::io::Input>, Stop> {
    let input = match open(sh, f) {
        Ok(input) => input,
        Err(m) => {
            let why = m.split_once(": ").map(|x| x.1).unwrap_or(&m);
            out.flush().await?;
            complain(sh, &format!("{cmd}: cannot open '{f}' for reading: {why}")).await;
            return Ok(None);
        }
    };
    if headers {
        let name = if f == "-" { "standard input" } else { f };
        let sep = if first { "" } else { "\n" };
        out.write_str(&format!("{sep}==> {name} <==\n")).await?;
    }
    Ok(Some(input))
}

/// `head [-n N|-c N] [FILE...]`: stops reading once it has enough.
pub async fn head(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let s = match span(sh, "head", argv).await {
        Ok(s) => s,
        Err(status) => return status,
    };
    let files = files_or_stdin(s.files.clone());
    let headers = s.headers.unwrap_or(files.len() > 1);
    let mut out = Writer::new(&sh.io.stdout);
    let mut status = 0;
    for (i, f) in files.iter().enumerate() {
        let input = match open_part(sh, "head", f, i == 0, headers, &mut out).await {
            Ok(Some(input)) => input,
            Ok(None) => {
                status = 1;
                continue;
            }
            Err(Stop(st)) => return st,
        };
        let r = if s.all_but {
            // All but the last N: needs the whole input.
            match read_all_limited(&input, MEMORY_LIMIT, "head").await {
                Ok(data) => {
                    let keep = if s.bytes {
                        data.len().saturating_sub(s.n as usize)
                    } else {
                        let ends: Vec<usize> = line_ends(&data);
                        let total = ends.len();
                        let keep_lines = total.saturating_sub(s.n as usize);
                        if keep_lines == 0 {
                            0
                        } else {
                            ends[keep_lines - 1]
                        }
                    };
                    out.write(&data[..keep]).await
                }
                Err(m) => {
                    status = complain(sh, &m).await;
                    Ok(())
                }
            }
        } else if s.bytes {
            let mut left = s.n as usize;
            let mut r = Ok(());
            while left > 0 {
                let chunk = match input.read().await {
                    Ok(c) if !c.is_empty() => c,
                    _ => break,
                };
                let take = chunk.len().min(left);
                left -= take;
                r = out.write(&chunk[..take]).await;
                if r.is_err() {
                    break;
                }
            }
            r
        } else {
            let mut lines = Lines::new(input);
            let mut r = Ok(());
            for _ in 0..s.n {
                match lines.next().await {
                    Ok(Some(l)) => {
                        r = out.write(&l).await;
                        if r.is_err() {
                            break;
                        }
                    }
                    _ => break,
                }
            }
            r
        };
        if let Err(Stop(st)) = r {
            return st;
        }
    }
    done(out.flush().await, status)
}

/// Offsets just past each line's end (the last line may lack its `\n`).
fn line_ends(data: &[u8]) -> Vec<usize> {
    let mut ends: Vec<usize> = data
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .map(|(i, _)| i + 1)
        .collect();
    if data.last().is_some_and(|b| *b != b'\n') {
        ends.push(data.len());
    }
    ends
}

/// `tail [-n N|-n +N|-c N] [FILE...]`.
pub async fn tail(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let s = match span(sh, "tail", argv).await {
        Ok(s) => s,
        Err(status) => return status,
    };
    let files = files_or_stdin(s.files.clone());
    // `tail -n 0` prints nothing at all, not even headers (as GNU's).
    let nothing = s.n == 0 && !s.from_start;
    let headers = s.headers.unwrap_or(files.len() > 1) && !nothing;
    let mut out = Writer::new(&sh.io.stdout);
    let mut status = 0;
    for (i, f) in files.iter().enumerate() {
        let input = match open_part(sh, "tail", f, i == 0, headers, &mut out).await {
            Ok(Some(input)) => input,
            Ok(None) => {
                status = 1;
                continue;
            }
            Err(Stop(st)) => return st,
        };
        let r = if s.from_start && !s.bytes {
            // From line N on: streams.
            let mut lines = Lines::new(input);
            let mut n = 0u64;
            let mut r = Ok(());
            while let Ok(Some(l)) = lines.next().await {
                n += 1;
                if n >= s.n.max(1) {
                    r = out.write(&l).await;
                    if r.is_err() {
                        break;
                    }
                }
            }
            r
        } else {
            match read_all_limited(&input, MEMORY_LIMIT, "tail").await {
                Ok(data) => {
                    let start = if s.bytes && s.from_start {
                        (s.n.max(1) as usize - 1).min(data.len())
                    } else if s.bytes {
                        data.len().saturating_sub(s.n as usize)
                    } else {
                        let ends = line_ends(&data);
                        let skip = ends.len().saturating_sub(s.n as usize);
                        if skip == 0 { 0 } else { ends[skip - 1] }
                    };
                    out.write(&data[start..]).await
                }
                Err(m) => {
                    status = complain(sh, &m).await;
                    Ok(())
                }
            }
        };
        if let Err(Stop(st)) = r {
            return st;
        }
    }
    done(out.flush().await, status)
}

/// `wc [-lwcmL] [FILE...]`, with GNU's column widths.
pub async fn wc(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let (mut l, mut w, mut c, mut m, mut longest) = (false, false, false, false, false);
    let mut files = Vec::new();
    let mut p = parser(argv);
    loop {
        match p.next() {
            Ok(Some(Short('l') | Long("lines"))) => l = true,
            Ok(Some(Short('w') | Long("words"))) => w = true,
            Ok(Some(Short('c') | Long("bytes"))) => c = true,
            Ok(Some(Short('m') | Long("chars"))) => m = true,
            Ok(Some(Short('L') | Long("max-line-length"))) => longest = true,
            Ok(Some(Value(v))) => files.push(value_string(v)),
            Ok(Some(other)) => return bad_usage(sh, "wc", other.unexpected(), 1).await,
            Ok(None) => break,
            Err(e) => return bad_usage(sh, "wc", e, 1).await,
        }
    }
    if !(l || w || c || m || longest) {
        (l, w, c) = (true, true, true);
    }
    let given = files.len();
    let files = files_or_stdin(files);
    let mut rows: Vec<([u64; 5], String)> = Vec::new();
    let mut status = 0;
    let mut regular_total = 0u64;
    let mut any_stream = false;
    for f in &files {
        let input = match open(sh, f) {
            Ok(i) => i,
            Err(msg) => {
                status = complain(sh, &format!("wc: {msg}")).await;
                continue;
            }
        };
        if f == "-" {
            any_stream = true;
        } else {
            regular_total += std::fs::metadata(sh.shell.path(f))
                .map(|m| m.len())
                .unwrap_or(0);
        }
        let mut counts = [0u64; 5];
        let mut in_word = false;
        let mut line_len = 0u64;
        let mut pending: Vec<u8> = Vec::new();
        loop {
            let chunk = match input.read().await {
                Ok(c) if !c.is_empty() => c,
                _ => break,
            };
            counts[3] += chunk.len() as u64;
            for &b in &chunk {
                if b == b'\n' {
                    counts[0] += 1;
                    counts[4] = counts[4].max(line_len);
                    line_len = 0;
                } else if b == b'\t' {
                    line_len += 8 - line_len % 8;
                } else if b & 0xC0 != 0x80 {
                    line_len += 1;
                }
                let space = b.is_ascii_whitespace();
                if space {
                    in_word = false;
                } else if !in_word {
                    in_word = true;
                    counts[1] += 1;
                }
            }
            pending.clear();
            counts[2] += chunk.iter().filter(|b| **b & 0xC0 != 0x80).count() as u64;
        }
        counts[4] = counts[4].max(line_len);
        rows.push((counts, f.clone()));
    }
    if given > 1 {
        let mut total = [0u64; 5];
        for (r, _) in &rows {
            for i in 0..4 {
                total[i] += r[i];
            }
            total[4] = total[4].max(r[4]);
        }
        rows.push((total, "total".into()));
    }
    let shown = [l, w, m, c, longest];
    let columns = shown.iter().filter(|s| **s).count();
    let width = if columns == 1 && given <= 1 {
        1
    } else {
        let mut digits = 1;
        let mut t = regular_total;
        while t >= 10 {
            t /= 10;
            digits += 1;
        }
        if any_stream { digits.max(7) } else { digits }
    };
    let mut out = Writer::new(&sh.io.stdout);
    for (counts, name) in rows {
        let values = [counts[0], counts[1], counts[2], counts[3], counts[4]];
        let parts: Vec<String> = values
            .iter()
            .zip(shown)
            .filter(|(_, s)| *s)
            .map(|(v, _)| format!("{v:>width$}"))
            .collect();
        let mut line = parts.join(" ");
        if given > 0 || name == "total" {
            line.push(' ');
            line.push_str(&name);
        }
        line.push('\n');
        if let Err(Stop(s)) = out.write_str(&line).await {
            return s;
        }
    }
    done(out.flush().await, status)
}

/// `tac [FILE...]`.
pub async fn tac(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let files: Vec<String> = argv[1..].to_vec();
    let mut out = Writer::new(&sh.io.stdout);
    let mut status = 0;
    for f in files_or_stdin(files) {
        let data = match open(sh, &f) {
            Ok(input) => match read_all_limited(&input, MEMORY_LIMIT, "tac").await {
                Ok(d) => d,
                Err(m) => {
                    status = complain(sh, &m).await;
                    continue;
                }
            },
            Err(m) => {
                status = complain(
                    sh,
                    &format!(
                        "tac: failed to open '{f}' for reading: {}",
                        m.split_once(": ").map(|x| x.1).unwrap_or(&m)
                    ),
                )
                .await;
                continue;
            }
        };
        let mut lines: Vec<&[u8]> = data.split_inclusive(|b| *b == b'\n').collect();
        lines.reverse();
        for l in lines {
            if let Err(Stop(s)) = out.write(l).await {
                return s;
            }
        }
    }
    done(out.flush().await, status)
}

/// `rev [FILE...]`: reverses the characters of each line.
pub async fn rev(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let mut out = Writer::new(&sh.io.stdout);
    let mut status = 0;
    for f in files_or_stdin(argv[1..].to_vec()) {
        let input = match open(sh, &f) {
            Ok(i) => i,
            Err(m) => {
                status = complain(sh, &format!("rev: cannot open {m}")).await;
                continue;
            }
        };
        let mut lines = Lines::new(input);
        while let Ok(Some(line)) = lines.next().await {
            let (body, nl) = match line.strip_suffix(b"\n") {
                Some(b) => (b, "\n"),
                None => (&line[..], ""),
            };
            let text: String = String::from_utf8_lossy(body).chars().rev().collect();
            if let Err(Stop(s)) = out.write_str(&format!("{text}{nl}")).await {
                return s;
            }
        }
    }
    done(out.flush().await, status)
}

/// `tee [-a] [FILE...]`: copies stdin to stdout and to each file.
pub async fn tee(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let mut append = false;
    let mut files = Vec::new();
    let mut p = parser(argv);
    loop {
        match p.next() {
            Ok(Some(Short('a') | Long("append"))) => append = true,
            Ok(Some(Short('i') | Long("ignore-interrupts"))) => {}
            Ok(Some(Value(v))) => files.push(value_string(v)),
            Ok(Some(other)) => return bad_usage(sh, "tee", other.unexpected(), 1).await,
            Ok(None) => break,
            Err(e) => return bad_usage(sh, "tee", e, 1).await,
        }
    }
    let mut status = 0;
    let mut sinks = Vec::new();
    for f in &files {
        let mut o = std::fs::OpenOptions::new();
        o.write(true).create(true);
        if append {
            o.append(true);
        } else {
            o.truncate(true);
        }
        match o.open(sh.shell.path(f)) {
            Ok(file) => sinks.push(file),
            Err(e) => {
                status = complain(sh, &format!("tee: {f}: {}", crate::exec::io_message(&e))).await
            }
        }
    }
    let input = sh.io.stdin.clone();
    loop {
        let chunk = match input.read().await {
            Ok(c) if !c.is_empty() => c,
            _ => break,
        };
        for s in &mut sinks {
            use std::io::Write;
            let _ = s.write_all(&chunk);
        }
        if let Err(e) = sh.io.stdout.write_all(&chunk).await
            && e.kind() == std::io::ErrorKind::BrokenPipe
        {
            return 141;
        }
    }
    status
}

/// `seq [-s SEP] [-w] [FIRST [INCREMENT]] LAST`.
pub async fn seq(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let mut sep = "\n".to_string();
    let mut equal_width = false;
    let mut format: Option<String> = None;
    let mut nums = Vec::new();
    let mut i = 1;
    while i < argv.len() {
        let a = &argv[i];
        match a.as_str() {
            "-s" => {
                i += 1;
                sep = argv.get(i).cloned().unwrap_or_default();
            }
            "-w" | "--equal-width" => equal_width = true,
            "-f" | "--format" => {
                i += 1;
                format = argv.get(i).cloned();
            }
            s if s.starts_with("--format=") => format = Some(s[9..].to_string()),
            s if s.starts_with("-f") && s.len() > 2 => format = Some(s[2..].to_string()),
            s if s.starts_with("-s") && s.len() > 2 => sep = s[2..].to_string(),
            s if s.starts_with('-') && s.parse::<f64>().is_err() => {
                complain(
                    sh,
                    &format!(
                        "seq: invalid option -- '{}'\nTry 'seq --help' for more information.",
                        s.chars().nth(1).unwrap_or('-')
                    ),
                )
                .await;
                return 1;
            }
            s => nums.push(s.to_string()),
        }
        i += 1;
    }
    if nums.is_empty() || nums.len() > 3 {
        let msg = if nums.is_empty() {
            "seq: missing operand".to_string()
        } else {
            format!("seq: extra operand '{}'", nums[3])
        };
        complain(
            sh,
            &format!("{msg}\nTry 'seq --help' for more information."),
        )
        .await;
        return 1;
    }
    let mut parsed = Vec::new();
    for n in &nums {
        match n.parse::<f64>() {
            Ok(v) if v.is_finite() => parsed.push(v),
            _ => {
                complain(sh, &format!("seq: invalid floating point argument: '{n}'\nTry 'seq --help' for more information.")).await;
                return 1;
            }
        }
    }
    let (first, inc, last) = match parsed.as_slice() {
        [l] => (1.0, 1.0, *l),
        [f, l] => (*f, 1.0, *l),
        [f, i, l] => (*f, *i, *l),
        _ => unreachable!("one to three operands"),
    };
    if inc == 0.0 {
        complain(
            sh,
            &format!(
                "seq: invalid Zero increment value: '{}'\nTry 'seq --help' for more information.",
                nums[1]
            ),
        )
        .await;
        return 1;
    }
    // Decimals shown: the most any operand has.
    let decimals = nums
        .iter()
        .map(|n| n.split_once('.').map(|(_, d)| d.len()).unwrap_or(0))
        .max()
        .unwrap_or(0);
    let fmt = |v: f64| match &format {
        // `-f`: a printf format with one floating-point conversion.
        Some(f) => super::awk::format::sprintf(f, &[super::awk::value::Value::Num(v)], "%.6g")
            .unwrap_or_default(),
        None => format!("{v:.decimals$}"),
    };
    let width = if equal_width {
        fmt(first).len().max(fmt(last).len())
    } else {
        0
    };
    let mut out = Writer::new(&sh.io.stdout);
    let mut k = 0u64;
    let mut first_item = true;
    loop {
        let v = first + inc * k as f64;
        if (inc > 0.0 && v > last + 1e-9) || (inc < 0.0 && v < last - 1e-9) {
            break;
        }
        let mut text = fmt(v);
        if equal_width && text.len() < width {
            let neg = text.starts_with('-');
            let digits = text.trim_start_matches('-').to_string();
            text = format!(
                "{}{}{digits}",
                if neg { "-" } else { "" },
                "0".repeat(width - text.len())
            );
        }
        let item = if first_item {
            text
        } else {
            format!("{sep}{text}")
        };
        first_item = false;
        if let Err(Stop(s)) = out.write_str(&item).await {
            return s;
        }
        k += 1;
    }
    if !first_item && let Err(Stop(s)) = out.write_str("\n").await {
        return s;
    }
    done(out.flush().await, 0)
}

/// `basename NAME [SUFFIX]`, `basename -a NAME...`, `-s SUFFIX`.
pub async fn basename(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let mut names = Vec::new();
    let mut suffix = None;
    let mut multiple = false;
    let mut i = 1;
    while i < argv.len() {
        match argv[i].as_str() {
            "-a" | "--multiple" => multiple = true,
            "-s" => {
                i += 1;
                suffix = argv.get(i).cloned();
                multiple = true;
            }
            "--" => {
                names.extend(argv[i + 1..].iter().cloned());
                break;
            }
            a => names.push(a.to_string()),
        }
        i += 1;
    }
    if names.is_empty() {
        complain(
            sh,
            "basename: missing operand\nTry 'basename --help' for more information.",
        )
        .await;
        return 1;
    }
    if !multiple {
        if names.len() > 2 {
            complain(
                sh,
                &format!(
                    "basename: extra operand '{}'\nTry 'basename --help' for more information.",
                    names[2]
                ),
            )
            .await;
            return 1;
        }
        if names.len() == 2 {
            suffix = names.pop();
        }
    }
    let mut text = String::new();
    for n in names {
        let trimmed = n.trim_end_matches('/');
        let mut base = if trimmed.is_empty() && n.starts_with('/') {
            "/".to_string()
        } else {
            trimmed.rsplit('/').next().unwrap_or("").to_string()
        };
        if let Some(s) = &suffix
            && base.len() > s.len()
            && base.ends_with(s.as_str())
        {
            base.truncate(base.len() - s.len());
        }
        text.push_str(&base);
        text.push('\n');
    }
    crate::builtins::out(sh, &text).await
}

/// `dirname NAME...`.
pub async fn dirname(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let names: Vec<&String> = argv[1..].iter().filter(|a| *a != "--").collect();
    if names.is_empty() {
        complain(
            sh,
            "dirname: missing operand\nTry 'dirname --help' for more information.",
        )
        .await;
        return 1;
    }
    let mut text = String::new();
    for n in names {
        let trimmed = n.trim_end_matches('/');
        let dir = match trimmed.rfind('/') {
            None if n.starts_with('/') => "/".to_string(),
            None => ".".to_string(),
            Some(i) => {
                let d = trimmed[..i].trim_end_matches('/');
                if d.is_empty() {
                    "/".to_string()
                } else {
                    d.to_string()
                }
            }
        };
        text.push_str(&dir);
        text.push('\n');
    }
    crate::builtins::out(sh, &text).await
}
