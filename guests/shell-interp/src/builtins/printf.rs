//! `printf`: bash's format language (flags, width and precision incl. `*`, `%s %b %q %c
//! %d %i %o %u %x %X %e %E %f %F %g %G %%`, `-v VAR`, `'c` character values); the format is
//! reused while arguments remain. The conversions are `shell_base::format`'s.

use crate::builtins::out;
use crate::interp::Builtin;
use crate::interp::Interp;
use shell_base::format::*;

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
            // `%(FORMAT)T`: a time (seconds since the epoch; empty or -1 now) by strftime.
            let mut time_format = None;
            if fmt.get(i) == Some(&'(')
                && let Some(len) = fmt[i + 1..].iter().position(|&c| c == ')')
            {
                time_format = Some(fmt[i + 1..i + 1 + len].iter().collect::<String>());
                i += len + 2;
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
            let formatted = match (conv, time_format) {
                ('T', Some(format)) => {
                    let secs = time_of(&arg).unwrap_or_else(|n| {
                        status = 1;
                        invalid.push(arg.clone());
                        n
                    });
                    // bash's default for `%()T` is the locale's time, `%X`.
                    let format = if format.is_empty() { "%X" } else { &format };
                    let t = shell_base::clock::format(secs, 0, format);
                    pad(&spec, &truncate(&t, spec.precision))
                }
                (_, Some(_)) => {
                    sh.error("printf: `(': invalid format character").await;
                    status = 1;
                    break 'outer;
                }
                ('s', None) => pad(&spec, &truncate(&arg, spec.precision)),
                ('b', None) => {
                    let (t, stop) = escapes_of(&arg, true);
                    text.push_str(&pad(&spec, &truncate(&t, spec.precision)));
                    if stop {
                        break 'outer;
                    }
                    continue;
                }
                ('q', None) => pad(&spec, &crate::quote::backslash(&arg, sh.shell.utf8())),
                ('c', None) => pad(
                    &spec,
                    &arg.chars().next().map(String::from).unwrap_or_default(),
                ),
                (
                    'd' | 'i' | 'o' | 'u' | 'x' | 'X' | 'e' | 'E' | 'f' | 'F' | 'g' | 'G' | 'a'
                    | 'A',
                    None,
                ) => {
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
                (other, None) => {
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
        let assigned = match crate::interp::assign::Pending::from_text(&format!("{name}=")) {
            Some(mut p) => {
                p.value = crate::interp::assign::Assigned::Scalar(text);
                sh.apply_assignment(p)
            }
            // bash's status for a bad name is 2, for a readonly one 1.
            None => {
                sh.error(&format!("printf: `{name}': not a valid identifier"))
                    .await;
                return 2;
            }
        };
        return match assigned {
            Ok(()) => status,
            // bash words a readonly target as an assignment would, without `printf: `.
            Err(msg) if msg.ends_with("readonly variable") => {
                sh.error(&msg).await;
                1
            }
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

/// `%(...)T`'s argument as seconds since the epoch: a number, or now when it is empty,
/// -1 or -2 (bash's -2, the shell's start, is now too: a run of the isolate is short).
fn time_of(arg: &str) -> Result<i64, i64> {
    let now = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64)
    };
    match arg.trim() {
        "" => Ok(now()),
        text => match parse_integer(text) {
            Ok(-1 | -2) => Ok(now()),
            other => other,
        },
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
                // The character itself, in UTF-8 (the shell's only encoding).
                let v = u32::from_str_radix(&digits, 16).unwrap_or(0);
                let c = char::from_u32(v).unwrap_or('\u{fffd}');
                (c.to_string(), 2 + digits.len())
            }
        }
        Some(c) => {
            let (t, _) = escapes_of(&format!("\\{c}"), false);
            (t, 2)
        }
        None => ("\\".into(), 1),
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

/// A numeric argument, as the conversion wants it.
enum Number {
    Int(i64),
    Float(f64),
}

/// `printf`'s registration.
pub const BUILTIN: Builtin = Builtin {
    name: "printf",
    run: status!(printf),
    usage: "[-v var] format [arguments]",
    about: "Formats and prints ARGUMENTS under control of the FORMAT",
    special: false,
    declaration: None,
};
