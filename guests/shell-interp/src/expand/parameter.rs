//! Parameters: `$name`, `${a[i]}`, `$@`, and the operators of `${...}` (defaults,
//! lengths, slices, trimming, replacement, case, `@op` transforms, indirection).

use super::*;
use crate::state::Origin;

/// The names of the options that are on, joined by `:`.
fn on_names(options: &[(&str, bool)]) -> String {
    let on: Vec<&str> = options
        .iter()
        .filter(|(_, on)| *on)
        .map(|(n, _)| *n)
        .collect();
    on.join(":")
}

#[allow(async_fn_in_trait)]
pub trait Parameters: Frame {
    /// The values of a parameter: several for `$@`, `$*` and `${a[@]}`, one otherwise, none
    /// when unset.
    async fn lookup(&mut self, p: &Parameter) -> Result<Option<Vec<String>>, ExpandError> {
        Ok(match p {
            Parameter::Positional(0) => Some(vec![self.shell_mut().name.clone()]),
            Parameter::Positional(n) => self
                .shell_mut()
                .positional
                .get(*n as usize - 1)
                .map(|v| vec![v.clone()]),
            Parameter::Named(name) => match name.as_str() {
                "LINENO" => Some(vec![self.line().to_string()]),
                "RANDOM" => Some(vec![self.shell_mut().random().to_string()]),
                "SECONDS" => Some(vec![
                    self.shell_mut().started.elapsed().as_secs().to_string(),
                ]),
                _ if let Some(all) = self.computed_array(name) => {
                    all.into_iter().next().map(|v| vec![v])
                }
                "BASH_COMMAND" => Some(vec![self.shell().bash_command.clone()]),
                "BASHPID" => Some(vec!["1".into()]),
                // The options that are on, as `set -o` and `shopt` name them.
                "SHELLOPTS" => Some(vec![on_names(&self.shell().options.listed())]),
                "BASHOPTS" => Some(vec![on_names(&self.shell().shopt.all())]),
                _ => self.shell_mut().get(name).map(|v| vec![v.to_string()]),
            },
            Parameter::NamedWithIndex { name, index } if index == "@" || index == "*" => {
                self.all_values(name)
            }
            Parameter::NamedWithIndex { name, index } => {
                let key = self.subscript(name, index).await?;
                match (self.computed_array(name), &key) {
                    (Some(all), Key::Index(i)) => usize::try_from(*i)
                        .ok()
                        .and_then(|i| all.into_iter().nth(i))
                        .map(|s| vec![s]),
                    _ => self.shell_mut().element(name, &key).map(|v| vec![v]),
                }
            }
            Parameter::NamedWithAllIndices { name, .. } => self.all_values(name),
            Parameter::Special(s) => Some(match s {
                SpecialParameter::AllPositionalParameters { .. } => {
                    self.shell_mut().positional.clone()
                }
                SpecialParameter::PositionalParameterCount => {
                    vec![self.shell_mut().positional.len().to_string()]
                }
                SpecialParameter::LastExitStatus => vec![self.shell_mut().status.to_string()],
                SpecialParameter::CurrentOptionFlags => vec![self.option_flags()],
                SpecialParameter::ProcessId => vec!["1".into()],
                SpecialParameter::LastBackgroundProcessId => match self.shell_mut().last_job {
                    Some(id) => vec![id.to_string()],
                    None => return Ok(None),
                },
                SpecialParameter::ShellName => vec![self.shell_mut().name.clone()],
            }),
        })
    }

    /// An array subscript: text for an associative array, arithmetic otherwise.
    async fn subscript(&mut self, name: &str, index: &str) -> Result<Key, ExpandError> {
        if self.shell_mut().is_assoc(name) {
            Ok(Key::Name(self.expand_string(index).await?))
        } else {
            Ok(Key::Index(self.arith_text(index).await?))
        }
    }

    /// `FUNCNAME`, innermost first; a script read from a file has `main` at the bottom while a
    /// function runs (bash's name for the script's own level; not under `-c` or stdin).
    fn funcnames(&self) -> Vec<String> {
        let shell = self.shell();
        let mut names: Vec<String> = shell.funcname.iter().rev().cloned().collect();
        if !names.is_empty() && shell.origin == Origin::File {
            names.push("main".into());
        }
        names
    }

    /// `BASH_SOURCE`, innermost first: the file each running function was defined in, then
    /// the files being read (a sourced one above the script).
    fn bash_source(&self) -> Vec<String> {
        let shell = self.shell();
        let functions = shell.funcname.iter().rev().map(|f| {
            shell
                .function_files
                .get(f)
                .cloned()
                .unwrap_or_else(|| shell.current_file())
        });
        let files = shell.files.iter().rev().map(|(f, _)| f.clone());
        functions.chain(files).collect()
    }

    /// `BASH_LINENO`, innermost first: the line each running function was called from, then
    /// the line of each `source`, and 0 for the script.
    fn bash_lineno(&self) -> Vec<String> {
        let shell = self.shell();
        let calls = shell.call_lines.iter().rev();
        let files = shell.files.iter().rev().map(|(_, l)| l);
        calls.chain(files).map(usize::to_string).collect()
    }

    /// The arrays the shell computes from its state rather than stores: `PIPESTATUS` and the
    /// call stack's.
    fn computed_array(&self, name: &str) -> Option<Vec<String>> {
        Some(match name {
            "PIPESTATUS" => self.shell().pipestatus.iter().map(i32::to_string).collect(),
            "FUNCNAME" => self.funcnames(),
            "BASH_SOURCE" => self.bash_source(),
            "BASH_LINENO" => self.bash_lineno(),
            _ => return None,
        })
    }

    fn all_values(&self, name: &str) -> Option<Vec<String>> {
        if let Some(all) = self.computed_array(name) {
            return Some(all);
        }
        match name {
            "BASH_REMATCH" if self.shell().var(name).is_none() => None,
            _ => self.shell().values(name),
        }
    }

    fn option_flags(&self) -> String {
        let o = &self.shell().options;
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
            (o.errtrace, 'E'),
            (o.functrace, 'T'),
            (self.shell().origin == Origin::Command, 'c'),
            (self.shell().origin == Origin::Stdin, 's'),
        ] {
            if on {
                s.push(c);
            }
        }
        s
    }

    /// `${!x...}`: the parameter named by `x`'s value, or, when `x` is a nameref, the name
    /// of the variable it refers to (`Err`: that name, as the expansion's value).
    fn indirect_target(&self, p: &Parameter) -> Result<Result<Parameter, String>, ExpandError> {
        let name = match p {
            Parameter::Named(n) => n.clone(),
            Parameter::Positional(n) => self
                .shell()
                .positional
                .get((*n as usize).wrapping_sub(1))
                .cloned()
                .unwrap_or_default(),
            _ => String::new(),
        };
        // Both errors end the shell with 1, even under `-c` (bash's).
        let failed = |message: String| ExpandError { message, status: 1 };
        let text = match self.shell().vars.get(&name) {
            Some(v) if v.attrs.nameref => return Ok(Err(self.shell().resolve(&name))),
            _ if matches!(p, Parameter::Named(_)) => match self.shell().get(&name) {
                Some(value) => value.to_string(),
                None => return Err(failed(format!("{name}: invalid indirect expansion"))),
            },
            _ => name,
        };
        parse_parameter(&text)
            .map(Ok)
            .ok_or_else(|| failed(format!("{text}: invalid variable name")))
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
                    .shell_mut()
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
                let keys = self.shell_mut().keys(variable_name).unwrap_or_default();
                return Ok(self.gather(keys, !concatenate, *concatenate, in_quotes));
            }
            _ => {}
        }
        let mut referred = None;
        if let Some((parameter, indirect)) = parameter_of(&mut expr)
            && *indirect
        {
            match self.indirect_target(parameter)? {
                Ok(target) => *parameter = target,
                Err(name) => referred = Some(name),
            }
            *indirect = false;
        }
        let parameter = parameter_of(&mut expr)
            .map(|(p, _)| p.clone())
            .unwrap_or(Parameter::Positional(0));
        let name = name_of(&parameter);
        let (all, star) = is_all(&parameter);
        let values = match referred {
            Some(name) => Some(vec![name]),
            None => self.lookup(&parameter).await?,
        };
        let unset_or_null = |t: &ParameterTestType| match t {
            ParameterTestType::UnsetOrNull => values
                .as_ref()
                .is_none_or(|v| v.iter().all(String::is_empty)),
            // `${a[@]+x}`, `${@-x}`: a list is set when it has elements.
            ParameterTestType::Unset => values
                .as_ref()
                .is_none_or(|v| (all || star) && v.is_empty()),
        };
        let nounset = |this: &Self| -> Result<(), ExpandError> {
            if values.is_none()
                && this.shell().options.nounset
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
                        Parameter::Named(n) => self.shell_mut().assign(n, value.clone(), false),
                        Parameter::NamedWithIndex { name, index } => {
                            let key = self.subscript(name, index).await?;
                            self.shell_mut()
                                .assign_element(name, key, value.clone(), false)
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
                        std::iter::once(self.shell_mut().name.clone())
                            .chain(list)
                            .collect()
                    } else {
                        list
                    };
                    // A list's length is a count: bash refuses a negative one.
                    if let Some(l) = length.filter(|l| *l < 0) {
                        return Err(ExpandError::arith(format!("{l}: substring expression < 0")));
                    }
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
            return Values::One(values.join(&self.shell().ifs_joint()));
        }
        if values.is_empty() && (all || star) {
            return Values::None;
        }
        if all || star {
            // Each value is split on its own, and ends a field.
            let mut segs = Vec::with_capacity(values.len() * 2);
            for (i, v) in values.into_iter().enumerate() {
                if i > 0 {
                    segs.push(Seg::Gap { star });
                }
                segs.push(Seg::Split(v));
            }
            return Values::Segs(segs);
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
                    self.shell()
                        .var(&name)
                        .map(crate::vars::flags_of)
                        .unwrap_or_default(),
                ),
                _ => Values::None,
            });
        };
        let utf8 = self.shell().utf8();
        let out: Vec<String> = match op {
            T::Quoted => values.iter().map(|v| quote::single(v, utf8)).collect(),
            T::ExpandEscapeSequences => values.iter().map(|v| ansi_c(v)).collect(),
            T::ToUpperCase => values.iter().map(|v| v.to_uppercase()).collect(),
            T::ToLowerCase => values.iter().map(|v| v.to_lowercase()).collect(),
            T::CapitalizeInitial => values.iter().map(|v| first_char(v, true)).collect(),
            T::PromptExpand => values.iter().map(|v| self.shell().prompt(v)).collect(),
            T::ToAttributeFlags => {
                let flags = self
                    .shell()
                    .var(&name)
                    .map(crate::vars::flags_of)
                    .unwrap_or_default();
                values.iter().map(|_| flags.clone()).collect()
            }
            T::ToAssignmentLogic => {
                if (all || star) && !matches!(parameter, Parameter::Special(_)) {
                    vec![
                        self.shell()
                            .declaration(&self.shell().resolve(&name))
                            .unwrap_or_default(),
                    ]
                } else {
                    let flags = self
                        .shell()
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
                let keys = self.shell().keys(&name).unwrap_or_default();
                match self.shell().var(&name).map(|v| &v.value) {
                    // One word of key-value pairs, as bash makes it (an associative
                    // array's with the trailing blank of its literal).
                    Some(value @ (Value::Array(_) | Value::Assoc(_))) if all || star => {
                        let pairs: Vec<String> = keys
                            .iter()
                            .zip(&values)
                            .map(|(k, v)| format!("{k} {}", crate::vars::double_quote(v, utf8)))
                            .collect();
                        let blank = if matches!(value, Value::Assoc(_)) {
                            " "
                        } else {
                            ""
                        };
                        vec![format!("{}{blank}", pairs.join(" "))]
                    }
                    _ => values.iter().map(|v| quote::single(v, utf8)).collect(),
                }
            }
        };
        Ok(self.gather(out, all, star, in_quotes))
    }
}

impl<F: Frame + ?Sized> Parameters for F {}

/// What a parameter expands to.
pub enum Values {
    None,
    One(String),
    Fields(Vec<String>),
    /// Pieces expanded in place (`${x:-word}`'s word).
    Segs(Vec<Seg>),
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
