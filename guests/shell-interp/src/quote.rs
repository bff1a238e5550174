//! Quoting a string so the shell reads it back unchanged, in bash's styles: `'...'` (`${x@Q}`,
//! `set`), backslashes (`printf %q`), `$'...'` for strings with unprintable characters.

/// Whether `c` must be written as an escape. In the C locale (bash's in our cases) every
/// non-ASCII byte is unprintable; in a UTF-8 locale only control characters are.
pub fn unprintable(c: char, utf8: bool) -> bool {
    c.is_control() || (!utf8 && !c.is_ascii())
}

/// `$'...'` with C escapes (non-ASCII as octal bytes unless `utf8`).
pub fn ansi_c(s: &str, utf8: bool) -> String {
    let mut out = String::from("$'");
    for c in s.chars() {
        match c {
            '\x07' => out.push_str("\\a"),
            '\x08' => out.push_str("\\b"),
            '\x1b' => out.push_str("\\E"),
            '\x0c' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\x0b' => out.push_str("\\v"),
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            c if unprintable(c, utf8) => {
                let mut buf = [0u8; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    out.push_str(&format!("\\{b:03o}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// `${x@Q}`: `'...'` (a `'` as `'\''`), or `$'...'` when there is something unprintable.
pub fn single(s: &str, utf8: bool) -> String {
    if s.chars().any(|c| unprintable(c, utf8)) {
        return ansi_c(s, utf8);
    }
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// `printf %q`: special characters escaped with backslashes; `''` for the empty string.
pub fn backslash(s: &str, utf8: bool) -> String {
    if s.is_empty() {
        return "''".into();
    }
    if s.chars().any(|c| unprintable(c, utf8)) {
        return ansi_c(s, utf8);
    }
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        let special = matches!(
            c,
            ' ' | '!'
                | '"'
                | '$'
                | '&'
                | '\''
                | '('
                | ')'
                | '*'
                | ','
                | ';'
                | '<'
                | '>'
                | '?'
                | '['
                | '\\'
                | ']'
                | '^'
                | '`'
                | '{'
                | '|'
                | '}'
        ) || (i == 0 && matches!(c, '~' | '#'));
        if special {
            out.push('\\');
        }
        out.push(c);
    }
    out
}
