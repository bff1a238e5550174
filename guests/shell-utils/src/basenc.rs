//! `base64`, `base32` and `basenc`: RFC 4648's encodings (and basenc's base2) with GNU's
//! options, output and messages, on the `data-encoding` crate, and ZeroMQ's Z85.

use data_encoding::{BitOrder, Encoding, Specification};
use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{bad_usage, parser, plain, string, usage, value};

use super::stream::{Stop, Writer, complain, open};
use shell_base::errno::io_message;
use shell_base::io::Input;

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
    if !ignore_garbage {
        // The lines between the newlines, copied whole.
        let mut out = Vec::with_capacity(text.len());
        let mut from = 0;
        for at in memchr::memchr_iter(b'\n', text) {
            out.extend_from_slice(&text[from..at]);
            from = at + 1;
        }
        out.extend_from_slice(&text[from..]);
        return out;
    }
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
    // Decoding stops at the first byte outside the alphabet; a short last group of base64
    // still gives the whole bytes it holds, as GNU's does (GNU's base32 drops the group).
    let symbols = spec.symbols.as_bytes();
    let invalid = (text.iter())
        .position(|c| *c != b'=' && !symbols.contains(c))
        .unwrap_or(text.len());
    let upto = match error.kind {
        data_encoding::DecodeKind::Length if symbols.len() == 64 => invalid,
        _ => error.position.min(invalid),
    };
    let good: Vec<u8> = text[..upto]
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
    let mut w = Writer::new(&sh.io().stdout);
    let done = if decode {
        decode_stream(&input, &scheme, ignore_garbage, &mut w).await
    } else {
        encode_stream(&input, &scheme, wrap, &mut w).await
    };
    let failed = match done {
        Ok(None) => None,
        Ok(Some(why)) => Some(why),
        Err(Stop(s)) => return s,
    };
    let flushed = w.flush().await;
    if let Some(why) = failed {
        let m = match why {
            Failure::Read(e) => format!("{cmd}: {file}: {}", io_message(&e)),
            Failure::Invalid => format!("{cmd}: invalid input"),
            Failure::Z85Length => {
                format!("{cmd}: invalid input (length must be multiple of 4 characters)")
            }
        };
        return complain(sh, &m).await;
    }
    match flushed {
        Ok(()) => 0,
        Err(Stop(s)) => s,
    }
}

/// Input bytes encoded at a time: GNU's block, a multiple of every scheme's group (3, 5 and 4
/// bytes), so that blocks encode as the whole input would, and Z85's length error comes
/// after the same output as GNU's.
const ENCODE_BLOCK: usize = 30 * 1024;

/// Symbols decoded at a time: a multiple of every scheme's group (2, 4, 5 and 8 symbols).
const DECODE_BLOCK: usize = 40 * 1024;

/// Why encoding or decoding stopped short.
enum Failure {
    Read(std::io::Error),
    Invalid,
    Z85Length,
}

/// Encodes `input` a block at a time, wrapping lines at `wrap` symbols (0: one line).
async fn encode_stream(
    input: &Input,
    scheme: &Scheme,
    wrap: usize,
    w: &mut Writer,
) -> Result<Option<Failure>, Stop> {
    let mut pending: Vec<u8> = Vec::new();
    let mut column = 0;
    let mut any = false;
    loop {
        let chunk = match input.read().await {
            Ok(chunk) => chunk,
            Err(e) => return Ok(Some(Failure::Read(e))),
        };
        let end = chunk.is_empty();
        pending.extend_from_slice(&chunk);
        while pending.len() >= ENCODE_BLOCK || (end && !pending.is_empty()) {
            let block: Vec<u8> = pending.drain(..pending.len().min(ENCODE_BLOCK)).collect();
            let text = match scheme {
                Scheme::Rfc(enc) => enc.encode(&block),
                Scheme::Z85 => match z85::encode(&block) {
                    Some(text) => text,
                    None => return Ok(Some(Failure::Z85Length)),
                },
            };
            any |= !text.is_empty();
            w.write_str(&wrapped(&text, wrap, &mut column)).await?;
        }
        if end {
            // `-w 0` writes one unbroken line without a newline, as GNU does.
            if any && wrap != 0 {
                w.write_str("\n").await?;
            }
            return Ok(None);
        }
    }
}

/// `text` with a newline wherever its line reaches `wrap` symbols (none for 0), the line
/// having `column` symbols already; `column` is left at the last line's length.
fn wrapped(text: &str, wrap: usize, column: &mut usize) -> String {
    if wrap == 0 {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + text.len() / wrap + 1);
    let mut rest = text;
    while !rest.is_empty() {
        if *column == wrap {
            out.push('\n');
            *column = 0;
        }
        // The symbols are ASCII: any index is a character boundary.
        let n = (wrap - *column).min(rest.len());
        out.push_str(&rest[..n]);
        *column += n;
        rest = &rest[n..];
    }
    out
}

/// Decodes `input` a block of symbols at a time; at the first bad symbol, writes what came
/// before it and stops.
async fn decode_stream(
    input: &Input,
    scheme: &Scheme,
    ignore_garbage: bool,
    w: &mut Writer,
) -> Result<Option<Failure>, Stop> {
    let mut pending: Vec<u8> = Vec::new();
    loop {
        let chunk = match input.read().await {
            Ok(chunk) => chunk,
            Err(e) => return Ok(Some(Failure::Read(e))),
        };
        let end = chunk.is_empty();
        pending.extend(cleaned(&chunk, scheme, ignore_garbage));
        let take = if end {
            pending.len()
        } else {
            pending.len() / DECODE_BLOCK * DECODE_BLOCK
        };
        if take > 0 || end {
            let (bytes, bad) = match scheme {
                Scheme::Rfc(enc) => decoded(enc, &pending[..take]),
                Scheme::Z85 => z85::decode(&pending[..take]),
            };
            w.write(&bytes).await?;
            if bad {
                return Ok(Some(Failure::Invalid));
            }
            pending.drain(..take);
        }
        if end {
            return Ok(None);
        }
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
        assert_eq!(super::decoded(&b64, b"aGk"), (b"hi".to_vec(), true));
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
