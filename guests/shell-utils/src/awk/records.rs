//! Reading records (RS: a character, `""` for paragraphs, or a regex) and splitting them
//! into fields (FS: `" "` for blanks, one character, `""` for characters, or a regex).

use std::rc::Rc;

use shell_base::io::Input;

use crate::stream::Buffered;

/// How records are separated.
pub enum RecordSep {
    Byte(u8),
    Paragraph,
    Regex(regex::bytes::Regex),
}

impl RecordSep {
    pub fn new(rs: &str) -> Result<RecordSep, String> {
        let mut chars = rs.chars();
        Ok(match (chars.next(), chars.next()) {
            (None, _) => RecordSep::Paragraph,
            (Some(c), None) if c.is_ascii() => RecordSep::Byte(c as u8),
            _ => RecordSep::Regex(
                regex::bytes::Regex::new(&shell_base::posix::translate(&plain_escapes(rs), true))
                    .map_err(|e| format!("invalid RS regex: {e}"))?,
            ),
        })
    }
}

/// Records read from one input, buffered.
pub struct RecordReader {
    input: Buffered,
}

impl RecordReader {
    pub fn new(input: Input) -> RecordReader {
        RecordReader {
            input: Buffered::new(input),
        }
    }

    /// The next record without its separator, or `None` at the end.
    pub async fn next(&mut self, sep: &RecordSep) -> std::io::Result<Option<String>> {
        if let RecordSep::Paragraph = sep {
            // Leading newlines never start a record.
            loop {
                let blank = self
                    .input
                    .pending()
                    .iter()
                    .take_while(|b| **b == b'\n')
                    .count();
                self.input.consume(blank);
                if !self.input.pending().is_empty() || self.input.at_eof() {
                    break;
                }
                self.input.fill().await?;
            }
        }
        loop {
            let eof = self.input.at_eof();
            let rest = self.input.pending();
            let found = match sep {
                RecordSep::Byte(b) => memchr(*b, rest).map(|i| (i, i + 1)),
                RecordSep::Paragraph => find_blank_lines(rest),
                RecordSep::Regex(re) => re
                    .find(rest)
                    // A match touching the buffer's end might grow with more input.
                    .filter(|m| m.end() < rest.len() || eof)
                    .filter(|m| m.end() > m.start())
                    .map(|m| (m.start(), m.end())),
            };
            if let Some((end, next)) = found
                && (!matches!(sep, RecordSep::Paragraph) || next < rest.len() || eof)
            {
                let record = text(&rest[..end]);
                self.input.consume(next);
                return Ok(Some(record));
            }
            if eof {
                if rest.is_empty() {
                    return Ok(None);
                }
                let taken = rest.len();
                let mut rest = rest;
                if matches!(sep, RecordSep::Paragraph) {
                    while rest.last() == Some(&b'\n') {
                        rest = &rest[..rest.len() - 1];
                    }
                }
                let record = text(rest);
                self.input.consume(taken);
                return Ok(Some(record));
            }
            self.input.fill().await?;
        }
    }
}

fn memchr(b: u8, hay: &[u8]) -> Option<usize> {
    hay.iter().position(|c| *c == b)
}

/// The end of a paragraph (`\n\n` and any newlines after): (record end, next start).
fn find_blank_lines(hay: &[u8]) -> Option<(usize, usize)> {
    let i = hay.windows(2).position(|w| w == b"\n\n")?;
    let mut next = i + 2;
    while next < hay.len() && hay[next] == b'\n' {
        next += 1;
    }
    Some((i, next))
}

fn text(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_string(),
        Err(_) => String::from_utf8_lossy(bytes).into_owned(),
    }
}

/// How a record (or `split`'s string) is cut into fields.
pub enum FieldSep {
    /// `" "`: runs of blanks and newlines, leading and trailing ones ignored.
    Blanks,
    Char(char),
    /// A character or a newline (one character FS in paragraph mode).
    CharOrNewline(char),
    /// `""`: every character a field.
    Chars,
    /// Shared, not cloned: a cloned `Regex` starts with an empty cache.
    Regex(Rc<regex::Regex>),
}

impl FieldSep {
    /// The separator FS stands for; `newline_too` adds `\n` (records read with RS="").
    pub fn new(fs: &str, newline_too: bool) -> Result<FieldSep, String> {
        let mut chars = fs.chars();
        Ok(match (chars.next(), chars.next()) {
            (None, _) => FieldSep::Chars,
            (Some(' '), None) => FieldSep::Blanks,
            (Some(c), None) if c != '\\' && newline_too && c != '\n' => FieldSep::CharOrNewline(c),
            (Some(c), None) if c != '\\' => FieldSep::Char(c),
            _ if newline_too => FieldSep::Regex(Rc::new(compile(&format!("({fs})|\n"))?)),
            _ => FieldSep::Regex(Rc::new(compile(fs)?)),
        })
    }

    /// Appends the fields of `s` to `out`.
    pub fn split(&self, s: &str, out: &mut Vec<String>) {
        let mut ranges = Vec::new();
        self.split_ranges(s, &mut ranges);
        out.extend(ranges.into_iter().map(|(a, b)| s[a..b].to_string()));
    }

    /// Appends where the fields of `s` are (byte ranges) to `out`.
    pub fn split_ranges(&self, s: &str, out: &mut Vec<(usize, usize)>) {
        if s.is_empty() {
            return;
        }
        let mut by = |is_sep: &dyn Fn(char) -> bool| {
            let mut start = 0;
            for (i, c) in s.char_indices() {
                if is_sep(c) {
                    out.push((start, i));
                    start = i + c.len_utf8();
                }
            }
            out.push((start, s.len()));
        };
        match self {
            FieldSep::Blanks => {
                let bytes = s.as_bytes();
                let mut i = 0;
                while i < bytes.len() {
                    while i < bytes.len() && matches!(bytes[i], b' ' | b'\t' | b'\n') {
                        i += 1;
                    }
                    let start = i;
                    while i < bytes.len() && !matches!(bytes[i], b' ' | b'\t' | b'\n') {
                        i += 1;
                    }
                    if i > start {
                        out.push((start, i));
                    }
                }
            }
            FieldSep::CharOrNewline(c) => by(&|x| x == *c || x == '\n'),
            FieldSep::Char(c) => by(&|x| x == *c),
            FieldSep::Chars => out.extend(s.char_indices().map(|(i, c)| (i, i + c.len_utf8()))),
            FieldSep::Regex(re) => {
                let mut last = 0;
                for m in re.find_iter(s) {
                    if m.end() == m.start() {
                        continue;
                    }
                    out.push((last, m.start()));
                    last = m.end();
                }
                out.push((last, s.len()));
            }
        }
    }
}

/// An awk (extended POSIX) regex for the `regex` crate.
pub fn compile(re: &str) -> Result<regex::Regex, String> {
    regex::Regex::new(&shell_base::posix::translate(&plain_escapes(re), true))
        .map_err(|_| format!("invalid regexp: /{re}/"))
}

/// awk's escapes in a regex (`\t`, `\/`, `\"`, octal, and any escape inside brackets)
/// decoded, so that what is left is POSIX for the translation; `\y` is a word boundary.
fn plain_escapes(re: &str) -> String {
    let chars: Vec<char> = re.chars().collect();
    let mut out = String::with_capacity(re.len());
    let mut in_class = false;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '[' if !in_class => {
                in_class = true;
                out.push(c);
                i += 1;
                for lead in ['^', ']'] {
                    if chars.get(i) == Some(&lead) {
                        out.push(lead);
                        i += 1;
                    }
                }
                continue;
            }
            '[' if in_class && chars.get(i + 1) == Some(&':') => {
                let rest: String = chars[i..].iter().collect();
                if let Some(end) = rest.find(":]") {
                    out.push_str(&rest[..end + 2]);
                    i += rest[..end + 2].chars().count();
                    continue;
                }
                out.push(c);
            }
            ']' if in_class => {
                in_class = false;
                out.push(c);
            }
            '\\' if i + 1 < chars.len() => {
                let n = chars[i + 1];
                i += 2;
                let decoded = match n {
                    't' => Some('\t'),
                    'n' => Some('\n'),
                    'r' => Some('\r'),
                    'f' => Some('\x0c'),
                    'v' => Some('\x0b'),
                    'a' => Some('\x07'),
                    '/' | '"' => Some(n),
                    '0'..='7' => {
                        let mut v = n.to_digit(8).unwrap_or(0);
                        let mut digits = 1;
                        while digits < 3 && chars.get(i).is_some_and(|d| d.is_digit(8)) {
                            v = v * 8 + chars[i].to_digit(8).unwrap_or(0);
                            i += 1;
                            digits += 1;
                        }
                        char::from_u32(v)
                    }
                    _ if in_class => Some(n),
                    _ => None,
                };
                match decoded {
                    Some(d) if in_class => out.push(d),
                    Some(d) => out.push_str(&regex::escape(&d.to_string())),
                    None if n == 'y' => out.push_str("\\b"),
                    None => {
                        out.push('\\');
                        out.push(n);
                    }
                }
                continue;
            }
            _ => out.push(c),
        }
        i += 1;
    }
    out
}
