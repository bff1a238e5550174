//! `fmt`: reformat paragraphs.

use super::stream::complain;
use crate::layout::*;
use shell_base::Context;

/// `fmt [-w WIDTH] [-s] [FILE...]`: paragraphs refilled to the width (greedily).
pub async fn fmt(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let mut width = 75usize;
    let mut split_only = false;
    let mut files = Vec::new();
    let mut i = 1;
    while i < argv.len() {
        let a = argv[i].as_str();
        match a {
            "-w" | "--width" => {
                i += 1;
                width = argv.get(i).and_then(|v| v.parse().ok()).unwrap_or(75);
            }
            "-s" | "--split-only" => split_only = true,
            s if s.starts_with("--width=") => width = s[8..].parse().unwrap_or(75),
            s if s.starts_with("-w") => width = s[2..].parse().unwrap_or(75),
            s if s.starts_with('-')
                && s.len() > 1
                && s[1..].chars().all(|c| c.is_ascii_digit()) =>
            {
                width = s[1..].parse().unwrap_or(75)
            }
            s if s.starts_with('-') && s.len() > 1 => {
                return complain(sh, &format!("fmt: invalid option -- '{}'", &s[1..])).await;
            }
            s => files.push(s.to_string()),
        }
        i += 1;
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
