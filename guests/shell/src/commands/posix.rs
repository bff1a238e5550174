//! POSIX regular expressions (basic and extended, as grep and sed read them) translated to
//! the `regex` crate's syntax.

/// Translates a POSIX basic (or, with `extended`, extended) expression to `regex` syntax.
pub fn translate(re: &str, extended: bool) -> String {
    let chars: Vec<char> = re.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    // Where a `*` is literal: at the start, after `(` or `|` or `^`.
    let mut at_start = true;
    while i < chars.len() {
        let c = chars[i];
        let start_before = at_start;
        at_start = false;
        match c {
            '\\' if i + 1 < chars.len() => {
                let n = chars[i + 1];
                i += 2;
                match n {
                    '(' | ')' | '{' | '}' | '|' | '+' | '?' if !extended => {
                        out.push(n);
                        at_start = n == '(' || n == '|';
                    }
                    '<' | '>' => out.push_str(r"\b"),
                    'w' | 'W' | 's' | 'S' | 'b' | 'B' => {
                        out.push('\\');
                        out.push(n);
                    }
                    'n' => out.push_str("\\n"),
                    't' => out.push_str("\\t"),
                    d if d.is_ascii_digit() => {
                        // Backreferences are not supported by the regex crate: match literally.
                        out.push_str(&regex::escape(&format!("\\{d}")));
                    }
                    other => out.push_str(&regex::escape(&other.to_string())),
                }
                continue;
            }
            '[' => {
                // Copy a bracket expression, escaping what the crate would read specially.
                let mut j = i + 1;
                let mut class = String::from("[");
                if chars.get(j) == Some(&'^') {
                    class.push('^');
                    j += 1;
                }
                if chars.get(j) == Some(&']') {
                    class.push_str(r"\]");
                    j += 1;
                }
                let mut closed = false;
                while j < chars.len() {
                    let d = chars[j];
                    if d == '[' && chars.get(j + 1) == Some(&':') {
                        let rest: String = chars[j..].iter().collect();
                        if let Some(end) = rest.find(":]") {
                            class.push_str(&rest[..end + 2]);
                            j += rest[..end + 2].chars().count();
                            continue;
                        }
                    }
                    if d == ']' {
                        closed = true;
                        j += 1;
                        break;
                    }
                    if matches!(d, '\\' | '[' | '&' | '~' | '-')
                        && !(d == '-' && class.len() > 1 && chars.get(j + 1) != Some(&']'))
                    {
                        class.push('\\');
                    }
                    class.push(d);
                    j += 1;
                }
                if closed {
                    class.push(']');
                    out.push_str(&class);
                    i = j;
                } else {
                    out.push_str(r"\[");
                    i += 1;
                }
                continue;
            }
            '*' if start_before => out.push_str(r"\*"),
            '(' | ')' | '|' | '+' | '?' if !extended => {
                out.push('\\');
                out.push(c);
            }
            '{' if !extended => out.push_str(r"\{"),
            '}' if !extended => out.push_str(r"\}"),
            '{' => {
                // A repetition only if it reads as one; `{,n}` means `{0,n}`.
                let rest: String = chars[i..].iter().collect();
                match rest.find('}') {
                    Some(end)
                        if !out.is_empty()
                            && rest[1..end].chars().all(|c| c.is_ascii_digit() || c == ',')
                            && !rest[1..end].is_empty() =>
                    {
                        let inner = &rest[1..end];
                        let inner = if inner.starts_with(',') {
                            format!("0{inner}")
                        } else {
                            inner.to_string()
                        };
                        out.push('{');
                        out.push_str(&inner);
                        out.push('}');
                        i += end + 1;
                        continue;
                    }
                    _ => out.push_str(r"\{"),
                }
            }
            '}' => out.push_str(r"\}"),
            '(' | '|' => {
                out.push(c);
                at_start = true;
            }
            '^' => {
                out.push('^');
                at_start = true;
            }
            c => out.push(c),
        }
        i += 1;
    }
    out
}
