//! Repairs for what bash parses and brush-parser does not, each made only where the parser
//! stopped, so that text which merely looks like the construct (in a here-document, a
//! string, a comment) is left as written:
//! - `for ((;;))`: brush-parser reads the `;;` as `case`'s terminator; the header is spaced
//!   out to `; ;` (in arithmetic the same thing).
//! - `case` inside `$( )`: brush-parser ends the substitution at the `)` of a pattern; each
//!   pattern gets the `(` bash allows before it (`case x in (a) ...`), which balances it.
//! - `select`: written as a `for` loop the tree then marks (`crate::select`).

use brush_parser::SourcePosition;

/// How many `$(` before the error the `case` repair looks at, innermost first.
const MAX_SUBSTITUTIONS: usize = 16;

/// How deeply substitutions may nest inside the one being repaired.
const MAX_NESTING: usize = 64;

/// `src` repaired where brush-parser stopped (`at`), or `None` when no repair applies; with
/// the offset of a `select` keyword the repair wrote as `for` (see [`crate::select`]).
pub fn repaired(src: &str, at: &SourcePosition) -> Option<(String, Option<usize>)> {
    let error = offset(src, at);
    if let Some((text, keyword)) = crate::select::as_for(src, error) {
        return Some((text, Some(keyword)));
    }
    spaced_arithmetic_for(src, error)
        .or_else(|| parenthesized_case_patterns(src, error))
        .map(|text| (text, None))
}

/// The byte offset of `at` (a line and a column of chars, both from 1) in `src`.
fn offset(src: &str, at: &SourcePosition) -> usize {
    let line_start: usize = src
        .split_inclusive('\n')
        .take(at.line.saturating_sub(1))
        .map(str::len)
        .sum::<usize>()
        .min(src.len());
    let rest = &src[line_start..];
    line_start
        + rest
            .char_indices()
            .nth(at.column.saturating_sub(1))
            .map_or(rest.len(), |(i, _)| i)
}

/// `src` with the `;;` of the `for (( ... ))` header that holds byte `error` spaced out to
/// `; ;`, or `None` when the error is not in such a header.
fn spaced_arithmetic_for(src: &str, error: usize) -> Option<String> {
    let head = src.get(..error)?;
    let open = head.rmatch_indices("((").map(|(i, _)| i).find(|&i| {
        let before = src[..i].trim_end();
        before.ends_with("for")
            && !before[..before.len() - 3]
                .ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
    })?;
    let end = open + closing(&src[open..])?;
    let header = &src[open..end];
    if end < error || !header.contains(";;") {
        return None;
    }
    Some(format!(
        "{}{}{}",
        &src[..open],
        header.replace(";;", "; ;"),
        &src[end..]
    ))
}

/// The length of `text` up to the `)` that closes its first `(`.
fn closing(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (k, b) in text.bytes().enumerate() {
        match b {
            b'(' => depth += 1,
            b')' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(k + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// `src` with `(` put before each `case` pattern that lacks one inside the innermost `$( )`
/// that holds byte `error` when read as bash reads it, or `None` when there is none.
fn parenthesized_case_patterns(src: &str, error: usize) -> Option<String> {
    let opens = src
        .get(..error)?
        .rmatch_indices("$(")
        .map(|(i, _)| i)
        .filter(|&i| !src[i + 2..].starts_with('('));
    for open in opens.take(MAX_SUBSTITUTIONS) {
        let mut scan = Scanner {
            s: src.as_bytes(),
            at: open + 2,
            insert: Vec::new(),
        };
        match scan.substitution(0) {
            Some(end) if end >= error && !scan.insert.is_empty() => {
                return Some(opened(src, &scan.insert));
            }
            _ => {}
        }
    }
    None
}

/// `word`'s text (or, `quoted`, a here-document's body) with `(` put before each `case`
/// pattern that lacks one inside its command substitutions, or `None` when none does. A
/// word's parts are parsed when it is expanded, and the parser would end a substitution
/// in double quotes at a pattern's `)` just as it does one outside them.
pub fn parenthesized_case_in_word(word: &str, quoted: bool) -> Option<String> {
    if !word.contains("$(") || !word.contains("case") {
        return None;
    }
    let mut scan = Scanner {
        s: word.as_bytes(),
        at: 0,
        insert: Vec::new(),
    };
    let mut in_double = quoted;
    while let Some(c) = scan.peek(0) {
        match c {
            b'\\' => scan.at += 2,
            b'\'' if !in_double => {
                let ansi_c = scan.at > 0 && scan.s[scan.at - 1] == b'$';
                scan.quoted(b'\'', ansi_c)?;
            }
            b'"' if !quoted => {
                in_double = !in_double;
                scan.at += 1;
            }
            b'`' => scan.quoted(b'`', true)?,
            b'$' => scan.dollar(0)?,
            _ => scan.at += 1,
        }
    }
    (!scan.insert.is_empty()).then(|| opened(word, &scan.insert))
}

/// `src` with `(` put at each of the offsets `at` (ascending).
fn opened(src: &str, at: &[usize]) -> String {
    let mut out = String::with_capacity(src.len() + at.len());
    let mut last = 0;
    for &k in at {
        out.push_str(&src[last..k]);
        out.push('(');
        last = k;
    }
    out.push_str(&src[last..]);
    out
}

/// Where a `case` command is, as its words are read.
#[derive(Clone, Copy, PartialEq)]
enum Case {
    /// After `case`: the word.
    Word,
    /// After the word: `in`.
    In,
    /// Where a pattern list (or `esac`) starts.
    Pattern,
    /// Inside a pattern list, up to its `)`.
    InPattern,
    /// The commands of a clause, up to `;;`, `;&`, `;;&` or `esac`.
    Body,
}

/// What an open construct inside the substitution is.
enum Frame {
    Paren,
    Case(Case),
}

/// A reader of shell text as bash reads a command substitution's commands: just enough of
/// words, quotes, operators and `case` to find where each pattern starts and where the
/// substitution ends. It gives up (`None`) on what it does not follow (here-documents).
struct Scanner<'a> {
    s: &'a [u8],
    at: usize,
    /// The offsets where a `(` goes, in order.
    insert: Vec<usize>,
}

impl Scanner<'_> {
    fn peek(&self, k: usize) -> Option<u8> {
        self.s.get(self.at + k).copied()
    }

    /// Reads the commands of a substitution from just after its `$(`: the offset of the
    /// `)` that closes it.
    fn substitution(&mut self, nesting: usize) -> Option<usize> {
        if nesting > MAX_NESTING {
            return None;
        }
        let mut stack: Vec<Frame> = Vec::new();
        let mut command_start = true;
        let mut redirect_target = false;
        loop {
            let c = self.peek(0)?;
            let top = match stack.last() {
                Some(Frame::Case(state)) => Some(*state),
                _ => None,
            };
            match c {
                b' ' | b'\t' => self.at += 1,
                b'\\' if self.peek(1) == Some(b'\n') => self.at += 2,
                b'\n' => {
                    self.at += 1;
                    if top != Some(Case::InPattern) {
                        command_start = true;
                    }
                }
                b'#' => {
                    while self.peek(0).is_some_and(|c| c != b'\n') {
                        self.at += 1;
                    }
                }
                b';' => {
                    let terminator = match (self.peek(1), self.peek(2)) {
                        (Some(b';'), Some(b'&')) => 3,
                        (Some(b';' | b'&'), _) => 2,
                        _ => 1,
                    };
                    self.at += terminator;
                    if terminator > 1 {
                        if top != Some(Case::Body) {
                            return None;
                        }
                        stack.pop();
                        stack.push(Frame::Case(Case::Pattern));
                    }
                    command_start = true;
                }
                b'&' | b'|' => {
                    self.at += 1;
                    if matches!(self.peek(0), Some(b'&' | b'|')) {
                        self.at += 1;
                    }
                    if top != Some(Case::InPattern) {
                        command_start = true;
                    }
                }
                b'<' | b'>' => {
                    if c == b'<' && self.peek(1) == Some(b'<') && self.peek(2) != Some(b'<') {
                        return None;
                    }
                    while matches!(self.peek(0), Some(b'<' | b'>' | b'&' | b'|')) {
                        self.at += 1;
                    }
                    redirect_target = true;
                }
                b'(' => {
                    self.at += 1;
                    if top == Some(Case::Pattern) {
                        stack.pop();
                        stack.push(Frame::Case(Case::InPattern));
                    } else {
                        stack.push(Frame::Paren);
                        command_start = true;
                    }
                }
                b')' => {
                    match (stack.last(), top) {
                        (None, _) => return Some(self.at),
                        (Some(Frame::Paren), _) => {
                            stack.pop();
                        }
                        (_, Some(Case::InPattern)) => {
                            stack.pop();
                            stack.push(Frame::Case(Case::Body));
                        }
                        _ => return None,
                    }
                    self.at += 1;
                    command_start = top == Some(Case::InPattern);
                }
                _ => {
                    let start = self.at;
                    self.word(nesting)?;
                    let word = &self.s[start..self.at];
                    if redirect_target {
                        redirect_target = false;
                        continue;
                    }
                    match top {
                        Some(Case::Word) => {
                            stack.pop();
                            stack.push(Frame::Case(Case::In));
                        }
                        Some(Case::In) if word == b"in" => {
                            stack.pop();
                            stack.push(Frame::Case(Case::Pattern));
                        }
                        Some(Case::In) => return None,
                        Some(Case::Pattern) if word == b"esac" => {
                            stack.pop();
                            command_start = false;
                        }
                        Some(Case::Pattern) => {
                            self.insert.push(start);
                            stack.pop();
                            stack.push(Frame::Case(Case::InPattern));
                        }
                        Some(Case::InPattern) => {}
                        _ if !command_start => {}
                        Some(Case::Body) if word == b"esac" => {
                            stack.pop();
                            command_start = false;
                        }
                        _ if word == b"case" => stack.push(Frame::Case(Case::Word)),
                        _ => {
                            command_start = matches!(
                                word,
                                b"if"
                                    | b"then"
                                    | b"else"
                                    | b"elif"
                                    | b"do"
                                    | b"while"
                                    | b"until"
                                    | b"!"
                                    | b"{"
                                    | b"time"
                            );
                        }
                    }
                }
            }
        }
    }

    /// Reads one word: up to an unquoted blank or operator character.
    fn word(&mut self, nesting: usize) -> Option<()> {
        while let Some(c) = self.peek(0) {
            match c {
                b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'<' | b'>' | b')' => break,
                b'(' if self.at > 0 && b"?*+@!".contains(&self.s[self.at - 1]) => {
                    self.at += closing(std::str::from_utf8(&self.s[self.at..]).ok()?)?;
                }
                b'(' => break,
                b'\\' => self.at += 2,
                b'\'' => {
                    let ansi_c = self.at > 0 && self.s[self.at - 1] == b'$';
                    self.quoted(b'\'', ansi_c)?;
                }
                b'`' => self.quoted(b'`', true)?,
                b'"' => self.double_quoted(nesting)?,
                b'$' => self.dollar(nesting)?,
                _ => self.at += 1,
            }
        }
        (self.at <= self.s.len()).then_some(())
    }

    /// Skips from an opening `quote` past the one that closes it (with `escapes`, a
    /// backslash escapes the next character, as in backquotes and `$'...'`).
    fn quoted(&mut self, quote: u8, escapes: bool) -> Option<()> {
        self.at += 1;
        loop {
            match self.peek(0)? {
                b'\\' if escapes => self.at += 2,
                c if c == quote => {
                    self.at += 1;
                    return Some(());
                }
                _ => self.at += 1,
            }
        }
    }

    fn double_quoted(&mut self, nesting: usize) -> Option<()> {
        self.at += 1;
        loop {
            match self.peek(0)? {
                b'\\' => self.at += 2,
                b'"' => {
                    self.at += 1;
                    return Some(());
                }
                b'`' => self.quoted(b'`', true)?,
                b'$' => self.dollar(nesting)?,
                _ => self.at += 1,
            }
        }
    }

    /// Skips a `$` expansion: `$(...)` read as commands (its own patterns repaired too),
    /// `$((...))` and `${...}` by their brackets.
    fn dollar(&mut self, nesting: usize) -> Option<()> {
        match (self.peek(1), self.peek(2)) {
            (Some(b'('), Some(b'(')) => {
                self.at += 1 + closing(std::str::from_utf8(&self.s[self.at + 1..]).ok()?)?;
            }
            (Some(b'('), _) => {
                self.at += 2;
                self.at = self.substitution(nesting + 1)? + 1;
            }
            (Some(b'{'), _) => {
                self.at += 2;
                let mut depth = 1usize;
                while depth > 0 {
                    match self.peek(0)? {
                        b'\\' => self.at += 1,
                        b'{' => depth += 1,
                        b'}' => depth -= 1,
                        b'\'' => {
                            self.quoted(b'\'', false)?;
                            continue;
                        }
                        b'"' => {
                            self.double_quoted(nesting)?;
                            continue;
                        }
                        _ => {}
                    }
                    self.at += 1;
                }
            }
            _ => self.at += 1,
        }
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::repaired;

    fn repair(src: &str) -> Option<String> {
        let parse = |text: &str| {
            brush_parser::Parser::new(std::io::Cursor::new(text.as_bytes()), &Default::default())
                .parse_program()
        };
        let mut text = src.to_string();
        for _ in 0..8 {
            match parse(&text) {
                Ok(_) => return Some(text),
                Err(brush_parser::ParseError::ParsingNear(at)) => text = repaired(&text, &at)?.0,
                Err(other) => panic!("{text:?}: {other:?}"),
            }
        }
        None
    }

    #[test]
    fn only_the_refused_for_header_is_spaced() {
        let src = "cat <<E\nfor ((;;))\nE\nfor ((i=0;;i++)); do break; done";
        assert_eq!(
            repair(src).as_deref(),
            Some("cat <<E\nfor ((;;))\nE\nfor ((i=0; ;i++)); do break; done")
        );
        assert_eq!(repair("echo 'for ((;;))'; echo )"), None);
    }

    #[test]
    fn case_patterns_in_a_substitution_get_their_paren() {
        for (src, want) in [
            (
                "v=$(case a in a) echo A;; esac); echo $v",
                "v=$(case a in (a) echo A;; esac); echo $v",
            ),
            (
                "echo 1\nv=$(\n case a in\n  a|b) echo A;;\n  # c) no\n  (*) echo B;;\n esac\n)",
                "echo 1\nv=$(\n case a in\n  (a|b) echo A;;\n  # c) no\n  (*) echo B;;\n esac\n)",
            ),
            (
                "echo \"$(case $1 in x) echo X;; esac)\" $(case \"$(case b in b) echo c;; esac)\" in c) echo ok;; esac)",
                "echo \"$(case $1 in x) echo X;; esac)\" $(case \"$(case b in (b) echo c;; esac)\" in (c) echo ok;; esac)",
            ),
            (
                "x=$(case y in @(y|z)) (echo sub) ;& n) case q in q) :;; esac; esac)",
                "x=$(case y in (@(y|z)) (echo sub) ;& (n) case q in (q) :;; esac; esac)",
            ),
            (
                "cat <<E\n$(case a in a) :;; esac)\nE\nv=$(case b in b) echo 'a) ;;';; esac)",
                "cat <<E\n$(case a in a) :;; esac)\nE\nv=$(case b in (b) echo 'a) ;;';; esac)",
            ),
        ] {
            assert_eq!(repair(src).as_deref(), Some(want), "{src:?}");
        }
        assert_eq!(repair("echo $(case a in (a) :;; esac) ;; b"), None);
    }
}
