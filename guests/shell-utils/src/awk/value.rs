//! awk's values: numbers, strings, and "strnums" (input that compares as a number when it
//! looks like one), with the conversions between them.

use std::borrow::Cow;
use std::cmp::Ordering;

#[derive(Clone, Debug, Default)]
pub enum Value {
    /// Never assigned: both "" and 0.
    #[default]
    Uninit,
    Num(f64),
    Str(String),
    /// From input (fields, `getline`, `split`, `ARGV`, `ENVIRON`, `-v`).
    StrNum(String),
}

impl Value {
    pub fn to_num(&self) -> f64 {
        match self {
            Value::Uninit => 0.0,
            Value::Num(n) => *n,
            Value::Str(s) | Value::StrNum(s) => str_to_num(s),
        }
    }

    /// As a string, numbers converted with `fmt` (CONVFMT, or OFMT for output).
    pub fn to_str(&self, fmt: &str) -> Cow<'_, str> {
        match self {
            Value::Uninit => Cow::Borrowed(""),
            Value::Num(n) => Cow::Owned(num_to_str(*n, fmt)),
            Value::Str(s) | Value::StrNum(s) => Cow::Borrowed(s),
        }
    }

    pub fn into_string(self, fmt: &str) -> String {
        match self {
            Value::Str(s) | Value::StrNum(s) => s,
            other => other.to_str(fmt).into_owned(),
        }
    }

    /// Whether it counts as a number in comparisons and truth.
    fn numeric(&self) -> Option<f64> {
        match self {
            Value::Uninit => Some(0.0),
            Value::Num(n) => Some(*n),
            Value::StrNum(s) if looks_numeric(s) => Some(str_to_num(s)),
            _ => None,
        }
    }

    pub fn is_true(&self) -> bool {
        match self.numeric() {
            Some(n) => n != 0.0,
            None => match self {
                Value::Str(s) | Value::StrNum(s) => !s.is_empty(),
                _ => false,
            },
        }
    }
}

/// Compares numerically when both sides are numbers, as strings otherwise.
pub fn compare(a: &Value, b: &Value, convfmt: &str) -> Ordering {
    if let (Some(x), Some(y)) = (a.numeric(), b.numeric()) {
        return x.partial_cmp(&y).unwrap_or(Ordering::Equal);
    }
    a.to_str(convfmt).cmp(&b.to_str(convfmt))
}

/// The longest numeric prefix's value (leading blanks skipped), as `strtod` reads it.
pub fn str_to_num(s: &str) -> f64 {
    let t = s.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let len = numeric_prefix(t.as_bytes());
    if len == 0 {
        return 0.0;
    }
    t[..len].parse().unwrap_or(0.0)
}

/// Length of the decimal number at the start of `b` (sign, digits, fraction, exponent).
fn numeric_prefix(b: &[u8]) -> usize {
    let mut i = 0;
    if matches!(b.first(), Some(b'+' | b'-')) {
        i += 1;
    }
    let digits_start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let mut digits = i - digits_start;
    if b.get(i) == Some(&b'.') {
        let mut j = i + 1;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        digits += j - i - 1;
        if digits > 0 {
            i = j;
        }
    }
    if digits == 0 {
        return 0;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        let mut j = i + 1;
        if matches!(b.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        if b.get(j).is_some_and(u8::is_ascii_digit) {
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            i = j;
        }
    }
    i
}

/// Whether all of `s` (blanks around it aside) is a number.
pub fn looks_numeric(s: &str) -> bool {
    let t = s.trim_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    !t.is_empty() && numeric_prefix(t.as_bytes()) == t.len()
}

/// A number as awk prints it: integers in full, others through `fmt`.
pub fn num_to_str(n: f64, fmt: &str) -> String {
    if n.is_nan() {
        return if n.is_sign_negative() { "-nan" } else { "+nan" }.into();
    }
    if n.is_infinite() {
        return if n < 0.0 { "-inf" } else { "+inf" }.into();
    }
    if n.fract() == 0.0 {
        if n.abs() < 9.2e18 {
            return (n as i64).to_string();
        }
        return format!("{n:.0}");
    }
    if fmt == "%.6g" {
        let spec = shell_base::format::Spec {
            precision: Some(6),
            ..Default::default()
        };
        return shell_base::format::float(&spec, 'g', n);
    }
    super::format::sprintf(fmt, &[Value::Num(n)], "%.6g").unwrap_or_default()
}
