//! `xxd` (and `xxd -r`): hex dumps and back.

use super::stream::{Stop, Writer, complain, parse_size};
use crate::dump::*;
use shell_base::Context;

/// `xxd [-p] [-r] [-u] [-i] [-c COLS] [-g BYTES] [-l LEN] [-s SEEK] [FILE]`.
pub async fn xxd(sh: &mut dyn Context, argv: &[String]) -> i32 {
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
    let mut rows = Rows::new(
        sh,
        "xxd",
        files,
        if reverse { 0 } else { seek as u64 },
        if reverse { None } else { len.map(|l| l as u64) },
    );
    let mut w = Writer::new(&sh.io().stdout);
    let hex = |b: u8| {
        if upper {
            format!("{b:02X}")
        } else {
            format!("{b:02x}")
        }
    };
    if reverse {
        // A chunk at a time; what may continue in the next chunk (an odd digit, a part
        // of a line) waits for it.
        let mut carry: Vec<u8> = Vec::new();
        loop {
            let chunk = rows.next(REVERSE_CHUNK).await;
            let end = chunk.is_none();
            carry.extend(chunk.unwrap_or_default());
            let bytes = if plain {
                let digits: Vec<u8> = carry.drain(..).filter(u8::is_ascii_hexdigit).collect();
                let whole = digits.len() / 2 * 2;
                carry.extend_from_slice(&digits[whole..]);
                hex_pairs(digits[..whole].iter().map(|&d| char::from(d)))
            } else {
                let upto = if end {
                    carry.len()
                } else {
                    memchr::memrchr(b'\n', &carry).map_or(0, |i| i + 1)
                };
                let lines: Vec<u8> = carry.drain(..upto).collect();
                dump_lines(&String::from_utf8_lossy(&lines))
            };
            if let Err(Stop(s)) = w.write(&bytes).await {
                return s;
            }
            if end {
                let status = rows.status;
                return finish(&mut w, status).await;
            }
        }
    }
    if include {
        let var: String = name
            .unwrap_or_default()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        let cols = cols.unwrap_or(12).max(1);
        if !var.is_empty() {
            let _ = w.write_str(&format!("unsigned char {var}[] = {{\n")).await;
        }
        let mut first = true;
        while let Some(row) = rows.next(cols).await {
            let items: Vec<String> = row.iter().map(|b| format!("0x{}", hex(*b))).collect();
            let sep = if first { "" } else { ",\n" };
            first = false;
            if let Err(Stop(s)) = w.write_str(&format!("{sep}  {}", items.join(", "))).await {
                return s;
            }
        }
        let mut text = String::new();
        if !first {
            text.push('\n');
        }
        if !var.is_empty() {
            text.push_str(&format!("}};\nunsigned int {var}_len = {};\n", rows.taken));
        }
        let _ = w.write_str(&text).await;
        let status = rows.status;
        return finish(&mut w, status).await;
    }
    if plain {
        let cols = cols.unwrap_or(30).max(1);
        while let Some(row) = rows.next(cols).await {
            let mut line: String = row.iter().map(|b| hex(*b)).collect();
            line.push('\n');
            if let Err(Stop(s)) = w.write(line.as_bytes()).await {
                return s;
            }
        }
        let status = rows.status;
        return finish(&mut w, status).await;
    }
    let cols = cols.unwrap_or(16).max(1);
    let group = group.unwrap_or(2);
    let hex_width = cols * 2 + (cols - 1).checked_div(group).unwrap_or(0);
    while let Some(row) = rows.next(cols).await {
        let mut line = format!("{:08x}: ", rows.offset() - row.len() as u64);
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
    let status = rows.status;
    finish(&mut w, status).await
}

/// How much of the input `xxd -r` reads at a time.
const REVERSE_CHUNK: usize = 64 * 1024;

/// The bytes of an `xxd` dump's lines (`offset: hex hex ...  text`): each line's hex columns.
fn dump_lines(text: &str) -> Vec<u8> {
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
}

fn hex_pairs(digits: impl Iterator<Item = char>) -> Vec<u8> {
    let digits: Vec<u32> = digits.filter_map(|c| c.to_digit(16)).collect();
    digits
        .chunks(2)
        .filter(|p| p.len() == 2)
        .map(|p| (p[0] * 16 + p[1]) as u8)
        .collect()
}

#[cfg(all(test, unix))]
mod tests {

    use crate::testing::stdout_of;

    #[test]
    fn dumps_and_reverses() {
        assert_eq!(stdout_of(&["xxd", "-p"], "AB"), "4142\n");
        assert_eq!(stdout_of(&["xxd", "-r", "-p"], "4142\n"), "AB");
    }
}
