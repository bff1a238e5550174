//! `tr`: sets with ranges, classes and escapes; `-d -s -c -t`, on bytes as GNU does in
//! the C locale.

use super::stream::{Stop, Writer, complain};
use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{bad_usage, parser, string};

/// The bytes of a `tr` set, expanded.
fn expand_set(text: &str) -> Result<Vec<u8>, String> {
    let b = text.as_bytes();
    let mut items: Vec<u8> = Vec::new();
    let mut i = 0;
    let escape = |b: &[u8], i: &mut usize| -> u8 {
        // After the backslash.
        let c = b[*i];
        *i += 1;
        match c {
            b'n' => b'\n',
            b't' => b'\t',
            b'r' => b'\r',
            b'a' => 7,
            b'b' => 8,
            b'f' => 12,
            b'v' => 11,
            b'0'..=b'7' => {
                let mut v = (c - b'0') as u32;
                for _ in 0..2 {
                    if *i < b.len() && (b'0'..=b'7').contains(&b[*i]) {
                        v = v * 8 + (b[*i] - b'0') as u32;
                        *i += 1;
                    }
                }
                v as u8
            }
            other => other,
        }
    };
    while i < b.len() {
        if b[i] == b'['
            && b.get(i + 1) == Some(&b':')
            && let Some(end) = text[i + 2..].find(":]")
        {
            let name = &text[i + 2..i + 2 + end];
            let test: fn(u8) -> bool = match name {
                "alpha" => |c| c.is_ascii_alphabetic(),
                "digit" => |c| c.is_ascii_digit(),
                "alnum" => |c| c.is_ascii_alphanumeric(),
                "upper" => |c| c.is_ascii_uppercase(),
                "lower" => |c| c.is_ascii_lowercase(),
                "space" => |c| c.is_ascii_whitespace() || c == 11,
                "blank" => |c| c == b' ' || c == b'\t',
                "punct" => |c| c.is_ascii_punctuation(),
                "cntrl" => |c| c.is_ascii_control(),
                "print" => |c| (32..127).contains(&c),
                "graph" => |c| (33..127).contains(&c),
                "xdigit" => |c| c.is_ascii_hexdigit(),
                _ => return Err(format!("invalid character class '{name}'")),
            };
            items.extend((0..=255u8).filter(|c| test(*c)));
            i += 2 + end + 2;
            continue;
        }
        if b[i] == b'[' && i + 3 < b.len() && b[i + 2] == b'*' {
            // `[c*n]`: c repeated n times (or to fill, with n empty).
            if let Some(end) = text[i..].find(']').filter(|e| *e >= 3) {
                let c = b[i + 1];
                let n: usize = text[i + 3..i + end].parse().unwrap_or(0);
                items.extend(std::iter::repeat_n(c, if n == 0 { 1 } else { n }));
                i += end + 1;
                continue;
            }
        }
        let c = if b[i] == b'\\' && i + 1 < b.len() {
            i += 1;
            escape(b, &mut i)
        } else {
            i += 1;
            b[i - 1]
        };
        if i + 1 < b.len() && b[i] == b'-' {
            let mut j = i + 1;
            let end = if b[j] == b'\\' && j + 1 < b.len() {
                j += 1;
                escape(b, &mut j)
            } else {
                j += 1;
                b[j - 1]
            };
            if end < c {
                return Err(format!(
                    "range-endpoints of '{}-{}' are in reverse collating sequence order",
                    c as char, end as char
                ));
            }
            items.extend(c..=end);
            i = j;
            continue;
        }
        items.push(c);
    }
    Ok(items)
}

/// `tr [-cdst] SET1 [SET2]`.
pub async fn tr(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let (mut delete, mut squeeze, mut complement, mut truncate) = (false, false, false, false);
    let mut sets = Vec::new();
    let usage = "Try 'tr --help' for more information.";
    let mut p = parser(argv);
    let parsed: Result<(), lexopt::Error> = (|| {
        while let Some(arg) = p.next()? {
            match arg {
                Short('d') | Long("delete") => delete = true,
                Short('s') | Long("squeeze-repeats") => squeeze = true,
                Short('c' | 'C') | Long("complement") => complement = true,
                Short('t') | Long("truncate-set1") => truncate = true,
                Value(v) => sets.push(string(v)),
                _ => return Err(arg.unexpected()),
            }
        }
        Ok(())
    })();
    if let Err(e) = parsed {
        return bad_usage(sh, "tr", e, 1).await;
    }
    let needed = if delete && !squeeze {
        1
    } else if delete || !squeeze {
        2
    } else {
        1
    };
    if sets.is_empty() {
        return complain(sh, &format!("tr: missing operand\n{usage}")).await;
    }
    if sets.len() < needed {
        let msg = if delete || squeeze {
            format!(
                "tr: missing operand after '{}'\nTwo strings must be given when both deleting and squeezing repeats.\n{usage}",
                sets[0]
            )
        } else {
            format!(
                "tr: missing operand after '{}'\nTwo strings must be given when translating.\n{usage}",
                sets[0]
            )
        };
        return complain(sh, &msg).await;
    }
    if sets.len() > 2 || (delete && !squeeze && sets.len() > 1) {
        return complain(
            sh,
            &format!(
                "tr: extra operand '{}'\n{usage}",
                sets[needed.min(sets.len() - 1)]
            ),
        )
        .await;
    }
    let mut set1 = match expand_set(&sets[0]) {
        Ok(s) => s,
        Err(m) => return complain(sh, &format!("tr: {m}")).await,
    };
    let set2 = match sets.get(1).map(|s| expand_set(s)) {
        Some(Ok(s)) => s,
        Some(Err(m)) => return complain(sh, &format!("tr: {m}")).await,
        None => Vec::new(),
    };
    if complement {
        set1 = (0..=255u8).filter(|c| !set1.contains(c)).collect();
    }
    let mut in1 = [false; 256];
    for c in &set1 {
        in1[*c as usize] = true;
    }
    let mut map: [u8; 256] = std::array::from_fn(|i| i as u8);
    let translating = !delete && !set2.is_empty();
    if translating {
        let len = if truncate {
            set1.len().min(set2.len())
        } else {
            set1.len()
        };
        for (k, c) in set1.iter().take(len).enumerate() {
            map[*c as usize] = *set2.get(k).or(set2.last()).unwrap_or(c);
        }
    }
    // Squeezing applies to SET2 when translating or deleting, else to SET1.
    let squeeze_set: Vec<u8> = if sets.len() == 2 {
        set2.clone()
    } else {
        set1.clone()
    };
    let mut sq = [false; 256];
    for c in &squeeze_set {
        sq[*c as usize] = true;
    }
    let input = sh.io().stdin.clone();
    let mut out = Writer::new(&sh.io().stdout);
    let mut last: Option<u8> = None;
    loop {
        let chunk = match input.read().await {
            Ok(c) if !c.is_empty() => c,
            _ => break,
        };
        let mut text = Vec::with_capacity(chunk.len());
        for b in chunk {
            if delete && in1[b as usize] {
                continue;
            }
            let c = if translating { map[b as usize] } else { b };
            if squeeze && sq[c as usize] && last == Some(c) {
                continue;
            }
            last = Some(c);
            text.push(c);
        }
        if let Err(Stop(s)) = out.write(&text).await {
            return s;
        }
    }
    match out.flush().await {
        Ok(()) => 0,
        Err(Stop(s)) => s,
    }
}

#[cfg(all(test, unix))]
mod tests {

    use crate::testing::stdout_of;

    #[test]
    fn translates_deletes_and_squeezes() {
        assert_eq!(stdout_of(&["tr", "a-z", "A-Z"], "abc\n"), "ABC\n");
        assert_eq!(stdout_of(&["tr", "-d", "[:digit:]"], "a1b2\n"), "ab\n");
        assert_eq!(stdout_of(&["tr", "-s", " "], "a   b\n"), "a b\n");
    }
}
