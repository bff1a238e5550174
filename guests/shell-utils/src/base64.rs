//! `base64`: encode or decode base64.

use super::stream::{MEMORY_LIMIT, Stop, Writer, complain, open, read_all_limited};
use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{bad_usage, parser, plain, string, value};

const B64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn encode(data: &[u8]) -> String {
    let mut out = String::new();
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(B64[(n >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn decode(text: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let mut acc = 0u32;
    let mut bits = 0;
    for &c in text {
        if c == b'=' {
            break;
        }
        if c.is_ascii_whitespace() {
            continue;
        }
        let v = B64.iter().position(|x| *x == c)? as u32;
        acc = acc << 6 | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// `base64 [-d] [-w COLS] [FILE]`.
pub async fn base64(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let mut decode_mode = false;
    let mut wrap = 76usize;
    let mut file = "-".to_string();
    let mut p = parser(argv);
    let parsed: Result<(), lexopt::Error> = (|| {
        while let Some(arg) = p.next()? {
            match arg {
                Short('d') | Long("decode") => decode_mode = true,
                Short('i') | Long("ignore-garbage") => {}
                Short('w') | Long("wrap") => {
                    let v = value(&mut p)?;
                    wrap = v
                        .parse()
                        .map_err(|_| plain(format!("invalid wrap size: '{v}'")))?;
                }
                Value(v) => file = string(v),
                _ => return Err(arg.unexpected()),
            }
        }
        Ok(())
    })();
    if let Err(e) = parsed {
        return bad_usage(sh, "base64", e, 1).await;
    }
    let input = match open(sh, &file) {
        Ok(i) => i,
        Err(m) => return complain(sh, &format!("base64: {m}")).await,
    };
    let data = match read_all_limited(&input, MEMORY_LIMIT, "base64").await {
        Ok(d) => d,
        Err(m) => return complain(sh, &m).await,
    };
    let mut w = Writer::new(&sh.io().stdout);
    let r = if decode_mode {
        match decode(&data) {
            Some(bytes) => w.write(&bytes).await,
            None => return complain(sh, "base64: invalid input").await,
        }
    } else {
        let text = encode(&data);
        let mut s = String::new();
        if wrap == 0 {
            s.push_str(&text);
        } else {
            for (k, c) in text.chars().enumerate() {
                if k > 0 && k % wrap == 0 {
                    s.push('\n');
                }
                s.push(c);
            }
        }
        // `-w 0` writes one unbroken line without a newline, as GNU does.
        if !s.is_empty() && wrap != 0 {
            s.push('\n');
        }
        w.write_str(&s).await
    };
    match r.and(w.flush().await) {
        Ok(()) => 0,
        Err(Stop(s)) => s,
    }
}

#[cfg(all(test, unix))]
mod tests {

    use crate::testing::stdout_of;

    #[test]
    fn encodes_and_decodes() {
        assert_eq!(stdout_of(&["base64"], "hello"), "aGVsbG8=\n");
        assert_eq!(stdout_of(&["base64", "-d"], "aGVsbG8=\n"), "hello");
    }
}
