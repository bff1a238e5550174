//! `base64`, `base32` and `basenc`: RFC 4648's encodings (and basenc's base2) with GNU's
//! options, output and messages, on the `data-encoding` crate, and ZeroMQ's Z85.

use data_encoding::{BitOrder, Encoding, Specification};
use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{bad_usage, parser, plain, string, usage, value};

use super::stream::{MEMORY_LIMIT, Stop, Writer, complain, open, read_all_limited};

/// basenc's encodings, by option name.
fn encoding(name: &str) -> Option<Encoding> {
    let base2 = |order| {
        let mut spec = Specification::new();
        spec.symbols.push_str("01");
        spec.bit_order = order;
        spec.encoding().ok()
    };
    Some(match name {
        "base64" => data_encoding::BASE64,
        "base64url" => data_encoding::BASE64URL,
        "base32" => data_encoding::BASE32,
        "base32hex" => data_encoding::BASE32HEX,
        "base16" => data_encoding::HEXUPPER,
        "base2msbf" => base2(BitOrder::MostSignificantFirst)?,
        "base2lsbf" => base2(BitOrder::LeastSignificantFirst)?,
        _ => return None,
    })
}

/// An encoding basenc offers: one of RFC 4648's (and base2), or Z85.
enum Scheme {
    Rfc(Encoding),
    /// ZeroMQ's spec 32: four bytes as five of 85 symbols. `data-encoding` covers only
    /// power-of-two bases, and the `z85` crate adds a padding of its own that GNU refuses,
    /// so the arithmetic is written out in [`z85`].
    Z85,
}

impl Scheme {
    fn named(name: &str) -> Option<Scheme> {
        match name {
            "z85" => Some(Scheme::Z85),
            _ => encoding(name).map(Scheme::Rfc),
        }
    }

    fn symbols(&self) -> String {
        match self {
            Scheme::Rfc(enc) => enc.specification().symbols,
            Scheme::Z85 => String::from_utf8_lossy(z85::SYMBOLS).into_owned(),
        }
    }
}

/// What decoding kept of `text`: newlines always dropped, and with `-i` every byte outside
/// the alphabet (and padding).
fn cleaned(text: &[u8], scheme: &Scheme, ignore_garbage: bool) -> Vec<u8> {
    let symbols = scheme.symbols();
    let pad = matches!(scheme, Scheme::Rfc(_));
    text.iter()
        .copied()
        .filter(|&c| c != b'\n')
        .filter(|&c| !ignore_garbage || (pad && c == b'=') || symbols.as_bytes().contains(&c))
        .collect()
}

/// Z85 as GNU's basenc writes and reads it: whole groups only.
mod z85 {
    pub const SYMBOLS: &[u8; 85] =
        b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";

    /// `data` encoded, or `None` when its length is not a multiple of four.
    pub fn encode(data: &[u8]) -> Option<String> {
        if !data.len().is_multiple_of(4) {
            return None;
        }
        let mut out = String::with_capacity(data.len() / 4 * 5);
        for group in data.chunks_exact(4) {
            let mut n = u32::from_be_bytes([group[0], group[1], group[2], group[3]]);
            let mut five = [0u8; 5];
            for slot in five.iter_mut().rev() {
                *slot = SYMBOLS[(n % 85) as usize];
                n /= 85;
            }
            out.extend(five.iter().map(|&b| char::from(b)));
        }
        Some(out)
    }

    /// `text` decoded, and whether it was invalid: then the groups before the first bad one
    /// (a byte outside the alphabet, a value past 2^32 - 1, or a short last group).
    pub fn decode(text: &[u8]) -> (Vec<u8>, bool) {
        let mut out = Vec::with_capacity(text.len() / 5 * 4);
        for group in text.chunks(5) {
            let mut n: u64 = 0;
            for &c in group {
                let Some(digit) = SYMBOLS.iter().position(|&s| s == c) else {
                    return (out, true);
                };
                n = n * 85 + digit as u64;
            }
            let Ok(n) = u32::try_from(n) else {
                return (out, true);
            };
            if group.len() < 5 {
                return (out, true);
            }
            out.extend_from_slice(&n.to_be_bytes());
        }
        (out, false)
    }
}

/// `text` decoded, and whether it was invalid: then what came before the first bad byte is
/// decoded, as GNU writes it, even when it ends inside a block.
fn decoded(enc: &Encoding, text: &[u8]) -> (Vec<u8>, bool) {
    let error = match enc.decode(text) {
        Ok(bytes) => return (bytes, false),
        Err(e) => e,
    };
    let mut spec = enc.specification();
    spec.padding = None;
    spec.check_trailing_bits = false;
    let Ok(lenient) = spec.encoding() else {
        return (Vec::new(), true);
    };
    let good: Vec<u8> = text[..error.position.min(text.len())]
        .iter()
        .copied()
        .filter(|&c| c != b'=')
        .collect();
    // Symbols that do not make a whole byte are dropped.
    let mut len = good.len();
    while len > 0 && lenient.decode_len(len).is_err() {
        len -= 1;
    }
    (lenient.decode(&good[..len]).unwrap_or_default(), true)
}

/// `base64`, `base32`: `[-di] [-w COLS] [FILE]`; `basenc --ENCODING [-di] [-w COLS] [FILE]`.
pub async fn basenc(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let cmd = argv[0].clone();
    let mut chosen = (cmd != "basenc").then(|| cmd.clone());
    let (mut decode, mut ignore_garbage, mut wrap) = (false, false, 76usize);
    let mut files = Vec::new();
    let mut p = parser(argv);
    let parsed: Result<(), lexopt::Error> = (|| {
        while let Some(arg) = p.next()? {
            match arg {
                Short('d') | Long("decode") => decode = true,
                Short('i') | Long("ignore-garbage") => ignore_garbage = true,
                Short('w') | Long("wrap") => {
                    let v = value(&mut p)?;
                    wrap = v
                        .parse()
                        .map_err(|_| plain(format!("invalid wrap size: '{v}'")))?;
                }
                Long(name) if cmd == "basenc" && Scheme::named(name).is_some() => {
                    chosen = Some(name.to_string());
                }
                Value(v) => files.push(string(v)),
                _ => return Err(arg.unexpected()),
            }
        }
        if files.len() > 1 {
            return Err(usage(format!("extra operand '{}'", files[1])));
        }
        Ok(())
    })();
    if let Err(e) = parsed {
        return bad_usage(sh, &cmd, e, 1).await;
    }
    let Some(scheme) = chosen.as_deref().and_then(Scheme::named) else {
        return bad_usage(sh, &cmd, usage("missing encoding type"), 1).await;
    };
    let file = files.pop().unwrap_or_else(|| "-".into());
    let input = match open(sh, &file) {
        Ok(i) => i,
        Err(m) => return complain(sh, &format!("{cmd}: {m}")).await,
    };
    let data = match read_all_limited(&input, MEMORY_LIMIT, &cmd).await {
        Ok(d) => d,
        Err(m) => return complain(sh, &m).await,
    };
    let mut w = Writer::new(&sh.io().stdout);
    let written = if decode {
        let text = cleaned(&data, &scheme, ignore_garbage);
        let (bytes, bad) = match &scheme {
            Scheme::Rfc(enc) => decoded(enc, &text),
            Scheme::Z85 => z85::decode(&text),
        };
        let r = w.write(&bytes).await;
        if bad {
            let _ = w.flush().await;
            return complain(sh, &format!("{cmd}: invalid input")).await;
        }
        r
    } else {
        let text = match &scheme {
            Scheme::Rfc(enc) => enc.encode(&data),
            Scheme::Z85 => match z85::encode(&data) {
                Some(t) => t,
                None => {
                    let m =
                        format!("{cmd}: invalid input (length must be multiple of 4 characters)");
                    return complain(sh, &m).await;
                }
            },
        };
        let mut s = String::with_capacity(text.len() + text.len() / wrap.max(1) + 1);
        for (k, c) in text.chars().enumerate() {
            if wrap != 0 && k > 0 && k % wrap == 0 {
                s.push('\n');
            }
            s.push(c);
        }
        // `-w 0` writes one unbroken line without a newline, as GNU does.
        if !s.is_empty() && wrap != 0 {
            s.push('\n');
        }
        w.write_str(&s).await
    };
    match written.and(w.flush().await) {
        Ok(()) => 0,
        Err(Stop(s)) => s,
    }
}

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::stdout_of;

    #[test]
    fn bad_input_keeps_what_decoded_before_it() {
        use data_encoding::BASE32;
        assert_eq!(
            super::decoded(&BASE32, b"NBSWY3D!"),
            (b"hell".to_vec(), true)
        );
        let b64 = data_encoding::BASE64;
        assert_eq!(
            super::decoded(&b64, b"aGVsbG8gd29y!!"),
            (b"hello wor".to_vec(), true)
        );
        assert_eq!(super::decoded(&b64, b"aGk="), (b"hi".to_vec(), false));
    }

    #[test]
    fn encodes_and_decodes() {
        assert_eq!(stdout_of(&["base64"], "hello"), "aGVsbG8=\n");
        assert_eq!(stdout_of(&["base64", "-d"], "aGVsbG8=\n"), "hello");
        assert_eq!(stdout_of(&["base32"], "hello"), "NBSWY3DP\n");
        assert_eq!(stdout_of(&["basenc", "--base16"], "hi"), "6869\n");
        assert_eq!(stdout_of(&["basenc", "--base2msbf"], "A"), "01000001\n");
        assert_eq!(stdout_of(&["basenc", "--base2lsbf"], "A"), "10000010\n");
        assert_eq!(stdout_of(&["basenc", "--z85"], "abcd"), "vpA.S\n");
        assert_eq!(stdout_of(&["basenc", "--z85", "-d"], "vpA.S\n"), "abcd");
    }

    #[test]
    fn z85_keeps_whole_groups_before_a_bad_one() {
        assert_eq!(super::z85::encode(b"abcde"), None);
        assert_eq!(super::z85::decode(b"vpA.Sv"), (b"abcd".to_vec(), true));
        assert_eq!(super::z85::decode(b"%%%%%"), (Vec::new(), true));
        assert_eq!(super::z85::decode(b"vpA~S"), (Vec::new(), true));
    }
}
