//! `file`: what a file holds, as file 5.44 words it for the kinds agents meet: text and its
//! encoding and line ends, scripts by their `#!` line, JSON, XML, HTML, diffs, archives and
//! compressed data, images, PDF, ELF, WebAssembly and SQLite. Not libmagic's thousands of
//! rules: anything else binary is `data`.

use shell_base::args::{bad_usage, parser};
use std::io::Read;
use std::path::Path;

use super::stream::{Stop, Writer};
use shell_base::Context;
use shell_base::errno::io_message;

/// How much of a file is looked at (libmagic's default is 1 MiB too).
const PEEK: u64 = 1 << 20;

#[derive(Clone, Copy, PartialEq)]
enum Show {
    Description,
    Mime,
    MimeType,
    MimeEncoding,
}

/// What a file is: the description and MIME type (with its charset).
struct Kind {
    text: String,
    mime: &'static str,
    charset: &'static str,
}

impl Kind {
    fn binary(text: impl Into<String>, mime: &'static str) -> Kind {
        Kind {
            text: text.into(),
            mime,
            charset: "binary",
        }
    }
}

/// `file [-bLhNi] [--mime-type] [--mime-encoding] FILE...`.
pub async fn file(sh: &mut dyn Context, argv: &[String]) -> i32 {
    use lexopt::prelude::*;
    let (mut brief, mut follow, mut no_pad) = (false, false, false);
    let mut show = Show::Description;
    let mut names = Vec::new();
    let mut p = parser(argv);
    loop {
        let arg = match p.next() {
            Ok(Some(a)) => a,
            Ok(None) => break,
            Err(e) => return bad_usage(sh, "file", e, 1).await,
        };
        match arg {
            Short('b') | Long("brief") => brief = true,
            Short('L') | Long("dereference") => follow = true,
            Short('h') | Long("no-dereference") => follow = false,
            Short('N') | Long("no-pad") => no_pad = true,
            Short('i') | Long("mime") => show = Show::Mime,
            Long("mime-type") => show = Show::MimeType,
            Long("mime-encoding") => show = Show::MimeEncoding,
            Short('z') | Short('k') | Short('s') | Short('E') => {}
            Value(v) => names.push(v.to_string_lossy().into_owned()),
            other => return bad_usage(sh, "file", other.unexpected(), 1).await,
        }
    }
    if names.is_empty() {
        let msg = "Usage: file [-bcCdEhikLlNnprsSvzZ0] [--apple] [--extension] [--mime-encoding]\n            [--mime-type] [-e <testname>] [-F <separator>]  [-f <namefile>]\n            [-m <magicfiles>] [-P <parameter=value>] [--exclude-quiet]\n            <file> ...\n       file -C [-m <magicfiles>]\n       file [--help]";
        return super::stream::complain(sh, msg).await;
    }
    let width = names.iter().map(|n| shown(n).len() + 1).max().unwrap_or(0);
    let mut out = Writer::new(&sh.io().stdout);
    for name in &names {
        let kind = if name == "-" {
            // The first MiB of standard input is enough.
            let mut data = Vec::new();
            while data.len() < PEEK as usize {
                match sh.io().stdin.read().await {
                    Ok(chunk) if !chunk.is_empty() => data.extend(chunk),
                    _ => break,
                }
            }
            Ok(if data.is_empty() {
                Kind::binary("empty", "inode/x-empty")
            } else {
                classify(&data, false)
            })
        } else {
            describe(&sh.path(name), name, follow)
        };
        let what = match kind {
            Ok(k) => match show {
                Show::Description => k.text,
                Show::Mime => format!("{}; charset={}", k.mime, k.charset),
                Show::MimeType => k.mime.to_string(),
                Show::MimeEncoding => k.charset.to_string(),
            },
            Err(e) => e,
        };
        let line = if brief {
            format!("{what}\n")
        } else if no_pad {
            format!("{}: {what}\n", shown(name))
        } else {
            format!("{:<width$} {what}\n", format!("{}:", shown(name)))
        };
        if let Err(Stop(s)) = out.write_str(&line).await {
            return s;
        }
    }
    match out.flush().await {
        Ok(()) => 0,
        Err(Stop(s)) => s,
    }
}

fn shown(name: &str) -> &str {
    if name == "-" { "/dev/stdin" } else { name }
}

fn describe(path: &Path, name: &str, follow: bool) -> Result<Kind, String> {
    let meta = if follow {
        std::fs::metadata(path)
    } else {
        std::fs::symlink_metadata(path)
    };
    let meta = match meta {
        Ok(m) => m,
        Err(e) => return Err(format!("cannot open `{name}' ({})", io_message(&e))),
    };
    if meta.file_type().is_symlink() {
        let target = std::fs::read_link(path).unwrap_or_default();
        let target = target.to_string_lossy();
        let broken = std::fs::metadata(path).is_err();
        let text = if broken {
            format!("broken symbolic link to {target}")
        } else {
            format!("symbolic link to {target}")
        };
        return Ok(Kind::binary(text, "inode/symlink"));
    }
    if meta.is_dir() {
        return Ok(Kind::binary("directory", "inode/directory"));
    }
    let mut data = Vec::new();
    let read = std::fs::File::open(path).and_then(|f| f.take(PEEK).read_to_end(&mut data));
    if let Err(e) = read {
        return Err(format!("cannot open `{name}' ({})", io_message(&e)));
    }
    if data.is_empty() {
        return Ok(Kind::binary("empty", "inode/x-empty"));
    }
    Ok(classify(&data, meta.len() > PEEK))
}

fn le16(d: &[u8], at: usize) -> u32 {
    d.get(at..at + 2)
        .map_or(0, |b| u32::from(u16::from_le_bytes([b[0], b[1]])))
}

fn le32(d: &[u8], at: usize) -> u32 {
    d.get(at..at + 4)
        .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

fn be32(d: &[u8], at: usize) -> u32 {
    d.get(at..at + 4)
        .map_or(0, |b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
}

/// What `data` (the start of a file) is.
fn classify(d: &[u8], truncated: bool) -> Kind {
    if let Some(k) = binary_format(d, truncated) {
        return k;
    }
    text_kind(d, truncated).unwrap_or_else(|| Kind::binary("data", "application/octet-stream"))
}

fn binary_format(d: &[u8], truncated: bool) -> Option<Kind> {
    if d.starts_with(&[0x1f, 0x8b]) {
        return Some(Kind::binary(gzip(d, truncated), "application/gzip"));
    }
    if d.len() > 262 && &d[257..262] == b"ustar" {
        let text = if d.get(262..265) == Some(b"  \0") {
            "POSIX tar archive (GNU)"
        } else {
            "POSIX tar archive"
        };
        return Some(Kind::binary(text, "application/x-tar"));
    }
    if d.starts_with(b"PK\x03\x04") {
        let version = le16(d, 4);
        let method = match le16(d, 8) {
            0 => "store".to_string(),
            8 => "deflate".to_string(),
            n => n.to_string(),
        };
        let text = format!(
            "Zip archive data, at least v{}.{} to extract, compression method={method}",
            version / 10,
            version % 10
        );
        return Some(Kind::binary(text, "application/zip"));
    }
    if d.starts_with(b"BZh") && d.get(3).is_some_and(|c| (b'1'..=b'9').contains(c)) {
        let text = format!(
            "bzip2 compressed data, block size = {}00k",
            char::from(d[3])
        );
        return Some(Kind::binary(text, "application/x-bzip2"));
    }
    if d.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0]) {
        let check = match d.get(7).map(|f| f & 0x0f) {
            Some(0) => "none",
            Some(1) => "CRC32",
            Some(4) => "CRC64",
            Some(10) => "SHA-256",
            _ => "unknown",
        };
        let text = format!("XZ compressed data, checksum {check}");
        return Some(Kind::binary(text, "application/x-xz"));
    }
    if d.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        return Some(Kind::binary(
            "Zstandard compressed data (v0.8+), Dictionary ID: None",
            "application/zstd",
        ));
    }
    if let Some(rest) = d.strip_prefix(b"%PDF-") {
        let version: String = rest
            .iter()
            .take_while(|c| c.is_ascii_digit() || **c == b'.')
            .map(|&c| char::from(c))
            .collect();
        return Some(Kind::binary(
            format!("PDF document, version {version}"),
            "application/pdf",
        ));
    }
    if d.starts_with(b"\x89PNG\r\n\x1a\n") && d.len() >= 29 && &d[12..16] == b"IHDR" {
        let color = match d[25] {
            0 => "grayscale",
            2 => "RGB",
            3 => "colormap",
            4 => "gray+alpha",
            6 => "RGBA",
            _ => "unknown",
        };
        let laced = if d[28] == 1 {
            "interlaced"
        } else {
            "non-interlaced"
        };
        let text = format!(
            "PNG image data, {} x {}, {}-bit/color {color}, {laced}",
            be32(d, 16),
            be32(d, 20),
            d[24]
        );
        let text = if d[25] == 3 || d[25] == 0 {
            text.replace("-bit/color ", "-bit ")
        } else {
            text
        };
        return Some(Kind::binary(text, "image/png"));
    }
    if (d.starts_with(b"GIF87a") || d.starts_with(b"GIF89a")) && d.len() >= 10 {
        let text = format!(
            "GIF image data, version {}, {} x {}",
            String::from_utf8_lossy(&d[3..6]),
            le16(d, 6),
            le16(d, 8)
        );
        return Some(Kind::binary(text, "image/gif"));
    }
    if d.starts_with(&[0xff, 0xd8, 0xff]) {
        return Some(Kind::binary("JPEG image data", "image/jpeg"));
    }
    if d.starts_with(b"\x7fELF") && d.len() >= 20 {
        return Some(elf(d));
    }
    if d.starts_with(b"\0asm") && d.len() >= 8 {
        let version = le32(d, 4);
        let text = if version == 1 {
            "WebAssembly (wasm) binary module version 0x1 (MVP)".to_string()
        } else {
            format!("WebAssembly (wasm) binary module version {version:#x}")
        };
        return Some(Kind::binary(text, "application/wasm"));
    }
    if d.starts_with(b"SQLite format 3\0") {
        return Some(Kind::binary(
            "SQLite 3.x database",
            "application/vnd.sqlite3",
        ));
    }
    None
}

fn gzip(d: &[u8], truncated: bool) -> String {
    let mut text = "gzip compressed data".to_string();
    let flags = d.get(3).copied().unwrap_or(0);
    if flags & 0x08 != 0 {
        // The original name follows the header (after the extra field, if any).
        let mut at = 10;
        if flags & 0x04 != 0 {
            at += 2 + le16(d, 10) as usize;
        }
        if let Some(rest) = d.get(at..) {
            let name: Vec<u8> = rest.iter().take_while(|&&c| c != 0).copied().collect();
            text.push_str(&format!(", was \"{}\"", String::from_utf8_lossy(&name)));
        }
    }
    let mtime = le32(d, 4);
    if mtime != 0 {
        let when = super::date::format(i64::from(mtime), 0, "%a %b %e %H:%M:%S %Y");
        text.push_str(&format!(", last modified: {when}"));
    }
    match d.get(8) {
        Some(2) => text.push_str(", max compression"),
        Some(4) => text.push_str(", max speed"),
        _ => {}
    }
    if d.get(9) == Some(&3) {
        text.push_str(", from Unix");
    }
    if !truncated && d.len() >= 18 {
        let size = le32(d, d.len() - 4);
        text.push_str(&format!(", original size modulo 2^32 {size}"));
    }
    text
}

fn elf(d: &[u8]) -> Kind {
    let bits = if d[4] == 2 { "64-bit" } else { "32-bit" };
    let little = d[5] == 1;
    let endian = if little { "LSB" } else { "MSB" };
    let half = |at: usize| {
        let b = [d[at], d[at + 1]];
        u32::from(if little {
            u16::from_le_bytes(b)
        } else {
            u16::from_be_bytes(b)
        })
    };
    let (kind, mime) = match half(16) {
        1 => ("relocatable", "application/x-object"),
        2 => ("executable", "application/x-executable"),
        3 => ("shared object", "application/x-sharedlib"),
        4 => ("core file", "application/x-coredump"),
        _ => ("unknown type", "application/octet-stream"),
    };
    let machine = match half(18) {
        3 => "Intel 80386",
        40 => "ARM",
        62 => "x86-64",
        183 => "ARM aarch64",
        243 => "UCB RISC-V",
        _ => "unknown arch",
    };
    let abi = match d[7] {
        3 => "GNU/Linux",
        _ => "SYSV",
    };
    Kind::binary(
        format!("ELF {bits} {endian} {kind}, {machine}, version 1 ({abi})"),
        mime,
    )
}

/// Text, and what kind: `None` for binary data.
fn text_kind(d: &[u8], truncated: bool) -> Option<Kind> {
    let (encoding, charset) = encoding(d)?;
    let lossy = String::from_utf8_lossy(d);
    let first = lossy.lines().next().unwrap_or_default();
    let mut executable = false;
    let (what, mime): (Option<String>, &'static str) = if let Some(line) = first.strip_prefix("#!")
    {
        executable = true;
        let mut words = line.split_whitespace();
        let mut interp = words
            .next()
            .unwrap_or_default()
            .rsplit('/')
            .next()
            .unwrap_or_default();
        if interp == "env" {
            interp = words.find(|w| !w.starts_with('-')).unwrap_or_default();
        }
        let base = interp.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
        match base {
            "bash" => (
                Some("Bourne-Again shell script".into()),
                "text/x-shellscript",
            ),
            "sh" | "dash" => (Some("POSIX shell script".into()), "text/x-shellscript"),
            "zsh" => (
                Some("Paul Falstad's zsh script".into()),
                "text/x-shellscript",
            ),
            "python" => (Some("Python script".into()), "text/x-script.python"),
            "perl" => (Some("Perl script text".into()), "text/x-perl"),
            "ruby" => (Some("Ruby script".into()), "text/x-ruby"),
            "node" => (Some("Node.js script".into()), "application/javascript"),
            "awk" | "gawk" => (Some("awk or perl script".into()), "text/x-awk"),
            _ => (Some(format!("a {} script", line.trim())), "text/plain"),
        }
    } else if is_json(d) {
        return Some(Kind {
            text: "JSON text data".into(),
            mime: "application/json",
            charset,
        });
    } else if first.starts_with("<?xml") {
        let version = first
            .split("version=\"")
            .nth(1)
            .and_then(|v| v.split('"').next())
            .unwrap_or("1.0");
        (Some(format!("XML {version} document")), "text/xml")
    } else if looks_like_html(&lossy) {
        (Some("HTML document".into()), "text/html")
    } else if lossy.lines().any(|l| l.starts_with("#include")) {
        (Some("C source".into()), "text/x-c")
    } else if is_unified_diff(&lossy) {
        (Some("unified diff output".into()), "text/x-diff")
    } else {
        (None, "text/plain")
    };
    let mut text = match what {
        Some(w) => format!("{w}, {encoding} text"),
        None => format!("{encoding} text"),
    };
    if executable {
        text.push_str(" executable");
    }
    text.push_str(&line_notes(d, truncated));
    Some(Kind {
        text,
        mime,
        charset,
    })
}

/// The text's encoding as file names it, and the MIME charset; `None` for binary data.
fn encoding(d: &[u8]) -> Option<(&'static str, &'static str)> {
    // Bytes that text holds: printable ASCII, tab, newline, CR, form feed, backspace, escape.
    let text_byte = |b: u8| {
        matches!(
            b,
            0x20..=0x7e | b'\t' | b'\n' | b'\r' | 0x0c | 0x08 | 0x1b | 0x07
        )
    };
    if d.iter().all(|&b| text_byte(b)) {
        return Some(("ASCII", "us-ascii"));
    }
    let body = d.strip_prefix(b"\xef\xbb\xbf");
    let utf8 = body.unwrap_or(d);
    let valid = match std::str::from_utf8(utf8) {
        Ok(_) => true,
        // A character cut by the 1 MiB window still counts.
        Err(e) => e.error_len().is_none(),
    };
    if valid && utf8.iter().all(|&b| b >= 0x80 || text_byte(b)) {
        return Some(if body.is_some() {
            ("Unicode text, UTF-8 (with BOM)", "utf-8")
        } else {
            ("Unicode text, UTF-8", "utf-8")
        });
    }
    if d.iter().all(|&b| text_byte(b) || b >= 0xa0) {
        return Some(("ISO-8859", "iso-8859-1"));
    }
    None
}

fn looks_like_html(text: &str) -> bool {
    let head: String = text.trim_start().chars().take(15).collect();
    let head = head.to_ascii_lowercase();
    head.starts_with("<!doctype html") || head.starts_with("<html")
}

fn is_json(d: &[u8]) -> bool {
    let t = d.trim_ascii_start();
    matches!(t.first(), Some(b'{' | b'['))
        && jaq_json::read::parse_single(t.trim_ascii_end()).is_ok()
}

fn is_unified_diff(text: &str) -> bool {
    let mut lines = text.lines();
    let mut minus = false;
    for line in lines.by_ref().take(200) {
        if line.starts_with("--- ") {
            minus = true;
        } else if minus && line.starts_with("+++ ") {
            return true;
        } else {
            minus = false;
        }
    }
    false
}

/// `, with CRLF line terminators`, `, with no line terminators`, `, with very long lines
/// (N)`, `, with escape sequences`, as file appends them.
fn line_notes(d: &[u8], truncated: bool) -> String {
    let mut notes = Vec::new();
    let longest = d
        .split(|&b| b == b'\n')
        .map(|l| std::str::from_utf8(l).map_or(l.len(), |s| s.chars().count()))
        .max()
        .unwrap_or(0);
    if longest > 300 {
        notes.push(format!("with very long lines ({longest})"));
    }
    let crlf = d.windows(2).any(|w| w == b"\r\n");
    let lone_cr = d
        .iter()
        .enumerate()
        .any(|(i, &b)| b == b'\r' && d.get(i + 1) != Some(&b'\n'));
    let lf = d
        .iter()
        .enumerate()
        .any(|(i, &b)| b == b'\n' && (i == 0 || d[i - 1] != b'\r'));
    match (crlf, lone_cr, lf) {
        (true, false, false) => notes.push("with CRLF line terminators".into()),
        (false, true, false) => notes.push("with CR line terminators".into()),
        (true, _, true) => notes.push("with CRLF, LF line terminators".into()),
        (false, false, false) if !truncated => notes.push("with no line terminators".into()),
        _ => {}
    }
    if d.contains(&0x1b) {
        notes.push("with escape sequences".into());
    }
    if d.contains(&0x08) {
        notes.push("with overstriking".into());
    }
    notes.iter().map(|n| format!(", {n}")).collect()
}

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::Native;

    #[test]
    fn recognises_contents() {
        let mut ctx = Native::new();
        ctx.write("s", "#!/bin/sh\necho\n").write("t", "plain\n");
        let ran = ctx.run(&["file", "s", "t"], "");
        assert_eq!(
            ran.stdout,
            "s: POSIX shell script, ASCII text executable\nt: ASCII text\n"
        );
    }
}
