//! `strings`: the printable runs of bytes in a file.

use super::stream::{Stop, Writer, complain, files_or_stdin};
use crate::dump::*;
use shell_base::Context;

/// `strings [-n MIN] [-t d|o|x] [-a] [FILE...]`: runs of printable characters.
pub async fn strings(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let (mut min, mut radix) = (4usize, None);
    let mut files = Vec::new();
    let mut i = 1;
    while i < argv.len() {
        let a = argv[i].as_str();
        match a {
            "-a" | "--all" => {}
            "-n" | "--bytes" | "-t" => {
                i += 1;
                let v = argv.get(i).cloned().unwrap_or_default();
                if a == "-t" {
                    radix = v.chars().next();
                } else {
                    match v.parse::<usize>() {
                        Ok(n) if n > 0 => min = n,
                        _ => {
                            return complain(
                                sh,
                                &format!("strings: invalid minimum string length {v}"),
                            )
                            .await;
                        }
                    }
                }
            }
            s if s.starts_with('-')
                && s.len() > 1
                && s[1..].chars().all(|c| c.is_ascii_digit()) =>
            {
                min = s[1..].parse().unwrap_or(4).max(1);
            }
            s if s.starts_with('-') && s.len() > 1 => {
                return complain(sh, &format!("strings: invalid option -- '{}'", &s[1..])).await;
            }
            s => files.push(s.to_string()),
        }
        i += 1;
    }
    let mut w = Writer::new(&sh.io().stdout);
    for f in files_or_stdin(files) {
        let data = match read_inputs(sh, "strings", vec![f], 0, None).await {
            Ok(d) => d,
            Err(s) => return s,
        };
        let mut start = 0;
        for (k, b) in data.iter().chain(std::iter::once(&0u8)).enumerate() {
            if (0x20..0x7f).contains(b) || *b == b'\t' {
                continue;
            }
            if k - start >= min {
                let text = String::from_utf8_lossy(&data[start..k]);
                let line = match radix {
                    Some('d') => format!("{start:7} {text}\n"),
                    Some('o') => format!("{start:7o} {text}\n"),
                    Some('x') => format!("{start:7x} {text}\n"),
                    _ => format!("{text}\n"),
                };
                if let Err(Stop(s)) = w.write(line.as_bytes()).await {
                    return s;
                }
            }
            start = k + 1;
        }
    }
    finish(&mut w, 0).await
}

#[cfg(all(test, unix))]
mod tests {

    use crate::testing::stdout_of;

    #[test]
    fn printable_runs() {
        assert_eq!(
            stdout_of(&["strings"], "\u{1}\u{2}hello\u{0}hi\u{0}world\n"),
            "hello\nworld\n"
        );
    }
}
