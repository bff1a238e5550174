//! `rev`: reverse the characters of lines.

use super::stream::{Lines, Stop, Writer, complain, files_or_stdin, open};
use crate::text::*;
use shell_base::Context;
use shell_base::args::{bad_usage, operands};

/// `rev [FILE...]`: reverses the characters of each line.
pub async fn rev(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let files = match operands(argv) {
        Ok(o) => o,
        Err(e) => return bad_usage(sh, "rev", e, 1).await,
    };
    let mut out = Writer::new(&sh.io().stdout);
    let mut status = 0;
    for f in files_or_stdin(files) {
        let input = match open(sh, &f) {
            Ok(i) => i,
            Err(m) => {
                status = complain(sh, &format!("rev: cannot open {m}")).await;
                continue;
            }
        };
        let mut lines = Lines::new(input);
        while let Ok(Some(line)) = lines.next().await {
            let (body, nl) = match line.strip_suffix(b"\n") {
                Some(b) => (b, "\n"),
                None => (&line[..], ""),
            };
            let text: String = String::from_utf8_lossy(body).chars().rev().collect();
            if let Err(Stop(s)) = out.write_str(&format!("{text}{nl}")).await {
                return s;
            }
        }
    }
    done(out.flush().await, status)
}

#[cfg(all(test, unix))]
mod tests {

    use crate::testing::stdout_of;

    #[test]
    fn reverses_each_line() {
        assert_eq!(stdout_of(&["rev"], "abc\nde\n"), "cba\ned\n");
    }
}
