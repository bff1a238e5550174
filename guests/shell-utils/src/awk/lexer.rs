//! Tokens of an awk program. Whether `/` starts a regular expression or divides depends on
//! the token before it, so the whole program is tokenized up front.

#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    Num(f64),
    Str(String),
    Regex(String),
    /// A variable or array name.
    Name(String),
    /// A user function's name directly followed by `(`.
    FuncName(String),
    /// A built-in function (`length`, `substr`...).
    Builtin(String),
    /// A keyword (`if`, `print`, `BEGIN`...).
    Key(&'static str),
    /// An operator or punctuation.
    Op(&'static str),
    Newline,
    Eof,
}

/// A token and the line it is on (for messages).
#[derive(Clone, Debug)]
pub struct Token {
    pub tok: Tok,
    pub line: usize,
    /// Characters before it on its line.
    pub col: usize,
}

const KEYWORDS: &[&str] = &[
    "BEGIN", "END", "function", "func", "if", "else", "while", "for", "do", "break", "continue",
    "next", "nextfile", "exit", "return", "delete", "in", "getline", "print", "printf",
];

pub const BUILTINS: &[&str] = &[
    "length", "substr", "index", "split", "sub", "gsub", "match", "sprintf", "sin", "cos", "atan2",
    "exp", "log", "sqrt", "int", "rand", "srand", "tolower", "toupper", "system", "close",
    "fflush", "gensub", "asort", "asorti", "systime", "strftime", "mktime",
];

/// Longest first, so `**=` wins over `**` and `*`.
const OPERATORS: &[&str] = &[
    "**=", "&&", "||", "==", "!=", "<=", ">=", "!~", "++", "--", "+=", "-=", "*=", "/=", "%=",
    "^=", "**", ">>", "{", "}", "(", ")", "[", "]", ";", ",", "+", "-", "*", "/", "%", "^", "!",
    ">", "<", "|", "?", ":", "~", "$", "=",
];

/// Whether a `/` after this token divides (it follows an operand).
fn ends_operand(t: Option<&Tok>) -> bool {
    matches!(
        t,
        Some(
            Tok::Num(_)
                | Tok::Str(_)
                | Tok::Name(_)
                | Tok::Builtin(_)
                | Tok::Op(")")
                | Tok::Op("]")
                | Tok::Op("++")
                | Tok::Op("--")
        )
    )
}

/// Where tokenizing failed (line, column) and why.
pub type LexError = (usize, usize, String);

/// The tokens and gawk's warnings (unknown escapes), or where tokenizing failed (line,
/// column) and why.
pub fn tokenize(src: &str) -> Result<(Vec<Token>, Vec<String>), LexError> {
    let mut warnings = Vec::new();
    let chars: Vec<char> = src.chars().collect();
    let mut out: Vec<Token> = Vec::new();
    let mut i = 0;
    let mut line = 1;
    let mut line_start = 0;
    while i < chars.len() {
        let c = chars[i];
        let col = i - line_start;
        let push = |out: &mut Vec<Token>, tok: Tok| out.push(Token { tok, line, col });
        match c {
            ' ' | '\t' | '\r' => i += 1,
            '\\' if chars.get(i + 1) == Some(&'\n') => {
                i += 2;
                line += 1;
                line_start = i;
            }
            '\\' if chars.get(i + 1) == Some(&'\r') && chars.get(i + 2) == Some(&'\n') => {
                i += 3;
                line += 1;
                line_start = i;
            }
            '\n' => {
                push(&mut out, Tok::Newline);
                line += 1;
                i += 1;
                line_start = i;
            }
            '#' => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '"' => {
                let (s, end, unknown) =
                    decode(&chars, i + 1, true).ok_or((line, col, "unterminated string".into()))?;
                for c in unknown {
                    warnings.push(format!(
                        "cmd. line:{line}: warning: escape sequence `\\{c}' treated as plain `{c}'"
                    ));
                }
                push(&mut out, Tok::Str(s));
                i = end;
            }
            '/' if !ends_operand(out.last().map(|t| &t.tok)) => {
                let (re, end) =
                    regex(&chars, i + 1).ok_or((line, col, "unterminated regexp".into()))?;
                push(&mut out, Tok::Regex(re));
                i = end;
            }
            c if c.is_ascii_digit()
                || (c == '.' && chars.get(i + 1).is_some_and(char::is_ascii_digit)) =>
            {
                let (n, end) = number(&chars, i);
                push(&mut out, Tok::Num(n));
                i = end;
            }
            c if c.is_ascii_alphabetic() || c == '_' => {
                let start = i;
                while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
                let word: String = chars[start..i].iter().collect();
                let tok = if let Some(k) = KEYWORDS.iter().find(|k| **k == word) {
                    Tok::Key(if *k == "func" { "function" } else { k })
                } else if BUILTINS.contains(&word.as_str()) {
                    Tok::Builtin(word)
                } else if chars.get(i) == Some(&'(') {
                    Tok::FuncName(word)
                } else {
                    Tok::Name(word)
                };
                push(&mut out, tok);
            }
            _ => {
                let rest: String = chars[i..(i + 3).min(chars.len())].iter().collect();
                let Some(op) = OPERATORS.iter().find(|op| rest.starts_with(**op)) else {
                    return Err((line, col, format!("invalid char '{c}' in expression")));
                };
                // `a = /re/`: after `=` a slash starts a regex, handled above; `/=` only
                // divides-and-assigns after an operand.
                push(&mut out, Tok::Op(op));
                i += op.chars().count();
            }
        }
    }
    out.push(Token {
        tok: Tok::Eof,
        line,
        col: i - line_start,
    });
    Ok((out, warnings))
}

/// Decodes escapes in a command-line value (`-v x='a\tb'`, `x=...` operands, `-F`).
pub fn unescape(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    decode(&chars, 0, false)
        .map(|(s, ..)| s)
        .unwrap_or_default()
}

/// Decodes from `i` to a closing quote (when `quoted`) or the end: the text, the index
/// after it, and the characters of unknown escapes (kept without their backslash).
fn decode(chars: &[char], mut i: usize, quoted: bool) -> Option<(String, usize, Vec<char>)> {
    let mut s = String::new();
    let mut unknown = Vec::new();
    while i < chars.len() {
        match chars[i] {
            '"' if quoted => return Some((s, i + 1, unknown)),
            '\n' if quoted => return None,
            '\\' if i + 1 < chars.len() => {
                i += 1;
                let c = chars[i];
                match c {
                    '\n' => {}
                    '0'..='7' => {
                        let mut v = 0u32;
                        let mut n = 0;
                        while n < 3 && i < chars.len() && chars[i].is_digit(8) {
                            v = v * 8 + chars[i].to_digit(8).unwrap_or(0);
                            i += 1;
                            n += 1;
                        }
                        s.push(char::from_u32(v).unwrap_or('\u{fffd}'));
                        continue;
                    }
                    _ => match escape(c) {
                        Some(e) => s.push(e),
                        None => {
                            unknown.push(c);
                            s.push(c);
                        }
                    },
                }
                i += 1;
            }
            c => {
                s.push(c);
                i += 1;
            }
        }
    }
    if quoted { None } else { Some((s, i, unknown)) }
}

fn escape(c: char) -> Option<char> {
    Some(match c {
        'n' => '\n',
        't' => '\t',
        'r' => '\r',
        '\\' => '\\',
        '"' => '"',
        'a' => '\x07',
        'b' => '\x08',
        'f' => '\x0c',
        'v' => '\x0b',
        _ => return None,
    })
}

/// A regex literal's text (only `\/` unescaped) and the index after its closing slash.
fn regex(chars: &[char], mut i: usize) -> Option<(String, usize)> {
    let mut s = String::new();
    let mut in_class = false;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\n' => return None,
            '/' if !in_class => return Some((s, i + 1)),
            '\\' if chars.get(i + 1) == Some(&'/') => {
                s.push('/');
                i += 2;
                continue;
            }
            '\\' if i + 1 < chars.len() => {
                s.push('\\');
                s.push(chars[i + 1]);
                i += 2;
                continue;
            }
            '[' if !in_class => {
                in_class = true;
                s.push('[');
                i += 1;
                // A `]` (after an optional `^`) first in a class is literal.
                if chars.get(i) == Some(&'^') {
                    s.push('^');
                    i += 1;
                }
                if chars.get(i) == Some(&']') {
                    s.push(']');
                    i += 1;
                }
                continue;
            }
            '[' if in_class && chars.get(i + 1) == Some(&':') => {
                // `[:alpha:]` inside a class.
                let rest: String = chars[i..].iter().take(12).collect();
                if let Some(end) = rest.find(":]") {
                    s.push_str(&rest[..end + 2]);
                    i += rest[..end + 2].chars().count();
                    continue;
                }
                s.push('[');
            }
            ']' if in_class => {
                in_class = false;
                s.push(']');
            }
            c => s.push(c),
        }
        i += 1;
    }
    None
}

/// A numeric literal: decimal with fraction and exponent, or `0x` hexadecimal.
fn number(chars: &[char], start: usize) -> (f64, usize) {
    let mut i = start;
    if chars[i] == '0' && matches!(chars.get(i + 1), Some('x' | 'X')) {
        let mut j = i + 2;
        while j < chars.len() && chars[j].is_ascii_hexdigit() {
            j += 1;
        }
        if j > i + 2 {
            let digits: String = chars[i + 2..j].iter().collect();
            return (
                u64::from_str_radix(&digits, 16)
                    .map(|v| v as f64)
                    .unwrap_or(f64::MAX),
                j,
            );
        }
    }
    while i < chars.len() && chars[i].is_ascii_digit() {
        i += 1;
    }
    // gawk reads `011` in a program as octal (when every digit is one).
    let int_part: String = chars[start..i].iter().collect();
    if int_part.len() > 1
        && int_part.starts_with('0')
        && int_part.chars().all(|c| c.is_digit(8))
        && !matches!(chars.get(i), Some('.' | 'e' | 'E'))
    {
        return (
            u64::from_str_radix(&int_part, 8)
                .map(|v| v as f64)
                .unwrap_or(0.0),
            i,
        );
    }
    if chars.get(i) == Some(&'.') {
        i += 1;
        while i < chars.len() && chars[i].is_ascii_digit() {
            i += 1;
        }
    }
    if matches!(chars.get(i), Some('e' | 'E')) {
        let mut j = i + 1;
        if matches!(chars.get(j), Some('+' | '-')) {
            j += 1;
        }
        if chars.get(j).is_some_and(char::is_ascii_digit) {
            while j < chars.len() && chars[j].is_ascii_digit() {
                j += 1;
            }
            i = j;
        }
    }
    let text: String = chars[start..i].iter().collect();
    (text.parse().unwrap_or(0.0), i)
}
