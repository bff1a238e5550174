//! Smaller coreutils: `base64`, `fold`, `comm`, `cmp`, `expr`.

use super::stream::{
    Lines, MEMORY_LIMIT, Stop, Writer, complain, files_or_stdin, open, read_all_limited,
};
use crate::builtins::out;
use crate::exec::Interp;

const B64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn encode(data: &[u8]) -> String {
    let mut out = String::new();
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(B64[(n >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn decode(text: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let mut acc = 0u32;
    let mut bits = 0;
    for &c in text {
        if c == b'=' {
            break;
        }
        if c.is_ascii_whitespace() {
            continue;
        }
        let v = B64.iter().position(|x| *x == c)? as u32;
        acc = acc << 6 | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// `base64 [-d] [-w COLS] [FILE]`.
pub async fn base64(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let mut decode_mode = false;
    let mut wrap = 76usize;
    let mut file = "-".to_string();
    let mut i = 1;
    while i < argv.len() {
        match argv[i].as_str() {
            "-d" | "--decode" => decode_mode = true,
            "-i" | "--ignore-garbage" => {}
            "-w" => {
                i += 1;
                wrap = argv.get(i).and_then(|v| v.parse().ok()).unwrap_or(76);
            }
            s if s.starts_with("-w") => wrap = s[2..].parse().unwrap_or(76),
            s if s.starts_with("--wrap=") => wrap = s[7..].parse().unwrap_or(76),
            s => file = s.to_string(),
        }
        i += 1;
    }
    let input = match open(sh, &file) {
        Ok(i) => i,
        Err(m) => return complain(sh, &format!("base64: {m}")).await,
    };
    let data = match read_all_limited(&input, MEMORY_LIMIT, "base64").await {
        Ok(d) => d,
        Err(m) => return complain(sh, &m).await,
    };
    let mut w = Writer::new(&sh.io.stdout);
    let r = if decode_mode {
        match decode(&data) {
            Some(bytes) => w.write(&bytes).await,
            None => return complain(sh, "base64: invalid input").await,
        }
    } else {
        let text = encode(&data);
        let mut s = String::new();
        if wrap == 0 {
            s.push_str(&text);
        } else {
            for (k, c) in text.chars().enumerate() {
                if k > 0 && k % wrap == 0 {
                    s.push('\n');
                }
                s.push(c);
            }
        }
        // `-w 0` writes one unbroken line without a newline, as GNU does.
        if !s.is_empty() && wrap != 0 {
            s.push('\n');
        }
        w.write_str(&s).await
    };
    match r.and(w.flush().await) {
        Ok(()) => 0,
        Err(Stop(s)) => s,
    }
}

/// `fold [-w N] [-s] [FILE...]`.
pub async fn fold(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let mut width = 80usize;
    let mut spaces = false;
    let mut files = Vec::new();
    let mut i = 1;
    while i < argv.len() {
        match argv[i].as_str() {
            "-s" | "--spaces" => spaces = true,
            "-w" => {
                i += 1;
                width = argv.get(i).and_then(|v| v.parse().ok()).unwrap_or(80);
            }
            s if s.starts_with("-w") => width = s[2..].parse().unwrap_or(80),
            s if s.starts_with('-')
                && s.len() > 1
                && s[1..].chars().all(|c| c.is_ascii_digit()) =>
            {
                width = s[1..].parse().unwrap_or(80)
            }
            s => files.push(s.to_string()),
        }
        i += 1;
    }
    let width = width.max(1);
    let files = files_or_stdin(files);
    let mut w = Writer::new(&sh.io.stdout);
    for f in files {
        let input = match open(sh, &f) {
            Ok(i) => i,
            Err(m) => return complain(sh, &format!("fold: {m}")).await,
        };
        let mut lines = Lines::new(input);
        while let Ok(Some(line)) = lines.next().await {
            let (body, nl) = match line.strip_suffix(b"\n") {
                Some(b) => (b.to_vec(), true),
                None => (line.clone(), false),
            };
            let mut rest: &[u8] = &body;
            let mut out = Vec::new();
            while rest.len() > width {
                let mut cut = width;
                if spaces && let Some(p) = rest[..width].iter().rposition(|b| *b == b' ') {
                    cut = p + 1;
                }
                out.extend_from_slice(&rest[..cut]);
                out.push(b'\n');
                rest = &rest[cut..];
            }
            out.extend_from_slice(rest);
            if nl {
                out.push(b'\n');
            }
            if let Err(Stop(s)) = w.write(&out).await {
                return s;
            }
        }
    }
    match w.flush().await {
        Ok(()) => 0,
        Err(Stop(s)) => s,
    }
}

/// `comm [-123] FILE1 FILE2` (both sorted).
pub async fn comm(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let mut hide = [false; 3];
    let mut files = Vec::new();
    for a in &argv[1..] {
        if a.starts_with('-') && a.len() > 1 && a[1..].chars().all(|c| "123".contains(c)) {
            for c in a[1..].chars() {
                hide[c as usize - '1' as usize] = true;
            }
        } else {
            files.push(a.clone());
        }
    }
    if files.len() != 2 {
        let msg = if files.len() < 2 {
            format!(
                "comm: missing operand after '{}'",
                files.last().cloned().unwrap_or_else(|| "comm".into())
            )
        } else {
            format!("comm: extra operand '{}'", files[2])
        };
        return complain(
            sh,
            &format!("{msg}\nTry 'comm --help' for more information."),
        )
        .await;
    }
    let mut read = Vec::new();
    for f in &files {
        let input = match open(sh, f) {
            Ok(i) => i,
            Err(m) => return complain(sh, &format!("comm: {m}")).await,
        };
        let mut lines = Lines::new(input);
        let mut v = Vec::new();
        while let Ok(Some(l)) = lines.next().await {
            v.push(l.strip_suffix(b"\n").map(<[u8]>::to_vec).unwrap_or(l));
        }
        read.push(v);
    }
    let (a, b) = (&read[0], &read[1]);
    let (mut i, mut j) = (0, 0);
    let mut text = Vec::new();
    let emit = |col: usize, line: &[u8], text: &mut Vec<u8>| {
        if hide[col] {
            return;
        }
        let tabs = (0..col).filter(|c| !hide[*c]).count();
        text.extend(std::iter::repeat_n(b'\t', tabs));
        text.extend_from_slice(line);
        text.push(b'\n');
    };
    // As GNU's, unsorted input is reported (once per file, when the merge reads past the
    // out-of-order line) and makes the status 1.
    let mut unsorted = [false; 2];
    let mut notes = Vec::new();
    let mut check = |file: usize, lines: &[Vec<u8>], at: usize| {
        if !unsorted[file] && at + 1 < lines.len() && lines[at + 1] < lines[at] {
            unsorted[file] = true;
            notes.push(format!("comm: file {} is not in sorted order", file + 1));
        }
    };
    while i < a.len() || j < b.len() {
        match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) if x == y => {
                emit(2, x, &mut text);
                check(0, a, i);
                check(1, b, j);
                i += 1;
                j += 1;
            }
            (Some(x), Some(y)) if x < y => {
                emit(0, x, &mut text);
                check(0, a, i);
                i += 1;
            }
            (Some(_), Some(y)) => {
                emit(1, y, &mut text);
                check(1, b, j);
                j += 1;
            }
            (Some(x), None) => {
                emit(0, x, &mut text);
                check(0, a, i);
                i += 1;
            }
            (None, Some(y)) => {
                emit(1, y, &mut text);
                check(1, b, j);
                j += 1;
            }
            (None, None) => break,
        }
    }
    let disordered = !notes.is_empty();
    if disordered {
        notes.push("comm: input is not in sorted order".into());
        complain(sh, &notes.join("\n")).await;
    }
    let mut w = Writer::new(&sh.io.stdout);
    match w.write(&text).await.and(w.flush().await) {
        Ok(()) => i32::from(disordered),
        Err(Stop(s)) => s,
    }
}

/// `cmp [-s] FILE1 FILE2`.
pub async fn cmp(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let silent = argv[1..]
        .iter()
        .any(|a| a == "-s" || a == "--quiet" || a == "--silent");
    let files: Vec<&String> = argv[1..]
        .iter()
        .filter(|a| !a.starts_with('-') || *a == "-")
        .collect();
    if files.len() < 2 {
        complain(
            sh,
            &format!(
                "cmp: missing operand after '{}'\nTry 'cmp --help' for more information.",
                files.first().map(|s| s.as_str()).unwrap_or("cmp")
            ),
        )
        .await;
        return 2;
    }
    let mut data = Vec::new();
    for f in &files[..2] {
        let input = match open(sh, f) {
            Ok(i) => i,
            Err(m) => {
                complain(sh, &format!("cmp: {m}")).await;
                return 2;
            }
        };
        match read_all_limited(&input, MEMORY_LIMIT, "cmp").await {
            Ok(d) => data.push(d),
            Err(m) => {
                complain(sh, &m).await;
                return 2;
            }
        }
    }
    let (a, b) = (&data[0], &data[1]);
    let verbose = argv[1..].iter().any(|x| x == "-l" || x == "--verbose");
    if verbose {
        // `-l`: every differing byte: position, then both values in octal.
        let width = a.len().max(b.len()).to_string().len();
        let mut text = String::new();
        for k in 0..a.len().min(b.len()) {
            if a[k] != b[k] {
                text.push_str(&format!("{:>width$} {:>3o} {:>3o}\n", k + 1, a[k], b[k]));
            }
        }
        let status = out(sh, &text).await;
        if status != 0 {
            return status;
        }
        if a.len() != b.len() {
            let (short, n) = if a.len() < b.len() {
                (files[0], a.len())
            } else {
                (files[1], b.len())
            };
            complain(sh, &format!("cmp: EOF on {short} after byte {n}")).await;
        }
        return i32::from(!text.is_empty() || a.len() != b.len());
    }
    let mut line = 1;
    for k in 0..a.len().min(b.len()) {
        if a[k] != b[k] {
            if !silent {
                return match out(
                    sh,
                    &format!(
                        "{} {} differ: char {}, line {line}\n",
                        files[0],
                        files[1],
                        k + 1
                    ),
                )
                .await
                {
                    0 => 1,
                    s => s,
                };
            }
            return 1;
        }
        if a[k] == b'\n' {
            line += 1;
        }
    }
    if a.len() != b.len() {
        if !silent {
            let (short, n) = if a.len() < b.len() {
                (files[0], a.len())
            } else {
                (files[1], b.len())
            };
            let after = if n == 0 {
                "empty file".to_string()
            } else {
                format!(
                    "byte {n}, in line {}",
                    line - if a.get(n.saturating_sub(1)) == Some(&b'\n') {
                        1
                    } else {
                        0
                    }
                )
            };
            let msg = if n == 0 {
                format!("cmp: EOF on {short} which is empty")
            } else {
                format!("cmp: EOF on {short} after {after}")
            };
            complain(sh, &msg).await;
        }
        return 1;
    }
    0
}

/// `expr EXPRESSION`: `|`, `&`, comparisons, `+ - * / %`, `:` (a regex match), `length`,
/// `substr`, `index`, parentheses.
pub async fn expr(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    if argv.len() < 2 {
        return complain(
            sh,
            "expr: missing operand\nTry 'expr --help' for more information.",
        )
        .await
            + 1;
    }
    let args: Vec<&str> = argv[1..].iter().map(String::as_str).collect();
    let mut p = ExprParser { args: &args, i: 0 };
    let result = p.or();
    match result {
        Ok(v) if p.i == args.len() => {
            let null = v.is_empty() || v == "0";
            match out(sh, &format!("{v}\n")).await {
                0 => null as i32,
                s => s,
            }
        }
        Ok(_) => {
            complain(
                sh,
                &format!("expr: syntax error: unexpected argument '{}'", args[p.i]),
            )
            .await;
            2
        }
        Err(m) => {
            complain(sh, &format!("expr: {m}")).await;
            2
        }
    }
}

struct ExprParser<'a> {
    args: &'a [&'a str],
    i: usize,
}

impl<'a> ExprParser<'a> {
    fn peek(&self) -> Option<&'a str> {
        self.args.get(self.i).copied()
    }

    fn or(&mut self) -> Result<String, String> {
        let mut l = self.and()?;
        while self.peek() == Some("|") {
            self.i += 1;
            let r = self.and()?;
            if l.is_empty() || l == "0" {
                l = r;
            }
        }
        Ok(l)
    }

    fn and(&mut self) -> Result<String, String> {
        let mut l = self.cmp()?;
        while self.peek() == Some("&") {
            self.i += 1;
            let r = self.cmp()?;
            if l.is_empty() || l == "0" || r.is_empty() || r == "0" {
                l = "0".into();
            }
        }
        Ok(l)
    }

    fn cmp(&mut self) -> Result<String, String> {
        let mut l = self.add()?;
        while let Some(op) = self
            .peek()
            .filter(|o| matches!(*o, "<" | "<=" | "=" | "==" | "!=" | ">=" | ">"))
        {
            self.i += 1;
            let r = self.add()?;
            let ord = match (l.parse::<i64>(), r.parse::<i64>()) {
                (Ok(a), Ok(b)) => a.cmp(&b),
                _ => l.cmp(&r),
            };
            let t = match op {
                "<" => ord.is_lt(),
                "<=" => ord.is_le(),
                "=" | "==" => ord.is_eq(),
                "!=" => ord.is_ne(),
                ">=" => ord.is_ge(),
                _ => ord.is_gt(),
            };
            l = (t as i32).to_string();
        }
        Ok(l)
    }

    fn num(s: &str) -> Result<i64, String> {
        s.parse().map_err(|_| "non-integer argument".to_string())
    }

    fn add(&mut self) -> Result<String, String> {
        let mut l = self.mul()?;
        while let Some(op) = self.peek().filter(|o| matches!(*o, "+" | "-")) {
            self.i += 1;
            let r = self.mul()?;
            let (a, b) = (Self::num(&l)?, Self::num(&r)?);
            l = if op == "+" {
                a.wrapping_add(b)
            } else {
                a.wrapping_sub(b)
            }
            .to_string();
        }
        Ok(l)
    }

    fn mul(&mut self) -> Result<String, String> {
        let mut l = self.colon()?;
        while let Some(op) = self.peek().filter(|o| matches!(*o, "*" | "/" | "%")) {
            self.i += 1;
            let r = self.colon()?;
            let (a, b) = (Self::num(&l)?, Self::num(&r)?);
            if b == 0 && op != "*" {
                return Err("division by zero".into());
            }
            l = match op {
                "*" => a.wrapping_mul(b),
                "/" => a.wrapping_div(b),
                _ => a.wrapping_rem(b),
            }
            .to_string();
        }
        Ok(l)
    }

    fn colon(&mut self) -> Result<String, String> {
        let l = self.primary()?;
        if self.peek() == Some(":") {
            self.i += 1;
            let pat = self.primary()?;
            let re = regex::Regex::new(&format!("^(?:{})", super::posix::translate(&pat, false)))
                .map_err(|_| "Invalid regular expression".to_string())?;
            return Ok(match re.captures(&l) {
                Some(c) if c.len() > 1 => {
                    c.get(1).map(|m| m.as_str().to_string()).unwrap_or_default()
                }
                Some(c) => c
                    .get(0)
                    .map(|m| m.as_str().chars().count())
                    .unwrap_or(0)
                    .to_string(),
                None if re.captures_len() > 1 => String::new(),
                None => "0".into(),
            });
        }
        Ok(l)
    }

    fn primary(&mut self) -> Result<String, String> {
        let Some(tok) = self.peek() else {
            return Err("syntax error: missing argument after ".to_string()
                + self.args.last().copied().unwrap_or(""));
        };
        self.i += 1;
        match tok {
            "(" => {
                let v = self.or()?;
                if self.peek() != Some(")") {
                    return Err("syntax error: expecting ')'".into());
                }
                self.i += 1;
                Ok(v)
            }
            "length" => Ok(self.primary()?.chars().count().to_string()),
            "substr" => {
                let s = self.primary()?;
                let pos = Self::num(&self.primary()?)?;
                let len = Self::num(&self.primary()?)?;
                if pos < 1 || len < 1 {
                    return Ok(String::new());
                }
                Ok(s.chars()
                    .skip(pos as usize - 1)
                    .take(len as usize)
                    .collect())
            }
            "index" => {
                let s = self.primary()?;
                let chars = self.primary()?;
                Ok(s.chars()
                    .position(|c| chars.contains(c))
                    .map(|p| p + 1)
                    .unwrap_or(0)
                    .to_string())
            }
            "match" => {
                let s = self.primary()?;
                let pat = self.primary()?;
                let re =
                    regex::Regex::new(&format!("^(?:{})", super::posix::translate(&pat, false)))
                        .map_err(|_| "Invalid regular expression".to_string())?;
                Ok(re
                    .find(&s)
                    .map(|m| m.as_str().chars().count())
                    .unwrap_or(0)
                    .to_string())
            }
            "+" => self.primary(),
            t => Ok(t.to_string()),
        }
    }
}
