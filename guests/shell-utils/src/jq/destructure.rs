//! Destructuring that jaq's parser lacks, put in forms it reads: alternatives
//! (`. as [$a] ?// $a | ...`) become one array pattern headed by the `$__jq_alts` marker,
//! which the tree pass in rewrite.rs expands into jq's meaning; an object pattern's
//! `$name: pattern` entry (bind the value and destructure it) becomes `$name, name: pattern`.
//!
//! A small scanner of our own finds the patterns: after each `as`, outside strings and
//! comments, a `$name` or a bracketed group; nothing else of the program is touched.

use jaq_core::load::parse::{BinaryOp, Pattern, Term};

/// The marker that heads an array pattern made of alternatives.
pub const ALTERNATIVES: &str = "$__jq_alts";

type T<'s> = Term<&'s str>;

/// The alternatives of a pattern headed by the marker, if it is one.
pub fn alternatives<'a, 's>(p: &'a Pattern<&'s str>) -> Option<&'a [Pattern<&'s str>]> {
    match p {
        Pattern::Arr(ps) if matches!(ps.first(), Some(Pattern::Var(m)) if *m == ALTERNATIVES) => {
            Some(&ps[1..])
        }
        _ => None,
    }
}

/// The variable each value to destructure is bound to first.
const VALUE: &str = "$__jq_alt";

/// `l as P1 ?// P2 ... | body` as jq runs it: each value of `l` is destructured by the first
/// pattern, and the body run; an error in either tries the next pattern, and the last
/// one's error is the error. Every variable of every pattern is bound in each, null where
/// that pattern lacks it.
pub fn pipe<'s>(l: T<'s>, alternatives: &[Pattern<&'s str>], body: T<'s>) -> T<'s> {
    bind(l, Pattern::Var(VALUE), chain(alternatives, &body))
}

/// `reduce`/`foreach xs as P1 ?// P2 ... (init; update; extract)`: the same, with the
/// update (and the extract) as the body, run on the state.
pub fn fold<'s>(
    kw: &'s str,
    xs: T<'s>,
    alternatives: &[Pattern<&'s str>],
    args: Vec<T<'s>>,
) -> T<'s> {
    // A binding keeps its input, so the update and the extract still see the state.
    let args = args
        .into_iter()
        .enumerate()
        .map(|(i, t)| if i == 0 { t } else { chain(alternatives, &t) })
        .collect();
    Term::Fold(kw, Box::new(xs), Pattern::Var(VALUE), args)
}

fn bind<'s>(t: T<'s>, p: Pattern<&'s str>, body: T<'s>) -> T<'s> {
    Term::BinOp(Box::new(t), BinaryOp::Pipe(Some(p)), Box::new(body))
}

/// `. as $__jq_in | try (nulls | $__jq_alt as P1 | body) catch ($__jq_in | try ... catch
/// ($__jq_in | nulls | $__jq_alt as Pn | body))`.
fn chain<'s>(alternatives: &[Pattern<&'s str>], body: &T<'s>) -> T<'s> {
    let mut vars: Vec<&'s str> = Vec::new();
    for p in alternatives {
        collect_vars(p, &mut vars);
    }
    let attempt = |p: &Pattern<&'s str>| {
        let inner = bind(Term::Var(VALUE), p.clone(), body.clone());
        vars.iter().rev().fold(inner, |t, v| {
            bind(Term::Call("null", Vec::new()), Pattern::Var(v), t)
        })
    };
    let Some((last, rest)) = alternatives.split_last() else {
        return body.clone();
    };
    // A `catch` gets the error as its input: the next attempt is given back the input.
    const INPUT: &str = "$__jq_in";
    let mut chain = attempt(last);
    for p in rest.iter().rev() {
        let again = Term::BinOp(
            Box::new(Term::Var(INPUT)),
            BinaryOp::Pipe(None),
            Box::new(chain),
        );
        chain = Term::TryCatch(Box::new(attempt(p)), Some(Box::new(again)));
    }
    bind(Term::Id, Pattern::Var(INPUT), chain)
}

fn collect_vars<'s>(p: &Pattern<&'s str>, out: &mut Vec<&'s str>) {
    match p {
        Pattern::Var(v) => {
            if !out.contains(v) {
                out.push(v);
            }
        }
        Pattern::Arr(ps) => ps.iter().for_each(|p| collect_vars(p, out)),
        Pattern::Obj(entries) => entries.iter().for_each(|(_, p)| collect_vars(p, out)),
    }
}

/// The program with its alternatives and `$name:` entries rewritten, or `None` when it has
/// none.
pub fn rewrite(code: &str) -> Option<String> {
    let b = code.as_bytes();
    let live = code_bytes(b);
    let is = |i: usize, c: u8| i < b.len() && live[i] && b[i] == c;
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    let mut i = 0;
    while i + 1 < b.len() {
        if !(live[i] && b[i..].starts_with(b"as") && keyword_at(b, i, 2)) {
            i += 1;
            continue;
        }
        let start = skip_blanks(b, &live, i + 2);
        let Some(end) = pattern_end(b, &live, start) else {
            i += 2;
            continue;
        };
        let mut patterns = vec![(start, end)];
        let mut at = skip_blanks(b, &live, end);
        while is(at, b'?') && b[at..].starts_with(b"?//") && live[at + 1] && live[at + 2] {
            let next = skip_blanks(b, &live, at + 3);
            let Some(next_end) = pattern_end(b, &live, next) else {
                break;
            };
            edits.push((at, at + 3, ",".into()));
            patterns.push((next, next_end));
            at = skip_blanks(b, &live, next_end);
        }
        if patterns.len() > 1 {
            edits.push((start, start, format!("[{ALTERNATIVES}, ")));
            let last = patterns[patterns.len() - 1].1;
            edits.push((last, last, "]".into()));
        }
        for (s, e) in &patterns {
            named_entries(b, &live, *s, *e, &mut edits);
        }
        i = patterns[patterns.len() - 1].1;
    }
    if edits.is_empty() {
        return None;
    }
    // Insertions at one spot keep the order they were found in.
    edits.sort_by_key(|(s, e, _)| (*s, *e));
    let mut out = String::with_capacity(code.len() + 32);
    let mut copied = 0;
    for (s, e, text) in edits {
        out.push_str(&code[copied..s]);
        out.push_str(&text);
        copied = e;
    }
    out.push_str(&code[copied..]);
    Some(out)
}

/// Which bytes are program text: not inside a string literal (its interpolations are) or a
/// comment.
fn code_bytes(b: &[u8]) -> Vec<bool> {
    let mut live = vec![true; b.len()];
    // For each open string, the paren depth of the interpolation it is inside of.
    let mut strings: Vec<usize> = Vec::new();
    let mut depth = 0usize;
    let mut in_string = false;
    let mut i = 0;
    while i < b.len() {
        if in_string {
            live[i] = false;
            match b[i] {
                b'\\' if b.get(i + 1) == Some(&b'(') => {
                    live[i + 1] = false;
                    strings.push(depth);
                    depth += 1;
                    in_string = false;
                    i += 2;
                    continue;
                }
                b'\\' => {
                    if i + 1 < b.len() {
                        live[i + 1] = false;
                    }
                    i += 2;
                    continue;
                }
                b'"' => in_string = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        match b[i] {
            b'"' => {
                live[i] = false;
                in_string = true;
            }
            b'#' => {
                while i < b.len() && b[i] != b'\n' {
                    live[i] = false;
                    i += 1;
                }
                continue;
            }
            b'(' => depth += 1,
            b')' => {
                depth = depth.saturating_sub(1);
                if strings.last() == Some(&depth) {
                    strings.pop();
                    live[i] = false;
                    in_string = true;
                }
            }
            _ => {}
        }
        i += 1;
    }
    live
}

fn ident_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Whether the `len` bytes at `i` are a word of their own (not `.as`, `$as` or `has`).
fn keyword_at(b: &[u8], i: usize, len: usize) -> bool {
    let before = i.checked_sub(1).map(|k| b[k]);
    let after = b.get(i + len).copied();
    !matches!(before, Some(c) if ident_byte(c) || c == b'.' || c == b'$' || c == b'@')
        && !matches!(after, Some(c) if ident_byte(c))
}

fn skip_blanks(b: &[u8], live: &[bool], mut i: usize) -> usize {
    while i < b.len() && (!live[i] || b[i].is_ascii_whitespace()) {
        // A comment is not live; a string never starts a pattern, so stop at one.
        if !live[i] && b[i] == b'"' {
            break;
        }
        i += 1;
    }
    i
}

/// Where the pattern that starts at `i` ends: after `$name`, or after the bracket that
/// closes the one at `i`.
fn pattern_end(b: &[u8], live: &[bool], i: usize) -> Option<usize> {
    match b.get(i)? {
        b'$' if live[i] => {
            let n = b[i + 1..].iter().take_while(|c| ident_byte(**c)).count();
            (n > 0).then_some(i + 1 + n)
        }
        b'[' | b'{' if live[i] => {
            let mut stack = Vec::new();
            for (k, &c) in b.iter().enumerate().skip(i) {
                if !live[k] {
                    continue;
                }
                match c {
                    b'[' | b'{' | b'(' => stack.push(c),
                    b']' | b'}' | b')' => {
                        let open = stack.pop()?;
                        if !matches!((open, c), (b'[', b']') | (b'{', b'}') | (b'(', b')')) {
                            return None;
                        }
                        if stack.is_empty() {
                            return Some(k + 1);
                        }
                    }
                    _ => {}
                }
            }
            None
        }
        _ => None,
    }
}

/// Edits for the `$name: pattern` entries of the object patterns in `start..end`.
fn named_entries(
    b: &[u8],
    live: &[bool],
    start: usize,
    end: usize,
    edits: &mut Vec<(usize, usize, String)>,
) {
    let mut stack: Vec<u8> = Vec::new();
    let mut previous = 0u8;
    let mut k = start;
    while k < end {
        let c = b[k];
        if !live[k] || c.is_ascii_whitespace() {
            k += 1;
            continue;
        }
        match c {
            b'[' | b'{' | b'(' => stack.push(c),
            b']' | b'}' | b')' => {
                stack.pop();
            }
            b'$' if stack.last() == Some(&b'{') && matches!(previous, b'{' | b',') => {
                let n = b[k + 1..end].iter().take_while(|c| ident_byte(**c)).count();
                let after = skip_blanks(b, live, k + 1 + n);
                if n > 0 && after < end && live[after] && b[after] == b':' {
                    let name = String::from_utf8_lossy(&b[k + 1..k + 1 + n]);
                    edits.push((k + 1 + n, k + 1 + n, format!(", {name}")));
                }
                previous = b'$';
                k += 1 + n;
                continue;
            }
            _ => {}
        }
        previous = c;
        k += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::rewrite;

    #[test]
    fn alternatives_and_named_entries_become_jaq_patterns() {
        assert_eq!(rewrite(". as [$a] | $a"), None);
        assert_eq!(
            rewrite(".[] as [$a] ?// $a | $a").as_deref(),
            Some(".[] as [$__jq_alts, [$a] , $a] | $a")
        );
        assert_eq!(
            rewrite(". as {$a, $b:[$c, $d]} | $b").as_deref(),
            Some(". as {$a, $b, b:[$c, $d]} | $b")
        );
        assert_eq!(
            rewrite(". as {a:$a}?//{(\"?//\"): $b} ?// $c | 1").as_deref(),
            Some(". as [$__jq_alts, {a:$a},{(\"?//\"): $b} , $c] | 1")
        );
        // Not patterns: a string, a comment, `has`, a field named `as`.
        assert_eq!(rewrite(r#""x as $a ?// $b" | has("as") | .as"#), None);
        assert_eq!(rewrite("1 # as $a ?// $b\n"), None);
        // The operator `?` then `//` after something that is not a pattern stays.
        assert_eq!(rewrite(".a?//1"), None);
    }
}
