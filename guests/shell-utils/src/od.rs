//! `od`: octal, hex, decimal and character dumps. Inputs are read whole (up to the memory
//! limit a command may hold), then printed row by row.

use super::stream::{Stop, Writer, complain, parse_count, parse_size};
use crate::dump::*;
use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{bad_usage, parser, plain, string, usage, value};

/// One `od -t` output type.
#[derive(Clone, Copy)]
enum OdType {
    /// `c`: characters, backslash escapes, octal.
    Char,
    /// `a`: named characters.
    Named,
    /// An integer of `size` bytes (little-endian) in a radix: `x`, `o`, `d`, `u`.
    Int(u8, usize),
}

impl OdType {
    fn size(&self) -> usize {
        match self {
            OdType::Char | OdType::Named => 1,
            OdType::Int(_, n) => *n,
        }
    }

    /// Characters each element takes (without the space before it).
    fn width(&self) -> usize {
        match self {
            OdType::Char | OdType::Named => 3,
            OdType::Int(kind, n) => {
                let bits = 8 * *n as u32;
                match kind {
                    b'x' => n * 2,
                    b'o' => bits.div_ceil(3) as usize,
                    b'u' => (u64::MAX >> (64 - bits)).to_string().len(),
                    _ => (i64::MIN >> (64 - bits)).to_string().len(),
                }
            }
        }
    }

    fn format(&self, bytes: &[u8]) -> String {
        match self {
            OdType::Char => match bytes[0] {
                0 => "\\0".into(),
                7 => "\\a".into(),
                8 => "\\b".into(),
                9 => "\\t".into(),
                10 => "\\n".into(),
                11 => "\\v".into(),
                12 => "\\f".into(),
                13 => "\\r".into(),
                b if (0x20..0x7f).contains(&b) => (b as char).to_string(),
                b => format!("{b:03o}"),
            },
            OdType::Named => {
                const NAMES: [&str; 33] = [
                    "nul", "soh", "stx", "etx", "eot", "enq", "ack", "bel", "bs", "ht", "nl", "vt",
                    "ff", "cr", "so", "si", "dle", "dc1", "dc2", "dc3", "dc4", "nak", "syn", "etb",
                    "can", "em", "sub", "esc", "fs", "gs", "rs", "us", "sp",
                ];
                let b = bytes[0] & 0x7f;
                match b {
                    0..=32 => NAMES[b as usize].into(),
                    127 => "del".into(),
                    b => (b as char).to_string(),
                }
            }
            OdType::Int(kind, n) => {
                let mut v: u64 = 0;
                for (i, b) in bytes.iter().enumerate().take(*n) {
                    v |= (*b as u64) << (8 * i);
                }
                let bits = 8 * *n as u32;
                match kind {
                    b'x' => format!("{v:0w$x}", w = n * 2),
                    b'o' => format!("{v:0w$o}", w = self.width()),
                    b'u' => v.to_string(),
                    _ => {
                        let signed = if bits == 64 {
                            v as i64
                        } else {
                            ((v << (64 - bits)) as i64) >> (64 - bits)
                        };
                        signed.to_string()
                    }
                }
            }
        }
    }
}

fn od_type(spec: &str) -> Option<(OdType, bool)> {
    let (spec, z) = match spec.strip_suffix('z') {
        Some(s) => (s, true),
        None => (spec, false),
    };
    let mut chars = spec.chars();
    let kind = chars.next()?;
    let rest: String = chars.collect();
    let t = match kind {
        'c' => OdType::Char,
        'a' => OdType::Named,
        'x' | 'o' | 'd' | 'u' => {
            let n = match rest.as_str() {
                "" => 4,
                "C" => 1,
                "S" => 2,
                "I" => 4,
                "L" => 8,
                r => r.parse().ok().filter(|n| matches!(n, 1 | 2 | 4 | 8))?,
            };
            OdType::Int(kind as u8, n)
        }
        _ => return None,
    };
    Some((t, z))
}

/// `od [-A RADIX] [-t TYPE]... [-c -x -o -d -b] [-j SKIP] [-N COUNT] [-v] [-w N] [FILE...]`.
pub async fn od(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let mut radix = 'o';
    let mut types: Vec<(OdType, bool)> = Vec::new();
    let (mut skip, mut limit, mut all_rows, mut width) = (0, None, false, 16usize);
    let mut files = Vec::new();
    let mut p = parser(argv);
    let parsed: Result<(), lexopt::Error> = (|| {
        while let Some(arg) = p.next()? {
            match arg {
                Short('A') | Long("address-radix") => {
                    let v = value(&mut p)?;
                    match v.as_str() {
                        "d" | "o" | "x" | "n" => radix = v.chars().next().unwrap_or('o'),
                        _ => {
                            return Err(plain(format!(
                                "invalid output address radix '{v}'; it must be one character from [doxn]"
                            )));
                        }
                    }
                }
                Short('t') | Long("format") => {
                    let v = value(&mut p)?;
                    let Some(t) = od_type(&v) else {
                        let bad = v.chars().next().unwrap_or(' ');
                        return Err(plain(format!(
                            "invalid character '{bad}' in type string '{v}'"
                        )));
                    };
                    types.push(t);
                }
                Short('j') | Long("skip-bytes") => {
                    let v = value(&mut p)?;
                    skip = parse_count(&v)
                        .ok_or_else(|| usage(format!("invalid skip argument: '{v}'")))?;
                }
                Short('N') | Long("read-bytes") => {
                    let v = value(&mut p)?;
                    let n = parse_count(&v)
                        .ok_or_else(|| usage(format!("invalid count argument: '{v}'")))?;
                    limit = Some(n);
                }
                // `-w` alone is 32 bytes a line; its value can only be attached (`-w8`).
                Short('w') | Long("width") => {
                    let v = p.optional_value().map_or("32".to_string(), string);
                    width = parse_size(&v).unwrap_or(16).max(1);
                }
                Short('v') | Long("output-duplicates") => all_rows = true,
                Short(c) if "cbxhodsila".contains(c) => types.push(match c {
                    'c' => (OdType::Char, false),
                    'b' => (OdType::Int(b'o', 1), false),
                    'x' | 'h' => (OdType::Int(b'x', 2), false),
                    'o' => (OdType::Int(b'o', 2), false),
                    'd' => (OdType::Int(b'u', 2), false),
                    's' => (OdType::Int(b'd', 2), false),
                    'i' => (OdType::Int(b'd', 4), false),
                    'l' => (OdType::Int(b'd', 8), false),
                    _ => (OdType::Named, false),
                }),
                Value(v) => files.push(string(v)),
                _ => return Err(arg.unexpected()),
            }
        }
        Ok(())
    })();
    if let Err(e) = parsed {
        return bad_usage(sh, "od", e, 1).await;
    }
    if types.is_empty() {
        types.push((OdType::Int(b'o', 2), false));
    }
    let mut rows = Rows::new(sh, "od", files, skip, limit);
    let address = |off: u64| match radix {
        'd' => format!("{off:07}"),
        'x' => format!("{off:06x}"),
        'n' => String::new(),
        _ => format!("{off:07o}"),
    };
    let pad = address(0).len();
    // With several types, their elements line up: a byte gets as many columns as the widest
    // type needs.
    let per_byte = types
        .iter()
        .map(|(t, _)| (t.width() + 1).div_ceil(t.size()))
        .max()
        .unwrap_or(1);
    let single = types.len() == 1;
    let mut w = Writer::new(&sh.io().stdout);
    let mut squeeze = Squeeze::new(width, all_rows);
    while let Some(row) = rows.next(width).await {
        let offset = rows.offset() - row.len() as u64;
        if squeeze.repeats(&row, &mut w).await {
            continue;
        }
        for (k, (t, z)) in types.iter().enumerate() {
            let mut line = if k == 0 {
                address(offset)
            } else {
                " ".repeat(pad)
            };
            let column = if single {
                t.width() + 1
            } else {
                per_byte * t.size()
            };
            for element in row.chunks(t.size()) {
                let mut bytes = element.to_vec();
                bytes.resize(t.size(), 0);
                let text = t.format(&bytes);
                line.push_str(&format!("{text:>column$}"));
            }
            if *z {
                let used = row.len().div_ceil(t.size()) * column;
                let full = width.div_ceil(t.size()) * column;
                line.push_str(&" ".repeat(full - used));
                line.push_str("  >");
                line.extend(row.iter().map(|b| printable(*b)));
                line.push('<');
            }
            line.push('\n');
            if let Err(Stop(s)) = w.write(line.as_bytes()).await {
                return s;
            }
        }
    }
    if rows.skipped_past_end() && rows.opened {
        let _ = w.flush().await;
        return complain(sh, "od: cannot skip past end of combined input").await;
    }
    if radix != 'n' && rows.opened {
        let _ = w
            .write(format!("{}\n", address(rows.offset())).as_bytes())
            .await;
    }
    let status = rows.status;
    finish(&mut w, status).await
}

#[cfg(all(test, unix))]
mod tests {

    use crate::testing::stdout_of;

    #[test]
    fn octal_bytes() {
        assert_eq!(
            stdout_of(&["od", "-c"], "ab\n"),
            "0000000   a   b  \\n\n0000003\n"
        );
    }
}
