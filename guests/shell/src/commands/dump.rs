//! Looking at bytes: `od`, `xxd` (and `xxd -r`), `hexdump`/`hd`, `strings`. Inputs are read
//! whole (up to the memory limit a command may hold), then printed row by row.

use super::stream::{
    MEMORY_LIMIT, Stop, Writer, complain, files_or_stdin, open, parse_size, read_all_limited,
};
use crate::exec::Interp;

/// The inputs one after another, after skipping `skip` bytes and keeping at most `limit`.
async fn read_inputs(
    sh: &Interp<'_>,
    cmd: &str,
    files: Vec<String>,
    skip: usize,
    limit: Option<usize>,
) -> Result<Vec<u8>, i32> {
    let mut all = Vec::new();
    for f in files_or_stdin(files) {
        let input = match open(sh, &f) {
            Ok(i) => i,
            Err(m) => return Err(complain(sh, &format!("{cmd}: {m}")).await),
        };
        match read_all_limited(&input, MEMORY_LIMIT, &format!("{cmd}: {f}")).await {
            Ok(data) => all.extend(data),
            Err(m) => return Err(complain(sh, &m).await),
        }
    }
    let start = skip.min(all.len());
    let end = limit.map_or(all.len(), |l| (start + l).min(all.len()));
    Ok(all[start..end].to_vec())
}

async fn finish(w: &mut Writer, status: i32) -> i32 {
    match w.flush().await {
        Ok(()) => status,
        Err(Stop(s)) => s,
    }
}

/// `od` and `hexdump` without `-v`: a full row equal to the one before is not shown; the
/// first of such a run prints `*`.
struct Squeeze<'d> {
    previous: Option<&'d [u8]>,
    starred: bool,
    width: usize,
    off: bool,
}

impl<'d> Squeeze<'d> {
    fn new(width: usize, off: bool) -> Squeeze<'d> {
        Squeeze {
            previous: None,
            starred: false,
            width,
            off,
        }
    }

    /// Whether `row` is left out (a `*` written for the first of a run).
    async fn repeats(&mut self, row: &'d [u8], w: &mut Writer) -> bool {
        if !self.off && self.previous == Some(row) && row.len() == self.width {
            if !self.starred {
                let _ = w.write(b"*\n").await;
                self.starred = true;
            }
            return true;
        }
        self.starred = false;
        self.previous = Some(row);
        false
    }
}

fn printable(b: u8) -> char {
    if (0x20..0x7f).contains(&b) {
        b as char
    } else {
        '.'
    }
}

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

/// A usage error of `od` (status 2).
async fn od_usage(sh: &Interp<'_>, msg: String) -> i32 {
    complain(
        sh,
        &format!("od: {msg}\nTry 'od --help' for more information."),
    )
    .await
        + 1
}

/// `od [-A RADIX] [-t TYPE]... [-c -x -o -d -b] [-j SKIP] [-N COUNT] [-v] [-w N] [FILE...]`.
pub async fn od(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let mut radix = 'o';
    let mut types: Vec<(OdType, bool)> = Vec::new();
    let (mut skip, mut limit, mut all_rows, mut width) = (0, None, false, 16usize);
    let mut files = Vec::new();
    let mut i = 1;
    while i < argv.len() {
        let a = argv[i].as_str();
        let mut value = |flag: &str| -> Option<String> {
            if a == flag {
                i += 1;
                return argv.get(i).cloned();
            }
            a.strip_prefix(flag).map(str::to_string)
        };
        if let Some(v) = value("-A") {
            match v.as_str() {
                "d" | "o" | "x" | "n" => radix = v.chars().next().unwrap_or('o'),
                _ => {
                    return od_usage(
                        sh,
                        format!(
                            "invalid output address radix '{v}'; it is not one character of [doxn]"
                        ),
                    )
                    .await;
                }
            }
        } else if let Some(v) = value("-t") {
            match od_type(&v) {
                Some(t) => types.push(t),
                None => {
                    let bad = v.chars().next().unwrap_or(' ');
                    let msg = format!("od: invalid character '{bad}' in type string '{v}'");
                    return complain(sh, &msg).await;
                }
            }
        } else if let Some(v) = value("-j") {
            match parse_size(&v) {
                Some(n) => skip = n,
                None => return od_usage(sh, format!("invalid skip argument: '{v}'")).await,
            }
        } else if let Some(v) = value("-N") {
            match parse_size(&v) {
                Some(n) => limit = Some(n),
                None => return od_usage(sh, format!("invalid count argument: '{v}'")).await,
            }
        } else if let Some(v) = value("-w") {
            width = parse_size(if v.is_empty() { "32" } else { &v })
                .unwrap_or(16)
                .max(1);
        } else if a == "-v" {
            all_rows = true;
        } else if a.len() > 1 && a.starts_with('-') && a != "-" {
            for c in a[1..].chars() {
                types.push(match c {
                    'c' => (OdType::Char, false),
                    'b' => (OdType::Int(b'o', 1), false),
                    'x' | 'h' => (OdType::Int(b'x', 2), false),
                    'o' => (OdType::Int(b'o', 2), false),
                    'd' => (OdType::Int(b'u', 2), false),
                    's' => (OdType::Int(b'd', 2), false),
                    'i' => (OdType::Int(b'd', 4), false),
                    'l' => (OdType::Int(b'd', 8), false),
                    'a' => (OdType::Named, false),
                    _ => return od_usage(sh, format!("invalid option -- '{c}'")).await,
                });
            }
        } else {
            files.push(a.to_string());
        }
        i += 1;
    }
    if types.is_empty() {
        types.push((OdType::Int(b'o', 2), false));
    }
    let data = match read_inputs(sh, "od", files, skip, limit).await {
        Ok(d) => d,
        Err(s) => return s,
    };
    let address = |off: usize| match radix {
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
    let mut w = Writer::new(&sh.io.stdout);
    let mut squeeze = Squeeze::new(width, all_rows);
    for (row_index, row) in data.chunks(width).enumerate() {
        let offset = skip + row_index * width;
        if squeeze.repeats(row, &mut w).await {
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
    if radix != 'n' {
        let _ = w
            .write(format!("{}\n", address(skip + data.len())).as_bytes())
            .await;
    }
    finish(&mut w, 0).await
}

/// `xxd [-p] [-r] [-u] [-i] [-c COLS] [-g BYTES] [-l LEN] [-s SEEK] [FILE]`.
pub async fn xxd(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let (mut plain, mut reverse, mut upper, mut include) = (false, false, false, false);
    let (mut cols, mut group, mut len, mut seek) = (None, None, None, 0usize);
    let mut files = Vec::new();
    let mut i = 1;
    while i < argv.len() {
        let a = argv[i].as_str();
        let mut number = |flag: &str| -> Option<Option<usize>> {
            if a == flag {
                i += 1;
                return Some(argv.get(i).and_then(|v| parse_size(v)));
            }
            a.strip_prefix(flag)
                .filter(|v| !v.is_empty())
                .map(parse_size)
        };
        if let Some(v) = number("-c") {
            cols = v;
        } else if let Some(v) = number("-g") {
            group = v;
        } else if let Some(v) = number("-l") {
            len = v;
        } else if let Some(v) = number("-s") {
            seek = v.unwrap_or(0);
        } else {
            match a {
                "-p" | "-ps" | "-plain" | "-postscript" => plain = true,
                "-r" | "-revert" => reverse = true,
                "-rp" | "-pr" => {
                    reverse = true;
                    plain = true;
                }
                "-u" => upper = true,
                "-i" | "-include" => include = true,
                s if s.starts_with('-') && s.len() > 1 => {
                    return complain(sh, &format!("xxd: unknown option: {s}")).await + 1;
                }
                s => files.push(s.to_string()),
            }
        }
        i += 1;
    }
    files.truncate(1);
    let name = files.first().cloned();
    let data = match read_inputs(
        sh,
        "xxd",
        files,
        if reverse { 0 } else { seek },
        if reverse { None } else { len },
    )
    .await
    {
        Ok(d) => d,
        Err(s) => return s,
    };
    let mut w = Writer::new(&sh.io.stdout);
    let hex = |b: u8| {
        if upper {
            format!("{b:02X}")
        } else {
            format!("{b:02x}")
        }
    };
    if reverse {
        let text = String::from_utf8_lossy(&data);
        let bytes = if plain {
            hex_pairs(text.chars().filter(|c| c.is_ascii_hexdigit()))
        } else {
            // `offset: hex hex ...  text`: the hex columns of each line.
            let mut out = Vec::new();
            for line in text.lines() {
                let Some((_, rest)) = line.split_once(':') else {
                    continue;
                };
                let hex_part = rest.trim_start().split("  ").next().unwrap_or("");
                out.extend(hex_pairs(
                    hex_part.chars().filter(|c| c.is_ascii_hexdigit()),
                ));
            }
            out
        };
        let _ = w.write(&bytes).await;
        return finish(&mut w, 0).await;
    }
    if include {
        let var: String = name
            .unwrap_or_default()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        let cols = cols.unwrap_or(12).max(1);
        let mut text = String::new();
        if !var.is_empty() {
            text.push_str(&format!("unsigned char {var}[] = {{\n"));
        }
        let rows: Vec<String> = data
            .chunks(cols)
            .map(|row| {
                let items: Vec<String> = row.iter().map(|b| format!("0x{}", hex(*b))).collect();
                format!("  {}", items.join(", "))
            })
            .collect();
        text.push_str(&rows.join(",\n"));
        if !rows.is_empty() {
            text.push('\n');
        }
        if !var.is_empty() {
            text.push_str(&format!("}};\nunsigned int {var}_len = {};\n", data.len()));
        }
        let _ = w.write(text.as_bytes()).await;
        return finish(&mut w, 0).await;
    }
    if plain {
        let cols = cols.unwrap_or(30).max(1);
        for row in data.chunks(cols) {
            let mut line: String = row.iter().map(|b| hex(*b)).collect();
            line.push('\n');
            if let Err(Stop(s)) = w.write(line.as_bytes()).await {
                return s;
            }
        }
        return finish(&mut w, 0).await;
    }
    let cols = cols.unwrap_or(16).max(1);
    let group = group.unwrap_or(2);
    let hex_width = cols * 2 + (cols - 1).checked_div(group).unwrap_or(0);
    for (k, row) in data.chunks(cols).enumerate() {
        let mut line = format!("{:08x}: ", seek + k * cols);
        let mut hexes = String::new();
        for (j, b) in row.iter().enumerate() {
            if group > 0 && j > 0 && j % group == 0 {
                hexes.push(' ');
            }
            hexes.push_str(&hex(*b));
        }
        line.push_str(&format!("{hexes:<hex_width$}"));
        line.push_str("  ");
        line.extend(row.iter().map(|b| printable(*b)));
        line.push('\n');
        if let Err(Stop(s)) = w.write(line.as_bytes()).await {
            return s;
        }
    }
    finish(&mut w, 0).await
}

fn hex_pairs(digits: impl Iterator<Item = char>) -> Vec<u8> {
    let digits: Vec<u32> = digits.filter_map(|c| c.to_digit(16)).collect();
    digits
        .chunks(2)
        .filter(|p| p.len() == 2)
        .map(|p| (p[0] * 16 + p[1]) as u8)
        .collect()
}

/// `hexdump [-C] [-n LEN] [-s SKIP] [-v] [FILE...]`; `hd` is `hexdump -C`.
pub async fn hexdump(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let mut canonical = argv[0] == "hd";
    let (mut len, mut skip, mut all_rows) = (None, 0, false);
    let mut files = Vec::new();
    let mut i = 1;
    while i < argv.len() {
        let a = argv[i].as_str();
        match a {
            "-C" => canonical = true,
            "-v" => all_rows = true,
            "-n" | "-s" => {
                i += 1;
                let Some(v) = argv.get(i).and_then(|v| parse_size(v)) else {
                    return complain(
                        sh,
                        &format!(
                            "hexdump: bad {} value",
                            if a == "-n" { "length" } else { "skip" }
                        ),
                    )
                    .await;
                };
                if a == "-n" {
                    len = Some(v);
                } else {
                    skip = v;
                }
            }
            s if s.starts_with('-') && s.len() > 1 => {
                return complain(sh, &format!("hexdump: invalid option -- '{}'", &s[1..])).await;
            }
            s => files.push(s.to_string()),
        }
        i += 1;
    }
    let data = match read_inputs(sh, "hexdump", files, skip, len).await {
        Ok(d) => d,
        Err(s) => return s,
    };
    let mut w = Writer::new(&sh.io.stdout);
    let mut squeeze = Squeeze::new(16, all_rows);
    for (k, row) in data.chunks(16).enumerate() {
        if squeeze.repeats(row, &mut w).await {
            continue;
        }
        let offset = skip + k * 16;
        let line = if canonical {
            let mut hexes = String::new();
            for (j, b) in row.iter().enumerate() {
                if j == 8 {
                    hexes.push(' ');
                }
                hexes.push_str(&format!("{b:02x} "));
            }
            let text: String = row.iter().map(|b| printable(*b)).collect();
            format!("{offset:08x}  {hexes:<50}|{text}|\n")
        } else {
            let words: Vec<String> = row
                .chunks(2)
                .map(|p| {
                    format!(
                        "{:04x}",
                        p[0] as u16 | (*p.get(1).unwrap_or(&0) as u16) << 8
                    )
                })
                .collect();
            format!("{offset:07x} {:<39}\n", words.join(" "))
        };
        if let Err(Stop(s)) = w.write(line.as_bytes()).await {
            return s;
        }
    }
    if !data.is_empty() || skip > 0 {
        let end = skip + data.len();
        let last = if canonical {
            format!("{end:08x}\n")
        } else {
            format!("{end:07x}\n")
        };
        let _ = w.write(last.as_bytes()).await;
    }
    finish(&mut w, 0).await
}

/// `strings [-n MIN] [-t d|o|x] [-a] [FILE...]`: runs of printable characters.
pub async fn strings(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let (mut min, mut radix) = (4usize, None);
    let mut files = Vec::new();
    let mut i = 1;
    while i < argv.len() {
        let a = argv[i].as_str();
        match a {
            "-a" | "--all" => {}
            "-n" | "--bytes" | "-t" => {
                i += 1;
                let v = argv.get(i).cloned().unwrap_or_default();
                if a == "-t" {
                    radix = v.chars().next();
                } else {
                    match v.parse::<usize>() {
                        Ok(n) if n > 0 => min = n,
                        _ => {
                            return complain(
                                sh,
                                &format!("strings: invalid minimum string length {v}"),
                            )
                            .await;
                        }
                    }
                }
            }
            s if s.starts_with('-')
                && s.len() > 1
                && s[1..].chars().all(|c| c.is_ascii_digit()) =>
            {
                min = s[1..].parse().unwrap_or(4).max(1);
            }
            s if s.starts_with('-') && s.len() > 1 => {
                return complain(sh, &format!("strings: invalid option -- '{}'", &s[1..])).await;
            }
            s => files.push(s.to_string()),
        }
        i += 1;
    }
    let mut w = Writer::new(&sh.io.stdout);
    for f in files_or_stdin(files) {
        let data = match read_inputs(sh, "strings", vec![f], 0, None).await {
            Ok(d) => d,
            Err(s) => return s,
        };
        let mut start = 0;
        for (k, b) in data.iter().chain(std::iter::once(&0u8)).enumerate() {
            if (0x20..0x7f).contains(b) || *b == b'\t' {
                continue;
            }
            if k - start >= min {
                let text = String::from_utf8_lossy(&data[start..k]);
                let line = match radix {
                    Some('d') => format!("{start:7} {text}\n"),
                    Some('o') => format!("{start:7o} {text}\n"),
                    Some('x') => format!("{start:7x} {text}\n"),
                    _ => format!("{text}\n"),
                };
                if let Err(Stop(s)) = w.write(line.as_bytes()).await {
                    return s;
                }
            }
            start = k + 1;
        }
    }
    finish(&mut w, 0).await
}
