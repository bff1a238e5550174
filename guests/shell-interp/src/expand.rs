//! Word expansion in bash's order: tilde, parameters, command substitution and arithmetic,
//! then field splitting on IFS and pathname expansion for unquoted parts, then quote removal.

use std::collections::VecDeque;

use brush_parser::word::{
    self, Parameter, ParameterExpr, ParameterTestType, SpecialParameter, WordPiece,
    WordPieceWithSource,
};

use crate::quote;
use crate::state::Shell;
use crate::vars::{Key, Value};
use shell_base::io::Output;
use shell_base::pattern::{MatchOptions, Pattern};
use shell_base::runtime::Task;

mod ansi_c;
mod brace;
mod parameter;
mod prompt;
mod split;

use ansi_c::ansi_c;
use brace::brace_expand;
pub use parameter::Parameters;
use parameter::Values;
use split::split_ifs;

/// Characters that make a word more than its own text (quotes, expansions, globs, braces).
const WORD_SPECIAL: &[char] = &['$', '`', '"', '\'', '\\', '~', '*', '?', '[', '{', '('];

/// The same where no splitting, globbing or brace expansion happens.
const STRING_SPECIAL: &[char] = &['$', '`', '"', '\'', '\\', '~'];

/// Distinct words whose parse is kept.
const WORD_CACHE_ENTRIES: usize = 4096;

/// One piece of an expanded word.
pub enum Seg {
    /// Literal text from the script (globbing characters active unless quoted).
    Lit { text: String, quoted: bool },
    /// The result of an unquoted expansion: split on IFS, glob characters active.
    Split(String),
    /// The result of a quoted expansion: kept whole.
    Quoted(String),
    /// A field boundary inside quotes (`"$@"`).
    Break,
    /// `"$@"` with nothing in it: no field, not even an empty one.
    NoFields,
    /// Between the values of an unquoted `$*` or `$@` (`star`: the former): a field
    /// boundary where words are split; where they are not (assignments, `case`, `[[ ]]`),
    /// IFS's first character for `$*` and a space for `$@`.
    Gap { star: bool },
}

/// A field being built: its text, and the same with quoted glob characters escaped.
#[derive(Default)]
struct Field {
    text: String,
    pattern: String,
    globbing: bool,
    started: bool,
}

impl Field {
    fn push(&mut self, s: &str, active: bool) {
        self.started = true;
        self.text.push_str(s);
        for c in s.chars() {
            if matches!(c, '*' | '?' | '[' | ']' | '\\' | '&' | '(' | '|' | ')') && !active {
                self.pattern.push('\\');
            } else if matches!(c, '*' | '?' | '[' | '(') {
                self.globbing = true;
            }
            self.pattern.push(c);
        }
    }
}

/// An expansion error that ends the command (and a non-interactive shell): `${x:?}`, bad
/// arithmetic, unbound variables under `set -u`.
pub struct ExpandError {
    pub message: String,
    /// The status it leaves: 127 for parameter errors, 1 for arithmetic ones (as bash).
    pub status: i32,
}

/// Whether GLOBIGNORE's colon-separated patterns drop `path` from a glob's matches: each
/// pattern is matched a path component at a time (a `*` does not cross a `/`), and `.` and
/// `..` are always dropped.
fn glob_ignored(path: &str, globignore: &str, opts: MatchOptions) -> bool {
    let last = path.rsplit('/').next().unwrap_or(path);
    if last == "." || last == ".." {
        return true;
    }
    let parts: Vec<&str> = path.split('/').collect();
    globignore
        .split(':')
        .filter(|p| !p.is_empty())
        .any(|pattern| {
            let pieces: Vec<&str> = pattern.split('/').collect();
            pieces.len() == parts.len()
                && pieces
                    .iter()
                    .zip(&parts)
                    .all(|(p, part)| Pattern::new(p, opts).matches(part))
        })
}

impl ExpandError {
    pub fn new(message: impl Into<String>) -> ExpandError {
        ExpandError {
            message: message.into(),
            status: 127,
        }
    }

    pub fn arith(message: impl Into<String>) -> ExpandError {
        ExpandError {
            message: message.into(),
            status: 1,
        }
    }
}

/// Arithmetic text as a word to expand: bash expands it as if in double quotes, where `'`
/// and `~` are plain characters, but drops double quotes. Those two are escaped outside
/// `"..."` and outside nested expansions (`$(...)`, `${...}`, backquotes), which keep
/// their own quoting.
fn arith_word(raw: &str) -> std::borrow::Cow<'_, str> {
    if !raw.contains(['\'', '~']) {
        return raw.into();
    }
    let mut out = String::with_capacity(raw.len() + 4);
    let mut closers: Vec<char> = Vec::new();
    let mut double = false;
    let mut backquote = false;
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        let nested = !closers.is_empty() || backquote;
        match c {
            '\\' => {
                out.push(c);
                if let Some(next) = chars.next() {
                    out.push(next);
                }
                continue;
            }
            '$' if matches!(chars.peek(), Some('(' | '{')) => {
                let open = chars.next().unwrap_or('(');
                out.push(c);
                out.push(open);
                closers.push(if open == '(' { ')' } else { '}' });
                continue;
            }
            '`' => backquote = !backquote,
            '\'' if nested && !double => {
                // A quoted string inside a nested expansion: copied whole.
                out.push(c);
                for next in chars.by_ref() {
                    out.push(next);
                    if next == '\'' {
                        break;
                    }
                }
                continue;
            }
            '(' if !closers.is_empty() => closers.push(')'),
            ')' | '}' if closers.last() == Some(&c) => {
                closers.pop();
            }
            '"' if !nested => double = !double,
            '\'' | '~' if !nested && !double => out.push('\\'),
            _ => {}
        }
        out.push(c);
    }
    out.into()
}

/// What expansion needs from the interpreter that runs it: its state, a way to report
/// errors, and running the commands of a `$(...)`. The interpreter implements it; expansion
/// never sees how commands run (the tests below give it a frame of their own).
pub trait Frame {
    fn shell(&self) -> &Shell;
    fn shell_mut(&mut self) -> &mut Shell;
    /// The line of the command being expanded (`$LINENO`).
    fn line(&self) -> usize;
    /// The status of the last command substitution (a command that only assigns has it).
    fn set_substitution_status(&mut self, status: i32);
    /// Writes a message as the shell's own (`computer: line N: ...`).
    fn error<'a>(&'a self, message: &'a str) -> Task<'a, ()>;
    /// Runs `src` in a subshell whose standard output is `stdout`; its status.
    fn run_subshell<'a>(&'a mut self, src: &'a str, stdout: Output) -> Task<'a, i32>;
    /// For `/usr/bin/NAME` and the like: NAME, when the shell has it built in.
    fn standard_path<'p>(&self, path: &'p str) -> Option<&'p str>;
}

/// Word expansion, for every [`Frame`].
// Futures of the single-threaded executor are never sent across threads.
#[allow(async_fn_in_trait)]
pub trait Expand: Frame + Parameters {
    /// A word expanded to fields (brace expansion, then the rest for each word, with
    /// splitting and globbing), as command arguments are.
    async fn expand_fields(&mut self, raw: &str) -> Result<Vec<String>, ExpandError> {
        // Most words are plain text: nothing to expand, split or match.
        if !raw.is_empty() && !raw.contains(WORD_SPECIAL) {
            return Ok(vec![raw.to_string()]);
        }
        let words = brace_expand(raw, &self.shell_mut().parser)?;
        let mut out = Vec::new();
        for word in words {
            out.extend(self.expand_one_word(&word).await?);
        }
        Ok(out)
    }

    async fn expand_one_word(&mut self, raw: &str) -> Result<Vec<String>, ExpandError> {
        let segs = self.expand_segs(raw, false).await?;
        let ifs = self.shell_mut().ifs();
        let mut fields: Vec<Field> = Vec::new();
        let mut cur = Field::default();
        for seg in segs {
            match seg {
                Seg::Lit { text, quoted } => cur.push(&text, !quoted),
                Seg::Quoted(text) => cur.push(&text, false),
                Seg::Break => fields.push(std::mem::take(&mut cur)),
                Seg::Gap { .. } => {
                    if cur.started {
                        fields.push(std::mem::take(&mut cur));
                    }
                }
                Seg::NoFields => {}
                Seg::Split(text) => split_ifs(&text, &ifs, &mut cur, &mut fields),
            }
        }
        if cur.started {
            fields.push(cur);
        }
        let mut out = Vec::new();
        for f in fields {
            if f.globbing
                && !self.shell_mut().options.noglob
                && shell_base::pattern::has_glob(&f.pattern, self.shell_mut().shopt.extglob)
            {
                // A non-empty GLOBIGNORE drops the names it matches, and lets `*` match
                // dot files as `dotglob` does (never `.` and `..`).
                let ignore = self
                    .shell_mut()
                    .get("GLOBIGNORE")
                    .map(|g| g.to_string())
                    .filter(|g| !g.is_empty());
                let sh = &self.shell_mut().shopt;
                let opts = shell_base::glob::GlobOptions {
                    dotglob: sh.dotglob || ignore.is_some(),
                    globstar: sh.globstar,
                    nocaseglob: sh.nocaseglob,
                    extglob: sh.extglob,
                };
                let mut matches = shell_base::glob::glob(
                    std::path::Path::new(&self.shell_mut().cwd),
                    &f.pattern,
                    opts,
                );
                if let Some(ignore) = ignore {
                    let opts = MatchOptions {
                        extglob: opts.extglob,
                        nocase: false,
                    };
                    matches.retain(|m| !glob_ignored(m, &ignore, opts));
                }
                if matches.len() > shell_base::glob::MAX_GLOB_PATHS {
                    return Err(ExpandError::new(format!(
                        "{}: pathname expansion limit of {} paths exceeded",
                        f.text,
                        shell_base::glob::MAX_GLOB_PATHS
                    )));
                }
                if !matches.is_empty() {
                    out.extend(matches);
                    continue;
                }
                if self.shell_mut().shopt.failglob {
                    return Err(ExpandError {
                        message: format!("no match: {}", f.text),
                        status: 1,
                    });
                }
                if self.shell_mut().shopt.nullglob {
                    continue;
                }
            }
            out.push(f.text);
        }
        Ok(out)
    }

    /// What joins the values of an unquoted `$*` (IFS's first character) or `$@` (a space)
    /// where words are not split.
    fn joint(&mut self) -> impl Fn(bool) -> String + use<Self> {
        let first = self.shell_mut().ifs_joint();
        move |star| if star { first.clone() } else { " ".into() }
    }

    /// A word expanded to one string, without splitting or globbing (assignments, redirection
    /// targets, `case` words).
    async fn expand_string(&mut self, raw: &str) -> Result<String, ExpandError> {
        if !raw.contains(STRING_SPECIAL) {
            return Ok(raw.to_string());
        }
        let segs = self.expand_segs(raw, false).await?;
        let joint = self.joint();
        Ok(segs
            .into_iter()
            .map(|s| match s {
                Seg::Lit { text, .. } | Seg::Split(text) | Seg::Quoted(text) => text,
                Seg::Break => " ".into(),
                Seg::Gap { star } => joint(star),
                Seg::NoFields => String::new(),
            })
            .collect())
    }

    /// A word expanded to a pattern (for `case` and `${x#pattern}`): quoted parts matched
    /// literally.
    async fn expand_pattern(&mut self, raw: &str) -> Result<String, ExpandError> {
        let segs = self.expand_segs(raw, false).await?;
        let joint = self.joint();
        let mut f = Field::default();
        for s in segs {
            match s {
                Seg::Lit { text, quoted } => f.push(&text, !quoted),
                Seg::Split(text) => f.push(&text, true),
                Seg::Quoted(text) => f.push(&text, false),
                Seg::Break => f.push(" ", false),
                Seg::Gap { star } => f.push(&joint(star), false),
                Seg::NoFields => {}
            }
        }
        Ok(f.pattern)
    }

    /// The right side of `=~`: quoted parts match literally.
    async fn expand_regex(&mut self, raw: &str) -> Result<String, ExpandError> {
        let segs = self.expand_segs(raw, false).await?;
        let joint = self.joint();
        Ok(segs
            .into_iter()
            .map(|s| match s {
                Seg::Lit {
                    text,
                    quoted: false,
                }
                | Seg::Split(text) => text,
                Seg::Lit { text, .. } | Seg::Quoted(text) => regex::escape(&text),
                Seg::Break => " ".into(),
                Seg::Gap { star } => regex::escape(&joint(star)),
                Seg::NoFields => String::new(),
            })
            .collect())
    }

    fn expand_segs<'s>(
        &'s mut self,
        raw: &'s str,
        in_quotes: bool,
    ) -> shell_base::runtime::Task<'s, Result<Vec<Seg>, ExpandError>> {
        Box::pin(async move {
            let pieces = self.parse_word(raw)?;
            let segs = self.expand_pieces(pieces, in_quotes).await?;
            let size: usize = segs
                .iter()
                .map(|s| match s {
                    Seg::Lit { text, .. } | Seg::Split(text) | Seg::Quoted(text) => text.len(),
                    Seg::Break | Seg::Gap { .. } => 1,
                    Seg::NoFields => 0,
                })
                .sum();
            let limit = self.shell_mut().limits.expansion_bytes;
            if size > limit {
                return Err(ExpandError {
                    message: format!(
                        "expansion size limit of {limit} bytes exceeded (COMPUTER_SH_MAX_EXPANSION_BYTES)"
                    ),
                    status: 1,
                });
            }
            Ok(segs)
        })
    }

    fn expand_pieces(
        &mut self,
        pieces: Vec<WordPieceWithSource>,
        in_quotes: bool,
    ) -> shell_base::runtime::Task<'_, Result<Vec<Seg>, ExpandError>> {
        Box::pin(async move {
            let mut segs = Vec::new();
            for piece in pieces {
                let piece = match piece.piece {
                    WordPiece::BackquotedCommandSubstitution(src) => {
                        WordPiece::BackquotedCommandSubstitution(backquoted_text(&src, in_quotes))
                    }
                    other => other,
                };
                match piece {
                    WordPiece::Text(t) => segs.push(Seg::Lit {
                        text: t,
                        quoted: in_quotes,
                    }),
                    WordPiece::SingleQuotedText(t) => segs.push(Seg::Lit {
                        text: t,
                        quoted: true,
                    }),
                    WordPiece::AnsiCQuotedText(t) => segs.push(Seg::Lit {
                        text: ansi_c(&t),
                        quoted: true,
                    }),
                    WordPiece::EscapeSequence(t) => {
                        let c = t.strip_prefix('\\').unwrap_or(&t);
                        let text = if in_quotes && !matches!(c, "$" | "`" | "\"" | "\\" | "\n") {
                            t.clone()
                        } else if c == "\n" {
                            String::new()
                        } else {
                            c.to_string()
                        };
                        segs.push(Seg::Lit { text, quoted: true });
                    }
                    WordPiece::DoubleQuotedSequence(inner)
                    | WordPiece::GettextDoubleQuotedSequence(inner) => {
                        let inner = self.expand_pieces(inner, true).await?;
                        let inner: Vec<Seg> = if inner.iter().all(|s| matches!(s, Seg::NoFields))
                            && !inner.is_empty()
                        {
                            segs.push(Seg::NoFields);
                            Vec::new()
                        } else {
                            inner
                                .into_iter()
                                .filter(|s| !matches!(s, Seg::NoFields))
                                .collect()
                        };
                        if inner.is_empty() && !matches!(segs.last(), Some(Seg::NoFields)) {
                            segs.push(Seg::Quoted(String::new()));
                        }
                        segs.extend(inner);
                    }
                    WordPiece::TildeExpansion(t) => {
                        let home = match t {
                            word::TildeExpr::Home => self
                                .shell_mut()
                                .get("HOME")
                                .unwrap_or("/home/user")
                                .to_string(),
                            word::TildeExpr::WorkingDir => self.shell_mut().cwd.clone(),
                            word::TildeExpr::OldWorkingDir => {
                                self.shell_mut().get("OLDPWD").unwrap_or("").to_string()
                            }
                            word::TildeExpr::UserHome(u) => format!("~{u}"),
                            // No directory stack (pushd/popd) yet.
                            other => format!("~{other:?}"),
                        };
                        segs.push(Seg::Lit {
                            text: home,
                            quoted: true,
                        });
                    }
                    WordPiece::ParameterExpansion(expr) => {
                        let values = self.parameter(expr, in_quotes).await?;
                        push_values(&mut segs, values, in_quotes);
                    }
                    WordPiece::CommandSubstitution(src)
                    | WordPiece::BackquotedCommandSubstitution(src) => {
                        let out = self.substitute(&src).await;
                        segs.push(if in_quotes {
                            Seg::Quoted(out)
                        } else {
                            Seg::Split(out)
                        });
                    }
                    WordPiece::ArithmeticExpression(e) => {
                        let v = self.arith_text(&e.value).await?;
                        let v = v.to_string();
                        segs.push(if in_quotes {
                            Seg::Quoted(v)
                        } else {
                            Seg::Split(v)
                        });
                    }
                }
            }
            Ok(segs)
        })
    }

    /// A word's pieces, parsed once per distinct text (loops expand the same words again).
    fn parse_word(&mut self, raw: &str) -> Result<Vec<WordPieceWithSource>, ExpandError> {
        if let Some(pieces) = self.shell_mut().word_cache.borrow().get(raw) {
            return Ok(pieces.as_ref().clone());
        }
        let repaired = crate::repair::parenthesized_case_in_word(raw, false);
        let pieces = word::parse(repaired.as_deref().unwrap_or(raw), &self.shell_mut().parser)
            .map_err(|e| ExpandError::new(format!("bad substitution: {e}")))?;
        let mut cache = self.shell_mut().word_cache.borrow_mut();
        if cache.len() >= WORD_CACHE_ENTRIES {
            cache.clear();
        }
        cache.insert(raw.to_string(), std::rc::Rc::new(pieces.clone()));
        Ok(pieces)
    }

    /// Evaluates arithmetic text (itself expanded first, as bash does).
    async fn arith_text(&mut self, text: &str) -> Result<i64, ExpandError> {
        let text = self.expand_string(&arith_word(text)).await?;
        crate::arith::eval_text(self.shell_mut(), &text).map_err(|e| {
            if crate::arith::is_unbound(&e) {
                return ExpandError::new(e);
            }
            ExpandError::arith(e)
        })
    }

    /// `$(...)`: runs the source in a subshell and returns its output without trailing newlines.
    async fn substitute(&mut self, src: &str) -> String {
        if let Some(file) = src.trim().strip_prefix('<')
            && !file.starts_with('<')
            && let Ok(name) = self.expand_string(file.trim()).await
        {
            // `$(< file)`: the file's contents, without running anything.
            self.set_substitution_status(0);
            let mut out = match std::fs::read(self.shell_mut().path(&name)) {
                Ok(data) => String::from_utf8_lossy(&data).into_owned(),
                Err(e) => {
                    self.error(&format!("{name}: {}", shell_base::errno::io_message(&e)))
                        .await;
                    self.set_substitution_status(1);
                    String::new()
                }
            };
            while out.ends_with('\n') {
                out.pop();
            }
            return out;
        }
        let captured = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        let status = self
            .run_subshell(src, Output::Capture(std::rc::Rc::clone(&captured)))
            .await;
        self.set_substitution_status(status);
        let mut out = String::from_utf8_lossy(&captured.borrow()).into_owned();
        while out.ends_with('\n') {
            out.pop();
        }
        out
    }

    /// A pattern word compiled with the shell's options (`nocase` for `${x/…}` under
    /// `nocasematch`).
    async fn compile(&mut self, raw: &str, nocase_applies: bool) -> Result<Pattern, ExpandError> {
        let text = self.expand_pattern(raw).await?;
        Ok(Pattern::new(
            &text,
            MatchOptions {
                extglob: self.shell_mut().shopt.extglob,
                nocase: nocase_applies && self.shell_mut().shopt.nocasematch,
            },
        ))
    }

    /// A here-document's body, expanded as inside double quotes (quotes stay literal).
    async fn expand_heredoc(&mut self, body: &str) -> Result<String, ExpandError> {
        let repaired = crate::repair::parenthesized_case_in_word(body, true);
        let body = repaired.as_deref().unwrap_or(body);
        let pieces = brush_parser::word::parse_heredoc(body, &self.shell().parser)
            .map_err(|e| ExpandError::new(format!("bad substitution: {e}")))?;
        let mut out = String::new();
        for p in pieces {
            // Re-render each piece as a double-quoted word so quotes stay literal.
            let text = &body[p.start_index..p.end_index];
            match p.piece {
                brush_parser::word::WordPiece::Text(t) => out.push_str(&t),
                _ => out.push_str(&self.expand_string(&format!("\"{text}\"")).await?),
            }
        }
        Ok(out)
    }
}

impl<F: Frame + ?Sized> Expand for F {}

fn push_values(segs: &mut Vec<Seg>, values: Values, in_quotes: bool) {
    match values {
        Values::None => {}
        Values::Segs(s) => segs.extend(s),
        Values::One(v) => segs.push(if in_quotes {
            Seg::Quoted(v)
        } else {
            Seg::Split(v)
        }),
        Values::Fields(v) if v.is_empty() => segs.push(Seg::NoFields),
        Values::Fields(v) => {
            for (i, f) in v.into_iter().enumerate() {
                if i > 0 {
                    segs.push(Seg::Break);
                }
                segs.push(Seg::Quoted(f));
            }
        }
    }
}

/// The command in backquotes as the shell runs it: a backslash before `$`, `` ` `` or `\`
/// (and, inside double quotes, `"`) only quotes that character, and goes (POSIX; bash).
fn backquoted_text(src: &str, in_quotes: bool) -> String {
    let mut out = String::with_capacity(src.len());
    let mut chars = src.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\'
            && let Some(&next) = chars.peek()
            && (matches!(next, '$' | '`' | '\\') || (in_quotes && next == '"'))
        {
            out.push(next);
            chars.next();
            continue;
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    //! Expansion on a frame of its own, with no interpreter: `$(...)` is answered by the
    //! frame, so what is tested is expansion alone.

    use std::rc::Rc;

    use shell_base::Registry;
    use shell_base::io::Output;
    use shell_base::runtime::{Task, block_on};

    use super::{Expand, Frame};
    use crate::state::Shell;

    struct Fake {
        shell: Shell,
        ran: Vec<String>,
        substitution: Option<i32>,
    }

    impl Frame for Fake {
        fn shell(&self) -> &Shell {
            &self.shell
        }
        fn shell_mut(&mut self) -> &mut Shell {
            &mut self.shell
        }
        fn line(&self) -> usize {
            7
        }
        fn set_substitution_status(&mut self, status: i32) {
            self.substitution = Some(status);
        }
        fn error<'a>(&'a self, _: &'a str) -> Task<'a, ()> {
            Box::pin(async {})
        }
        fn run_subshell<'a>(&'a mut self, src: &'a str, stdout: Output) -> Task<'a, i32> {
            self.ran.push(src.to_string());
            Box::pin(async move {
                let _ = stdout.write_all(b"from the frame\n\n").await;
                3
            })
        }
        fn standard_path<'p>(&self, _: &'p str) -> Option<&'p str> {
            None
        }
    }

    fn fake() -> Fake {
        let mut shell = Shell::new("sh".into(), Vec::new(), Rc::new(Registry::new(&[])));
        shell.set("name", "report.tar.gz");
        Fake {
            shell,
            ran: Vec::new(),
            substitution: None,
        }
    }

    #[test]
    fn command_substitution_goes_to_the_frame() {
        let mut f = fake();
        let out = block_on(Box::pin(async {
            let word = f.expand_fields(r#"x"$(list files)"y"#).await.ok();
            let line = f.expand_fields("$LINENO").await.ok();
            (word, line)
        }));
        assert_eq!(
            out,
            (
                Some(vec!["xfrom the framey".into()]),
                Some(vec!["7".into()])
            )
        );
        assert_eq!(f.ran, ["list files"]);
        assert_eq!(f.substitution, Some(3));
    }

    #[test]
    fn parameters_split_and_braces_need_no_interpreter() {
        let mut f = fake();
        f.shell.set("v", "one  two");
        let out = block_on(Box::pin(async {
            let mut all = Vec::new();
            for word in ["${name%%.*}-{a,b}", "${#name}", "$v"] {
                all.extend(f.expand_fields(word).await.ok().unwrap_or_default());
            }
            all
        }));
        assert_eq!(out, ["report-a", "report-b", "13", "one", "two"]);
        let err = block_on(Box::pin(async {
            f.expand_string("${missing:?not set}").await
        }));
        assert_eq!(err.err().map(|e| e.status), Some(127));
    }
}
