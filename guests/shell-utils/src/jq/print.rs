//! jq 1.7.1's output of a value (its `jv_dump_term`): indentation by spaces or tabs, sorted
//! keys, `-a`'s escapes, `-C`'s colours (and `JQ_COLORS`), and its numbers: a number read
//! from the text keeps that text in decNumber's canonical form (`1.0`, `1E+1000`), a
//! computed one is printed as David Gay's `g_fmt` prints the shortest round-trip digits.

use jaq_json::Num;
use jaq_json::Val;

/// How values are printed: jq's `dumpopts`.
#[derive(Clone)]
pub struct Layout {
    /// `None`: compact; otherwise the indent unit (spaces or a tab).
    pub indent: Option<String>,
    pub sort_keys: bool,
    pub ascii: bool,
    pub colors: Option<Colors>,
}

impl Layout {
    /// No indent, keys in their order, no colours: `tojson`'s layout.
    pub fn compact() -> Layout {
        Layout {
            indent: None,
            sort_keys: false,
            ascii: false,
            colors: None,
        }
    }
}

/// jq's colour table: null, false, true, numbers, strings, arrays, objects, object keys.
#[derive(Clone)]
pub struct Colors([String; 8]);

/// Deeper than this, jq prints a marker instead of the value.
const MAX_PRINT_DEPTH: usize = 256;
const RESET: &str = "\x1b[0m";

impl Default for Colors {
    fn default() -> Self {
        let c = |s: &str| format!("\x1b[{s}m");
        Colors([
            c("0;90"),
            c("0;39"),
            c("0;39"),
            c("0;39"),
            c("0;32"),
            c("1;39"),
            c("1;39"),
            c("1;34"),
        ])
    }
}

impl Colors {
    /// The table with `JQ_COLORS`'s fields over the default ones; `None` when the text is
    /// not jq's (a field of more than 12 characters, or one not of digits and `;`).
    pub fn parse(spec: &str) -> Option<Colors> {
        let mut colors = Colors::default();
        if spec.is_empty() {
            return Some(colors);
        }
        for (slot, field) in colors.0.iter_mut().zip(spec.split(':')) {
            if field.len() > 12 || !field.bytes().all(|b| b.is_ascii_digit() || b == b';') {
                return None;
            }
            *slot = format!("\x1b[{field}m");
        }
        Some(colors)
    }

    fn of(&self, v: &Val) -> &str {
        let i = match v {
            Val::Null => 0,
            Val::Bool(false) => 1,
            Val::Bool(true) => 2,
            Val::Num(_) => 3,
            Val::TStr(_) | Val::BStr(_) => 4,
            Val::Arr(_) => 5,
            Val::Obj(_) => 6,
        };
        &self.0[i]
    }
}

/// `v` as jq prints it.
pub fn dump(out: &mut Vec<u8>, layout: &Layout, v: &Val) {
    term(out, layout, v, 0);
}

fn indent(out: &mut Vec<u8>, layout: &Layout, n: usize) {
    if let Some(unit) = &layout.indent {
        for _ in 0..n {
            out.extend_from_slice(unit.as_bytes());
        }
    }
}

fn term(out: &mut Vec<u8>, layout: &Layout, v: &Val, level: usize) {
    let color = layout.colors.as_ref().map(|c| c.of(v));
    if let Some(c) = color {
        out.extend_from_slice(c.as_bytes());
    }
    let pretty = layout.indent.is_some();
    if level > MAX_PRINT_DEPTH {
        out.extend_from_slice(b"<skipped: too deep>");
    } else {
        match v {
            Val::Null => out.extend_from_slice(b"null"),
            Val::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
            Val::Num(n) => out.extend_from_slice(number(n).as_bytes()),
            Val::TStr(s) | Val::BStr(s) => string(out, s, layout.ascii),
            Val::Arr(a) if a.is_empty() => out.extend_from_slice(b"[]"),
            Val::Obj(o) if o.is_empty() => out.extend_from_slice(b"{}"),
            Val::Arr(a) => {
                out.push(b'[');
                for (i, x) in a.iter().enumerate() {
                    separate(out, layout, i == 0, level);
                    term(out, layout, x, level + 1);
                    if let Some(c) = color {
                        out.extend_from_slice(c.as_bytes());
                    }
                }
                close(out, layout, color, level, b']');
            }
            Val::Obj(o) => {
                out.push(b'{');
                let mut entries: Vec<(&Val, &Val)> = o.iter().collect();
                if layout.sort_keys {
                    entries.sort_by(|a, b| key_bytes(a.0).cmp(key_bytes(b.0)));
                }
                for (i, (k, x)) in entries.into_iter().enumerate() {
                    separate(out, layout, i == 0, level);
                    if let (Some(c), Some(colors)) = (color, &layout.colors) {
                        out.extend_from_slice(RESET.as_bytes());
                        out.extend_from_slice(colors.0[7].as_bytes());
                        string(out, key_bytes(k), layout.ascii);
                        out.extend_from_slice(RESET.as_bytes());
                        out.extend_from_slice(c.as_bytes());
                        out.extend_from_slice(if pretty { b": " } else { b":" });
                        out.extend_from_slice(RESET.as_bytes());
                    } else {
                        string(out, key_bytes(k), layout.ascii);
                        out.extend_from_slice(if pretty { b": " } else { b":" });
                    }
                    term(out, layout, x, level + 1);
                    if let Some(c) = color {
                        out.extend_from_slice(c.as_bytes());
                    }
                }
                close(out, layout, color, level, b'}');
            }
        }
    }
    if color.is_some() {
        out.extend_from_slice(RESET.as_bytes());
    }
}

/// What comes before an element: the line break and indent, and a comma after the first.
fn separate(out: &mut Vec<u8>, layout: &Layout, first: bool, level: usize) {
    if !first {
        out.push(b',');
    }
    if layout.indent.is_some() {
        out.push(b'\n');
        indent(out, layout, level + 1);
    }
}

fn close(out: &mut Vec<u8>, layout: &Layout, color: Option<&str>, level: usize, end: u8) {
    if layout.indent.is_some() {
        out.push(b'\n');
        indent(out, layout, level);
    }
    if let Some(c) = color {
        out.extend_from_slice(c.as_bytes());
    }
    out.push(end);
}

fn key_bytes(k: &Val) -> &[u8] {
    match k {
        Val::TStr(s) | Val::BStr(s) => s,
        _ => b"",
    }
}

/// A JSON string as jq writes it: `\"`, `\\` and the short escapes, `\u00XX` for other
/// control characters and DEL, and with `-a` `\uXXXX` (surrogate pairs past U+FFFF) for
/// everything past ASCII. Invalid UTF-8 becomes U+FFFD, as jq's reader makes it.
pub fn string(out: &mut Vec<u8>, s: &[u8], ascii: bool) {
    out.push(b'"');
    for chunk in s.utf8_chunks() {
        for c in chunk.valid().chars() {
            char_escaped(out, c, ascii);
        }
        if !chunk.invalid().is_empty() {
            char_escaped(out, char::REPLACEMENT_CHARACTER, ascii);
        }
    }
    out.push(b'"');
}

fn char_escaped(out: &mut Vec<u8>, c: char, ascii: bool) {
    let short = match c {
        '"' => Some('"'),
        '\\' => Some('\\'),
        '\u{8}' => Some('b'),
        '\t' => Some('t'),
        '\r' => Some('r'),
        '\n' => Some('n'),
        '\u{c}' => Some('f'),
        _ => None,
    };
    if let Some(e) = short {
        out.push(b'\\');
        out.push(e as u8);
    } else if (c as u32) < 0x20 || c == '\u{7f}' || (ascii && !c.is_ascii()) {
        let mut units = [0u16; 2];
        for u in c.encode_utf16(&mut units) {
            out.extend_from_slice(format!("\\u{u:04x}").as_bytes());
        }
    } else {
        let mut buf = [0u8; 4];
        out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
    }
}

/// A number as jq 1.7.1 prints it.
pub fn number(n: &Num) -> String {
    match n {
        Num::Int(i) => i.to_string(),
        Num::BigInt(i) => i.to_string(),
        Num::Float(f) => float(*f),
        Num::Dec(s) => literal(s).unwrap_or_else(|| float(s.parse().unwrap_or(f64::NAN))),
    }
}

/// A computed number: `null` for NaN, infinities as the largest doubles, and otherwise
/// the shortest digits that read back as `f`, laid out as `g_fmt` lays them out.
pub fn float(f: f64) -> String {
    if f.is_nan() {
        return "null".into();
    }
    let f = f.clamp(-f64::MAX, f64::MAX);
    // `{:e}` gives the shortest round-trip digits: "-1.2345e-7".
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    // g_fmt's decpt: where the decimal point goes, counted from the first digit.
    let decpt = exp + 1;
    let n = digits.len() as i32;
    let mut s = String::from(sign);
    if decpt <= -4 || decpt > n + 15 {
        s.push_str(&digits[..1]);
        if n > 1 {
            s.push('.');
            s.push_str(&digits[1..]);
        }
        let e = decpt - 1;
        s.push_str(&format!("e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs()));
    } else if decpt <= 0 {
        s.push_str("0.");
        s.push_str(&"0".repeat((-decpt) as usize));
        s.push_str(&digits);
    } else if decpt >= n {
        s.push_str(&digits);
        s.push_str(&"0".repeat((decpt - n) as usize));
    } else {
        s.push_str(&digits[..decpt as usize]);
        s.push('.');
        s.push_str(&digits[decpt as usize..]);
    }
    s
}

/// A number's text in decNumber's canonical form (to-scientific-string), as jq 1.7.1
/// prints a number it read and did not compute with: `1.0`, `0.10`, `1E+1000`, `1.5E+3`,
/// `0.00001`, `1E-7`. `None` if the text is not a JSON number.
pub fn literal(text: &str) -> Option<String> {
    let (sign, rest) = match text.strip_prefix('-') {
        Some(r) => ("-", r),
        None => ("", text),
    };
    let (mantissa, exp) = match rest.find(['e', 'E']) {
        Some(i) => (&rest[..i], rest[i + 1..].parse::<i64>().ok()?),
        None => (rest, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if int.is_empty() && frac.is_empty()
        || !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let all = format!("{int}{frac}");
    let coef = match all.trim_start_matches('0') {
        "" => "0",
        c => c,
    };
    let exponent = exp.checked_sub(frac.len() as i64)?;
    let adjusted = exponent + coef.len() as i64 - 1;
    let mut s = String::from(sign);
    if exponent <= 0 && adjusted >= -6 {
        if exponent == 0 {
            s.push_str(coef);
        } else {
            let point = coef.len() as i64 + exponent;
            if point > 0 {
                s.push_str(&coef[..point as usize]);
                s.push('.');
                s.push_str(&coef[point as usize..]);
            } else {
                s.push_str("0.");
                s.push_str(&"0".repeat((-point) as usize));
                s.push_str(coef);
            }
        }
    } else {
        s.push_str(&coef[..1]);
        if coef.len() > 1 {
            s.push('.');
            s.push_str(&coef[1..]);
        }
        s.push_str(&format!(
            "E{}{}",
            if adjusted < 0 { '-' } else { '+' },
            adjusted.abs()
        ));
    }
    Some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_in_decnumber_form() {
        for (text, shown) in [
            ("1.0", "1.0"),
            ("1E1000", "1E+1000"),
            ("-1E1000", "-1E+1000"),
            ("1.5e3", "1.5E+3"),
            ("0.10", "0.10"),
            ("1e-5", "0.00001"),
            ("1e2", "1E+2"),
            ("100e-2", "1.00"),
            ("0.0", "0.0"),
            ("1.23e2", "123"),
            ("1e-7", "1E-7"),
            ("0.1e1", "1"),
            ("3.14159265358979323846", "3.14159265358979323846"),
        ] {
            assert_eq!(literal(text).as_deref(), Some(shown), "{text}");
        }
        assert_eq!(literal("abc"), None);
    }

    #[test]
    fn floats_as_g_fmt() {
        for (f, shown) in [
            (1.0 / 3.0, "0.3333333333333333"),
            (0.1 + 0.2, "0.30000000000000004"),
            (1e300 * 10.0, "1e+301"),
            (1e-5, "1e-05"),
            (1e20, "1e+20"),
            (1.2345678901234568e22, "12345678901234568000000"),
            (f64::INFINITY, "1.7976931348623157e+308"),
            (f64::NEG_INFINITY, "-1.7976931348623157e+308"),
            (6.666666666666667e-11, "6.666666666666667e-11"),
            (1500.0, "1500"),
            (-0.0, "-0"),
            (0.5, "0.5"),
            (f64::NAN, "null"),
        ] {
            assert_eq!(float(f), shown, "{f}");
        }
    }
}
