//! Assignments: `name=value`, `name+=value`, `a[k]=v`, `a=(...)`, as simple commands and
//! declaration builtins (`declare`, `local`, `export`, `readonly`) write them. A word is
//! expanded first ([`Pending`]); where it goes is decided when applied, because `declare -A`
//! may make the variable associative in between.

use crate::expand::Expand;
use brush_parser::ast;

use crate::expand::ExpandError;
use crate::interp::Interp;
use crate::vars::Key;

/// An expanded assignment, not yet applied.
#[derive(Clone, Debug)]
pub struct Pending {
    pub name: String,
    /// `a[sub]=`: the subscript's expanded text.
    pub subscript: Option<String>,
    pub value: Assigned,
    pub append: bool,
}

/// An expanded right-hand side.
#[derive(Clone, Debug)]
pub enum Assigned {
    Scalar(String),
    /// Items with their optional `[key]=`.
    Array(Vec<(Option<String>, String)>),
}

impl Pending {
    /// `name=value` from a word such as `declare` receives (`declare "$x=1"`).
    pub fn from_text(text: &str) -> Option<Pending> {
        let (lhs, value) = text.split_once('=')?;
        let (lhs, append) = match lhs.strip_suffix('+') {
            Some(l) => (l, true),
            None => (lhs, false),
        };
        let (name, subscript) = match lhs.split_once('[') {
            Some((n, rest)) => (n, Some(rest.strip_suffix(']')?.to_string())),
            None => (lhs, None),
        };
        crate::vars::is_name(name).then(|| Pending {
            name: name.to_string(),
            subscript,
            value: Assigned::Scalar(value.to_string()),
            append,
        })
    }
}

impl Interp<'_> {
    /// Expands an assignment's parts.
    pub async fn expand_assignment(&mut self, a: &ast::Assignment) -> Result<Pending, ExpandError> {
        let (name, subscript) = match &a.name {
            ast::AssignmentName::VariableName(n) => (n.clone(), None),
            ast::AssignmentName::ArrayElementName(n, i) => {
                (n.clone(), Some(self.expand_string(i).await?))
            }
        };
        let value = match &a.value {
            ast::AssignmentValue::Scalar(w) => {
                Assigned::Scalar(self.expand_string(&tilde_after_colons(&w.value)).await?)
            }
            ast::AssignmentValue::Array(items) => {
                let mut out = Vec::new();
                for (key, w) in items {
                    match key {
                        Some(k) => {
                            let key = self.expand_string(&k.value).await?;
                            out.push((Some(key), self.expand_string(&w.value).await?));
                        }
                        None => {
                            let fields = self.expand_fields(&w.value).await?;
                            out.extend(fields.into_iter().map(|f| (None, f)));
                        }
                    }
                }
                Assigned::Array(out)
            }
        };
        Ok(Pending {
            name,
            subscript,
            value,
            append: a.append,
        })
    }

    /// Applies an assignment to the shell's variables.
    pub fn apply_assignment(&mut self, p: Pending) -> Result<(), String> {
        let shell = &mut *self.shell;
        let key = |shell: &mut crate::state::Shell, text: String| -> Result<Key, String> {
            if shell.is_assoc(&p.name) {
                Ok(Key::Name(text))
            } else {
                crate::arith::eval_text(shell, &text).map(Key::Index)
            }
        };
        match (p.subscript, p.value) {
            (Some(sub), Assigned::Scalar(v)) => {
                let k = key(shell, sub)?;
                shell.assign_element(&p.name, k, v, p.append)?;
            }
            (Some(sub), Assigned::Array(_)) => {
                return Err(format!(
                    "{}[{sub}]: cannot assign list to array member",
                    p.name
                ));
            }
            (None, Assigned::Scalar(v)) => shell.assign(&p.name, v, p.append)?,
            (None, Assigned::Array(items)) => {
                let mut keyed = Vec::new();
                for (k, v) in items {
                    let k = match k {
                        Some(k) => Some(key(shell, k)?),
                        None => None,
                    };
                    keyed.push((k, v));
                }
                shell.assign_array(&p.name, keyed, p.append)?;
            }
        }
        if shell.options.allexport {
            let target = shell.resolve(&p.name);
            if let Some(v) = shell.vars.get_mut(&target) {
                v.attrs.exported = true;
            }
        }
        Ok(())
    }
}

/// Tilde expansion after `=` and `:` in an assignment's value (`PATH=~/bin:~/x`): the word
/// is rewritten so the parser sees each `~` at a word start.
fn tilde_after_colons(value: &str) -> String {
    if !value.contains(":~") {
        return value.to_string();
    }
    // Only unquoted, simple values: anything quoted is left as it is.
    if value.contains(['\'', '"', '\\', '$', '`']) {
        return value.to_string();
    }
    let home = "${HOME}";
    value
        .split(':')
        .map(|part| match part.strip_prefix('~') {
            Some(rest) if rest.is_empty() || rest.starts_with('/') => format!("{home}{rest}"),
            _ => part.to_string(),
        })
        .collect::<Vec<_>>()
        .join(":")
}

/// An argument of a declaration builtin: a word, or an assignment parsed as one
/// (`declare -A m=([k]=v)`).
#[derive(Debug)]
pub enum DeclArg {
    Word(String),
    Assign(Pending),
}
