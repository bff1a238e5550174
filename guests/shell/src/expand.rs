//! Word expansion in bash's order: tilde, parameters, command substitution and arithmetic,
//! then field splitting on IFS and pathname expansion for unquoted parts, then quote removal.

use brush_parser::word::{
    self, Parameter, ParameterExpr, ParameterTestType, SpecialParameter, WordPiece,
    WordPieceWithSource,
};

use crate::exec::Interp;
use crate::state::{arith, pattern_match};

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
            if matches!(c, '*' | '?' | '[' | ']' | '\\') && !active {
                self.pattern.push('\\');
            } else if matches!(c, '*' | '?' | '[') {
                self.globbing = true;
            }
            self.pattern.push(c);
        }
    }
}

/// An expansion error that ends the command (and a non-interactive shell): `${x:?}`, bad
/// arithmetic, unbound variables under `set -u`.
pub struct ExpandError(pub String);

impl Interp<'_> {
    /// A word expanded to fields (brace expansion, then the rest for each word, with
    /// splitting and globbing), as command arguments are.
    pub async fn expand_fields(&mut self, raw: &str) -> Result<Vec<String>, ExpandError> {
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
                Seg::Split(text) => {
                    let mut pieces = text.split(|c: char| ifs.contains(c)).peekable();
                    let leading = text.starts_with(|c: char| ifs.contains(c));
                    if leading && cur.started {
                        fields.push(std::mem::take(&mut cur));
                    }
                    while let Some(piece) = pieces.next() {
                        if !piece.is_empty() {
                            cur.push(piece, true);
                        }
                        if pieces.peek().is_some() && cur.started {
                            fields.push(std::mem::take(&mut cur));
                        }
                    }
                }
            }
        }
        if cur.started {
            fields.push(cur);
        }
        let mut out = Vec::new();
        for f in fields {
            if f.globbing {
                let matches = self.glob(&f.pattern);
                if !matches.is_empty() {
                    out.extend(matches);
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
        let segs = self.expand_segs(raw, false).await?;
        Ok(segs
            .into_iter()
            .map(|s| match s {
                Seg::Lit { text, .. } | Seg::Split(text) | Seg::Quoted(text) => text,
                Seg::Break => " ".into(),
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
            }
        }
        Ok(f.pattern)
    }

    fn expand_segs<'s>(
        &'s mut self,
        raw: &'s str,
        in_quotes: bool,
    ) -> crate::runtime::Task<'s, Result<Vec<Seg>, ExpandError>> {
        Box::pin(async move {
            let pieces = word::parse(raw, &self.shell.parser)
                .map_err(|e| ExpandError(format!("bad substitution: {e}")))?;
            self.expand_pieces(pieces, in_quotes).await
        })
    }

    fn expand_pieces(
        &mut self,
        pieces: Vec<WordPieceWithSource>,
        in_quotes: bool,
    ) -> crate::runtime::Task<'_, Result<Vec<Seg>, ExpandError>> {
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
                        if inner.is_empty() {
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

    /// Evaluates arithmetic text (itself expanded first, as bash does).
    pub async fn arith_text(&mut self, text: &str) -> Result<i64, ExpandError> {
        let text = self.expand_string(text).await?;
        let expr = brush_parser::arithmetic::parse(&text)
            .map_err(|_| ExpandError(format!("{text}: syntax error in expression")))?;
        arith(self.shell, &expr).map_err(|e| ExpandError(format!("{text}: {e}")))
    }

    /// `$(...)`: runs the source in a subshell and returns its output without trailing newlines.
    async fn substitute(&mut self, src: &str) -> String {
        let captured = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        let mut sub = self.shell.clone();
        let io = crate::io::Io {
            stdin: self.io.stdin.clone(),
            stdout: crate::io::Output::Capture(std::rc::Rc::clone(&captured)),
            stderr: self.io.stderr.clone(),
        };
        let status = {
            let mut interp = Interp::new(&mut sub, io);
            interp.run_source(src).await;
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
                _ => self.shell.get(name).map(|v| vec![v.to_string()]),
            },
            Parameter::NamedWithIndex { name, index } if index == "@" || index == "*" => {
                self.all_values(name)
            }
            Parameter::NamedWithIndex { name, index } => {
                let i = self.arith_text(index).await?;
                if name == "PIPESTATUS" {
                    usize::try_from(i)
                        .ok()
                        .and_then(|i| self.shell.pipestatus.get(i))
                        .map(|s| vec![s.to_string()])
                } else {
                    self.shell.element(name, i).map(|v| vec![v])
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
                SpecialParameter::LastBackgroundProcessId => vec![String::new()],
                SpecialParameter::ShellName => vec![self.shell.name.clone()],
            }),
        })
    }

    fn all_values(&self, name: &str) -> Option<Vec<String>> {
        if name == "PIPESTATUS" {
            return Some(
                self.shell
                    .pipestatus
                    .iter()
                    .map(|s| s.to_string())
                    .collect(),
            );
        }
        self.shell.values(name)
    }

    fn option_flags(&self) -> String {
        let o = &self.shell.options;
        let mut s = String::from("h");
        if o.errexit {
            s.push('e');
        }
        if o.nounset {
            s.push('u');
        }
        if o.xtrace {
            s.push('x');
        }
        s
    }

    async fn parameter(
        &mut self,
        expr: ParameterExpr,
        in_quotes: bool,
    ) -> Result<Values, ExpandError> {
        let name_of = |p: &Parameter| match p {
            Parameter::Named(n)
            | Parameter::NamedWithIndex { name: n, .. }
            | Parameter::NamedWithAllIndices { name: n, .. } => n.clone(),
            Parameter::Positional(n) => n.to_string(),
            Parameter::Special(s) => s.to_string(),
        };
        let unset_or_null = |v: &Option<Vec<String>>, t: &ParameterTestType| match t {
            ParameterTestType::UnsetOrNull => {
                v.as_ref().is_none_or(|v| v.iter().all(String::is_empty))
            }
            ParameterTestType::Unset => v.is_none(),
        };
        let join = |v: Option<Vec<String>>| v.map(|v| v.join(" ")).unwrap_or_default();
        let expr_kind = match &expr {
            ParameterExpr::RemoveSmallestSuffixPattern { .. } => Trim::SmallestSuffix,
            ParameterExpr::RemoveLargestSuffixPattern { .. } => Trim::LargestSuffix,
            ParameterExpr::RemoveSmallestPrefixPattern { .. } => Trim::SmallestPrefix,
            _ => Trim::LargestPrefix,
        };
        Ok(match expr {
            ParameterExpr::Parameter { parameter, .. } => {
                let v = self.lookup(&parameter).await?;
                if v.is_none()
                    && self.shell.options.nounset
                    && !matches!(parameter, Parameter::Special(_))
                {
                    return Err(ExpandError(format!(
                        "{}: unbound variable",
                        name_of(&parameter)
                    )));
                }
                let (all, star) = is_all(&parameter);
                match v {
                    Some(v) if all && in_quotes => Values::Fields(v),
                    Some(v) if star && in_quotes => {
                        let sep = self
                            .shell
                            .ifs()
                            .chars()
                            .next()
                            .map(String::from)
                            .unwrap_or_default();
                        Values::One(v.join(&sep))
                    }
                    Some(v) => Values::One(v.join(" ")),
                    None => Values::None,
                }
            }
            ParameterExpr::UseDefaultValues {
                parameter,
                test_type,
                default_value,
                ..
            } => {
                let v = self.lookup(&parameter).await?;
                if unset_or_null(&v, &test_type) {
                    Values::One(
                        self.expand_string(&default_value.unwrap_or_default())
                            .await?,
                    )
                } else {
                    Values::One(join(v))
                }
            }
            ParameterExpr::AssignDefaultValues {
                parameter,
                test_type,
                default_value,
                ..
            } => {
                let v = self.lookup(&parameter).await?;
                if unset_or_null(&v, &test_type) {
                    let value = self
                        .expand_string(&default_value.unwrap_or_default())
                        .await?;
                    self.shell.set(&name_of(&parameter), value.clone());
                    Values::One(value)
                } else {
                    Values::One(join(v))
                }
            }
            ParameterExpr::IndicateErrorIfNullOrUnset {
                parameter,
                test_type,
                error_message,
                ..
            } => {
                let v = self.lookup(&parameter).await?;
                if unset_or_null(&v, &test_type) {
                    let msg = match error_message {
                        Some(m) => self.expand_string(&m).await?,
                        None => "parameter null or not set".into(),
                    };
                    return Err(ExpandError(format!("{}: {msg}", name_of(&parameter))));
                }
                Values::One(join(v))
            }
            ParameterExpr::UseAlternativeValue {
                parameter,
                test_type,
                alternative_value,
                ..
            } => {
                let v = self.lookup(&parameter).await?;
                if unset_or_null(&v, &test_type) {
                    Values::One(String::new())
                } else {
                    Values::One(
                        self.expand_string(&alternative_value.unwrap_or_default())
                            .await?,
                    )
                }
            }
            ParameterExpr::ParameterLength { parameter, .. } => {
                let values = self.lookup(&parameter).await?;
                let n = match values {
                    Some(v) if is_all(&parameter) != (false, false) => v.len(),
                    v => join(v).chars().count(),
                };
                Values::One(n.to_string())
            }
            ParameterExpr::RemoveSmallestSuffixPattern {
                parameter, pattern, ..
            }
            | ParameterExpr::RemoveLargestSuffixPattern {
                parameter, pattern, ..
            }
            | ParameterExpr::RemoveSmallestPrefixPattern {
                parameter, pattern, ..
            }
            | ParameterExpr::RemoveLargestPrefixPattern {
                parameter, pattern, ..
            } => {
                let suffix = matches!(expr_kind, Trim::SmallestSuffix | Trim::LargestSuffix);
                let largest = matches!(expr_kind, Trim::LargestSuffix | Trim::LargestPrefix);
                let pat = self.expand_pattern(&pattern.unwrap_or_default()).await?;
                let value = join(self.lookup(&parameter).await?);
                Values::One(if suffix {
                    trim_suffix(&value, &pat, largest)
                } else {
                    trim_prefix(&value, &pat, largest)
                })
            }
            ParameterExpr::Substring {
                parameter,
                offset,
                length,
                ..
            } => {
                let value: Vec<char> = join(self.lookup(&parameter).await?).chars().collect();
                let len = value.len() as i64;
                let mut start = self.arith_text(&offset.value).await?;
                if start < 0 {
                    start = (len + start).max(0);
                }
                let start = start.min(len);
                let end = match length {
                    None => len,
                    Some(l) => {
                        let l = self.arith_text(&l.value).await?;
                        if l < 0 {
                            (len + l).max(start)
                        } else {
                            (start + l).min(len)
                        }
                    }
                };
                Values::One(value[start as usize..end as usize].iter().collect())
            }
            ParameterExpr::UppercasePattern { parameter, .. } => {
                Values::One(join(self.lookup(&parameter).await?).to_uppercase())
            }
            ParameterExpr::LowercasePattern { parameter, .. } => {
                Values::One(join(self.lookup(&parameter).await?).to_lowercase())
            }
            ParameterExpr::UppercaseFirstChar { parameter, .. } => {
                Values::One(first_char(&join(self.lookup(&parameter).await?), true))
            }
            ParameterExpr::LowercaseFirstChar { parameter, .. } => {
                Values::One(first_char(&join(self.lookup(&parameter).await?), false))
            }
            ParameterExpr::ReplaceSubstring {
                parameter,
                pattern,
                replacement,
                match_kind,
                ..
            } => {
                let value = join(self.lookup(&parameter).await?);
                let pat = self.expand_pattern(&pattern).await?;
                let rep = self.expand_string(&replacement.unwrap_or_default()).await?;
                Values::One(replace(&value, &pat, &rep, match_kind))
            }
            ParameterExpr::MemberKeys {
                variable_name,
                concatenate,
            } => {
                let keys = self.shell.keys(&variable_name).unwrap_or_default();
                if in_quotes && !concatenate {
                    Values::Fields(keys)
                } else {
                    Values::One(keys.join(" "))
                }
            }
            other => {
                return Err(ExpandError(format!(
                    "{}: expansion not supported yet",
                    word_text(&other)
                )));
            }
        })
    }

    /// Pathname expansion of `pattern` (with quoted metacharacters escaped), sorted; empty when
    /// nothing matches.
    fn glob(&self, pattern: &str) -> Vec<String> {
        let absolute = pattern.starts_with('/');
        let parts: Vec<&str> = pattern.split('/').filter(|p| !p.is_empty()).collect();
        let mut found: Vec<String> = vec![if absolute { "/".into() } else { String::new() }];
        for (i, part) in parts.iter().enumerate() {
            let last = i + 1 == parts.len();
            let mut next = Vec::new();
            for base in &found {
                let has_meta = part.contains(['*', '?', '[']);
                if !has_meta {
                    let literal = unescape(part);
                    let candidate = format!("{base}{literal}");
                    if std::fs::symlink_metadata(self.shell.path(&candidate)).is_ok() {
                        next.push(if last {
                            candidate
                        } else {
                            format!("{candidate}/")
                        });
                    }
                    continue;
                }
                let dir = self.shell.path(if base.is_empty() { "." } else { base });
                let Ok(entries) = std::fs::read_dir(&dir) else {
                    continue;
                };
                let mut names: Vec<String> = entries
                    .filter_map(|e| e.ok()?.file_name().into_string().ok())
                    .filter(|n| !n.starts_with('.') || part.starts_with('.'))
                    .filter(|n| pattern_match(part, n))
                    .collect();
                names.sort();
                for n in names {
                    let candidate = format!("{base}{n}");
                    if last {
                        next.push(candidate);
                    } else if self.shell.path(&candidate).is_dir() {
                        next.push(format!("{candidate}/"));
                    }
                }
            }
            found = next;
        }
        if parts.is_empty() {
            return Vec::new();
        }
        found
    }
}

/// What a parameter expands to.
enum Values {
    None,
    One(String),
    Fields(Vec<String>),
}

fn push_values(segs: &mut Vec<Seg>, values: Values, in_quotes: bool) {
    match values {
        Values::None => {}
        Values::One(v) => segs.push(if in_quotes {
            Seg::Quoted(v)
        } else {
            Seg::Split(v)
        }),
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

fn word_text(expr: &ParameterExpr) -> String {
    format!("${{{expr:?}}}").chars().take(60).collect()
}

fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(n) = chars.next() {
                out.push(n);
            }
        } else {
            out.push(c);
        }
    }
    out
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

fn trim_prefix(value: &str, pat: &str, largest: bool) -> String {
    let b = bounds(value);
    let order: Box<dyn Iterator<Item = &usize>> = if largest {
        Box::new(b.iter().rev())
    } else {
        Box::new(b.iter())
    };
    for &i in order {
        if pattern_match(pat, &value[..i]) {
            return value[i..].to_string();
        }
    }
    value.to_string()
}

fn trim_suffix(value: &str, pat: &str, largest: bool) -> String {
    let b = bounds(value);
    let order: Box<dyn Iterator<Item = &usize>> = if largest {
        Box::new(b.iter())
    } else {
        Box::new(b.iter().rev())
    };
    for &i in order {
        if pattern_match(pat, &value[i..]) {
            return value[..i].to_string();
        }
    }
    value.to_string()
}

fn replace(value: &str, pat: &str, rep: &str, kind: word::SubstringMatchKind) -> String {
    use word::SubstringMatchKind as K;
    let b = bounds(value);
    match kind {
        K::Prefix => {
            for &end in b.iter().rev() {
                if pattern_match(pat, &value[..end]) {
                    return format!("{rep}{}", &value[end..]);
                }
            }
            value.to_string()
        }
        K::Suffix => {
            for &start in &b {
                if pattern_match(pat, &value[start..]) {
                    return format!("{}{rep}", &value[..start]);
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
                        .find(|&&e| pattern_match(pat, &value[i..e]))
                        .copied()
                };
                match found {
                    Some(end) => {
                        out.push_str(rep);
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
            Some(c) if crate::builtins::simple_escape(c).is_some() => {
                out.push(crate::builtins::simple_escape(c).unwrap_or(c));
            }
            Some('E') => out.push('\x1b'),
            Some('\'') => out.push('\''),
            Some('"') => out.push('"'),
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

/// `a{b,c}d` → `abd acd`; `{1..5..2}` → `1 3 5`; `{a..c}` → `a b c`. Quoted braces stay.
fn brace_expand(raw: &str, opts: &brush_parser::ParserOptions) -> Result<Vec<String>, ExpandError> {
    if !raw.contains('{') {
        return Ok(vec![raw.to_string()]);
    }
    match word::parse_brace_expansions(raw, opts) {
        Ok(Some(pieces)) => brace_words(&pieces),
        _ => Ok(vec![raw.to_string()]),
    }
}

fn brace_limit() -> ExpandError {
    ExpandError(format!(
        "brace expansion limit of {MAX_BRACE_WORDS} words exceeded"
    ))
}

fn brace_words(pieces: &[word::BraceExpressionOrText]) -> Result<Vec<String>, ExpandError> {
    let mut words = vec![String::new()];
    for piece in pieces {
        let alternatives = match piece {
            word::BraceExpressionOrText::Text(t) => vec![t.clone()],
            word::BraceExpressionOrText::Expr(members) => {
                let mut all = Vec::new();
                for m in members {
                    all.extend(brace_member(m)?);
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

fn brace_member(m: &word::BraceExpressionMember) -> Result<Vec<String>, ExpandError> {
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
        } => steps(*start, *end, *increment)?
            .into_iter()
            .map(|n| n.to_string())
            .collect(),
        M::CharSequence {
            start,
            end,
            increment,
        } => steps(*start as i64, *end as i64, *increment)?
            .into_iter()
            .filter_map(|c| char::from_u32(c as u32))
            .map(String::from)
            .collect(),
        M::Child(pieces) => brace_words(pieces)?,
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

/// Which end of a value `${x%…}`, `${x%%…}`, `${x#…}`, `${x##…}` trim.
enum Trim {
    SmallestSuffix,
    LargestSuffix,
    SmallestPrefix,
    LargestPrefix,
}
