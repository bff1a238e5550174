//! `grep`, `egrep`, `fgrep`: GNU grep's options, output and exit statuses over the `regex`
//! crate. Basic (`-G`, the default) and extended (`-E`) expressions are translated to the
//! crate's syntax; `-P` is the crate's own. Backreferences, and `-P`'s look-around, are
//! matched by fancy-regex's backtracking (see `posix::Pattern`).

use shell_base::args::{bad_usage, parser};
use std::collections::VecDeque;

use lexopt::prelude::*;

use super::stream::{Lines, Stop, Writer, complain, open};
use shell_base::Context;
use shell_base::pattern::{MatchOptions, Pattern};
use shell_base::posix::{self, Flags, translate_with_backreferences};

#[derive(Clone, Copy, PartialEq)]
enum Syntax {
    Basic,
    Extended,
    Fixed,
    Perl,
}

#[derive(Default)]
struct Options {
    invert: bool,
    ignore_case: bool,
    words: bool,
    lines: bool,
    count: bool,
    files_with: bool,
    files_without: bool,
    only: bool,
    quiet: bool,
    no_messages: bool,
    number: bool,
    with_name: Option<bool>,
    recursive: bool,
    after: usize,
    before: usize,
    max_count: Option<u64>,
    include: Vec<String>,
    exclude: Vec<String>,
    exclude_dir: Vec<String>,
    null_data: bool,
    /// `-A`, `-B` or `-C` was given (even 0): groups are set off with `--`.
    context_given: bool,
    /// `-b`: each line's (or match's) byte offset.
    byte_offset: bool,
    /// `--label`: the name of standard input.
    label: Option<String>,
}

/// The text every selected line must contain, when the search is for one literal text (the
/// commonest search: a name in a tree) and no line is shown for another's sake: lines
/// without it are skipped unread. Case folding, inverted matches and context rule it out.
fn required_text(patterns: &[String], syntax: &Syntax, o: &Options) -> Option<Vec<u8>> {
    let [pattern] = patterns else { return None };
    if pattern.is_empty() || o.ignore_case || o.invert || o.before > 0 || o.after > 0 {
        return None;
    }
    let special: &[char] = match syntax {
        Syntax::Fixed => &[],
        // What is special in any of the other syntaxes (a superset of each).
        _ => &[
            '.', '[', ']', '*', '^', '$', '\\', '+', '?', '(', ')', '{', '}', '|',
        ],
    };
    (!pattern.contains(special)).then(|| pattern.as_bytes().to_vec())
}

// Several patterns become one alternation; a backreference counts groups across all of them
// (GNU grep numbers them per pattern), so `-e '\(a\)\1' -e '\(b\)\1'` is not supported.
fn build(patterns: &[String], syntax: Syntax, o: &Options) -> Result<posix::Pattern, String> {
    let parts: Vec<String> = patterns
        .iter()
        .map(|p| match syntax {
            Syntax::Fixed => regex::escape(p),
            Syntax::Basic => translate_with_backreferences(p, false),
            Syntax::Extended => translate_with_backreferences(p, true),
            Syntax::Perl => p.clone(),
        })
        .map(|p| {
            if o.lines {
                format!("^(?:{p})$")
            } else if o.words {
                format!(r"\b(?:{p})\b")
            } else {
                format!("(?:{p})")
            }
        })
        .collect();
    let flags = Flags {
        case_insensitive: o.ignore_case,
        dot_matches_new_line: false,
    };
    // No pattern at all (`-f` of an empty file) matches no line, as in GNU grep.
    let joined = if parts.is_empty() {
        r"[^\s\S]".to_string()
    } else {
        parts.join("|")
    };
    posix::Pattern::build(&joined, flags, syntax == Syntax::Perl)
}

/// `grep [OPTIONS] PATTERN [FILE...]`.
pub async fn grep(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let mut syntax = match argv[0].as_str() {
        "egrep" => Syntax::Extended,
        "fgrep" => Syntax::Fixed,
        _ => Syntax::Basic,
    };
    let mut o = Options::default();
    let mut patterns: Vec<String> = Vec::new();
    let mut pattern_given = false;
    let mut operands = Vec::new();
    let mut p = parser(argv);
    let num = |v: std::ffi::OsString| v.to_string_lossy().parse::<usize>().ok();
    loop {
        let arg = match p.next() {
            Ok(Some(a)) => a,
            Ok(None) => break,
            Err(e) => return grep_usage(sh, e).await,
        };
        let value = |p: &mut lexopt::Parser| p.value().map(|v| v.to_string_lossy().into_owned());
        match arg {
            Short('E') | Long("extended-regexp") => syntax = Syntax::Extended,
            Short('F') | Long("fixed-strings") => syntax = Syntax::Fixed,
            Short('G') | Long("basic-regexp") => syntax = Syntax::Basic,
            Short('P') | Long("perl-regexp") => syntax = Syntax::Perl,
            Short('e') | Long("regexp") => match value(&mut p) {
                Ok(v) => {
                    patterns.extend(v.split('\n').map(str::to_string));
                    pattern_given = true;
                }
                Err(e) => return bad_usage(sh, "grep", e, 2).await,
            },
            Short('f') | Long("file") => {
                let name = match value(&mut p) {
                    Ok(v) => v,
                    Err(e) => return bad_usage(sh, "grep", e, 2).await,
                };
                match std::fs::read(sh.path(&name)) {
                    Ok(data) => {
                        let text = String::from_utf8_lossy(&data);
                        patterns.extend(text.lines().map(str::to_string));
                        pattern_given = true;
                    }
                    Err(e) => {
                        complain(
                            sh,
                            &format!("grep: {name}: {}", shell_base::errno::io_message(&e)),
                        )
                        .await;
                        return 2;
                    }
                }
            }
            Short('i') | Short('y') | Long("ignore-case") => o.ignore_case = true,
            Long("no-ignore-case") => o.ignore_case = false,
            Short('v') | Long("invert-match") => o.invert = true,
            Short('w') | Long("word-regexp") => o.words = true,
            Short('x') | Long("line-regexp") => o.lines = true,
            Short('c') | Long("count") => o.count = true,
            Short('l') | Long("files-with-matches") => o.files_with = true,
            Short('L') | Long("files-without-match") => o.files_without = true,
            Short('o') | Long("only-matching") => o.only = true,
            Short('q') | Long("quiet") | Long("silent") => o.quiet = true,
            Short('s') | Long("no-messages") => o.no_messages = true,
            Short('n') | Long("line-number") => o.number = true,
            Short('H') | Long("with-filename") => o.with_name = Some(true),
            Short('h') | Long("no-filename") => o.with_name = Some(false),
            Short('r') | Short('R') | Long("recursive") | Long("dereference-recursive") => {
                o.recursive = true
            }
            Short('z') | Long("null-data") => o.null_data = true,
            Short('b') | Long("byte-offset") => o.byte_offset = true,
            Long("label") => match value(&mut p) {
                Ok(v) => o.label = Some(v),
                Err(e) => return bad_usage(sh, "grep", e, 2).await,
            },
            Short('a') | Long("text") | Short('I') | Short('U') | Long("line-buffered") => {}
            Long("color") | Long("colour") => {
                let _ = p.optional_value();
            }
            Short('A')
            | Long("after-context")
            | Short('B')
            | Long("before-context")
            | Short('C')
            | Long("context")
            | Short('m')
            | Long("max-count") => {
                let which = match arg {
                    Short('A') | Long("after-context") => 'A',
                    Short('B') | Long("before-context") => 'B',
                    Short('m') | Long("max-count") => 'm',
                    _ => 'C',
                };
                let Some(n) = p.value().ok().and_then(num) else {
                    complain(sh, "grep: invalid context length argument").await;
                    return 2;
                };
                o.context_given |= which != 'm';
                match which {
                    'A' => o.after = n,
                    'B' => o.before = n,
                    'm' => o.max_count = Some(n as u64),
                    _ => (o.after, o.before) = (n, n),
                }
            }
            Long("include") | Long("exclude") | Long("exclude-dir") => {
                let which = match arg {
                    Long("include") => 'i',
                    Long("exclude") => 'e',
                    _ => 'd',
                };
                let v = match value(&mut p) {
                    Ok(v) => v,
                    Err(e) => return bad_usage(sh, "grep", e, 2).await,
                };
                match which {
                    'i' => o.include.push(v),
                    'e' => o.exclude.push(v),
                    _ => o.exclude_dir.push(v),
                }
            }
            Short(c) if c.is_ascii_digit() => {
                // `-3` is `-C 3`.
                let n = c.to_digit(10).unwrap_or(0) as usize;
                (o.after, o.before) = (n, n);
            }
            Value(v) => operands.push(v.to_string_lossy().into_owned()),
            other => return grep_usage(sh, other.unexpected()).await,
        }
    }
    if !pattern_given {
        if operands.is_empty() {
            complain(sh, "Usage: grep [OPTION]... PATTERNS [FILE]...\nTry 'grep --help' for more information.").await;
            return 2;
        }
        patterns = operands.remove(0).split('\n').map(str::to_string).collect();
    }
    let re = match build(&patterns, syntax, &o) {
        Ok(r) => r,
        Err(m) => {
            complain(sh, &format!("grep: {m}")).await;
            return 2;
        }
    };
    let required = required_text(&patterns, &syntax, &o);
    let implicit_dot = operands.is_empty() && o.recursive;
    if operands.is_empty() {
        operands.push(if o.recursive { ".".into() } else { "-".into() });
    }
    let mut files = Vec::new();
    let mut errors = false;
    for f in &operands {
        let path = sh.path(f);
        if o.recursive && f != "-" && path.is_dir() {
            walk(&path, f, implicit_dot, &o, &mut files);
        } else if f != "-" && path.is_dir() {
            if !o.no_messages {
                complain(sh, &format!("grep: {f}: Is a directory")).await;
            }
            errors = true;
        } else if included(f, &o) || !o.recursive {
            files.push(f.clone());
        }
    }
    let with_name = o.with_name.unwrap_or(operands.len() > 1 || o.recursive);
    let mut out = Writer::new(&sh.io().stdout);
    let mut matched_any = false;
    for f in &files {
        let input = match open(sh, f) {
            Ok(i) => i,
            Err(m) => {
                if !o.no_messages {
                    complain(sh, &format!("grep: {m}")).await;
                }
                errors = true;
                continue;
            }
        };
        let shown = if f == "-" {
            o.label.as_deref().unwrap_or("(standard input)")
        } else {
            f.as_str()
        };
        let found = search(
            input,
            shown,
            &re,
            required.as_deref(),
            &o,
            with_name,
            &mut out,
            &sh.io().stderr,
        )
        .await;
        match found {
            Ok(found) => {
                matched_any |= found;
                if found && o.quiet {
                    return 0;
                }
            }
            Err(Stop(s)) => return s,
        }
    }
    if let Err(Stop(s)) = out.flush().await {
        return s;
    }
    if errors && !(o.quiet && matched_any) {
        2
    } else if matched_any {
        0
    } else {
        1
    }
}

fn glob_match(pattern: &str, name: &str) -> bool {
    Pattern::new(pattern, MatchOptions::default()).matches(name)
}

fn included(path: &str, o: &Options) -> bool {
    let base = path.rsplit('/').next().unwrap_or(path);
    (o.include.is_empty() || o.include.iter().any(|g| glob_match(g, base)))
        && !o.exclude.iter().any(|g| glob_match(g, base))
}

/// Files under `dir` (shown as `shown`), in name order.
fn walk(dir: &std::path::Path, shown: &str, implicit: bool, o: &Options, files: &mut Vec<String>) {
    let Ok(entries) = shell_base::dir::list(dir) else {
        return;
    };
    for shell_base::dir::Entry { name, kind } in entries {
        let is_dir = kind.is_dir();
        let child = if implicit && shown == "." {
            name.clone()
        } else if shown.ends_with('/') {
            format!("{shown}{name}")
        } else {
            format!("{shown}/{name}")
        };
        if is_dir {
            if !o.exclude_dir.iter().any(|g| glob_match(g, &name)) {
                walk(&dir.join(&name), &child, false, o, files);
            }
        } else if included(&child, o) {
            files.push(child);
        }
    }
}

/// Whether `line` holds a match; a backtracking match that gave up stops grep.
async fn matches(
    re: &posix::Pattern,
    line: &[u8],
    stderr: &shell_base::io::Output,
) -> Result<bool, Stop> {
    match re.is_match(line) {
        Ok(found) => Ok(found),
        Err(e) => Err(gave_up(&e, stderr).await),
    }
}

async fn gave_up(message: &str, stderr: &shell_base::io::Output) -> Stop {
    let _ = stderr
        .write_all(format!("grep: {message}\n").as_bytes())
        .await;
    Stop(2)
}

/// Searches one input; whether anything was selected.
#[allow(clippy::too_many_arguments)]
async fn search(
    input: shell_base::io::Input,
    name: &str,
    re: &posix::Pattern,
    required: Option<&[u8]>,
    o: &Options,
    with_name: bool,
    out: &mut Writer,
    stderr: &shell_base::io::Output,
) -> Result<bool, Stop> {
    let delim = if o.null_data { b'\0' } else { b'\n' };
    let mut lines = Lines::with_delimiter(input, delim);
    let mut count = 0u64;
    let mut line_no = 0u64;
    let mut before: VecDeque<(Place, Vec<u8>)> = VecDeque::new();
    let mut after_left = 0usize;
    let mut last_printed: Option<u64> = None;
    let context = o.context_given;
    // Where the current line starts in the input (`-b`).
    let mut offset = 0u64;
    let listing = o.files_with || o.files_without || o.count || o.quiet;
    loop {
        if let Some(text) = required {
            let (skipped, bytes) = lines.skip_lines_without(text);
            line_no += skipped;
            offset += bytes;
        }
        let Ok(Some(raw)) = lines.next().await else {
            break;
        };
        line_no += 1;
        let line_start = offset;
        offset += raw.len() as u64;
        let line = raw.strip_suffix(&[delim]).unwrap_or(&raw);
        if !o.null_data && line.contains(&0) && !listing {
            // A binary file: say so once, as GNU grep does.
            if matches(re, line, stderr).await? != o.invert {
                out.flush().await?;
                let _ = stderr
                    .write_all(format!("grep: {name}: binary file matches\n").as_bytes())
                    .await;
                return Ok(true);
            }
            continue;
        }
        let selected = matches(re, line, stderr).await? != o.invert;
        if selected {
            count += 1;
            if o.quiet || o.files_with {
                break;
            }
            if o.files_without || o.count {
                if o.max_count.is_some_and(|m| count >= m) {
                    break;
                }
                continue;
            }
            // A group not adjacent to the previous one is set off with `--`.
            let first = line_no - before.len() as u64;
            let here = Place {
                line: line_no,
                offset: line_start,
            };
            if context && last_printed.is_some_and(|last| first > last + 1) {
                out.write_str("--\n").await?;
            }
            for (at, l) in before.drain(..) {
                write_line(out, name, with_name, o, at, '-', &l, delim).await?;
            }
            if o.only && !o.invert {
                let found = match re.find_all(line) {
                    Ok(found) => found,
                    Err(e) => return Err(gave_up(&e, stderr).await),
                };
                for m in found {
                    if m.is_empty() {
                        continue;
                    }
                    let at = Place {
                        offset: line_start + m.start as u64,
                        ..here
                    };
                    write_line(out, name, with_name, o, at, ':', &line[m], delim).await?;
                }
            } else {
                write_line(out, name, with_name, o, here, ':', line, delim).await?;
            }
            last_printed = Some(line_no);
            after_left = o.after;
            if o.max_count.is_some_and(|m| count >= m) {
                break;
            }
        } else if after_left > 0 && !listing {
            after_left -= 1;
            let here = Place {
                line: line_no,
                offset: line_start,
            };
            write_line(out, name, with_name, o, here, '-', line, delim).await?;
            last_printed = Some(line_no);
        } else if o.before > 0 {
            let here = Place {
                line: line_no,
                offset: line_start,
            };
            before.push_back((here, line.to_vec()));
            if before.len() > o.before {
                before.pop_front();
            }
        }
    }
    if o.count {
        let prefix = if with_name {
            format!("{name}:")
        } else {
            String::new()
        };
        out.write_str(&format!("{prefix}{count}\n")).await?;
    }
    if o.files_with && count > 0 {
        out.write_str(&format!("{name}\n")).await?;
    }
    if o.files_without && count == 0 {
        out.write_str(&format!("{name}\n")).await?;
    }
    Ok(count > 0)
}

/// Where a line (or match) is: its line number and byte offset.
#[derive(Clone, Copy)]
struct Place {
    line: u64,
    offset: u64,
}

#[allow(clippy::too_many_arguments)]
async fn write_line(
    out: &mut Writer,
    name: &str,
    with_name: bool,
    o: &Options,
    at: Place,
    sep: char,
    text: &[u8],
    delim: u8,
) -> Result<(), Stop> {
    let mut prefix = String::new();
    if with_name {
        prefix.push_str(name);
        prefix.push(sep);
    }
    if o.number {
        prefix.push_str(&format!("{}{sep}", at.line));
    }
    if o.byte_offset {
        prefix.push_str(&format!("{}{sep}", at.offset));
    }
    out.write_str(&prefix).await?;
    out.write(text).await?;
    out.write(&[delim]).await
}

/// A bad option: GNU grep adds its usage line.
async fn grep_usage(sh: &dyn Context, e: lexopt::Error) -> i32 {
    let msg = match &e {
        lexopt::Error::UnexpectedOption(o) if o.starts_with("--") => {
            format!("grep: unrecognized option '{o}'")
        }
        lexopt::Error::UnexpectedOption(o) => {
            format!("grep: invalid option -- '{}'", o.trim_start_matches('-'))
        }
        other => format!("grep: {other}"),
    };
    complain(
        sh,
        &format!("{msg}\nUsage: grep [OPTION]... PATTERNS [FILE]...\nTry 'grep --help' for more information."),
    )
    .await;
    2
}

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::{Native, stdout_of};

    #[test]
    fn matches_counts_and_exit_statuses() {
        assert_eq!(stdout_of(&["grep", "-n", "b"], "a\nb\nab\n"), "2:b\n3:ab\n");
        assert_eq!(stdout_of(&["grep", "-c", "-v", "b"], "a\nb\n"), "1\n");
        assert_eq!(stdout_of(&["grep", "-E", "^(a|c)$"], "a\nb\nc\n"), "a\nc\n");
        assert_eq!(stdout_of(&["grep", "\\(x\\)\\1"], "xx\nx\n"), "xx\n");
        let ran = Native::new().run(&["grep", "z"], "a\n");
        assert_eq!(ran.status, 1);
        let ran = Native::new().run(&["grep", "a", "missing"], "");
        assert_eq!(ran.status, 2);
    }

    #[test]
    fn searches_a_tree_in_name_order() {
        let mut ctx = Native::new();
        ctx.write("d/b.txt", "hit\n")
            .write("d/a.txt", "hit\nmiss\n");
        let ran = ctx.run(&["grep", "-rn", "hit", "d"], "");
        assert_eq!(ran.stdout, "d/a.txt:1:hit\nd/b.txt:1:hit\n");
    }

    /// A literal search skips the lines that cannot match unread: the numbers and offsets
    /// of the lines it shows must come out as if every line had been read, across the
    /// reads of a big file too.
    #[test]
    fn skipped_lines_keep_line_numbers_and_offsets() {
        let mut text = String::new();
        let mut expected_n = String::new();
        let mut expected_b = String::new();
        for i in 1..=20_000 {
            let line = if i % 4_999 == 1 || i == 20_000 {
                format!("{i} has the needle")
            } else {
                format!("{i} has nothing")
            };
            if line.contains("needle") {
                expected_n.push_str(&format!("{i}:{line}\n"));
                expected_b.push_str(&format!("{}:{line}\n", text.len()));
            }
            text.push_str(&line);
            if i < 20_000 {
                text.push('\n');
            }
        }
        assert!(text.len() > 3 * 64 * 1024, "spans several reads");
        assert_eq!(stdout_of(&["grep", "-n", "needle"], &text), expected_n);
        assert_eq!(stdout_of(&["grep", "-b", "needle"], &text), expected_b);
        let found = expected_n.lines().count();
        assert_eq!(found, 6);
        assert_eq!(stdout_of(&["grep", "-c", "needle"], &text), "6\n");
        // Not skipped: inverted, case-folded and context searches see every line.
        assert_eq!(
            stdout_of(&["grep", "-vc", "needle"], &text),
            format!("{}\n", 20_000 - found)
        );
        assert_eq!(stdout_of(&["grep", "-ic", "NEEDLE"], &text), "6\n");
        assert_eq!(
            stdout_of(&["grep", "-n", "-B1", "needle"], "a\nb needle\n"),
            "1-a\n2:b needle\n"
        );
        // Whole words and lines still decide on the line itself.
        assert_eq!(
            stdout_of(&["grep", "-nw", "needle"], "needles\nx needle y\n"),
            "2:x needle y\n"
        );
        assert_eq!(stdout_of(&["grep", "-x", "ab"], "xab\nab\nabc"), "ab\n");
    }
}
