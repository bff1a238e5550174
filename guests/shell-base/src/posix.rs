//! POSIX regular expressions (basic and extended, as grep and sed read them) translated to
//! the `regex` crate's syntax, and [`Pattern`]: a compiled expression that uses the crate's
//! automata, or fancy-regex's backtracking for what automata cannot match (backreferences).

/// Steps a backtracking match may take before it fails with an error naming the limit
/// (a hostile pattern such as `\(a*\)*\1b` can take exponential time).
pub const BACKTRACK_LIMIT: usize = 1_000_000;

/// Translates a POSIX basic (or, with `extended`, extended) expression to `regex` syntax;
/// a backreference (`\1`) matches literally (for the callers without [`Pattern`]).
pub fn translate(re: &str, extended: bool) -> String {
    translate_as(re, extended, false)
}

/// As [`translate`], keeping backreferences (for [`Pattern::build`]).
pub fn translate_with_backreferences(re: &str, extended: bool) -> String {
    translate_as(re, extended, true)
}

fn translate_as(re: &str, extended: bool, backreferences: bool) -> String {
    let chars: Vec<char> = re.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    // Where a `*` is literal: at the start, after `(` or `|` or `^`.
    let mut at_start = true;
    while i < chars.len() {
        let c = chars[i];
        let start_before = at_start;
        at_start = false;
        match c {
            '\\' if i + 1 < chars.len() => {
                let n = chars[i + 1];
                i += 2;
                match n {
                    '(' | ')' | '{' | '}' | '|' | '+' | '?' if !extended => {
                        out.push(n);
                        at_start = n == '(' || n == '|';
                    }
                    '<' | '>' => out.push_str(r"\b"),
                    'w' | 'W' | 's' | 'S' | 'b' | 'B' => {
                        out.push('\\');
                        out.push(n);
                    }
                    'n' => out.push_str("\\n"),
                    't' => out.push_str("\\t"),
                    d @ '1'..='9' if backreferences => {
                        out.push('\\');
                        out.push(d);
                    }
                    d if d.is_ascii_digit() => {
                        // The regex crate has no backreferences: match literally.
                        out.push_str(&regex::escape(&format!("\\{d}")));
                    }
                    other => out.push_str(&regex::escape(&other.to_string())),
                }
                continue;
            }
            '[' => {
                // Copy a bracket expression, escaping what the crate would read specially.
                let mut j = i + 1;
                let mut class = String::from("[");
                if chars.get(j) == Some(&'^') {
                    class.push('^');
                    j += 1;
                }
                if chars.get(j) == Some(&']') {
                    class.push_str(r"\]");
                    j += 1;
                }
                let mut closed = false;
                while j < chars.len() {
                    let d = chars[j];
                    if d == '[' && chars.get(j + 1) == Some(&':') {
                        let rest: String = chars[j..].iter().collect();
                        if let Some(end) = rest.find(":]") {
                            class.push_str(&rest[..end + 2]);
                            j += rest[..end + 2].chars().count();
                            continue;
                        }
                    }
                    if d == ']' {
                        closed = true;
                        j += 1;
                        break;
                    }
                    if matches!(d, '\\' | '[' | '&' | '~' | '-')
                        && !(d == '-' && class.len() > 1 && chars.get(j + 1) != Some(&']'))
                    {
                        class.push('\\');
                    }
                    class.push(d);
                    j += 1;
                }
                if closed {
                    class.push(']');
                    out.push_str(&class);
                    i = j;
                } else {
                    out.push_str(r"\[");
                    i += 1;
                }
                continue;
            }
            '*' if start_before => out.push_str(r"\*"),
            '(' | ')' | '|' | '+' | '?' if !extended => {
                out.push('\\');
                out.push(c);
            }
            '{' if !extended => out.push_str(r"\{"),
            '}' if !extended => out.push_str(r"\}"),
            '{' => {
                // A repetition only if it reads as one; `{,n}` means `{0,n}`.
                let rest: String = chars[i..].iter().collect();
                match rest.find('}') {
                    Some(end)
                        if !out.is_empty()
                            && rest[1..end].chars().all(|c| c.is_ascii_digit() || c == ',')
                            && !rest[1..end].is_empty() =>
                    {
                        let inner = &rest[1..end];
                        let inner = if inner.starts_with(',') {
                            format!("0{inner}")
                        } else {
                            inner.to_string()
                        };
                        out.push('{');
                        out.push_str(&inner);
                        out.push('}');
                        i += end + 1;
                        continue;
                    }
                    _ => out.push_str(r"\{"),
                }
            }
            '}' => out.push_str(r"\}"),
            '(' | '|' => {
                out.push(c);
                at_start = true;
            }
            '^' => {
                out.push('^');
                at_start = true;
            }
            c => out.push(c),
        }
        i += 1;
    }
    out
}

/// Whether a translated expression refers back to a group (`\1` to `\9`).
fn has_backreference(re: &str) -> bool {
    let mut chars = re.chars();
    while let Some(c) = chars.next() {
        if c == '\\' && chars.next().is_some_and(|n| matches!(n, '1'..='9')) {
            return true;
        }
    }
    false
}

/// How a [`Pattern`] is compiled.
#[derive(Clone, Copy, Default)]
pub struct Flags {
    pub case_insensitive: bool,
    pub dot_matches_new_line: bool,
}

/// A compiled expression over bytes (ASCII classes, as the tools run in the C locale).
#[derive(Debug, Clone)]
pub enum Pattern {
    /// The `regex` crate: linear time, no backreferences.
    Automaton(regex::bytes::Regex),
    /// fancy-regex: backreferences and look-around, by backtracking up to
    /// [`BACKTRACK_LIMIT`] steps.
    Backtracking(fancy_regex::Regex),
}

/// Byte ranges of the whole match (group 0) and of each group that took part.
pub type Groups = Vec<Option<std::ops::Range<usize>>>;

impl Pattern {
    /// Compiles `re` (in `regex` syntax, as [`translate_with_backreferences`] gives it). With
    /// `fallback`, an expression the automata refuse (Perl's look-around, say) is tried by
    /// backtracking before it is called invalid.
    pub fn build(re: &str, flags: Flags, fallback: bool) -> Result<Pattern, String> {
        if !has_backreference(re) {
            let built = regex::bytes::RegexBuilder::new(re)
                .case_insensitive(flags.case_insensitive)
                .dot_matches_new_line(flags.dot_matches_new_line)
                .unicode(false)
                .size_limit(64 << 20)
                .build();
            match built {
                Ok(r) => return Ok(Pattern::Automaton(r)),
                Err(regex::Error::CompiledTooBig(n)) => {
                    return Err(format!(
                        "regular expression larger than the limit of {n} bytes"
                    ));
                }
                Err(e) if !fallback => return Err(last_line(&e.to_string())),
                Err(_) => {}
            }
        }
        let mut prefix = String::new();
        if flags.case_insensitive {
            prefix.push_str("(?i)");
        }
        if flags.dot_matches_new_line {
            prefix.push_str("(?s)");
        }
        fancy_regex::RegexBuilder::new(&format!("{prefix}{re}"))
            .bytes_mode(fancy_regex::BytesMode::Ascii)
            .backtrack_limit(BACKTRACK_LIMIT)
            .delegate_size_limit(64 << 20)
            .build()
            .map(Pattern::Backtracking)
            .map_err(|e| last_line(&e.to_string()))
    }

    /// Whether `hay` holds a match.
    pub fn is_match(&self, hay: &[u8]) -> Result<bool, String> {
        match self {
            Pattern::Automaton(r) => Ok(r.is_match(hay)),
            Pattern::Backtracking(r) => r.is_match(hay).map_err(run_error),
        }
    }

    /// Calls `each` with the groups of each of the first `limit` matches, left to right,
    /// not overlapping (one buffer for all of them: sed runs this on every line).
    pub fn each_match(
        &self,
        hay: &[u8],
        limit: usize,
        mut each: impl FnMut(&Groups),
    ) -> Result<(), String> {
        let mut groups = Groups::new();
        match self {
            Pattern::Automaton(r) => {
                for caps in r.captures_iter(hay).take(limit) {
                    groups.clear();
                    groups.extend(caps.iter().map(|m| m.map(|m| m.range())));
                    each(&groups);
                }
            }
            Pattern::Backtracking(r) => {
                for caps in r.captures_iter(hay).take(limit) {
                    let caps = caps.map_err(run_error)?;
                    groups.clear();
                    groups.extend(caps.iter().map(|m| m.map(|m| m.range())));
                    each(&groups);
                }
            }
        }
        Ok(())
    }

    /// Where each match is, left to right, not overlapping.
    pub fn find_all(&self, hay: &[u8]) -> Result<Vec<std::ops::Range<usize>>, String> {
        match self {
            Pattern::Automaton(r) => Ok(r.find_iter(hay).map(|m| m.range()).collect()),
            Pattern::Backtracking(r) => r
                .find_iter(hay)
                .map(|m| m.map(|m| m.range()).map_err(run_error))
                .collect(),
        }
    }
}

/// The line of a compile error that says what is wrong.
fn last_line(text: &str) -> String {
    text.lines()
        .last()
        .unwrap_or("invalid regular expression")
        .trim()
        .to_string()
}

fn run_error(e: fancy_regex::Error) -> String {
    match e {
        fancy_regex::Error::RuntimeError(fancy_regex::RuntimeError::BacktrackLimitExceeded) => {
            format!(
                "backtracking limit of {BACKTRACK_LIMIT} steps exceeded \
                 (a pattern with backreferences or look-around can take exponential time)"
            )
        }
        other => other.to_string(),
    }
}
