//! `expand`: convert tabs to spaces.

use super::stream::{Lines, Stop, Writer, complain, files_or_stdin, open};
use crate::layout::*;
use shell_base::Context;
use shell_base::args::bad_usage;

/// `expand [-t N|LIST] [-i] [FILE...]`: tabs to spaces.
pub async fn expand(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let TabOptions {
        stops,
        flag: initial,
        files,
        ..
    } = match tab_options(argv) {
        Ok(o) => o,
        Err(e) => return bad_usage(sh, "expand", e, 1).await,
    };
    let mut w = Writer::new(&sh.io().stdout);
    for f in files_or_stdin(files) {
        let input = match open(sh, &f) {
            Ok(i) => i,
            Err(m) => return complain(sh, &format!("expand: {m}")).await,
        };
        let mut lines = Lines::new(input);
        while let Ok(Some(line)) = lines.next().await {
            let text = String::from_utf8_lossy(&line);
            let mut out = String::with_capacity(text.len());
            let mut col = 0;
            let mut leading = true;
            for c in text.chars() {
                match c {
                    '\t' if !initial || leading => {
                        let stop = next_stop(&stops, col);
                        out.push_str(&" ".repeat(stop - col));
                        col = stop;
                    }
                    '\n' => out.push(c),
                    c => {
                        if c != ' ' && c != '\t' {
                            leading = false;
                        }
                        out.push(c);
                        col += 1;
                    }
                }
            }
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

#[cfg(all(test, unix))]
mod tests {

    use crate::testing::stdout_of;

    #[test]
    fn tabs_to_spaces() {
        assert_eq!(stdout_of(&["expand", "-t", "4"], "a\tb\n"), "a   b\n");
    }
}
