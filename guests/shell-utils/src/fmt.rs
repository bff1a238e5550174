//! `fmt`: reformat paragraphs.

use crate::layout::*;
use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{bad_usage, dashed_number, number, parser, string, value};

/// `fmt [-w WIDTH] [-s] [FILE...]`: paragraphs refilled to the width (greedily).
pub async fn fmt(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let mut width = 75usize;
    let mut split_only = false;
    let mut files = Vec::new();
    let mut p = parser(argv);
    let widths = |v: &str| number::<usize>(v, "width");
    let parsed: Result<(), lexopt::Error> = (|| {
        loop {
            // `fmt -72`: the historical form of `-w 72`.
            if let Some(n) = dashed_number(&mut p) {
                width = widths(&n)?;
                continue;
            }
            let Some(arg) = p.next()? else { break };
            match arg {
                Short('w') | Long("width") => width = widths(&value(&mut p)?)?,
                Short('s') | Long("split-only") => split_only = true,
                Value(v) => files.push(string(v)),
                _ => return Err(arg.unexpected()),
            }
        }
        Ok(())
    })();
    if let Err(e) = parsed {
        return bad_usage(sh, "fmt", e, 1).await;
    }
    let lines = match read_lines(sh, "fmt", files).await {
        Ok(l) => l,
        Err(s) => return s,
    };
    let mut text = String::new();
    let mut paragraph: Vec<String> = Vec::new();
    let mut indent = String::new();
    let flush = |paragraph: &mut Vec<String>, indent: &str, text: &mut String| {
        let words: Vec<&str> = paragraph
            .iter()
            .flat_map(|l| l.split_whitespace())
            .collect();
        let mut line = String::new();
        for word in words {
            if !line.is_empty()
                && indent.len() + line.chars().count() + 1 + word.chars().count() > width
            {
                text.push_str(indent);
                text.push_str(&line);
                text.push('\n');
                line.clear();
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
        if !line.is_empty() {
            text.push_str(indent);
            text.push_str(&line);
            text.push('\n');
        }
        paragraph.clear();
    };
    for line in lines {
        if line.trim().is_empty() {
            flush(&mut paragraph, &indent, &mut text);
            text.push('\n');
            continue;
        }
        let this_indent: String = line.chars().take_while(|c| c.is_whitespace()).collect();
        if split_only || (!paragraph.is_empty() && this_indent != indent) {
            flush(&mut paragraph, &indent, &mut text);
        }
        if paragraph.is_empty() {
            indent = this_indent;
        }
        paragraph.push(line);
        if split_only {
            flush(&mut paragraph, &indent, &mut text);
        }
    }
    flush(&mut paragraph, &indent, &mut text);
    write_all(sh, &text).await
}

#[cfg(all(test, unix))]
mod tests {

    use crate::testing::stdout_of;

    #[test]
    fn fills_paragraphs() {
        assert_eq!(
            stdout_of(&["fmt", "-w", "10"], "a b c d e f g h\n"),
            "a b c d e\nf g h\n"
        );
    }
}
