//! Word expansion in bash's order: tilde, parameters, command substitution and arithmetic,
//! then field splitting on IFS and pathname expansion for unquoted parts, then quote removal.

use std::collections::VecDeque;

use brush_parser::word::{
    self, Parameter, ParameterExpr, ParameterTestType, SpecialParameter, WordPiece,
    WordPieceWithSource,
};

use crate::exec::Interp;
use crate::quote;
use crate::vars::{Key, Value};
use shell_base::pattern::{MatchOptions, Pattern};

/// Characters that make a word more than its own text (quotes, expansions, globs, braces).
const WORD_SPECIAL: &[char] = &['$', '`', '"', '\'', '\\', '~', '*', '?', '[', '{', '('];

/// The same where no splitting, globbing or brace expansion happens.
const STRING_SPECIAL: &[char] = &['$', '`', '"', '\'', '\\', '~'];

/// Distinct words whose parse is kept.
const WORD_CACHE_ENTRIES: usize = 4096;

/// One piece of an expanded word.
enum Seg {
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

impl Interp<'_> {
    /// A word expanded to fields (brace expansion, then the rest for each word, with
    /// splitting and globbing), as command arguments are.
    pub async fn expand_fields(&mut self, raw: &str) -> Result<Vec<String>, ExpandError> {
        // Most words are plain text: nothing to expand, split or match.
        if !raw.is_empty() && !raw.contains(WORD_SPECIAL) {
            return Ok(vec![raw.to_string()]);
        }
        let words = brace_expand(raw, &self.shell.parser)?;
        let mut out = Vec::new();
        for word in words {
            out.extend(self.expand_one_word(&word).await?);
        }
        Ok(out)
    }

    async fn expand_one_word(&mut self, raw: &str) -> Result<Vec<String>, ExpandError> {
        let segs = self.expand_segs(raw, false).await?;
        let ifs = self.shell.ifs();
        let mut fields: Vec<Field> = Vec::new();
        let mut cur = Field::default();
        for seg in segs {
            match seg {
                Seg::Lit { text, quoted } => cur.push(&text, !quoted),
                Seg::Quoted(text) => cur.push(&text, false),
                Seg::Break => fields.push(std::mem::take(&mut cur)),
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
                && !self.shell.options.noglob
                && shell_base::pattern::has_glob(&f.pattern, self.shell.shopt.extglob)
            {
                let sh = &self.shell.shopt;
                let opts = shell_base::glob::GlobOptions {
                    dotglob: sh.dotglob,
                    globstar: sh.globstar,
                    nocaseglob: sh.nocaseglob,
                    extglob: sh.extglob,
                };
                let matches =
                    shell_base::glob::glob(std::path::Path::new(&self.shell.cwd), &f.pattern, opts);
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
                if self.shell.shopt.failglob {
                    return Err(ExpandError {
                        message: format!("no match: {}", f.text),
                        status: 1,
                    });
                }
                if self.shell.shopt.nullglob {
                    continue;
                }
            }
            out.push(f.text);
        }
        Ok(out)
    }

    /// A word expanded to one string, without splitting or globbing (assignments, redirection
    /// targets, `case` words).
    pub async fn expand_string(&mut self, raw: &str) -> Result<String, ExpandError> {
        if !raw.contains(STRING_SPECIAL) {
            return Ok(raw.to_string());
        }
        let segs = self.expand_segs(raw, false).await?;
        Ok(segs
            .into_iter()
            .map(|s| match s {
                Seg::Lit { text, .. } | Seg::Split(text) | Seg::Quoted(text) => text,
                Seg::Break => " ".into(),
                Seg::NoFields => String::new(),
            })
            .collect())
    }

    /// A word expanded to a pattern (for `case` and `${x#pattern}`): quoted parts matched
    /// literally.
    pub async fn expand_pattern(&mut self, raw: &str) -> Result<String, ExpandError> {
        let segs = self.expand_segs(raw, false).await?;
        let mut f = Field::default();
        for s in segs {
            match s {
                Seg::Lit { text, quoted } => f.push(&text, !quoted),
                Seg::Split(text) => f.push(&text, true),
                Seg::Quoted(text) => f.push(&text, false),
                Seg::Break => f.push(" ", false),
                Seg::NoFields => {}
            }
        }
        Ok(f.pattern)
    }

    /// The right side of `=~`: quoted parts match literally.
    pub async fn expand_regex(&mut self, raw: &str) -> Result<String, ExpandError> {
        let segs = self.expand_segs(raw, false).await?;
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
                    Seg::Break => 1,
                    Seg::NoFields => 0,
                })
                .sum();
            let limit = self.shell.limits.expansion_bytes;
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
                match piece.piece {
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
                            word::TildeExpr::Home => {
                                self.shell.get("HOME").unwrap_or("/home/user").to_string()
                            }
                            word::TildeExpr::WorkingDir => self.shell.cwd.clone(),
                            word::TildeExpr::OldWorkingDir => {
                                self.shell.get("OLDPWD").unwrap_or("").to_string()
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
        if let Some(pieces) = self.shell.word_cache.borrow().get(raw) {
            return Ok(pieces.as_ref().clone());
        }
        let pieces = word::parse(raw, &self.shell.parser)
            .map_err(|e| ExpandError::new(format!("bad substitution: {e}")))?;
        let mut cache = self.shell.word_cache.borrow_mut();
        if cache.len() >= WORD_CACHE_ENTRIES {
            cache.clear();
        }
        cache.insert(raw.to_string(), std::rc::Rc::new(pieces.clone()));
        Ok(pieces)
    }

    /// Evaluates arithmetic text (itself expanded first, as bash does).
    pub async fn arith_text(&mut self, text: &str) -> Result<i64, ExpandError> {
        let text = self.expand_string(text).await?;
        crate::arith::eval_text(self.shell, &text).map_err(|e| {
            if crate::arith::is_unbound(&e) {
                return ExpandError::new(e);
            }
            ExpandError::arith(if e.starts_with(text.trim()) {
                e
            } else {
                format!("{text}: {e}")
            })
        })
    }

    /// `$(...)`: runs the source in a subshell and returns its output without trailing newlines.
    async fn substitute(&mut self, src: &str) -> String {
        if let Some(file) = src.trim().strip_prefix('<')
            && !file.starts_with('<')
            && let Ok(name) = self.expand_string(file.trim()).await
        {
            // `$(< file)`: the file's contents, without running anything.
            self.last_substitution = Some(0);
            let mut out = match std::fs::read(self.shell.path(&name)) {
                Ok(data) => String::from_utf8_lossy(&data).into_owned(),
                Err(e) => {
                    self.error(&format!("{name}: {}", shell_base::errno::io_message(&e)))
                        .await;
                    self.last_substitution = Some(1);
                    String::new()
                }
            };
            while out.ends_with('\n') {
                out.pop();
            }
            return out;
        }
        let captured = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        let mut sub = self.shell.clone();
        sub.traps.clear();
        sub.subshell = true;
        let io = shell_base::io::Io {
            stdin: self.io.stdin.clone(),
            stdout: shell_base::io::Output::Capture(std::rc::Rc::clone(&captured)),
            stderr: self.io.stderr.clone(),
            ..self.io.clone()
        };
        let status = {
            let mut interp = Interp::new(&mut sub, io);
            interp.line = self.line;
            interp.run_source(src).await;
            interp.run_exit_trap().await;
            interp.shell.status
        };
        self.last_substitution = Some(status);
        let mut out = String::from_utf8_lossy(&captured.borrow()).into_owned();
        while out.ends_with('\n') {
            out.pop();
        }
        out
    }

    /// The values of a parameter: several for `$@`, `$*` and `${a[@]}`, one otherwise, none
    /// when unset.
    async fn lookup(&mut self, p: &Parameter) -> Result<Option<Vec<String>>, ExpandError> {
        Ok(match p {
            Parameter::Positional(0) => Some(vec![self.shell.name.clone()]),
            Parameter::Positional(n) => self
                .shell
                .positional
                .get(*n as usize - 1)
                .map(|v| vec![v.clone()]),
            Parameter::Named(name) => match name.as_str() {
                "LINENO" => Some(vec![self.line.to_string()]),
                "RANDOM" => Some(vec![self.shell.random().to_string()]),
                "SECONDS" => Some(vec![self.shell.started.elapsed().as_secs().to_string()]),
                "FUNCNAME" => self.shell.funcname.last().map(|f| vec![f.clone()]),
                "PIPESTATUS" => self.shell.pipestatus.first().map(|s| vec![s.to_string()]),
                _ => self.shell.get(name).map(|v| vec![v.to_string()]),
            },
            Parameter::NamedWithIndex { name, index } if index == "@" || index == "*" => {
                self.all_values(name)
            }
            Parameter::NamedWithIndex { name, index } => {
                let key = self.subscript(name, index).await?;
                match (name.as_str(), &key) {
                    ("PIPESTATUS", Key::Index(i)) => usize::try_from(*i)
                        .ok()
                        .and_then(|i| self.shell.pipestatus.get(i))
                        .map(|s| vec![s.to_string()]),
                    ("FUNCNAME", Key::Index(i)) => usize::try_from(*i)
                        .ok()
                        .and_then(|i| self.shell.funcname.iter().rev().nth(i))
                        .map(|s| vec![s.clone()]),
                    _ => self.shell.element(name, &key).map(|v| vec![v]),
                }
            }
            Parameter::NamedWithAllIndices { name, .. } => self.all_values(name),
            Parameter::Special(s) => Some(match s {
                SpecialParameter::AllPositionalParameters { .. } => self.shell.positional.clone(),
                SpecialParameter::PositionalParameterCount => {
                    vec![self.shell.positional.len().to_string()]
                }
                SpecialParameter::LastExitStatus => vec![self.shell.status.to_string()],
                SpecialParameter::CurrentOptionFlags => vec![self.option_flags()],
                SpecialParameter::ProcessId => vec!["1".into()],
                SpecialParameter::LastBackgroundProcessId => match self.shell.last_job {
                    Some(id) => vec![id.to_string()],
                    None => return Ok(None),
                },
                SpecialParameter::ShellName => vec![self.shell.name.clone()],
            }),
        })
    }

    /// An array subscript: text for an associative array, arithmetic otherwise.
    pub async fn subscript(&mut self, name: &str, index: &str) -> Result<Key, ExpandError> {
        if self.shell.is_assoc(name) {
            Ok(Key::Name(self.expand_string(index).await?))
        } else {
            Ok(Key::Index(self.arith_text(index).await?))
        }
    }

    fn all_values(&self, name: &str) -> Option<Vec<String>> {
        match name {
            "PIPESTATUS" => Some(self.shell.pipestatus.iter().map(i32::to_string).collect()),
            "FUNCNAME" => Some(self.shell.funcname.iter().rev().cloned().collect()),
            "BASH_REMATCH" if self.shell.var(name).is_none() => None,
            _ => self.shell.values(name),
        }
    }

    fn option_flags(&self) -> String {
        let o = &self.shell.options;
        let mut s = String::new();
        for (on, c) in [
            (o.allexport, 'a'),
            (o.errexit, 'e'),
            (o.noglob, 'f'),
            (true, 'h'),
            (o.noexec, 'n'),
            (o.nounset, 'u'),
            (o.verbose, 'v'),
            (o.xtrace, 'x'),
            (true, 'B'),
            (o.noclobber, 'C'),
            (self.shell.origin.as_deref() == Some("-c"), 'c'),
        ] {
            if on {
                s.push(c);
            }
        }
        s
    }

    /// `${!x...}`: the parameter named by `x`'s value (a nameref's is its target's name).
    fn indirect_target(&self, p: &Parameter) -> Result<Parameter, ExpandError> {
        let name = match p {
            Parameter::Named(n) => n.clone(),
            Parameter::Positional(n) => self
                .shell
                .positional
                .get((*n as usize).wrapping_sub(1))
                .cloned()
                .unwrap_or_default(),
            _ => String::new(),
        };
        let text = match self.shell.vars.get(&name) {
            Some(v) if v.attrs.nameref => return Ok(Parameter::Named(self.shell.resolve(&name))),
            _ if matches!(p, Parameter::Named(_)) => {
                self.shell.get(&name).unwrap_or_default().to_string()
            }
            _ => name,
        };
        parse_parameter(&text)
            .ok_or_else(|| ExpandError::new(format!("{text}: invalid variable name")))
    }

    async fn parameter(
        &mut self,
        mut expr: ParameterExpr,
        in_quotes: bool,
    ) -> Result<Values, ExpandError> {
        match &expr {
            ParameterExpr::VariableNames {
                prefix,
                concatenate,
            } => {
                let mut names: Vec<String> = self
                    .shell
                    .vars
                    .iter()
                    .filter(|(n, v)| {
                        n.starts_with(prefix.as_str()) && !matches!(v.value, Value::Unset)
                    })
                    .map(|(n, _)| n.clone())
                    .collect();
                names.sort();
                return Ok(self.gather(names, !concatenate, *concatenate, in_quotes));
            }
            ParameterExpr::MemberKeys {
                variable_name,
                concatenate,
            } => {
                let keys = self.shell.keys(variable_name).unwrap_or_default();
                return Ok(self.gather(keys, !concatenate, *concatenate, in_quotes));
            }
            _ => {}
        }
        if let Some((parameter, indirect)) = parameter_of(&mut expr)
            && *indirect
        {
            *parameter = self.indirect_target(parameter)?;
            *indirect = false;
        }
        let parameter = parameter_of(&mut expr)
            .map(|(p, _)| p.clone())
            .unwrap_or(Parameter::Positional(0));
        let name = name_of(&parameter);
        let (all, star) = is_all(&parameter);
        let values = self.lookup(&parameter).await?;
        let unset_or_null = |t: &ParameterTestType| match t {
            ParameterTestType::UnsetOrNull => values
                .as_ref()
                .is_none_or(|v| v.iter().all(String::is_empty)),
            ParameterTestType::Unset => values.is_none(),
        };
        let nounset = |this: &Self| -> Result<(), ExpandError> {
            if values.is_none()
                && this.shell.options.nounset
                && !matches!(parameter, Parameter::Special(_))
            {
                let shown = match &parameter {
                    Parameter::Positional(n) => format!("${n}"),
                    _ => name.clone(),
                };
                return Err(ExpandError::new(format!("{shown}: unbound variable")));
            }
            Ok(())
        };
        let list = values.clone().unwrap_or_default();
        let trim = match &expr {
            ParameterExpr::RemoveSmallestSuffixPattern { .. } => (true, false),
            ParameterExpr::RemoveLargestSuffixPattern { .. } => (true, true),
            ParameterExpr::RemoveSmallestPrefixPattern { .. } => (false, false),
            _ => (false, true),
        };
        let case_op = match &expr {
            ParameterExpr::UppercasePattern { .. } => (true, true),
            ParameterExpr::LowercasePattern { .. } => (false, true),
            ParameterExpr::UppercaseFirstChar { .. } => (true, false),
            _ => (false, false),
        };
        let result: Vec<String> = match expr {
            ParameterExpr::Parameter { .. } => {
                nounset(self)?;
                list
            }
            ParameterExpr::UseDefaultValues {
                test_type,
                default_value,
                ..
            } => {
                if unset_or_null(&test_type) {
                    let word = default_value.unwrap_or_default();
                    return self.word_values(&word, in_quotes).await;
                }
                list
            }
            ParameterExpr::AssignDefaultValues {
                test_type,
                default_value,
                ..
            } => {
                if unset_or_null(&test_type) {
                    let value = self
                        .expand_string(&default_value.unwrap_or_default())
                        .await?;
                    let assigned = match &parameter {
                        Parameter::Named(n) => self.shell.assign(n, value.clone(), false),
                        Parameter::NamedWithIndex { name, index } => {
                            let key = self.subscript(name, index).await?;
                            self.shell.assign_element(name, key, value.clone(), false)
                        }
                        _ => Err(format!("${name}: cannot assign in this way")),
                    };
                    assigned.map_err(|m| ExpandError {
                        message: m,
                        status: 1,
                    })?;
                    vec![value]
                } else {
                    list
                }
            }
            ParameterExpr::IndicateErrorIfNullOrUnset {
                test_type,
                error_message,
                ..
            } => {
                if unset_or_null(&test_type) {
                    let msg = match error_message.filter(|m| !m.is_empty()) {
                        Some(m) => self.expand_string(&m).await?,
                        None if matches!(test_type, ParameterTestType::Unset) => {
                            "parameter not set".into()
                        }
                        None => "parameter null or not set".into(),
                    };
                    return Err(ExpandError::new(format!("{name}: {msg}")));
                }
                list
            }
            ParameterExpr::UseAlternativeValue {
                test_type,
                alternative_value,
                ..
            } => {
                if unset_or_null(&test_type) {
                    return Ok(Values::One(String::new()));
                }
                let word = alternative_value.unwrap_or_default();
                return self.word_values(&word, in_quotes).await;
            }
            ParameterExpr::ParameterLength { .. } => {
                nounset(self)?;
                let n = if all || star {
                    list.len()
                } else {
                    list.first().map(|v| v.chars().count()).unwrap_or(0)
                };
                return Ok(Values::One(n.to_string()));
            }
            ParameterExpr::RemoveSmallestSuffixPattern { pattern, .. }
            | ParameterExpr::RemoveLargestSuffixPattern { pattern, .. }
            | ParameterExpr::RemoveSmallestPrefixPattern { pattern, .. }
            | ParameterExpr::RemoveLargestPrefixPattern { pattern, .. } => {
                nounset(self)?;
                let pat = self.compile(&pattern.unwrap_or_default(), false).await?;
                let (suffix, largest) = trim;
                list.iter()
                    .map(|v| {
                        if suffix {
                            trim_suffix(v, &pat, largest)
                        } else {
                            trim_prefix(v, &pat, largest)
                        }
                    })
                    .collect()
            }
            ParameterExpr::Substring { offset, length, .. } => {
                nounset(self)?;
                let start = self.arith_text(&offset.value).await?;
                let length = match length {
                    Some(l) => Some(self.arith_text(&l.value).await?),
                    None => None,
                };
                if all || star {
                    // `${@:1:2}` counts `$0` as element 0; arrays slice their elements.
                    let items = if matches!(parameter, Parameter::Special(_)) {
                        std::iter::once(self.shell.name.clone())
                            .chain(list)
                            .collect()
                    } else {
                        list
                    };
                    let (from, to) = slice_range(items.len(), start, length)
                        .map_err(|m| ExpandError::arith(format!("{}: {m}", length.unwrap_or(0))))?;
                    items[from..to].to_vec()
                } else {
                    let value: Vec<char> =
                        list.first().cloned().unwrap_or_default().chars().collect();
                    let (from, to) = slice_range(value.len(), start, length)
                        .map_err(|m| ExpandError::arith(format!("{}: {m}", length.unwrap_or(0))))?;
                    vec![value[from..to].iter().collect()]
                }
            }
            ParameterExpr::UppercasePattern { pattern, .. }
            | ParameterExpr::LowercasePattern { pattern, .. }
            | ParameterExpr::UppercaseFirstChar { pattern, .. }
            | ParameterExpr::LowercaseFirstChar { pattern, .. } => {
                nounset(self)?;
                let pat = match pattern {
                    Some(p) if !p.is_empty() => Some(self.compile(&p, false).await?),
                    _ => None,
                };
                let (upper, every) = case_op;
                list.iter()
                    .map(|v| change_case(v, upper, every, pat.as_ref()))
                    .collect()
            }
            ParameterExpr::ReplaceSubstring {
                pattern,
                replacement,
                match_kind,
                ..
            } => {
                nounset(self)?;
                let pat = self.compile(&pattern, true).await?;
                let rep = self
                    .expand_pattern(&replacement.unwrap_or_default())
                    .await?;
                list.iter()
                    .map(|v| replace(v, &pat, &rep, match_kind.clone()))
                    .collect()
            }
            ParameterExpr::Transform { op, .. } => {
                return self.transform(&parameter, values, op, in_quotes);
            }
            ParameterExpr::VariableNames { .. } | ParameterExpr::MemberKeys { .. } => Vec::new(),
        };
        Ok(self.gather(result, all, star, in_quotes))
    }

    /// A list of values as a word's expansion: separate fields for `"$@"`-like forms in
    /// quotes, joined by IFS's first character for `"$*"`-like ones, by spaces otherwise.
    fn gather(&self, values: Vec<String>, all: bool, star: bool, in_quotes: bool) -> Values {
        if all && in_quotes {
            return Values::Fields(values);
        }
        if star && in_quotes {
            let sep: String = self
                .shell
                .ifs()
                .chars()
                .next()
                .map(String::from)
                .unwrap_or_default();
            return Values::One(values.join(&sep));
        }
        if values.is_empty() && (all || star) {
            return Values::None;
        }
        Values::One(values.join(" "))
    }

    /// The word of `${x:-word}` / `${x:+word}`: expanded like the surrounding context (so
    /// `"${x:-"$@"}"` keeps its fields).
    async fn word_values(&mut self, word: &str, in_quotes: bool) -> Result<Values, ExpandError> {
        let segs = self.expand_segs(word, in_quotes).await?;
        Ok(Values::Segs(
            segs.into_iter()
                .map(|s| match s {
                    Seg::Lit {
                        text,
                        quoted: false,
                    } => Seg::Split(text),
                    other => other,
                })
                .collect(),
        ))
    }

    /// A pattern word compiled with the shell's options (`nocase` for `${x/…}` under
    /// `nocasematch`).
    pub async fn compile(
        &mut self,
        raw: &str,
        nocase_applies: bool,
    ) -> Result<Pattern, ExpandError> {
        let text = self.expand_pattern(raw).await?;
        Ok(Pattern::new(
            &text,
            MatchOptions {
                extglob: self.shell.shopt.extglob,
                nocase: nocase_applies && self.shell.shopt.nocasematch,
            },
        ))
    }

    /// `${x@op}`.
    fn transform(
        &self,
        parameter: &Parameter,
        values: Option<Vec<String>>,
        op: word::ParameterTransformOp,
        in_quotes: bool,
    ) -> Result<Values, ExpandError> {
        use word::ParameterTransformOp as T;
        let (all, star) = is_all(parameter);
        let name = name_of(parameter);
        let Some(values) = values else {
            return Ok(match op {
                T::ToAttributeFlags => Values::One(
                    self.shell
                        .var(&name)
                        .map(crate::vars::flags_of)
                        .unwrap_or_default(),
                ),
                _ => Values::None,
            });
        };
        let utf8 = self.utf8();
        let out: Vec<String> = match op {
            T::Quoted => values.iter().map(|v| quote::single(v, utf8)).collect(),
            T::ExpandEscapeSequences => values.iter().map(|v| ansi_c(v)).collect(),
            T::ToUpperCase => values.iter().map(|v| v.to_uppercase()).collect(),
            T::ToLowerCase => values.iter().map(|v| v.to_lowercase()).collect(),
            T::CapitalizeInitial => values.iter().map(|v| first_char(v, true)).collect(),
            T::PromptExpand => values.iter().map(|v| self.prompt(v)).collect(),
            T::ToAttributeFlags => {
                let flags = self
                    .shell
                    .var(&name)
                    .map(crate::vars::flags_of)
                    .unwrap_or_default();
                values.iter().map(|_| flags.clone()).collect()
            }
            T::ToAssignmentLogic => {
                if (all || star) && !matches!(parameter, Parameter::Special(_)) {
                    vec![
                        self.shell
                            .declaration(&self.shell.resolve(&name))
                            .unwrap_or_default(),
                    ]
                } else {
                    let flags = self
                        .shell
                        .var(&name)
                        .map(crate::vars::flags_of)
                        .unwrap_or_default();
                    values
                        .iter()
                        .map(|v| {
                            let q = quote::single(v, utf8);
                            if flags.is_empty() {
                                format!("{name}={q}")
                            } else {
                                format!("declare -{flags} {name}={q}")
                            }
                        })
                        .collect()
                }
            }
            T::PossiblyQuoteWithArraysExpanded { .. } => {
                let keys = self.shell.keys(&name).unwrap_or_default();
                match self.shell.var(&name).map(|v| &v.value) {
                    Some(Value::Array(_) | Value::Assoc(_)) if all || star => keys
                        .iter()
                        .zip(&values)
                        .map(|(k, v)| format!("{k} {}", crate::vars::double_quote(v)))
                        .collect(),
                    _ => values.iter().map(|v| quote::single(v, utf8)).collect(),
                }
            }
        };
        Ok(self.gather(out, all, star, in_quotes))
    }

    /// Whether the locale is UTF-8 (else bash's C locale rules for quoting).
    pub fn utf8(&self) -> bool {
        ["LC_ALL", "LC_CTYPE", "LANG"]
            .iter()
            .find_map(|k| self.shell.get(k).filter(|v| !v.is_empty()))
            .is_some_and(|v| {
                let v = v.to_ascii_lowercase();
                v.contains("utf-8") || v.contains("utf8")
            })
    }

    /// Prompt escapes (`${x@P}`, `PS1`): `\u \h \H \w \W \$ \n \t`-style.
    pub fn prompt(&self, text: &str) -> String {
        let mut out = String::new();
        let mut chars = text.chars();
        while let Some(c) = chars.next() {
            if c != '\\' {
                out.push(c);
                continue;
            }
            match chars.next() {
                Some('u') => out.push_str(self.shell.get("USER").unwrap_or("user")),
                Some('h') | Some('H') => {
                    out.push_str(self.shell.get("HOSTNAME").unwrap_or("computer"))
                }
                Some('w') => {
                    let home = self.shell.get("HOME").unwrap_or("");
                    let cwd = &self.shell.cwd;
                    match cwd.strip_prefix(home) {
                        Some(rest)
                            if !home.is_empty() && (rest.is_empty() || rest.starts_with('/')) =>
                        {
                            out.push('~');
                            out.push_str(rest);
                        }
                        _ => out.push_str(cwd),
                    }
                }
                Some('W') => out.push_str(
                    self.shell
                        .cwd
                        .rsplit('/')
                        .next()
                        .filter(|s| !s.is_empty())
                        .unwrap_or("/"),
                ),
                Some('$') => out.push('$'),
                Some('n') => out.push('\n'),
                Some('s') => out.push_str("computer"),
                Some('\\') => out.push('\\'),
                Some('[') | Some(']') => {}
                Some(o) => {
                    out.push('\\');
                    out.push(o);
                }
                None => out.push('\\'),
            }
        }
        out
    }
}

/// What a parameter expands to.
enum Values {
    None,
    One(String),
    Fields(Vec<String>),
    /// Pieces expanded in place (`${x:-word}`'s word).
    Segs(Vec<Seg>),
}

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

fn first_char(s: &str, upper: bool) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if upper => c.to_uppercase().chain(chars).collect(),
        Some(c) => c.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Char boundaries of `s`, including its end.
fn bounds(s: &str) -> Vec<usize> {
    s.char_indices()
        .map(|(i, _)| i)
        .chain(std::iter::once(s.len()))
        .collect()
}

fn trim_prefix(value: &str, pat: &Pattern, largest: bool) -> String {
    let b = bounds(value);
    let order: Box<dyn Iterator<Item = &usize>> = if largest {
        Box::new(b.iter().rev())
    } else {
        Box::new(b.iter())
    };
    for &i in order {
        if pat.matches(&value[..i]) {
            return value[i..].to_string();
        }
    }
    value.to_string()
}

fn trim_suffix(value: &str, pat: &Pattern, largest: bool) -> String {
    let b = bounds(value);
    let order: Box<dyn Iterator<Item = &usize>> = if largest {
        Box::new(b.iter())
    } else {
        Box::new(b.iter().rev())
    };
    for &i in order {
        if pat.matches(&value[i..]) {
            return value[..i].to_string();
        }
    }
    value.to_string()
}

/// `${x/pat/rep}`: in `rep` (as `expand_pattern` gives it, quoted characters escaped) an
/// unquoted `&` stands for the matched text (bash 5.2's `patsub_replacement`).
fn replace(value: &str, pat: &Pattern, rep: &str, kind: word::SubstringMatchKind) -> String {
    let with = |matched: &str| -> String {
        let mut out = String::new();
        let mut chars = rep.chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => out.extend(chars.next()),
                '&' => out.push_str(matched),
                c => out.push(c),
            }
        }
        out
    };
    use word::SubstringMatchKind as K;
    let b = bounds(value);
    match kind {
        K::Prefix => {
            for &end in b.iter().rev() {
                if pat.matches(&value[..end]) {
                    return format!("{}{}", with(&value[..end]), &value[end..]);
                }
            }
            value.to_string()
        }
        K::Suffix => {
            for &start in &b {
                if pat.matches(&value[start..]) {
                    return format!("{}{}", &value[..start], with(&value[start..]));
                }
            }
            value.to_string()
        }
        K::FirstOccurrence | K::Anywhere => {
            let all = matches!(kind, K::Anywhere);
            let mut out = String::new();
            let mut i = 0;
            let mut replaced = false;
            while i < value.len() {
                let found = if replaced && !all {
                    None
                } else {
                    b.iter()
                        .rev()
                        .filter(|&&e| e > i)
                        .find(|&&e| pat.matches(&value[i..e]))
                        .copied()
                };
                match found {
                    Some(end) => {
                        out.push_str(&with(&value[i..end]));
                        i = end;
                        replaced = true;
                    }
                    None => {
                        let c = value[i..].chars().next().unwrap_or_default();
                        out.push(c);
                        i += c.len_utf8();
                    }
                }
            }
            out
        }
    }
}

/// `$'...'` escapes.
fn ansi_c(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some(c) if shell_base::format::simple_escape(c).is_some() => {
                out.push(shell_base::format::simple_escape(c).unwrap_or(c));
            }
            Some('E') => out.push('\x1b'),
            Some('\'') => out.push('\''),
            Some('"') => out.push('"'),
            Some('?') => out.push('?'),
            Some(d @ '0'..='7') => {
                let mut v = d.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match chars.peek().and_then(|c| c.to_digit(8)) {
                        Some(n) => {
                            v = v * 8 + n;
                            chars.next();
                        }
                        None => break,
                    }
                }
                out.push(char::from_u32(v & 0xff).unwrap_or('\0'));
            }
            Some(x @ ('x' | 'u' | 'U')) => {
                let max = match x {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                let mut v = 0u32;
                let mut n = 0;
                while n < max {
                    match chars.peek().and_then(|c| c.to_digit(16)) {
                        Some(d) => {
                            v = v * 16 + d;
                            chars.next();
                            n += 1;
                        }
                        None => break,
                    }
                }
                if n == 0 {
                    out.push('\\');
                    out.push(x);
                } else {
                    out.push(char::from_u32(v).unwrap_or('\u{fffd}'));
                }
            }
            Some('c') => match chars.next() {
                Some(c) => {
                    out.push(char::from_u32(c.to_ascii_uppercase() as u32 ^ 0x40).unwrap_or(c))
                }
                None => out.push_str("\\c"),
            },
            Some(o) => {
                out.push('\\');
                out.push(o);
            }
            None => out.push('\\'),
        }
    }
    out
}

/// Words one brace expansion may produce before it fails with a named error.
const MAX_BRACE_WORDS: usize = 100_000;

/// `a{b,c}d` → `abd acd`; `{1..5..2}` → `1 3 5`; `{01..3}` → `01 02 03`; `{a..c}` →
/// `a b c`. Quoted braces stay.
fn brace_expand(raw: &str, opts: &brush_parser::ParserOptions) -> Result<Vec<String>, ExpandError> {
    if !raw.contains('{') {
        return Ok(vec![raw.to_string()]);
    }
    match word::parse_brace_expansions(raw, opts) {
        Ok(Some(pieces)) => {
            let mut widths = sequence_widths(raw, &pieces);
            brace_words(&pieces, &mut widths)
        }
        _ => Ok(vec![raw.to_string()]),
    }
}

/// The width of each numeric sequence, in order: bash pads every number to the longer end
/// when an end is written with a leading zero (`{01..10}`, `{-05..5}`), 0 for none. The
/// parser gives the numbers only, so the ends are read again from the text; when the text's
/// sequences do not pair with the parser's (a quoted `"{01..2}"`), none is padded.
fn sequence_widths(raw: &str, pieces: &[word::BraceExpressionOrText]) -> VecDeque<usize> {
    fn count(pieces: &[word::BraceExpressionOrText]) -> usize {
        pieces
            .iter()
            .map(|p| match p {
                word::BraceExpressionOrText::Text(_) => 0,
                word::BraceExpressionOrText::Expr(members) => members
                    .iter()
                    .map(|m| match m {
                        word::BraceExpressionMember::NumberSequence { .. } => 1,
                        word::BraceExpressionMember::CharSequence { .. } => 0,
                        word::BraceExpressionMember::Child(inner) => count(inner),
                    })
                    .sum(),
            })
            .sum()
    }
    static SEQUENCE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"\{(-?[0-9]+)\.\.(-?[0-9]+)(?:\.\.-?[0-9]+)?\}").unwrap()
    });
    let padded = |end: &str| {
        let digits = end.strip_prefix('-').unwrap_or(end);
        digits.len() > 1 && digits.starts_with('0')
    };
    let widths: VecDeque<usize> = SEQUENCE
        .captures_iter(raw)
        .map(|c| {
            let (a, b) = (&c[1], &c[2]);
            if padded(a) || padded(b) {
                a.len().max(b.len())
            } else {
                0
            }
        })
        .collect();
    if widths.len() == count(pieces) {
        widths
    } else {
        VecDeque::new()
    }
}

fn brace_limit() -> ExpandError {
    ExpandError::new(format!(
        "brace expansion limit of {MAX_BRACE_WORDS} words exceeded"
    ))
}

fn brace_words(
    pieces: &[word::BraceExpressionOrText],
    widths: &mut VecDeque<usize>,
) -> Result<Vec<String>, ExpandError> {
    let mut words = vec![String::new()];
    for piece in pieces {
        let alternatives = match piece {
            word::BraceExpressionOrText::Text(t) => vec![t.clone()],
            word::BraceExpressionOrText::Expr(members) => {
                let mut all = Vec::new();
                for m in members {
                    all.extend(brace_member(m, widths)?);
                }
                all
            }
        };
        if words.len().saturating_mul(alternatives.len()) > MAX_BRACE_WORDS {
            return Err(brace_limit());
        }
        words = words
            .iter()
            .flat_map(|w| alternatives.iter().map(move |a| format!("{w}{a}")))
            .collect();
    }
    Ok(words)
}

fn brace_member(
    m: &word::BraceExpressionMember,
    widths: &mut VecDeque<usize>,
) -> Result<Vec<String>, ExpandError> {
    use word::BraceExpressionMember as M;
    let steps = |start: i64, end: i64, inc: i64| -> Result<Vec<i64>, ExpandError> {
        let step = inc.unsigned_abs().max(1) as i64;
        let count = (end - start).unsigned_abs() / step as u64 + 1;
        if count as usize > MAX_BRACE_WORDS {
            return Err(brace_limit());
        }
        let dir = if end >= start { step } else { -step };
        Ok((0..count as i64).map(|i| start + i * dir).collect())
    };
    Ok(match m {
        M::NumberSequence {
            start,
            end,
            increment,
        } => {
            let width = widths.pop_front().unwrap_or(0);
            steps(*start, *end, *increment)?
                .into_iter()
                .map(|n| format!("{n:0width$}"))
                .collect()
        }
        M::CharSequence {
            start,
            end,
            increment,
        } => steps(*start as i64, *end as i64, *increment)?
            .into_iter()
            .filter_map(|c| char::from_u32(c as u32))
            .map(String::from)
            .collect(),
        M::Child(pieces) => brace_words(pieces, widths)?,
    })
}

/// Whether a parameter stands for all of a list: (`$@`/`${a[@]}`, `$*`/`${a[*]}`).
fn is_all(p: &Parameter) -> (bool, bool) {
    match p {
        Parameter::Special(SpecialParameter::AllPositionalParameters { concatenate }) => {
            (!concatenate, *concatenate)
        }
        Parameter::NamedWithIndex { index, .. } => (index == "@", index == "*"),
        Parameter::NamedWithAllIndices { concatenate, .. } => (!concatenate, *concatenate),
        _ => (false, false),
    }
}

/// The parameter of an expansion and its `!` flag.
fn parameter_of(expr: &mut ParameterExpr) -> Option<(&mut Parameter, &mut bool)> {
    use ParameterExpr as P;
    match expr {
        P::Parameter {
            parameter,
            indirect,
        }
        | P::UseDefaultValues {
            parameter,
            indirect,
            ..
        }
        | P::AssignDefaultValues {
            parameter,
            indirect,
            ..
        }
        | P::IndicateErrorIfNullOrUnset {
            parameter,
            indirect,
            ..
        }
        | P::UseAlternativeValue {
            parameter,
            indirect,
            ..
        }
        | P::ParameterLength {
            parameter,
            indirect,
        }
        | P::RemoveSmallestSuffixPattern {
            parameter,
            indirect,
            ..
        }
        | P::RemoveLargestSuffixPattern {
            parameter,
            indirect,
            ..
        }
        | P::RemoveSmallestPrefixPattern {
            parameter,
            indirect,
            ..
        }
        | P::RemoveLargestPrefixPattern {
            parameter,
            indirect,
            ..
        }
        | P::Substring {
            parameter,
            indirect,
            ..
        }
        | P::Transform {
            parameter,
            indirect,
            ..
        }
        | P::UppercaseFirstChar {
            parameter,
            indirect,
            ..
        }
        | P::UppercasePattern {
            parameter,
            indirect,
            ..
        }
        | P::LowercaseFirstChar {
            parameter,
            indirect,
            ..
        }
        | P::LowercasePattern {
            parameter,
            indirect,
            ..
        }
        | P::ReplaceSubstring {
            parameter,
            indirect,
            ..
        } => Some((parameter, indirect)),
        P::VariableNames { .. } | P::MemberKeys { .. } => None,
    }
}

/// A parameter's name as messages show it.
fn name_of(p: &Parameter) -> String {
    match p {
        Parameter::Named(n) => n.clone(),
        Parameter::NamedWithIndex { name, index } => format!("{name}[{index}]"),
        Parameter::NamedWithAllIndices { name, .. } => name.clone(),
        Parameter::Positional(n) => n.to_string(),
        Parameter::Special(s) => s.to_string(),
    }
}

/// The parameter a `${!x}` value names: `name`, `name[sub]`, a number, or `@ * # ? $ ! 0`.
fn parse_parameter(text: &str) -> Option<Parameter> {
    if let Ok(n) = text.parse::<u32>() {
        return Some(Parameter::Positional(n));
    }
    if let Some((name, rest)) = text.split_once('[')
        && let Some(index) = rest.strip_suffix(']')
        && crate::vars::is_name(name)
    {
        return Some(Parameter::NamedWithIndex {
            name: name.into(),
            index: index.into(),
        });
    }
    if crate::vars::is_name(text) {
        return Some(Parameter::Named(text.into()));
    }
    let special = match text {
        "@" => SpecialParameter::AllPositionalParameters { concatenate: false },
        "*" => SpecialParameter::AllPositionalParameters { concatenate: true },
        "#" => SpecialParameter::PositionalParameterCount,
        "?" => SpecialParameter::LastExitStatus,
        "-" => SpecialParameter::CurrentOptionFlags,
        "$" => SpecialParameter::ProcessId,
        "!" => SpecialParameter::LastBackgroundProcessId,
        _ => return None,
    };
    Some(Parameter::Special(special))
}

/// `${x:offset:length}`'s range over `len` items (negative offsets count from the end; a
/// negative length is an end offset).
fn slice_range(len: usize, offset: i64, length: Option<i64>) -> Result<(usize, usize), String> {
    let len = len as i64;
    let start = if offset < 0 { len + offset } else { offset };
    if start < 0 || start > len {
        return Ok((0, 0));
    }
    let end = match length {
        None => len,
        Some(l) if l < 0 => {
            let e = len + l;
            if e < start {
                return Err("substring expression < 0".into());
            }
            e
        }
        Some(l) => (start + l).min(len),
    };
    Ok((start as usize, end as usize))
}

/// `${x^^pat}`, `${x,pat}`...: changes the case of the first character or all of them (those
/// matching `pat` when given).
fn change_case(value: &str, upper: bool, every: bool, pat: Option<&Pattern>) -> String {
    let mut out = String::new();
    for (i, c) in value.chars().enumerate() {
        let applies = (every || i == 0) && pat.is_none_or(|p| p.matches(&c.to_string()));
        if applies && upper {
            out.extend(c.to_uppercase());
        } else if applies {
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// Field splitting of an unquoted expansion's text on IFS, bash's way: runs of IFS
/// whitespace separate (and are dropped at the ends); each other IFS character ends a field,
/// so `a::b` has an empty field in the middle. `cur` is the field being built.
fn split_ifs(text: &str, ifs: &str, cur: &mut Field, fields: &mut Vec<Field>) {
    let is_ws = |c: char| ifs.contains(c) && matches!(c, ' ' | '\t' | '\n');
    let is_sep = |c: char| ifs.contains(c) && !is_ws(c);
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if !is_ws(c) && !is_sep(c) {
            let start = i;
            while i < chars.len() && !is_ws(chars[i]) && !is_sep(chars[i]) {
                i += 1;
            }
            cur.push(&chars[start..i].iter().collect::<String>(), true);
            continue;
        }
        // A delimiter: whitespace, at most one other IFS character, whitespace.
        let mut hard = false;
        while i < chars.len() && is_ws(chars[i]) {
            i += 1;
        }
        if i < chars.len() && is_sep(chars[i]) {
            hard = true;
            i += 1;
            while i < chars.len() && is_ws(chars[i]) {
                i += 1;
            }
        }
        if hard || cur.started {
            cur.started = true;
            fields.push(std::mem::take(cur));
        }
    }
}
