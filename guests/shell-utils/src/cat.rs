//! `cat`: concatenate files to standard output.

use super::stream::{Lines, Stop, Writer, complain, files_or_stdin, open};
use crate::text::*;
use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{bad_usage, parser, string};

/// `cat [-nbsAETv] [FILE...]`.
pub async fn cat(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let (mut number, mut nonblank, mut squeeze, mut ends, mut tabs, mut nonprint) =
        (false, false, false, false, false, false);
    let mut files = Vec::new();
    let mut p = parser(argv);
    loop {
        match p.next() {
            Ok(Some(Short('n') | Long("number"))) => number = true,
            Ok(Some(Short('b') | Long("number-nonblank"))) => nonblank = true,
            Ok(Some(Short('s') | Long("squeeze-blank"))) => squeeze = true,
            Ok(Some(Short('E') | Long("show-ends"))) => ends = true,
            Ok(Some(Short('T') | Long("show-tabs"))) => tabs = true,
            Ok(Some(Short('v') | Long("show-nonprinting"))) => nonprint = true,
            Ok(Some(Short('A') | Long("show-all"))) => (nonprint, ends, tabs) = (true, true, true),
            Ok(Some(Short('e'))) => (nonprint, ends) = (true, true),
            Ok(Some(Short('t'))) => (nonprint, tabs) = (true, true),
            Ok(Some(Short('u'))) => {}
            Ok(Some(Value(v))) => files.push(string(v)),
            Ok(Some(other)) => return bad_usage(sh, "cat", other.unexpected(), 1).await,
            Ok(None) => break,
            Err(e) => return bad_usage(sh, "cat", e, 1).await,
        }
    }
    let plain = !(number || nonblank || squeeze || ends || tabs || nonprint);
    let mut out = Writer::new(&sh.io().stdout);
    let mut status = 0;
    let mut line_no = 0u64;
    let mut blank_run = false;
    for f in files_or_stdin(files) {
        let input = match open(sh, &f) {
            Ok(i) => i,
            Err(m) => {
                status = complain(sh, &format!("cat: {m}")).await;
                continue;
            }
        };
        if plain {
            loop {
                match input.read().await {
                    Ok(chunk) if chunk.is_empty() => break,
                    Ok(chunk) => {
                        if let Err(Stop(s)) = out.write(&chunk).await {
                            return s;
                        }
                    }
                    Err(e) => {
                        status = complain(
                            sh,
                            &format!("cat: {f}: {}", shell_base::errno::io_message(&e)),
                        )
                        .await;
                        break;
                    }
                }
            }
            continue;
        }
        let mut lines = Lines::new(input);
        while let Ok(Some(line)) = lines.next().await {
            let blank = line == b"\n";
            if squeeze && blank && blank_run {
                continue;
            }
            blank_run = blank;
            let mut text = Vec::new();
            if (number && !nonblank) || (nonblank && !blank) {
                line_no += 1;
                text.extend(format!("{line_no:6}\t").bytes());
            }
            let (body, nl) = match line.strip_suffix(b"\n") {
                Some(b) => (b, true),
                None => (&line[..], false),
            };
            for &b in body {
                match b {
                    b'\t' if tabs => text.extend(b"^I"),
                    b'\t' | b' '..=b'~' => text.push(b),
                    _ if nonprint => text.extend(caret(b)),
                    _ => text.push(b),
                }
            }
            if nl {
                if ends {
                    text.push(b'$');
                }
                text.push(b'\n');
            }
            if let Err(Stop(s)) = out.write(&text).await {
                return s;
            }
        }
    }
    done(out.flush().await, status)
}

/// `cat -v`'s notation for a byte: `^X`, `M-x`, `^?`.
fn caret(b: u8) -> Vec<u8> {
    let mut v = Vec::new();
    let mut c = b;
    if c >= 0x80 {
        v.extend(b"M-");
        c -= 0x80;
    }
    match c {
        0..=31 => v.extend([b'^', c + 64]),
        127 => v.extend(b"^?"),
        c => v.push(c),
    }
    v
}

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::Native;

    #[test]
    fn numbers_lines_and_joins_files() {
        let mut ctx = Native::new();
        ctx.write("a", "one\ntwo\n").write("b", "three\n");
        let ran = ctx.run(&["cat", "-n", "a", "-", "b"], "in\n");
        assert_eq!(
            ran.stdout,
            "     1\tone\n     2\ttwo\n     3\tin\n     4\tthree\n"
        );
        let ran = ctx.run(&["cat", "missing"], "");
        assert_eq!(
            (ran.status, ran.stderr.as_str()),
            (1, "cat: missing: No such file or directory\n")
        );
    }
}
