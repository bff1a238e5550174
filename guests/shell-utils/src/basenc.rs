//! `base64`, `base32` and `basenc`: RFC 4648's encodings (and basenc's base2) with GNU's
//! options, output and messages, on the `data-encoding` crate.

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

/// What decoding kept of `text`: newlines always dropped, and with `-i` every byte outside
/// the alphabet (and padding).
fn cleaned(text: &[u8], enc: &Encoding, ignore_garbage: bool) -> Vec<u8> {
    let symbols = enc.specification().symbols;
    text.iter()
        .copied()
        .filter(|&c| c != b'\n')
        .filter(|&c| !ignore_garbage || c == b'=' || symbols.as_bytes().contains(&c))
        .collect()
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
                Long(name) if cmd == "basenc" && encoding(name).is_some() => {
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
    let Some(enc) = chosen.as_deref().and_then(encoding) else {
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
        let text = cleaned(&data, &enc, ignore_garbage);
        let (bytes, bad) = decoded(&enc, &text);
        let r = w.write(&bytes).await;
        if bad {
            let _ = w.flush().await;
            return complain(sh, &format!("{cmd}: invalid input")).await;
        }
        r
    } else {
        let text = enc.encode(&data);
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
    }
}
