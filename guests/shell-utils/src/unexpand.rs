//! `unexpand`: convert spaces to tabs.

use super::stream::{Lines, Stop, Writer, complain, files_or_stdin, open};
use crate::layout::*;
use shell_base::Context;
use shell_base::args::bad_usage;

/// `unexpand [-a] [-t N|LIST] [FILE...]`: leading (with `-a`, all) runs of blanks that
/// reach a tab stop become tabs.
pub async fn unexpand(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let TabOptions {
        stops,
        flag,
        tabs_given,
        files,
    } = match tab_options(argv) {
        Ok(o) => o,
        Err(e) => return bad_usage(sh, "unexpand", e, 1).await,
    };
    // `-t` implies `-a`.
    let all = flag || tabs_given;
    let mut w = Writer::new(&sh.io().stdout);
    for f in files_or_stdin(files) {
        let input = match open(sh, &f) {
            Ok(i) => i,
            Err(m) => return complain(sh, &format!("unexpand: {m}")).await,
        };
        let mut lines = Lines::new(input);
        while let Ok(Some(line)) = lines.next().await {
            let text = String::from_utf8_lossy(&line);
            let out = unexpand_line(&text, &stops, all);
            if let Err(Stop(s)) = w.write_str(&out).await {
                return s;
            }
        }
    }
    match w.flush().await {
        Ok(()) => 0,
        Err(Stop(s)) => s,
    }
}

fn unexpand_line(text: &str, stops: &[usize], all: bool) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut col = 0;
    // Blanks seen since the last tab stop or text.
    let mut pending = String::new();
    let mut leading = true;
    for (k, &c) in chars.iter().enumerate() {
        if (c == ' ' || c == '\t') && (leading || all) {
            if c == '\t' {
                col = next_stop(stops, col);
                pending.clear();
                out.push('\t');
                continue;
            }
            pending.push(' ');
            col += 1;
            if col == next_stop(stops, col - 1) {
                // A lone blank at a stop stays a blank unless more blanks follow it.
                let more = matches!(chars.get(k + 1), Some(' ' | '\t'));
                if pending.len() > 1 || more {
                    out.push('\t');
                } else {
                    out.push(' ');
                }
                pending.clear();
            }
            continue;
        }
        out.push_str(&pending);
        pending.clear();
        if c != '\n' {
            leading = false;
            col += 1;
        }
        out.push(c);
    }
    out.push_str(&pending);
    out
}

#[cfg(all(test, unix))]
mod tests {

    use crate::testing::stdout_of;

    #[test]
    fn leading_spaces_to_tabs() {
        assert_eq!(
            stdout_of(&["unexpand", "-t", "4"], "        x\n"),
            "\t\tx\n"
        );
    }
}
