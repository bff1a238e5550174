//! `csplit`: split a file into pieces at line numbers or at lines matching patterns, as GNU's
//! does: its byte counts, repetitions (`{N}`, `{*}`), offsets and messages, and pieces
//! removed again when it fails (unless `-k`).

use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{bad_usage, parser, string, usage, value};
use shell_base::errno::io_message;

use crate::stream::{MEMORY_LIMIT, complain, open, out, read_all_limited};

/// One split point.
enum Split {
    /// Before line N (1-based).
    Line(usize),
    /// Before the line matching, plus an offset; `skip`: the piece is dropped (`%RE%`).
    Regex {
        re: regex::bytes::Regex,
        offset: i64,
        skip: bool,
    },
}

struct Pattern {
    text: String,
    split: Split,
    /// `{N}` more times, or `{*}` (`None`) until the input ends.
    repeat: Option<usize>,
}

fn parse_pattern(text: &str) -> Result<Pattern, String> {
    let delim = text.chars().next().unwrap_or(' ');
    let split = if delim == '/' || delim == '%' {
        let Some(end) = text[1..].rfind(delim).map(|i| i + 1) else {
            return Err(format!("{text}: closing delimiter '{delim}' missing"));
        };
        let re = regex::bytes::Regex::new(&shell_base::posix::translate(&text[1..end], false))
            .map_err(|e| format!("{text}: invalid regular expression: {e}"))?;
        let rest = &text[end + 1..];
        let offset = if rest.is_empty() {
            0
        } else {
            rest.trim_start_matches('+')
                .parse()
                .map_err(|_| format!("{text}: integer expected after delimiter"))?
        };
        Split::Regex {
            re,
            offset,
            skip: delim == '%',
        }
    } else {
        match text.parse::<usize>() {
            Ok(0) => return Err(format!("{text}: line number must be greater than zero")),
            Ok(n) => Split::Line(n),
            Err(_) => return Err(format!("'{text}': invalid pattern")),
        }
    };
    Ok(Pattern {
        text: text.to_string(),
        split,
        repeat: Some(0),
    })
}

/// `csplit [-skz] [-f PREFIX] [-n DIGITS] [-b FORMAT] FILE PATTERN...`.
pub async fn csplit(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let (mut prefix, mut digits, mut suffix) = ("xx".to_string(), 2usize, None::<String>);
    let (mut silent, mut keep, mut elide) = (false, false, false);
    let mut words = Vec::new();
    let mut p = parser(argv);
    let parsed: Result<(), lexopt::Error> = (|| {
        while let Some(arg) = p.next()? {
            match arg {
                Short('f') | Long("prefix") => prefix = value(&mut p)?,
                Short('n') | Long("digits") => {
                    let v = value(&mut p)?;
                    // A file name is at most 255 bytes anyway.
                    digits = v
                        .parse()
                        .ok()
                        .filter(|d| *d <= 255)
                        .ok_or_else(|| usage(format!("invalid number: '{v}'")))?;
                }
                Short('b') | Long("suffix-format") => suffix = Some(value(&mut p)?),
                Short('s' | 'q') | Long("silent" | "quiet") => silent = true,
                Short('k') | Long("keep-files") => keep = true,
                Short('z') | Long("elide-empty-files") => elide = true,
                Value(v) => {
                    words.push(string(v));
                    // Patterns may start with `-` (`/x/-1` does not, but `{*}` and the like
                    // never do): take the rest as they are.
                    words.extend(p.raw_args()?.map(string));
                }
                _ => return Err(arg.unexpected()),
            }
        }
        Ok(())
    })();
    if let Err(e) = parsed {
        return bad_usage(sh, "csplit", e, 1).await;
    }
    match words.len() {
        0 => return bad_usage(sh, "csplit", usage("missing operand"), 1).await,
        1 => {
            let m = format!("missing operand after '{}'", words[0]);
            return bad_usage(sh, "csplit", usage(m), 1).await;
        }
        _ => {}
    }
    let file = words.remove(0);
    let mut patterns: Vec<Pattern> = Vec::new();
    for w in &words {
        if let Some(n) = w.strip_prefix('{').and_then(|r| r.strip_suffix('}')) {
            let Some(last) = patterns.last_mut() else {
                return complain(sh, &format!("csplit: '{w}': invalid pattern")).await;
            };
            last.repeat = if n == "*" {
                None
            } else {
                match n.parse() {
                    Ok(k) => Some(k),
                    Err(_) => {
                        return complain(
                            sh,
                            &format!("csplit: '{w}': integer required between '{{' and '}}'"),
                        )
                        .await;
                    }
                }
            };
            continue;
        }
        match parse_pattern(w) {
            Ok(p) => patterns.push(p),
            Err(m) => return complain(sh, &format!("csplit: {m}")).await,
        }
    }
    // Line numbers must not go back; GNU checks before it reads anything.
    let mut previous = 0;
    for pat in &patterns {
        if let Split::Line(n) = pat.split {
            if n < previous {
                let m = format!(
                    "csplit: line number '{n}' is smaller than preceding line number, {previous}"
                );
                return complain(sh, &m).await;
            }
            previous = n;
        }
    }
    let data = match open(sh, &file) {
        Ok(input) => read_all_limited(&input, MEMORY_LIMIT, "csplit").await,
        Err(m) => {
            let why = m.strip_prefix(&format!("{file}: ")).unwrap_or(&m);
            Err(format!("csplit: cannot open '{file}' for reading: {why}"))
        }
    };
    let data = match data {
        Ok(d) => d,
        Err(m) => return complain(sh, &m).await,
    };
    let lines: Vec<&[u8]> = data.split_inclusive(|b| *b == b'\n').collect();
    let mut job = Job {
        sh,
        prefix,
        digits,
        suffix,
        elide,
        silent,
        made: Vec::new(),
        counts: String::new(),
    };
    let mut cur = 0usize;
    let mut split_yet = false;
    let mut failure = None;
    'patterns: for pat in &patterns {
        let mut rep = 0usize;
        loop {
            let on_rep = if rep > 0 {
                format!(" on repetition {rep}")
            } else {
                String::new()
            };
            let (at, skip) = match &pat.split {
                Split::Line(n) => {
                    let target = n.saturating_mul(rep + 1);
                    if target > lines.len() || target - 1 < cur {
                        if pat.repeat.is_none() && rep > 0 {
                            break;
                        }
                        failure = Some(format!("'{}': line number out of range{on_rep}", pat.text));
                        break 'patterns;
                    }
                    (target - 1, false)
                }
                Split::Regex { re, offset, skip } => {
                    let from = if split_yet { cur + 1 } else { cur };
                    let found = (from..lines.len()).find(|&i| {
                        let l = lines[i];
                        re.is_match(l.strip_suffix(b"\n").unwrap_or(l))
                    });
                    let Some(i) = found else {
                        if pat.repeat.is_none() && rep > 0 {
                            break;
                        }
                        failure = Some(format!("'{}': match not found{on_rep}", pat.text));
                        break 'patterns;
                    };
                    let at = (i as i64).saturating_add(*offset);
                    if at < cur as i64 || at > lines.len() as i64 {
                        failure = Some(format!("'{}': line number out of range{on_rep}", pat.text));
                        break 'patterns;
                    }
                    (at as usize, *skip)
                }
            };
            let piece: Vec<u8> = lines[cur..at].concat();
            if !skip && let Err(m) = job.write(&piece) {
                failure = Some(m);
                break 'patterns;
            }
            cur = at;
            split_yet = true;
            rep += 1;
            if pat.repeat.is_some_and(|r| rep > r) {
                break;
            }
        }
    }
    // The rest is the last piece (also when a pattern failed: GNU writes it, then removes all).
    let rest: Vec<u8> = lines[cur.min(lines.len())..].concat();
    if let Err(m) = job.write(&rest) {
        failure.get_or_insert(m);
    }
    let counts = std::mem::take(&mut job.counts);
    if !counts.is_empty() {
        out(job.sh, &counts).await;
    }
    if let Some(m) = failure {
        if !keep {
            for f in &job.made {
                let _ = std::fs::remove_file(job.sh.path(f));
            }
        }
        return complain(job.sh, &format!("csplit: {m}")).await;
    }
    0
}

/// `-b FORMAT`'s number: one printf integer conversion (`%02d`, `%x`) in literal text.
fn suffix_number(format: &str, n: usize) -> Option<String> {
    use shell_base::format::{Spec, integer};
    let chars: Vec<char> = format.chars().collect();
    let at = chars.iter().position(|&c| c == '%')?;
    let mut i = at + 1;
    let mut spec = Spec::with_flags(&chars, &mut i);
    let digits: String = chars[i..]
        .iter()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    i += digits.len();
    // Past a file name's 255 bytes no width can be used.
    spec.width = match digits.parse::<usize>() {
        Ok(w) if w > 255 => return None,
        w => w.ok(),
    };
    let conv = *chars.get(i).filter(|c| "diuxXo".contains(**c))?;
    let head: String = chars[..at].iter().collect();
    let tail: String = chars[i + 1..].iter().collect();
    Some(format!("{head}{}{tail}", integer(&spec, conv, n as i64)))
}

struct Job<'a> {
    sh: &'a mut dyn Context,
    prefix: String,
    digits: usize,
    suffix: Option<String>,
    elide: bool,
    silent: bool,
    made: Vec<String>,
    counts: String,
}

impl Job<'_> {
    /// Writes the next piece (`-z`: not an empty one) and notes its size.
    fn write(&mut self, piece: &[u8]) -> Result<(), String> {
        if self.elide && piece.is_empty() {
            return Ok(());
        }
        let n = self.made.len();
        let number = match &self.suffix {
            Some(f) => suffix_number(f, n)
                .ok_or_else(|| format!("invalid conversion specification in suffix: '{f}'"))?,
            None => format!("{n:0width$}", width = self.digits),
        };
        let name = format!("{}{number}", self.prefix);
        std::fs::write(self.sh.path(&name), piece)
            .map_err(|e| format!("{name}: {}", io_message(&e)))?;
        self.made.push(name);
        if !self.silent {
            self.counts.push_str(&format!("{}\n", piece.len()));
        }
        Ok(())
    }
}

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::Native;

    #[test]
    fn splits_and_refuses_a_useless_width() {
        let mut ctx = Native::new();
        ctx.write("n", "1\n2\n3\n4\n");
        assert_eq!(ctx.run(&["csplit", "n", "3"], "").stdout, "4\n4\n");
        assert_eq!(ctx.read("xx01"), "3\n4\n");
        assert_eq!(ctx.run(&["csplit", "-n", "100000", "n", "2"], "").status, 1);
        assert_eq!(
            ctx.run(&["csplit", "-b", "%0999999d", "n", "2"], "").status,
            1
        );
    }
}
