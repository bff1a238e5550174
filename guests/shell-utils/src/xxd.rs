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
    let mut w = Writer::new(&sh.io().stdout);
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

#[cfg(all(test, unix))]
mod tests {

    use crate::testing::stdout_of;

    #[test]
    fn dumps_and_reverses() {
        assert_eq!(stdout_of(&["xxd", "-p"], "AB"), "4142\n");
        assert_eq!(stdout_of(&["xxd", "-r", "-p"], "4142\n"), "AB");
    }
}
