//! `echo` and `printf`: bash's escapes and the full format language (flags, width and
//! precision incl. `*`, `%s %b %q %c %d %i %o %u %x %X %e %E %f %F %g %G %%`, `-v VAR`,
//! `'c` character values); the format is reused while arguments remain.

use crate::builtins::out;
use crate::exec::Interp;

/// `echo [-neE] ARGS...`.
pub async fn echo(sh: &mut Interp<'_>, args: &[String]) -> i32 {
    let mut newline = true;
    let mut escapes = sh.shell.shopt.xpg_echo;
    let mut i = 0;
    while i < args.len()
        && args[i].len() > 1
        && args[i].starts_with('-')
        && args[i][1..].chars().all(|c| matches!(c, 'n' | 'e' | 'E'))
    {
        for c in args[i][1..].chars() {
            match c {
                'n' => newline = false,
                'e' => escapes = true,
                _ => escapes = false,
            }
        }
        i += 1;
    }
    let mut text = args[i..].join(" ");
    if escapes {
        let (t, stop) = escapes_of(&text, true);
        text = t;
        if stop {
            newline = false;
        }
    }
    if newline {
        text.push('\n');
    }
    out(sh, &text).await
}

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

const RAW_BASE: u32 = 0x10_ff00;

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

/// `printf [-v VAR] FORMAT [ARGS...]`.
pub async fn printf(sh: &mut Interp<'_>, args: &[String]) -> i32 {
    let (target, args) = match args {
        [v, name, rest @ ..] if v == "-v" => (Some(name.clone()), rest),
        [dd, rest @ ..] if dd == "--" => (None, rest),
        _ => (None, args),
    };
    let Some(format) = args.first() else {
        sh.raw_error("printf: usage: printf [-v var] format [arguments]")
            .await;
        return 2;
    };
    let mut rest = args[1..].iter();
    let mut text = String::new();
    let mut status = 0;
    let fmt: Vec<char> = format.chars().collect();
    'outer: loop {
        let mut consumed = false;
        let mut i = 0;
        while i < fmt.len() {
            let c = fmt[i];
            if c == '\\' {
                // One escape at a time, so `\c`-free format escapes apply.
                let mut j = i + 1;
                if j < fmt.len() && fmt[j].is_digit(8) {
                    let mut v = 0u32;
                    while j < fmt.len() && j < i + 4 && fmt[j].is_digit(8) {
                        v = v * 8 + fmt[j].to_digit(8).unwrap_or(0);
                        j += 1;
                    }
                    text.push(raw_byte((v & 0xff) as u8));
                    i = j;
                    continue;
                }
                let end = (i + 10).min(fmt.len());
                let piece: String = fmt[i..end].iter().collect();
                let (decoded, used) = first_escape(&piece);
                text.push_str(&decoded);
                i += used;
                continue;
            }
            if c != '%' {
                text.push(c);
                i += 1;
                continue;
            }
            i += 1;
            if fmt.get(i) == Some(&'%') {
                text.push('%');
                i += 1;
                continue;
            }
            let mut spec = Spec::with_flags(&fmt, &mut i);
            let number =
                |i: &mut usize, rest: &mut std::slice::Iter<String>, consumed: &mut bool| {
                    if fmt.get(*i) == Some(&'*') {
                        *i += 1;
                        let a = rest.next();
                        *consumed |= a.is_some();
                        return a.and_then(|a| a.trim().parse::<i64>().ok());
                    }
                    let start = *i;
                    while fmt.get(*i).is_some_and(|c| c.is_ascii_digit()) {
                        *i += 1;
                    }
                    (*i > start).then(|| {
                        fmt[start..*i]
                            .iter()
                            .collect::<String>()
                            .parse()
                            .unwrap_or(0)
                    })
                };
            if let Some(w) = number(&mut i, &mut rest, &mut consumed) {
                if w < 0 {
                    spec.left = true;
                }
                spec.width = Some((w.unsigned_abs() as usize).min(MAX_FIELD));
            }
            if fmt.get(i) == Some(&'.') {
                i += 1;
                let p = number(&mut i, &mut rest, &mut consumed).unwrap_or(0).max(0);
                spec.precision = Some((p as usize).min(MAX_FIELD));
            }
            // Length modifiers mean nothing here.
            while fmt
                .get(i)
                .is_some_and(|c| matches!(c, 'h' | 'l' | 'L' | 'j' | 'z'))
            {
                i += 1;
            }
            let Some(&conv) = fmt.get(i) else {
                sh.error(&format!(
                    "printf: `{}': missing format character",
                    fmt[..i].iter().collect::<String>()
                ))
                .await;
                status = 1;
                break 'outer;
            };
            i += 1;
            let arg = rest.next();
            consumed |= arg.is_some();
            let arg = arg.cloned().unwrap_or_default();
            let mut invalid = Vec::new();
            let formatted = match conv {
                's' => pad(&spec, &truncate(&arg, spec.precision)),
                'b' => {
                    let (t, stop) = escapes_of(&arg, true);
                    text.push_str(&pad(&spec, &truncate(&t, spec.precision)));
                    if stop {
                        break 'outer;
                    }
                    continue;
                }
                'q' => pad(&spec, &crate::quote::backslash(&arg, sh.utf8())),
                'c' => pad(
                    &spec,
                    &arg.chars().next().map(String::from).unwrap_or_default(),
                ),
                'd' | 'i' | 'o' | 'u' | 'x' | 'X' | 'e' | 'E' | 'f' | 'F' | 'g' | 'G' | 'a'
                | 'A' => {
                    let floating = !matches!(conv, 'd' | 'i' | 'o' | 'u' | 'x' | 'X');
                    let parsed = if floating {
                        parse_float(&arg).map(Number::Float).map_err(Number::Float)
                    } else {
                        parse_integer(&arg).map(Number::Int).map_err(Number::Int)
                    };
                    let n = parsed.unwrap_or_else(|n| {
                        status = 1;
                        invalid.push(arg.clone());
                        n
                    });
                    match n {
                        Number::Int(n) => integer(&spec, conv, n),
                        Number::Float(v) => float(&spec, conv, v),
                    }
                }
                other => {
                    sh.error(&format!("printf: `{other}': invalid format character"))
                        .await;
                    status = 1;
                    break 'outer;
                }
            };
            for arg in invalid {
                sh.error(&format!("printf: {arg}: invalid number")).await;
            }
            text.push_str(&formatted);
        }
        if !consumed || rest.len() == 0 {
            break;
        }
    }
    if let Some(name) = target {
        let assigned = match crate::assign::Pending::from_text(&format!("{name}=")) {
            Some(mut p) => {
                p.value = crate::assign::Assigned::Scalar(text);
                sh.apply_assignment(p)
            }
            None => Err(format!("`{name}': not a valid identifier")),
        };
        return match assigned {
            Ok(()) => status,
            Err(msg) => {
                sh.error(&format!("printf: {msg}")).await;
                1
            }
        };
    }
    match out(sh, &text).await {
        0 => status,
        s => s,
    }
}

/// Decodes the escape at the start of `s` (a printf format): (text, chars used).
fn first_escape(s: &str) -> (String, usize) {
    let chars: Vec<char> = s.chars().collect();
    match chars.get(1) {
        Some('x') => {
            let digits: String = chars[2..]
                .iter()
                .take(2)
                .take_while(|c| c.is_ascii_hexdigit())
                .collect();
            if digits.is_empty() {
                ("\\x".into(), 2)
            } else {
                let v = u8::from_str_radix(&digits, 16).unwrap_or(0);
                (raw_byte(v).to_string(), 2 + digits.len())
            }
        }
        Some(u @ ('u' | 'U')) => {
            let max = if *u == 'u' { 4 } else { 8 };
            let digits: String = chars[2..]
                .iter()
                .take(max)
                .take_while(|c| c.is_ascii_hexdigit())
                .collect();
            if digits.is_empty() {
                (format!("\\{u}"), 2)
            } else {
                let v = u8::from_str_radix(&digits, 16).unwrap_or(0);
                (raw_byte(v).to_string(), 2 + digits.len())
            }
        }
        Some(c) => {
            let (t, _) = escapes_of(&format!("\\{c}"), false);
            (t, 2)
        }
        None => ("\\".into(), 1),
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

/// A numeric argument as bash reads it: decimal, `0x` hex, `0` octal, `'c` a character's
/// value; an invalid one gives its valid prefix's value as the error.
fn parse_integer(arg: &str) -> Result<i64, i64> {
    let t = arg.trim_start();
    if t.is_empty() {
        return Ok(0);
    }
    if let Some(rest) = t.strip_prefix(['\'', '"']) {
        return Ok(rest.chars().next().map(|c| c as i64).unwrap_or(0));
    }
    let (neg, body) = match t.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let (radix, digits) =
        if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
            (16, h)
        } else if body.len() > 1 && body.starts_with('0') {
            (8, &body[1..])
        } else {
            (10, body)
        };
    let valid: String = digits.chars().take_while(|c| c.is_digit(radix)).collect();
    let v =
        i64::from_str_radix(&valid, radix).unwrap_or(if valid.is_empty() { 0 } else { i64::MAX });
    let v = if neg { -v } else { v };
    if valid.len() == digits.len() && !digits.is_empty() {
        Ok(v)
    } else {
        Err(v)
    }
}

fn parse_float(arg: &str) -> Result<f64, f64> {
    let t = arg.trim();
    if t.is_empty() {
        return Ok(0.0);
    }
    if let Some(rest) = t.strip_prefix(['\'', '"']) {
        return Ok(rest.chars().next().map(|c| c as u32 as f64).unwrap_or(0.0));
    }
    if let Ok(v) = t.parse::<f64>() {
        return Ok(v);
    }
    match parse_integer(t) {
        Ok(v) => Ok(v as f64),
        Err(v) => Err(v as f64),
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
fn finish_number(spec: &Spec, prefix: &str, digits: &str, zero_ok: bool) -> String {
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
fn exponent(v: f64, p: usize) -> String {
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
fn general(v: f64, p: usize, alt: bool) -> String {
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

fn strip_zeros(s: &str) -> String {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s.to_string()
    }
}

/// A numeric argument, as the conversion wants it.
enum Number {
    Int(i64),
    Float(f64),
}
