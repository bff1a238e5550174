//! `paste`: merge lines of files.

use super::stream::{Lines, complain, files_or_stdin, open};
use crate::stream::out;
use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{bad_usage, parser, string, value};

/// `paste [-d LIST] [-s] FILE...`.
pub async fn paste(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let mut delims: Vec<char> = vec!['\t'];
    let mut serial = false;
    let mut files = Vec::new();
    let mut p = parser(argv);
    let parsed: Result<(), lexopt::Error> = (|| {
        while let Some(arg) = p.next()? {
            match arg {
                Short('s') | Long("serial") => serial = true,
                Short('d') | Long("delimiters") => {
                    delims = value(&mut p)?
                        .replace("\\t", "\t")
                        .replace("\\n", "\n")
                        .replace("\\0", "")
                        .chars()
                        .collect();
                    if delims.is_empty() {
                        delims = vec!['\0'];
                    }
                }
                Value(v) => files.push(string(v)),
                _ => return Err(arg.unexpected()),
            }
        }
        Ok(())
    })();
    if let Err(e) = parsed {
        return bad_usage(sh, "paste", e, 1).await;
    }
    let files = files_or_stdin(files);
    let mut contents: Vec<Vec<String>> = Vec::new();
    for f in &files {
        let input = match open(sh, f) {
            Ok(i) => i,
            Err(m) => return complain(sh, &format!("paste: {m}")).await,
        };
        let mut lines = Lines::new(input);
        let mut v = Vec::new();
        while let Ok(Some(l)) = lines.next().await {
            v.push(String::from_utf8_lossy(l.strip_suffix(b"\n").unwrap_or(&l)).into_owned());
        }
        contents.push(v);
    }
    // `paste - -`: the one standard input is dealt out line by line to each `-`.
    let dashes: Vec<usize> = (0..files.len()).filter(|k| files[*k] == "-").collect();
    if dashes.len() > 1 {
        let all: Vec<String> = dashes
            .iter()
            .flat_map(|k| std::mem::take(&mut contents[*k]))
            .collect();
        for (j, line) in all.into_iter().enumerate() {
            contents[dashes[j % dashes.len()]].push(line);
        }
    }
    let join = |items: &[String]| -> String {
        let mut s = String::new();
        for (k, it) in items.iter().enumerate() {
            if k > 0 {
                let d = delims[(k - 1) % delims.len()];
                if d != '\0' {
                    s.push(d);
                }
            }
            s.push_str(it);
        }
        s
    };
    let mut text = String::new();
    if serial {
        for c in &contents {
            text.push_str(&join(c));
            text.push('\n');
        }
    } else {
        let rows = contents.iter().map(Vec::len).max().unwrap_or(0);
        for r in 0..rows {
            let row: Vec<String> = contents
                .iter()
                .map(|c| c.get(r).cloned().unwrap_or_default())
                .collect();
            text.push_str(&join(&row));
            text.push('\n');
        }
    }
    out(sh, &text).await
}

#[cfg(all(test, unix))]
mod tests {

    use crate::testing::stdout_of;

    #[test]
    fn joins_lines_serially() {
        assert_eq!(
            stdout_of(&["paste", "-s", "-d", ","], "a\nb\nc\n"),
            "a,b,c\n"
        );
    }
}
