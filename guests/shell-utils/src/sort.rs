//! `sort`: keys, `-t`, `-n -h -V -g -f -b -r -u -s -c -o`, comparing bytes as GNU does in
//! the C locale. It holds its input, within the memory limit a command may hold.

use super::stream::{Lines, MEMORY_LIMIT, Stop, Writer, complain, files_or_stdin, open};
use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{bad_usage, parser};
use std::cmp::Ordering;

#[derive(Clone, Copy, Default)]
struct Kind {
    numeric: bool,
    human: bool,
    version: bool,
    general: bool,
    fold: bool,
    blanks: bool,
    reverse: bool,
}

impl Kind {
    fn any(&self) -> bool {
        self.numeric
            || self.human
            || self.version
            || self.general
            || self.fold
            || self.blanks
            || self.reverse
    }

    fn apply(&mut self, letters: &str) -> bool {
        for c in letters.chars() {
            match c {
                'n' => self.numeric = true,
                'h' => self.human = true,
                'V' => self.version = true,
                'g' => self.general = true,
                'f' => self.fold = true,
                'b' => self.blanks = true,
                'r' => self.reverse = true,
                'd' | 'i' | 'M' | 'R' => {}
                _ => return false,
            }
        }
        true
    }
}

/// `-k POS1[,POS2]`: fields and characters counted from 1.
#[derive(Clone)]
struct Key {
    start: (usize, usize),
    end: Option<(usize, usize)>,
    kind: Kind,
}

fn parse_pos(text: &str, kind: &mut Kind) -> Option<(usize, usize)> {
    let digits_end = text
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(text.len());
    let (pos, letters) = text.split_at(digits_end);
    if !kind.apply(letters) {
        return None;
    }
    let (f, c) = match pos.split_once('.') {
        Some((f, c)) => (f.parse().ok()?, c.parse().ok()?),
        None => (pos.parse().ok()?, 0),
    };
    Some((f, c))
}

fn parse_key(text: &str) -> Option<Key> {
    let mut kind = Kind::default();
    let (a, b) = match text.split_once(',') {
        Some((a, b)) => (a, Some(b)),
        None => (text, None),
    };
    let start = parse_pos(a, &mut kind)?;
    if start.0 == 0 {
        return None;
    }
    let end = match b {
        Some(b) => Some(parse_pos(b, &mut kind)?),
        None => None,
    };
    Some(Key { start, end, kind })
}

fn key_slice<'a>(line: &'a [u8], key: &Key, sep: Option<u8>, blanks: bool) -> &'a [u8] {
    let f = fields(line, sep);
    let skip_blanks = |s: usize, e: usize| {
        let mut s = s;
        while s < e && (line[s] == b' ' || line[s] == b'\t') {
            s += 1;
        }
        s
    };
    let start = match f.get(key.start.0 - 1) {
        Some(&(s, e)) => {
            let s = if blanks || key.kind.blanks {
                skip_blanks(s, e)
            } else {
                s
            };
            if key.start.1 > 0 {
                (s + key.start.1 - 1).min(e)
            } else {
                s
            }
        }
        None => return &[],
    };
    let end = match key.end {
        None => line.len(),
        Some((field, ch)) => match f.get(field.saturating_sub(1)) {
            Some(&(s, e)) if ch > 0 => {
                let s = if blanks || key.kind.blanks {
                    skip_blanks(s, e)
                } else {
                    s
                };
                (s + ch).min(e)
            }
            Some(&(_, e)) => e,
            None => line.len(),
        },
    };
    if end <= start { &[] } else { &line[start..end] }
}

/// The leading number of `s` (blanks skipped), as `sort -n` reads it.
fn numeric_prefix(s: &[u8]) -> f64 {
    let text = String::from_utf8_lossy(s);
    let t = text.trim_start();
    let mut end = 0;
    let b = t.as_bytes();
    if end < b.len() && b[end] == b'-' {
        end += 1;
    }
    while end < b.len() && (b[end].is_ascii_digit() || b[end] == b'.') {
        end += 1;
    }
    t[..end].parse().unwrap_or(0.0)
}

fn human(s: &[u8]) -> f64 {
    let n = numeric_prefix(s);
    let text = String::from_utf8_lossy(s);
    let t = text
        .trim_start()
        .trim_start_matches(['-', '.', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
    let mult = match t.chars().next() {
        Some('K' | 'k') => 1e3,
        Some('M') => 1e6,
        Some('G') => 1e9,
        Some('T') => 1e12,
        Some('P') => 1e15,
        Some('E') => 1e18,
        _ => 1.0,
    };
    n * mult
}

/// Natural order of version strings (`v1.2` before `v1.10`).
/// `sort -V`: GNU's `filevercmp` (file suffixes such as `.tar.gz` compared last; `~` before
/// everything; digits as numbers; letters before other characters).
fn version_cmp(a: &[u8], b: &[u8]) -> Ordering {
    if a == b {
        return Ordering::Equal;
    }
    let (pa, pb) = (suffix_start(a), suffix_start(b));
    match verrevcmp(&a[..pa], &b[..pb]) {
        Ordering::Equal => verrevcmp(a, b),
        o => o,
    }
}

/// Where a trailing file suffix (`(\.[A-Za-z~][A-Za-z0-9~]*)*$`) starts.
fn suffix_start(s: &[u8]) -> usize {
    let mut start = s.len();
    let mut i = s.len();
    // Walk back over `.word` groups.
    loop {
        let mut k = i;
        while k > 0 && (s[k - 1].is_ascii_alphanumeric() || s[k - 1] == b'~') {
            k -= 1;
        }
        if k > 0 && k < i && s[k - 1] == b'.' && (s[k].is_ascii_alphabetic() || s[k] == b'~') {
            i = k - 1;
            start = i;
        } else {
            return start;
        }
    }
}

fn verrevcmp(a: &[u8], b: &[u8]) -> Ordering {
    fn order(c: Option<&u8>) -> i32 {
        match c {
            None => 0,
            Some(c) if c.is_ascii_digit() => 0,
            Some(c) if c.is_ascii_alphabetic() => *c as i32,
            Some(b'~') => -1,
            Some(c) => *c as i32 + 256,
        }
    }
    let digit = |s: &[u8], k: usize| s.get(k).is_some_and(u8::is_ascii_digit);
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        while (i < a.len() && !digit(a, i)) || (j < b.len() && !digit(b, j)) {
            let (x, y) = (order(a.get(i)), order(b.get(j)));
            if x != y {
                return x.cmp(&y);
            }
            i += 1;
            j += 1;
        }
        while a.get(i) == Some(&b'0') {
            i += 1;
        }
        while b.get(j) == Some(&b'0') {
            j += 1;
        }
        let mut first_diff = Ordering::Equal;
        while digit(a, i) && digit(b, j) {
            if first_diff == Ordering::Equal {
                first_diff = a[i].cmp(&b[j]);
            }
            i += 1;
            j += 1;
        }
        if digit(a, i) {
            return Ordering::Greater;
        }
        if digit(b, j) {
            return Ordering::Less;
        }
        if first_diff != Ordering::Equal {
            return first_diff;
        }
    }
    Ordering::Equal
}

fn compare(a: &[u8], b: &[u8], kind: &Kind) -> Ordering {
    let o = if kind.numeric || kind.general {
        numeric_prefix(a)
            .partial_cmp(&numeric_prefix(b))
            .unwrap_or(Ordering::Equal)
    } else if kind.human {
        human(a).partial_cmp(&human(b)).unwrap_or(Ordering::Equal)
    } else if kind.version {
        version_cmp(a, b)
    } else if kind.fold {
        a.iter()
            .map(u8::to_ascii_uppercase)
            .cmp(b.iter().map(u8::to_ascii_uppercase))
    } else {
        a.cmp(b)
    };
    if kind.reverse { o.reverse() } else { o }
}

/// `sort [OPTIONS] [FILE...]`.
pub async fn sort(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let mut global = Kind::default();
    let mut keys: Vec<Key> = Vec::new();
    let mut sep: Option<u8> = None;
    let (mut unique, mut stable, mut check, mut zero) = (false, false, false, false);
    let mut output: Option<String> = None;
    let mut files = Vec::new();
    let mut p = parser(argv);
    loop {
        let arg = match p.next() {
            Ok(Some(a)) => a,
            Ok(None) => break,
            Err(e) => return bad_usage(sh, "sort", e, 2).await,
        };
        match arg {
            Short('n') | Long("numeric-sort") => global.numeric = true,
            Short('h') | Long("human-numeric-sort") => global.human = true,
            Short('V') | Long("version-sort") => global.version = true,
            Short('g') | Long("general-numeric-sort") => global.general = true,
            Short('f') | Long("ignore-case") => global.fold = true,
            Short('b') | Long("ignore-leading-blanks") => global.blanks = true,
            Short('r') | Long("reverse") => global.reverse = true,
            // `-m`: the inputs are sorted already; sorting them together gives the merge.
            Short('d') | Short('i') | Short('M') | Short('R') | Short('m') | Long("merge") => {}
            Short('u') | Long("unique") => unique = true,
            Short('s') | Long("stable") => stable = true,
            Short('c') | Short('C') | Long("check") => check = true,
            Short('z') | Long("zero-terminated") => zero = true,
            Short('k') | Long("key") => {
                let text = p
                    .value()
                    .map(|v| v.to_string_lossy().into_owned())
                    .unwrap_or_default();
                match parse_key(&text) {
                    Some(k) => keys.push(k),
                    None => {
                        complain(sh, &format!("sort: invalid number at field start: invalid count at start of '{text}'")).await;
                        return 2;
                    }
                }
            }
            Short('t') | Long("field-separator") => {
                let text = p
                    .value()
                    .map(|v| v.to_string_lossy().into_owned())
                    .unwrap_or_default();
                if text.len() != 1 {
                    complain(sh, &format!("sort: multi-character tab '{text}'")).await;
                    return 2;
                }
                sep = text.bytes().next();
            }
            Short('o') | Long("output") => {
                output = p.value().ok().map(|v| v.to_string_lossy().into_owned())
            }
            Short('S') | Short('T') | Long("parallel") | Long("buffer-size") => {
                let _ = p.value();
            }
            Value(v) => files.push(v.to_string_lossy().into_owned()),
            other => return bad_usage(sh, "sort", other.unexpected(), 2).await,
        }
    }
    let delim = if zero { b'\0' } else { b'\n' };
    let mut lines: Vec<Vec<u8>> = Vec::new();
    let mut total = 0usize;
    let files = files_or_stdin(files);
    for f in &files {
        let input = match open(sh, f) {
            Ok(i) => i,
            Err(m) => {
                complain(sh, &format!("sort: cannot read: {m}")).await;
                return 2;
            }
        };
        let mut reader = Lines::with_delimiter(input, delim);
        while let Ok(Some(mut l)) = reader.next().await {
            if l.last() == Some(&delim) {
                l.pop();
            }
            total += l.len();
            if total > MEMORY_LIMIT {
                complain(
                    sh,
                    &format!(
                        "sort: input larger than the {} MiB it may hold in memory",
                        MEMORY_LIMIT >> 20
                    ),
                )
                .await;
                return 2;
            }
            lines.push(l);
        }
    }
    for k in &mut keys {
        if !k.kind.any() {
            k.kind = global;
        }
    }
    let cmp = |a: &Vec<u8>, b: &Vec<u8>| -> Ordering {
        if keys.is_empty() {
            let (x, y) = if global.blanks {
                (trim_blanks(a), trim_blanks(b))
            } else {
                (&a[..], &b[..])
            };
            return compare(x, y, &global);
        }
        for k in &keys {
            let o = compare(
                key_slice(a, k, sep, global.blanks),
                key_slice(b, k, sep, global.blanks),
                &k.kind,
            );
            if o != Ordering::Equal {
                return o;
            }
        }
        Ordering::Equal
    };
    let last_resort = |a: &Vec<u8>, b: &Vec<u8>| -> Ordering {
        match cmp(a, b) {
            Ordering::Equal if !(stable || unique) => {
                let o = a.cmp(b);
                if global.reverse { o.reverse() } else { o }
            }
            o => o,
        }
    };
    if check {
        for (i, w) in lines.windows(2).enumerate() {
            let bad = match cmp(&w[0], &w[1]) {
                Ordering::Greater => true,
                Ordering::Equal => unique,
                Ordering::Less => false,
            };
            if bad {
                let name = if files[0] == "-" { "-" } else { &files[0] };
                complain(
                    sh,
                    &format!(
                        "sort: {name}:{}: disorder: {}",
                        i + 2,
                        String::from_utf8_lossy(&w[1])
                    ),
                )
                .await;
                return 1;
            }
        }
        return 0;
    }
    lines.sort_by(last_resort);
    if unique {
        lines.dedup_by(|b, a| cmp(a, b) == Ordering::Equal);
    }
    let mut data = Vec::with_capacity(total + lines.len());
    for l in lines {
        data.extend_from_slice(&l);
        data.push(delim);
    }
    if let Some(path) = output {
        return match std::fs::write(sh.path(&path), &data) {
            Ok(()) => 0,
            Err(e) => {
                complain(
                    sh,
                    &format!(
                        "sort: open failed: {path}: {}",
                        shell_base::errno::io_message(&e)
                    ),
                )
                .await
                    + 1
            }
        };
    }
    let mut out = Writer::new(&sh.io().stdout);
    match out.write(&data).await.and(out.flush().await) {
        Ok(()) => 0,
        Err(Stop(s)) => s,
    }
}

fn trim_blanks(s: &[u8]) -> &[u8] {
    let i = s
        .iter()
        .position(|b| *b != b' ' && *b != b'\t')
        .unwrap_or(s.len());
    &s[i..]
}

/// Byte ranges of the fields of `line` (GNU: without `-t`, a field starts with its blanks).
pub(crate) fn fields(line: &[u8], sep: Option<u8>) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    match sep {
        Some(s) => {
            let mut start = 0;
            for (i, b) in line.iter().enumerate() {
                if *b == s {
                    out.push((start, i));
                    start = i + 1;
                }
            }
            out.push((start, line.len()));
        }
        None => {
            let mut i = 0;
            while i < line.len() {
                let start = i;
                while i < line.len() && (line[i] == b' ' || line[i] == b'\t') {
                    i += 1;
                }
                while i < line.len() && line[i] != b' ' && line[i] != b'\t' {
                    i += 1;
                }
                out.push((start, i));
            }
        }
    }
    out
}

#[cfg(all(test, unix))]
mod tests {

    use crate::testing::stdout_of;

    #[test]
    fn numeric_reverse_unique_and_keys() {
        assert_eq!(stdout_of(&["sort", "-n"], "10\n9\n100\n"), "9\n10\n100\n");
        assert_eq!(stdout_of(&["sort", "-ru"], "b\na\nb\n"), "b\na\n");
        assert_eq!(
            stdout_of(&["sort", "-t", ",", "-k", "2"], "x,b\ny,a\n"),
            "y,a\nx,b\n"
        );
    }
}
