//! The printf engine: conversions (`%d %x %e %f %g`...) with flags, width and precision, and
//! backslash escapes, shared by the shell's `printf`/`echo` and awk's `printf`. Bytes that are
//! not UTF-8 travel through `String`s as private-use characters ([`raw_byte`]) and are written
//! back as themselves ([`output_bytes`]).

/// A byte from an escape (`\377`, `\xff`): ASCII as itself, others as a private-use
/// character that [`output_bytes`] writes back as the raw byte, so text can carry bytes that
/// are not UTF-8.
pub fn raw_byte(b: u8) -> char {
    if b < 0x80 {
        b as char
    } else {
        char::from_u32(RAW_BASE + b as u32).unwrap_or('\u{fffd}')
    }
}

pub(crate) const RAW_BASE: u32 = 0x10_ff00;

/// The bytes to write for `text`: UTF-8, with [`raw_byte`] characters as their raw bytes.
pub fn output_bytes(text: &str) -> std::borrow::Cow<'_, [u8]> {
    if !text.chars().any(|c| c as u32 >= RAW_BASE + 0x80) {
        return std::borrow::Cow::Borrowed(text.as_bytes());
    }
    let mut out = Vec::with_capacity(text.len());
    for c in text.chars() {
        match c as u32 {
            v if (RAW_BASE + 0x80..=RAW_BASE + 0xff).contains(&v) => out.push((v - RAW_BASE) as u8),
            _ => out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// The escapes `echo -e`, `printf` and `$'...'` share: `\n \t \r \a \b \e \f \v \\`.
pub fn simple_escape(c: char) -> Option<char> {
    Some(match c {
        'n' => '\n',
        't' => '\t',
        'r' => '\r',
        'a' => '\x07',
        'b' => '\x08',
        'e' | 'E' => '\x1b',
        'f' => '\x0c',
        'v' => '\x0b',
        '\\' => '\\',
        _ => return None,
    })
}

/// Backslash escapes; `echo_style` is `echo -e`/`%b` (octal as `\0nnn`, `\c` stops), else a
/// printf format (octal as `\nnn`). Returns the text and whether `\c` stopped it.
pub fn escapes_of(s: &str, echo_style: bool) -> (String, bool) {
    let mut out = String::new();
    let mut chars = s.chars().peekable();
    let number = |chars: &mut std::iter::Peekable<std::str::Chars>, radix: u32, max: usize| {
        let mut v = 0u32;
        let mut n = 0;
        while n < max {
            match chars.peek().and_then(|c| c.to_digit(radix)) {
                Some(d) => {
                    v = v * radix + d;
                    chars.next();
                    n += 1;
                }
                None => break,
            }
        }
        (v, n)
    };
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some(c) if simple_escape(c).is_some() => out.push(simple_escape(c).unwrap_or(c)),
            Some('c') if echo_style => return (out, true),
            Some('"') if !echo_style => out.push('"'),
            Some('\'') if !echo_style => out.push('\''),
            Some('0') if echo_style => {
                let (v, _) = number(&mut chars, 8, 3);
                out.push(raw_byte((v & 0xff) as u8));
            }
            Some('x') => {
                let (v, n) = number(&mut chars, 16, 2);
                if n == 0 {
                    out.push_str("\\x");
                } else {
                    out.push(raw_byte(v as u8));
                }
            }
            Some(u @ ('u' | 'U')) => {
                let (v, n) = number(&mut chars, 16, if u == 'u' { 4 } else { 8 });
                if n == 0 {
                    out.push('\\');
                    out.push(u);
                } else {
                    out.push(char::from_u32(v).unwrap_or('\u{fffd}'));
                }
            }
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    (out, false)
}

/// The widest field or precision a conversion gets (a huge `%*d` would otherwise exhaust
/// memory; bash would print it).
pub const MAX_FIELD: usize = 1 << 24;

/// One conversion's flags, width and precision.
#[derive(Default, Clone)]
pub struct Spec {
    pub left: bool,
    pub plus: bool,
    pub space: bool,
    pub alt: bool,
    pub zero: bool,
    pub width: Option<usize>,
    pub precision: Option<usize>,
}

impl Spec {
    /// A spec with the flags (`-+ #0`) that start at `fmt[*i]`, `*i` moved past them.
    pub fn with_flags(fmt: &[char], i: &mut usize) -> Spec {
        let mut spec = Spec::default();
        while let Some(&f) = fmt.get(*i) {
            match f {
                '-' => spec.left = true,
                '+' => spec.plus = true,
                ' ' => spec.space = true,
                '#' => spec.alt = true,
                '0' => spec.zero = true,
                _ => break,
            }
            *i += 1;
        }
        spec
    }
}

pub fn truncate(s: &str, precision: Option<usize>) -> String {
    match precision {
        Some(p) => s.chars().take(p).collect(),
        None => s.to_string(),
    }
}

/// Pads to the width (spaces; left-aligned with `-`).
pub fn pad(spec: &Spec, s: &str) -> String {
    let fill = spec.width.unwrap_or(0).saturating_sub(s.chars().count());
    if spec.left {
        format!("{s}{}", " ".repeat(fill))
    } else {
        format!("{}{s}", " ".repeat(fill))
    }
}

pub fn integer(spec: &Spec, conv: char, n: i64) -> String {
    let (neg, mag) = (n < 0, n.unsigned_abs());
    let mut digits = match conv {
        'o' => format!("{:o}", if conv == 'o' && neg { n as u64 } else { mag }),
        'x' => format!("{:x}", if neg { n as u64 } else { mag }),
        'X' => format!("{:X}", if neg { n as u64 } else { mag }),
        'u' => format!("{}", if neg { n as u64 } else { mag }),
        _ => mag.to_string(),
    };
    if let Some(p) = spec.precision {
        if p == 0 && n == 0 {
            digits.clear();
        }
        if digits.len() < p {
            digits = format!("{}{digits}", "0".repeat(p - digits.len()));
        }
    }
    let prefix = match conv {
        'd' | 'i' if neg => "-",
        'd' | 'i' if spec.plus => "+",
        'd' | 'i' if spec.space => " ",
        'x' if spec.alt && n != 0 => "0x",
        'X' if spec.alt && n != 0 => "0X",
        'o' if spec.alt && !digits.starts_with('0') => "0",
        _ => "",
    };
    finish_number(spec, prefix, &digits, spec.precision.is_none())
}

/// Sign/prefix, zero padding (when allowed) and width.
pub(crate) fn finish_number(spec: &Spec, prefix: &str, digits: &str, zero_ok: bool) -> String {
    let width = spec.width.unwrap_or(0);
    let len = prefix.len() + digits.chars().count();
    if spec.zero && !spec.left && zero_ok && len < width {
        return format!("{prefix}{}{digits}", "0".repeat(width - len));
    }
    pad(spec, &format!("{prefix}{digits}"))
}

pub fn float(spec: &Spec, conv: char, v: f64) -> String {
    // Rust's formatting takes at most 65,535 digits of precision (more would panic); nothing
    // real asks for more.
    let p = spec.precision.unwrap_or(6).min(u16::MAX as usize);
    let upper = conv.is_ascii_uppercase();
    let neg = v.is_sign_negative() && v != 0.0 || (v == 0.0 && v.is_sign_negative());
    let mag = v.abs();
    let body = if !mag.is_finite() {
        if mag.is_nan() {
            "nan".to_string()
        } else {
            "inf".to_string()
        }
    } else {
        match conv.to_ascii_lowercase() {
            'f' => format!("{mag:.p$}"),
            'e' => exponent(mag, p),
            'a' => format!("{mag}"),
            _ => general(mag, p, spec.alt),
        }
    };
    let body = if upper { body.to_uppercase() } else { body };
    let prefix = if neg {
        "-"
    } else if spec.plus {
        "+"
    } else if spec.space {
        " "
    } else {
        ""
    };
    finish_number(spec, prefix, &body, mag.is_finite())
}

/// `%e`: `d.dddddde+XX`.
pub(crate) fn exponent(v: f64, p: usize) -> String {
    let s = format!("{v:.p$e}");
    let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    format!(
        "{mantissa}e{}{:02}",
        if exp < 0 { '-' } else { '+' },
        exp.abs()
    )
}

/// `%g`: the shorter of `%e` and `%f` at `p` significant digits, trailing zeros removed.
pub(crate) fn general(v: f64, p: usize, alt: bool) -> String {
    let p = p.max(1);
    if v == 0.0 {
        return "0".into();
    }
    let exp = v.abs().log10().floor() as i32;
    let s = if exp < -4 || exp >= p as i32 {
        exponent(v, p - 1)
    } else {
        let decimals = (p as i32 - 1 - exp).max(0) as usize;
        format!("{v:.decimals$}")
    };
    if alt {
        return s;
    }
    match s.split_once('e') {
        Some((m, e)) => format!("{}e{e}", strip_zeros(m)),
        None => strip_zeros(&s),
    }
}

pub(crate) fn strip_zeros(s: &str) -> String {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s.to_string()
    }
}
