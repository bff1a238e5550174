//! `iconv`: convert text between character encodings: UTF-8, ASCII, Latin-1, UTF-16 and
//! UTF-32 (with or without a byte order mark) directly, and the other encodings the web
//! knows (windows-1252, ISO-8859-15, Shift_JIS, GBK, KOI8-R...) through `encoding_rs`.

use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{bad_usage, parser, string, value};

use crate::stream::{MEMORY_LIMIT, Stop, Writer, complain, files_or_stdin, open, read_all_limited};

/// An encoding `iconv` names.
#[derive(Clone, Copy)]
enum Charset {
    Utf8,
    Ascii,
    Latin1,
    /// UTF-16 or UTF-32 (`width` 2 or 4): with a BOM (`None`: little-endian on output, the
    /// BOM's or big-endian on input), or little/big-endian without one.
    Wide {
        width: usize,
        little: Option<bool>,
    },
    Web(&'static encoding_rs::Encoding),
}

/// The names `-l` lists (any label `encoding_rs` knows works too).
const NAMES: &[&str] = &[
    "UTF-8",
    "ASCII",
    "ISO-8859-1",
    "LATIN1",
    "UTF-16",
    "UTF-16LE",
    "UTF-16BE",
    "UTF-32",
    "UTF-32LE",
    "UTF-32BE",
    "WINDOWS-1252",
    "CP1252",
    "ISO-8859-2",
    "ISO-8859-15",
    "KOI8-R",
    "SHIFT_JIS",
    "EUC-JP",
    "EUC-KR",
    "GBK",
    "GB18030",
    "BIG5",
];

impl Charset {
    fn named(name: &str) -> Option<Charset> {
        let upper = name.to_ascii_uppercase();
        let bare = upper.split("//").next().unwrap_or_default();
        Some(match bare {
            "UTF-8" | "UTF8" => Charset::Utf8,
            "ASCII" | "US-ASCII" | "ANSI_X3.4-1968" | "646" => Charset::Ascii,
            "ISO-8859-1" | "ISO8859-1" | "ISO_8859-1" | "LATIN1" | "L1" => Charset::Latin1,
            "UTF-16" | "UTF16" => Charset::Wide {
                width: 2,
                little: None,
            },
            "UTF-16LE" | "UTF16LE" => Charset::Wide {
                width: 2,
                little: Some(true),
            },
            "UTF-16BE" | "UTF16BE" => Charset::Wide {
                width: 2,
                little: Some(false),
            },
            "UTF-32" | "UTF32" => Charset::Wide {
                width: 4,
                little: None,
            },
            "UTF-32LE" | "UTF32LE" => Charset::Wide {
                width: 4,
                little: Some(true),
            },
            "UTF-32BE" | "UTF32BE" => Charset::Wide {
                width: 4,
                little: Some(false),
            },
            other => Charset::Web(encoding_rs::Encoding::for_label(other.as_bytes())?),
        })
    }

    /// The characters of `data`, each with its byte offset; at an invalid sequence, stops
    /// there (`Err` with the offset) unless `skip`.
    fn decode(self, data: &[u8], skip: bool) -> (Vec<(usize, char)>, Option<usize>) {
        let mut out = Vec::new();
        match self {
            Charset::Utf8 | Charset::Ascii => {
                let mut at = 0;
                while at < data.len() {
                    let rest = &data[at..];
                    let valid = match std::str::from_utf8(rest) {
                        Ok(s) => s,
                        Err(e) => std::str::from_utf8(&rest[..e.valid_up_to()]).unwrap_or_default(),
                    };
                    for (i, c) in valid.char_indices() {
                        if matches!(self, Charset::Ascii) && !c.is_ascii() {
                            if !skip {
                                return (out, Some(at + i));
                            }
                            continue;
                        }
                        out.push((at + i, c));
                    }
                    at += valid.len();
                    if at < data.len() {
                        if !skip {
                            return (out, Some(at));
                        }
                        at += 1;
                    }
                }
                (out, None)
            }
            Charset::Latin1 => (
                data.iter()
                    .enumerate()
                    .map(|(i, &b)| (i, b as char))
                    .collect(),
                None,
            ),
            Charset::Wide { width, little } => {
                let (little, start) = match (little, data) {
                    (Some(l), _) => (l, 0),
                    (None, [0xff, 0xfe, 0, 0, ..]) if width == 4 => (true, 4),
                    (None, [0, 0, 0xfe, 0xff, ..]) if width == 4 => (false, 4),
                    (None, [0xff, 0xfe, ..]) if width == 2 => (true, 2),
                    (None, [0xfe, 0xff, ..]) if width == 2 => (false, 2),
                    (None, _) => (false, 0),
                };
                let units: Vec<(usize, u32)> = data[start..]
                    .chunks(width)
                    .enumerate()
                    .map(|(i, c)| {
                        let mut v = 0u32;
                        for k in 0..c.len() {
                            let b = if little { c[c.len() - 1 - k] } else { c[k] };
                            v = (v << 8) | u32::from(b);
                        }
                        (
                            start + i * width,
                            if c.len() < width { u32::MAX } else { v },
                        )
                    })
                    .collect();
                let mut i = 0;
                while i < units.len() {
                    let (at, u) = units[i];
                    let (c, used) = if width == 2 && (0xd800..0xdc00).contains(&u) {
                        match units.get(i + 1) {
                            Some(&(_, lo)) if (0xdc00..0xe000).contains(&lo) => (
                                char::from_u32(0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00)),
                                2,
                            ),
                            _ => (None, 1),
                        }
                    } else {
                        (char::from_u32(u), 1)
                    };
                    match c {
                        Some(c) => out.push((at, c)),
                        None if skip => {}
                        None => return (out, Some(at)),
                    }
                    i += used;
                }
                (out, None)
            }
            Charset::Web(enc) => {
                let (text, had_errors) = enc.decode_without_bom_handling(data);
                // encoding_rs replaces bad input; report where the first one was.
                let mut at = 0;
                for c in text.chars() {
                    if c == '\u{fffd}' && had_errors && !skip {
                        return (out, Some(at));
                    }
                    if c != '\u{fffd}' || !had_errors {
                        out.push((at, c));
                    }
                    let mut buf = [0; 4];
                    at += enc.encode(c.encode_utf8(&mut buf)).0.len().max(1);
                }
                (out, None)
            }
        }
    }

    /// `c` in this encoding, or `None` where it has no such character.
    fn encode(self, c: char, out: &mut Vec<u8>) -> bool {
        match self {
            Charset::Utf8 => {
                let mut buf = [0; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
            Charset::Ascii if c.is_ascii() => out.push(c as u8),
            Charset::Latin1 if (c as u32) < 256 => out.push(c as u32 as u8),
            Charset::Wide { width, little } => {
                let little = little.unwrap_or(true);
                let mut units = Vec::new();
                if width == 2 {
                    let mut buf = [0u16; 2];
                    units.extend(c.encode_utf16(&mut buf).iter().map(|&u| u32::from(u)));
                } else {
                    units.push(c as u32);
                }
                for u in units {
                    let bytes = u.to_be_bytes();
                    let mut unit = bytes[4 - width..].to_vec();
                    if little {
                        unit.reverse();
                    }
                    out.extend(unit);
                }
            }
            Charset::Web(enc) => {
                let mut buf = [0; 4];
                let (bytes, _, bad) = enc.encode(c.encode_utf8(&mut buf));
                if bad {
                    return false;
                }
                out.extend_from_slice(&bytes);
            }
            _ => return false,
        }
        true
    }

    /// What comes before the text (`UTF-16`'s and `UTF-32`'s BOM).
    fn preamble(self) -> Vec<u8> {
        match self {
            Charset::Wide {
                width: 2,
                little: None,
            } => vec![0xff, 0xfe],
            Charset::Wide {
                width: 4,
                little: None,
            } => vec![0xff, 0xfe, 0, 0],
            _ => Vec::new(),
        }
    }
}

/// `c` as ASCII for `//TRANSLIT`: accents dropped, a few signs spelled out, `?` otherwise.
fn transliterate(c: char) -> String {
    let plain = match c {
        'à'..='å' => "a",
        'À'..='Å' => "A",
        'è'..='ë' => "e",
        'È'..='Ë' => "E",
        'ì'..='ï' => "i",
        'Ì'..='Ï' => "I",
        'ò'..='ö' | 'ø' => "o",
        'Ò'..='Ö' | 'Ø' => "O",
        'ù'..='ü' => "u",
        'Ù'..='Ü' => "U",
        'ý' | 'ÿ' => "y",
        'Ý' => "Y",
        'ñ' => "n",
        'Ñ' => "N",
        'ç' => "c",
        'Ç' => "C",
        'ß' => "ss",
        'æ' => "ae",
        'Æ' => "AE",
        'œ' => "oe",
        'Œ' => "OE",
        '‘' | '’' | '‚' => "'",
        '“' | '”' | '„' => "\"",
        '–' | '—' => "-",
        '…' => "...",
        '€' => "EUR",
        '£' => "GBP",
        '©' => "(C)",
        '®' => "(R)",
        '™' => "(TM)",
        '\u{a0}' => " ",
        _ => "?",
    };
    plain.to_string()
}

/// `iconv [-c] [-l] -f FROM -t TO[//TRANSLIT|//IGNORE] [FILE]...`.
pub async fn iconv(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let (mut from, mut to) = ("UTF-8".to_string(), "UTF-8".to_string());
    let (mut skip, mut list) = (false, false);
    let mut files = Vec::new();
    let mut p = parser(argv);
    let parsed: Result<(), lexopt::Error> = (|| {
        while let Some(arg) = p.next()? {
            match arg {
                Short('f') | Long("from-code") => from = value(&mut p)?,
                Short('t') | Long("to-code") => to = value(&mut p)?,
                Short('c') => skip = true,
                Short('l') | Long("list") => list = true,
                Short('s') | Long("silent") => {}
                Value(v) => files.push(string(v)),
                _ => return Err(arg.unexpected()),
            }
        }
        Ok(())
    })();
    if let Err(e) = parsed {
        return bad_usage(sh, "iconv", e, 1).await;
    }
    if list {
        let text: String = NAMES.iter().map(|n| format!("{n}//\n")).collect();
        return crate::stream::out(sh, &text).await;
    }
    let upper = to.to_ascii_uppercase();
    let translit = upper.contains("//TRANSLIT");
    let ignore_suffix = upper.contains("//IGNORE") && !skip;
    skip |= ignore_suffix;
    let (Some(source), Some(target)) = (Charset::named(&from), Charset::named(&to)) else {
        let bad = if Charset::named(&from).is_none() {
            &from
        } else {
            &to
        };
        let msg = if Charset::named(&from).is_none() && Charset::named(&to).is_none() {
            format!("iconv: conversions from `{from}' and to `{to}' are not supported")
        } else if Charset::named(&from).is_none() {
            format!("iconv: conversion from `{bad}' is not supported")
        } else {
            format!("iconv: conversion to `{bad}' is not supported")
        };
        return complain(
            sh,
            &format!("{msg}\nTry `iconv --help' or `iconv --usage' for more information."),
        )
        .await;
    };
    let mut out = Writer::new(&sh.io().stdout);
    let mut status = 0;
    let mut bytes = target.preamble();
    for f in files_or_stdin(files) {
        let data = match open(sh, &f) {
            Ok(input) => read_all_limited(&input, MEMORY_LIMIT, "iconv").await,
            Err(m) => Err(format!(
                "iconv: cannot open input file `{f}': {}",
                m.rsplit(": ").next().unwrap_or(&m)
            )),
        };
        let data = match data {
            Ok(d) => d,
            Err(m) => {
                status = complain(sh, &m).await;
                continue;
            }
        };
        let (chars, bad_input) = source.decode(&data, skip);
        let mut failed_at = bad_input;
        let mut dropped = false;
        for (at, c) in chars {
            if target.encode(c, &mut bytes) {
                continue;
            }
            if translit {
                for t in transliterate(c).chars() {
                    target.encode(t, &mut bytes);
                }
            } else if !skip {
                failed_at = Some(at);
                break;
            } else {
                dropped = true;
            }
        }
        // glibc's `//IGNORE` (not `-c`) still fails once it has dropped something, and says
        // so at the input's end.
        if dropped && ignore_suffix && failed_at.is_none() {
            failed_at = Some(data.len());
        }
        if let Err(Stop(s)) = out.write(&std::mem::take(&mut bytes)).await {
            return s;
        }
        if let Some(at) = failed_at {
            out.flush().await.ok();
            return complain(
                sh,
                &format!("iconv: illegal input sequence at position {at}"),
            )
            .await;
        }
    }
    match out.flush().await {
        Ok(()) => status,
        Err(Stop(s)) => s,
    }
}

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::Native;

    #[test]
    fn latin1_utf16_and_back() {
        let mut ctx = Native::new();
        ctx.write("u", "café\n");
        let ran = ctx.run(&["iconv", "-f", "UTF-8", "-t", "ASCII//TRANSLIT", "u"], "");
        assert_eq!(ran.stdout, "cafe\n");
        let ran = ctx.run(&["iconv", "-f", "UTF-8", "-t", "ASCII", "u"], "");
        assert_eq!((ran.status, ran.stdout.as_str()), (1, "caf"));
        assert!(ran.stderr.contains("position 3"), "{}", ran.stderr);
    }
}
