//! `numfmt`: convert numbers to and from human-readable sizes (`1.5K`), as GNU's does: its
//! rounding, its one decimal below 10, its padding and its field handling.

use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{bad_usage, parser, plain, string, usage, value};

use crate::stream::{Lines, Stop, Writer, complain};
use shell_base::format::MAX_FIELD;

/// A scale for reading (`--from`) or writing (`--to`).
#[derive(Clone, Copy, PartialEq)]
enum Scale {
    None,
    Si,
    Iec,
    IecI,
    Auto,
}

#[derive(Clone, Copy, PartialEq)]
enum Round {
    Up,
    Down,
    FromZero,
    TowardsZero,
    Nearest,
}

#[derive(Clone, Copy, PartialEq)]
enum Invalid {
    Abort,
    Fail,
    Warn,
    Ignore,
}

struct Options {
    from: Scale,
    to: Scale,
    from_unit: f64,
    to_unit: f64,
    round: Round,
    suffix: String,
    /// Width: positive aligns right, negative left; 0 pads fields to their own width.
    padding: i64,
    given_padding: bool,
    /// `--format`'s text around `%f`, its precision and its zero flag.
    prefix: String,
    postfix: String,
    precision: Option<usize>,
    zero_pad: bool,
    delimiter: Option<char>,
    fields: Vec<(usize, usize)>,
    header: usize,
    invalid: Invalid,
    zero_terminated: bool,
}

const LETTERS: &[u8] = b"KMGTPEZY";

fn scale(text: &str, what: &str, auto: bool) -> Result<Scale, lexopt::Error> {
    Ok(match text {
        "none" => Scale::None,
        "si" => Scale::Si,
        "iec" => Scale::Iec,
        "iec-i" => Scale::IecI,
        "auto" if auto => Scale::Auto,
        _ => {
            let valid: &[&str] = if auto {
                &["none", "auto", "si", "iec", "iec-i"]
            } else {
                &["none", "si", "iec", "iec-i"]
            };
            return Err(invalid_argument(text, what, valid));
        }
    })
}

/// GNU's message for a value not among `valid`, which it lists.
fn invalid_argument(text: &str, what: &str, valid: &[&str]) -> lexopt::Error {
    let list: String = valid.iter().map(|v| format!("\n  - '{v}'")).collect();
    usage(format!(
        "invalid argument '{text}' for '--{what}'\nValid arguments are:{list}"
    ))
}

/// `--from-unit` / `--to-unit`: a number, or a suffix (`K`, `Ki`) standing for one.
fn unit(text: &str) -> Result<f64, lexopt::Error> {
    let bad = || plain(format!("invalid unit size: '{text}'"));
    match parse_number(text, Scale::Auto).map_err(|_| bad())? {
        (v, _) if v > 0.0 => Ok(v),
        _ => Err(bad()),
    }
}

/// `--field`: `N`, `N-M`, `N-`, `-M`, `-` (all), comma-separated.
fn fields(text: &str) -> Result<Vec<(usize, usize)>, lexopt::Error> {
    let bad = || plain(format!("invalid field value '{text}'"));
    let num = |s: &str| s.parse::<usize>().ok().filter(|n| *n > 0).ok_or_else(bad);
    text.split(',')
        .map(|part| match part.split_once('-') {
            None => num(part).map(|n| (n, n)),
            Some(("", "")) => Ok((1, usize::MAX)),
            Some(("", hi)) => Ok((1, num(hi)?)),
            Some((lo, "")) => Ok((num(lo)?, usize::MAX)),
            Some((lo, hi)) => Ok((num(lo)?, num(hi)?)),
        })
        .collect()
}

/// `--format`: `PREFIX%[0]['][-][N][.N]fSUFFIX`.
fn format(text: &str, o: &mut Options) -> Result<(), lexopt::Error> {
    let bad = |why: &str| plain(format!("invalid format '{text}', {why}"));
    let Some(at) = text.find('%').filter(|&i| !text[i..].starts_with("%%")) else {
        return Err(plain(format!("format '{text}' has no % directive")));
    };
    o.prefix = text[..at].replace("%%", "%");
    let spec = &text[at + 1..];
    let end = spec
        .find(|c: char| !"0123456789'-.".contains(c))
        .unwrap_or(spec.len());
    if !spec[end..].starts_with('f') {
        return Err(bad("directive must be %[0]['][-][N][.][N]f"));
    }
    let rest = &spec[end + 1..];
    if rest.replace("%%", "").contains('%') {
        return Err(plain(format!("format '{text}' has too many % directives")));
    }
    o.postfix = rest.replace("%%", "%");
    let mut flags = &spec[..end];
    while let Some(c) = flags.chars().next().filter(|c| "0'-".contains(*c)) {
        match c {
            '0' => o.zero_pad = true,
            '-' => o.padding = -o.padding.abs().max(1),
            _ => {}
        }
        flags = &flags[1..];
    }
    let left = o.padding < 0;
    let (width, precision) = match flags.split_once('.') {
        Some((w, p)) => (w, Some(p)),
        None => (flags, None),
    };
    if !width.is_empty() {
        let w: i64 = width
            .parse()
            .map_err(|_| bad("directive must be %[0]['][-][N][.][N]f"))?;
        o.padding = if left { -w } else { w };
        o.given_padding = true;
    } else if left {
        o.padding = 0;
    }
    if let Some(p) = precision {
        o.precision = Some(if p.is_empty() {
            0
        } else {
            p.parse()
                .map_err(|_| bad("directive must be %[0]['][-][N][.][N]f"))?
        });
    }
    Ok(())
}

/// `numfmt [OPTION]... [NUMBER]...`: the numbers given, or each line of stdin.
pub async fn numfmt(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let mut o = Options {
        from: Scale::None,
        to: Scale::None,
        from_unit: 1.0,
        to_unit: 1.0,
        round: Round::FromZero,
        suffix: String::new(),
        padding: 0,
        given_padding: false,
        prefix: String::new(),
        postfix: String::new(),
        precision: None,
        zero_pad: false,
        delimiter: None,
        fields: vec![(1, 1)],
        header: 0,
        invalid: Invalid::Abort,
        zero_terminated: false,
    };
    let mut numbers = Vec::new();
    let mut p = parser(argv);
    let parsed: Result<(), lexopt::Error> = (|| {
        while let Some(arg) = p.next()? {
            match arg {
                Long("from") => o.from = scale(&value(&mut p)?, "from", true)?,
                Long("to") => o.to = scale(&value(&mut p)?, "to", false)?,
                Long("from-unit") => o.from_unit = unit(&value(&mut p)?)?,
                Long("to-unit") => o.to_unit = unit(&value(&mut p)?)?,
                Long("round") => {
                    let v = value(&mut p)?;
                    o.round = match v.as_str() {
                        "up" => Round::Up,
                        "down" => Round::Down,
                        "from-zero" => Round::FromZero,
                        "towards-zero" => Round::TowardsZero,
                        "nearest" => Round::Nearest,
                        _ => {
                            let valid = ["up", "down", "from-zero", "towards-zero", "nearest"];
                            return Err(invalid_argument(&v, "round", &valid));
                        }
                    };
                }
                Long("suffix") => o.suffix = value(&mut p)?,
                Long("padding") => {
                    let v = value(&mut p)?;
                    o.padding = v
                        .parse()
                        .ok()
                        .filter(|n| *n != 0)
                        .ok_or_else(|| plain(format!("invalid padding value '{v}'")))?;
                    o.given_padding = true;
                }
                Long("format") => format(&value(&mut p)?, &mut o)?,
                Short('d') | Long("delimiter") => {
                    let v = value(&mut p)?;
                    let mut chars = v.chars();
                    o.delimiter = chars.next();
                    if o.delimiter.is_none() || chars.next().is_some() {
                        return Err(plain("the delimiter must be a single character"));
                    }
                }
                Long("field") => o.fields = fields(&value(&mut p)?)?,
                Long("header") => {
                    o.header = match p.optional_value() {
                        Some(v) => {
                            let v = string(v);
                            v.parse()
                                .ok()
                                .filter(|n| *n > 0)
                                .ok_or_else(|| plain(format!("invalid header value '{v}'")))?
                        }
                        None => 1,
                    }
                }
                Long("invalid") => {
                    let v = value(&mut p)?;
                    o.invalid = match v.as_str() {
                        "abort" => Invalid::Abort,
                        "fail" => Invalid::Fail,
                        "warn" => Invalid::Warn,
                        "ignore" => Invalid::Ignore,
                        _ => {
                            let valid = ["abort", "fail", "warn", "ignore"];
                            return Err(invalid_argument(&v, "invalid", &valid));
                        }
                    };
                }
                Long("grouping") | Long("debug") => {}
                Short('z') | Long("zero-terminated") => o.zero_terminated = true,
                Value(v) => numbers.push(string(v)),
                _ => return Err(arg.unexpected()),
            }
        }
        Ok(())
    })();
    if let Err(e) = parsed {
        return bad_usage(sh, "numfmt", e, 1).await;
    }
    // A huge width or precision would be a huge string for every number.
    if o.padding.unsigned_abs() > MAX_FIELD as u64 || o.precision.is_some_and(|p| p > MAX_FIELD) {
        let m = format!("numfmt: a width or precision is at most {MAX_FIELD}");
        return complain(sh, &m).await;
    }
    let mut out = Writer::new(&sh.io().stdout);
    let mut failed = false;
    let end = if o.zero_terminated { b'\0' } else { b'\n' };
    let mut line_of = |line: &str, out_line: &mut Vec<u8>| -> Result<(), String> {
        let (text, ok) = convert_line(line, &o);
        out_line.extend_from_slice(text.as_bytes());
        out_line.push(end);
        match ok {
            Ok(()) => Ok(()),
            Err(m) => {
                failed |= o.invalid != Invalid::Warn;
                Err(m)
            }
        }
    };
    let mut notes = Vec::new();
    let mut abort = false;
    if !numbers.is_empty() {
        for n in &numbers {
            let mut line = Vec::new();
            if let Err(m) = line_of(n, &mut line) {
                if o.invalid != Invalid::Ignore {
                    notes.push(format!("numfmt: {m}"));
                }
                if o.invalid == Invalid::Abort {
                    abort = true;
                    break;
                }
            }
            if let Err(Stop(s)) = out.write(&line).await {
                return s;
            }
        }
    } else {
        let mut lines = Lines::with_delimiter(sh.io().stdin.clone(), end);
        let mut index = 0;
        while let Ok(Some(raw)) = lines.next().await {
            index += 1;
            let text =
                String::from_utf8_lossy(raw.strip_suffix(&[end]).unwrap_or(&raw)).into_owned();
            let mut line = Vec::new();
            if index <= o.header {
                line.extend_from_slice(text.as_bytes());
                line.push(end);
            } else if let Err(m) = line_of(&text, &mut line) {
                if o.invalid != Invalid::Ignore {
                    out.flush().await.ok();
                    complain(sh, &format!("numfmt: {m}")).await;
                }
                if o.invalid == Invalid::Abort {
                    abort = true;
                    break;
                }
            }
            if let Err(Stop(s)) = out.write(&line).await {
                return s;
            }
        }
    }
    let flushed = out.flush().await;
    if !notes.is_empty() {
        complain(sh, &notes.join("\n")).await;
    }
    match flushed {
        Err(Stop(s)) => s,
        Ok(()) if abort || failed && o.invalid != Invalid::Ignore => 2,
        Ok(()) => 0,
    }
}

/// A line with its chosen fields converted; a field that is not a number stays as it was
/// and gives the message.
fn convert_line(line: &str, o: &Options) -> (String, Result<(), String>) {
    let mut out = String::new();
    let mut result = Ok(());
    let pieces: Vec<&str> = match o.delimiter {
        Some(d) => line.split(d).collect(),
        None => blank_fields(line),
    };
    let sep = o.delimiter.unwrap_or(' ');
    for (i, piece) in pieces.iter().enumerate() {
        if i > 0 {
            out.push(sep);
        }
        let field = i + 1;
        if !o.fields.iter().any(|&(lo, hi)| (lo..=hi).contains(&field)) {
            out.push_str(piece);
            continue;
        }
        match convert(piece, field, o) {
            Ok(text) => out.push_str(&text),
            Err(m) => {
                out.push_str(piece);
                if result.is_ok() {
                    result = Err(m);
                }
                if o.invalid == Invalid::Abort {
                    // GNU stops the line at the bad field.
                    out.truncate(out.len() - piece.len());
                    return (out, result);
                }
            }
        }
    }
    (out, result)
}

/// Fields separated by single blanks, each keeping the blanks before it (GNU's way: the
/// blank after a field is the separator).
fn blank_fields(line: &str) -> Vec<&str> {
    let bytes = line.as_bytes();
    let mut fields = Vec::new();
    let mut start = 0;
    loop {
        let mut end = start;
        while end < bytes.len() && (bytes[end] == b' ' || bytes[end] == b'\t') {
            end += 1;
        }
        while end < bytes.len() && bytes[end] != b' ' && bytes[end] != b'\t' {
            end += 1;
        }
        fields.push(&line[start..end]);
        if end >= bytes.len() {
            return fields;
        }
        start = end + 1;
    }
}

/// A number as text: its value, and its digits after the point when it had no suffix.
fn parse_number(text: &str, from: Scale) -> Result<(f64, usize), String> {
    let t = text.trim_start_matches([' ', '\t']);
    let num_end = t
        .char_indices()
        .find(|&(i, c)| !(c.is_ascii_digit() || c == '.' || (i == 0 && c == '-')))
        .map_or(t.len(), |(i, _)| i);
    let (num, rest) = t.split_at(num_end);
    let digits = num.trim_start_matches('-');
    if digits.is_empty() || digits == "." || digits.matches('.').count() > 1 {
        return Err(format!("invalid number: '{text}'"));
    }
    if digits
        .split('.')
        .next()
        .unwrap_or("")
        .trim_start_matches('0')
        .len()
        > 18
    {
        return Err(format!("value too large to be converted: '{text}'"));
    }
    let mut value: f64 = num
        .parse()
        .map_err(|_| format!("invalid number: '{text}'"))?;
    let frac = digits.split_once('.').map_or(0, |(_, f)| f.len());
    if rest.is_empty() {
        return Ok((value, frac));
    }
    let mut chars = rest.chars();
    let letter = chars.next().unwrap_or(' ');
    let Some(power) = LETTERS.iter().position(|&l| l as char == letter) else {
        return Err(format!("invalid suffix in input: '{text}'"));
    };
    if from == Scale::None {
        return Err(format!(
            "rejecting suffix in input: '{text}' (consider using --from)"
        ));
    }
    let i_suffix = chars.as_str().starts_with('i');
    let base: f64 = match from {
        Scale::Si => 1000.0,
        Scale::Iec => 1024.0,
        Scale::IecI if !i_suffix => {
            return Err(format!(
                "missing 'i' suffix in input: '{text}' (e.g. Ki/Mi/Gi)"
            ));
        }
        Scale::Auto if !i_suffix => 1000.0,
        _ => 1024.0,
    };
    let after = &chars.as_str()[usize::from(i_suffix && from != Scale::Iec)..];
    if !after.is_empty() {
        return Err(format!("invalid suffix in input: '{text}'"));
    }
    value *= base.powi(power as i32 + 1);
    Ok((value, 0))
}

fn round(v: f64, how: Round) -> f64 {
    match how {
        Round::Up => v.ceil(),
        Round::Down => v.floor(),
        Round::FromZero => {
            if v < 0.0 {
                v.floor()
            } else {
                v.ceil()
            }
        }
        Round::TowardsZero => v.trunc(),
        Round::Nearest => v.round(),
    }
}

/// One field converted, padded as asked.
fn convert(field_text: &str, field: usize, o: &Options) -> Result<String, String> {
    let mut text = field_text.trim_start_matches([' ', '\t']);
    if !o.suffix.is_empty() {
        text = text.strip_suffix(o.suffix.as_str()).unwrap_or(text);
    }
    let (value, frac) =
        parse_number(text, o.from).map_err(|m| m.replace(text, field_text.trim_start()))?;
    let value = value * o.from_unit;
    let number = human(value / o.to_unit, frac, o)?;
    let mut shown = format!("{number}{}", o.suffix);
    let width = if o.given_padding {
        o.padding
    } else if o.delimiter.is_none()
        && (field > 1
            || field_text.len() > text.len() + o.suffix.len()
                && field_text.starts_with([' ', '\t']))
    {
        field_text.len() as i64
    } else {
        0
    };
    let pad = (width.unsigned_abs() as usize).saturating_sub(shown.chars().count());
    if width > 0 {
        shown.insert_str(0, &" ".repeat(pad));
    } else {
        shown.push_str(&" ".repeat(pad));
    }
    Ok(format!("{}{shown}{}", o.prefix, o.postfix))
}

/// The value in the `--to` scale, with GNU's precision and rounding.
fn human(value: f64, frac: usize, o: &Options) -> Result<String, String> {
    let zero = |s: String| {
        if o.zero_pad && o.padding > 0 {
            let neg = s.starts_with('-');
            let digits = s.trim_start_matches('-');
            let width = (o.padding as usize).saturating_sub(usize::from(neg));
            format!("{}{digits:0>width$}", if neg { "-" } else { "" })
        } else {
            s
        }
    };
    if o.to == Scale::None {
        let precision = o.precision.unwrap_or(frac);
        // Past 300 digits an f64 has nothing left to round.
        let scaled = 10f64.powi(precision.min(300) as i32);
        let v = round(value * scaled, o.round) / scaled;
        return Ok(zero(format!("{v:.precision$}")));
    }
    let base = if o.to == Scale::Si { 1000.0 } else { 1024.0 };
    let mut v = value;
    let mut power = 0usize;
    while v.abs() >= base && power < LETTERS.len() {
        v /= base;
        power += 1;
    }
    if v.abs() >= base {
        return Err(format!(
            "value too large to be printed: '{value}' (cannot handle values > 999Y)"
        ));
    }
    let adjust = match o.precision {
        Some(p) => p.min(power * 3),
        None if v.abs() < 10.0 => 1,
        None => 0,
    };
    let scaled = 10f64.powi(adjust as i32);
    v = round(v * scaled, o.round) / scaled;
    if v.abs() >= base && power < LETTERS.len() {
        v /= base;
        power += 1;
    }
    let shows_point = v != 0.0 && v.abs() < 10.0 && power > 0;
    let precision = match o.precision {
        Some(p) => p.min(power * 3),
        None => usize::from(shows_point),
    };
    let letter = if power == 0 {
        String::new()
    } else {
        let l = LETTERS[power - 1] as char;
        if o.to == Scale::IecI {
            format!("{l}i")
        } else {
            l.to_string()
        }
    };
    Ok(zero(format!("{v:.precision$}{letter}")))
}

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::stdout_of;

    #[test]
    fn a_huge_width_is_refused() {
        let huge = crate::testing::Native::new().run(&["numfmt", "--padding=99999999999", "1"], "");
        assert_eq!(huge.status, 1);
        assert!(huge.stderr.contains("at most"), "{}", huge.stderr);
    }

    #[test]
    fn to_and_from_human_sizes() {
        let run = |args: &[&str]| stdout_of(&[&["numfmt"], args].concat(), "");
        assert_eq!(
            run(&["--to=si", "1500", "123456", "999"]),
            "1.5K\n124K\n999\n"
        );
        assert_eq!(run(&["--to=iec", "1024", "1048575"]), "1.0K\n1.0M\n");
        assert_eq!(run(&["--from=iec", "1K"]), "1024\n");
        assert_eq!(run(&["--from=auto", "1Mi"]), "1048576\n");
        assert_eq!(
            stdout_of(&["numfmt", "--field=2", "--to=si"], "a 2000000 b\n"),
            "a    2.0M b\n"
        );
    }
}
