//! `fold`: wrap lines to a width.

use super::stream::{Lines, Stop, Writer, complain, files_or_stdin, open};
use shell_base::Context;

/// `fold [-w N] [-s] [FILE...]`.
pub async fn fold(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let mut width = 80usize;
    let mut spaces = false;
    let mut files = Vec::new();
    let mut i = 1;
    while i < argv.len() {
        match argv[i].as_str() {
            "-s" | "--spaces" => spaces = true,
            "-w" => {
                i += 1;
                width = argv.get(i).and_then(|v| v.parse().ok()).unwrap_or(80);
            }
            s if s.starts_with("-w") => width = s[2..].parse().unwrap_or(80),
            s if s.starts_with('-')
                && s.len() > 1
                && s[1..].chars().all(|c| c.is_ascii_digit()) =>
            {
                width = s[1..].parse().unwrap_or(80)
            }
            s => files.push(s.to_string()),
        }
        i += 1;
    }
    let width = width.max(1);
    let files = files_or_stdin(files);
    let mut w = Writer::new(&sh.io().stdout);
    for f in files {
        let input = match open(sh, &f) {
            Ok(i) => i,
            Err(m) => return complain(sh, &format!("fold: {m}")).await,
        };
        let mut lines = Lines::new(input);
        while let Ok(Some(line)) = lines.next().await {
            let (body, nl) = match line.strip_suffix(b"\n") {
                Some(b) => (b.to_vec(), true),
                None => (line.clone(), false),
            };
            let mut rest: &[u8] = &body;
            let mut out = Vec::new();
            while rest.len() > width {
                let mut cut = width;
                if spaces && let Some(p) = rest[..width].iter().rposition(|b| *b == b' ') {
                    cut = p + 1;
                }
                out.extend_from_slice(&rest[..cut]);
                out.push(b'\n');
                rest = &rest[cut..];
            }
            out.extend_from_slice(rest);
            if nl {
                out.push(b'\n');
            }
            if let Err(Stop(s)) = w.write(&out).await {
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
    fn wraps_at_the_width() {
        assert_eq!(
            stdout_of(&["fold", "-w", "3"], "abcdefg\n"),
            "abc\ndef\ng\n"
        );
    }
}
