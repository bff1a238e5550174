//! The variable operations of [`Shell`]: lookup through namerefs, assignment with the
//! attributes applied (`-i` evaluates, `-l`/`-u` change case, readonly refuses), arrays,
//! unset, and `declare -p` lines. The variable types themselves are in [`crate::vars`].

use crate::arith::Variables;
use crate::state::Shell;
use std::collections::BTreeMap;

use crate::vars::*;

/// Longest chain of namerefs followed before giving up (bash warns and stops too).
const MAX_NAMEREF_HOPS: usize = 8;

impl Shell {
    /// The variable `name` refers to, following namerefs.
    pub fn resolve(&self, name: &str) -> String {
        let mut name = name.to_string();
        for _ in 0..MAX_NAMEREF_HOPS {
            match self.vars.get(&name) {
                Some(Var {
                    value: Value::Scalar(target),
                    attrs: Attrs { nameref: true, .. },
                }) if !target.is_empty() => name = target.clone(),
                _ => break,
            }
        }
        name
    }

    /// The variable `name` refers to.
    pub fn var(&self, name: &str) -> Option<&Var> {
        self.vars.get(&self.resolve(name))
    }

    /// The array element a nameref names (`declare -n r='a[1]'`): the array and its key.
    /// An associative array's key is the text as written; an indexed array's index must be a
    /// number (an expression there would need evaluating on every use).
    fn element_named(&self, resolved: &str) -> Option<(String, Key)> {
        let (base, rest) = resolved.split_once('[')?;
        let index = rest.strip_suffix(']')?;
        let key = if self.is_assoc(base) {
            Key::Name(index.to_string())
        } else {
            Key::Index(index.trim().parse().ok()?)
        };
        Some((base.to_string(), key))
    }

    /// Whether `name` is an associative array.
    pub fn is_assoc(&self, name: &str) -> bool {
        matches!(
            self.var(name),
            Some(Var {
                value: Value::Assoc(_),
                ..
            })
        )
    }

    /// A variable's value, if set (an array's element 0 or key "0", as bash's `$a`).
    pub fn get(&self, name: &str) -> Option<&str> {
        let resolved = self.resolve(name);
        if let Some((base, key)) = self.element_named(&resolved) {
            return match (&self.vars.get(&base)?.value, key) {
                (Value::Assoc(m), Key::Name(k)) => m.get(&k).map(String::as_str),
                (Value::Array(m), Key::Index(i)) => {
                    let i = if i < 0 {
                        m.keys().next_back().map(|last| last + 1 + i)?
                    } else {
                        i
                    };
                    m.get(&i).map(String::as_str)
                }
                (Value::Scalar(s), Key::Index(0 | -1)) => Some(s),
                _ => None,
            };
        }
        match &self.vars.get(&resolved)?.value {
            Value::Unset => None,
            Value::Scalar(s) => Some(s),
            Value::Array(m) => m.get(&0).map(String::as_str),
            Value::Assoc(m) => m.get("0").map(String::as_str),
        }
    }

    /// All values of a variable (`${a[@]}`): an array's elements, or a scalar alone.
    pub fn values(&self, name: &str) -> Option<Vec<String>> {
        Some(match &self.var(name)?.value {
            Value::Unset => return None,
            Value::Scalar(s) => vec![s.clone()],
            Value::Array(m) => m.values().cloned().collect(),
            Value::Assoc(m) => m.ordered().into_iter().map(|(_, v)| v.clone()).collect(),
        })
    }

    /// The indices or keys of a variable (`${!a[@]}`).
    pub fn keys(&self, name: &str) -> Option<Vec<String>> {
        Some(match &self.var(name)?.value {
            Value::Unset => return None,
            Value::Scalar(_) => vec!["0".into()],
            Value::Array(m) => m.keys().map(i64::to_string).collect(),
            Value::Assoc(m) => m.ordered().into_iter().map(|(k, _)| k.clone()).collect(),
        })
    }

    /// One element (`${a[i]}`; a negative index counts from the end).
    pub fn element(&self, name: &str, key: &Key) -> Option<String> {
        match (&self.var(name)?.value, key) {
            (Value::Assoc(m), Key::Name(k)) => m.get(k).cloned(),
            (Value::Assoc(m), Key::Index(i)) => m.get(&i.to_string()).cloned(),
            (Value::Scalar(s), Key::Index(0 | -1)) => Some(s.clone()),
            (Value::Array(m), Key::Index(i)) => {
                let i = if *i < 0 {
                    m.keys().next_back().map(|last| last + 1 + i)?
                } else {
                    *i
                };
                m.get(&i).cloned()
            }
            _ => None,
        }
    }

    /// Sets a variable for the shell's own purposes (`PWD`, loop variables of internal
    /// use): no attribute applies, an array's element 0 is set.
    pub fn set(&mut self, name: &str, value: impl Into<String>) {
        let value = value.into();
        let name = self.resolve(name);
        let var = self.vars.entry(name).or_default();
        match &mut var.value {
            Value::Array(m) => {
                m.insert(0, value);
            }
            Value::Assoc(m) => m.insert("0".into(), value),
            v => *v = Value::Scalar(value),
        }
    }

    /// A script's `name=value` (or `+=`): refused for a readonly variable; `-i`, `-l` and
    /// `-u` apply.
    pub fn assign(&mut self, name: &str, value: String, append: bool) -> Result<(), String> {
        let name = self.resolve(name);
        if let Some((base, key)) = self.element_named(&name) {
            return self.assign_element(&base, key, value, append);
        }
        let old = self.get(&name).map(str::to_string);
        let value = self.transform(&name, old.as_deref(), value, append)?;
        self.set(&name, value);
        Ok(())
    }

    /// `a[k]=v` (or `+=`); a scalar becomes element 0 of a new indexed array.
    pub fn assign_element(
        &mut self,
        name: &str,
        key: Key,
        value: String,
        append: bool,
    ) -> Result<(), String> {
        let name = self.resolve(name);
        let old = self.element(&name, &key);
        let value = self.transform(&name, old.as_deref(), value, append)?;
        let var = self.vars.entry(name.clone()).or_default();
        var.attrs.declared_only = false;
        match &mut var.value {
            Value::Assoc(m) => {
                let k = match key {
                    Key::Name(k) => k,
                    Key::Index(i) => i.to_string(),
                };
                m.insert(k, value);
            }
            v => {
                let mut m = match std::mem::take(v) {
                    Value::Array(m) => m,
                    Value::Scalar(s) => [(0, s)].into_iter().collect(),
                    _ => BTreeMap::new(),
                };
                let i = match key {
                    Key::Index(i) if i < 0 => match m.keys().next_back() {
                        Some(last) if last + 1 + i >= 0 => last + 1 + i,
                        _ => {
                            *v = Value::Array(m);
                            return Err(format!("{name}[{i}]: bad array subscript"));
                        }
                    },
                    Key::Index(i) => i,
                    Key::Name(k) => k.parse().unwrap_or(0),
                };
                m.insert(i, value);
                *v = Value::Array(m);
            }
        }
        Ok(())
    }

    /// `a=(...)` or `a+=(...)`: elements with optional explicit keys. An associative array
    /// takes `[k]=v` items, or (bash 5.1's form) a list of keys and values.
    pub fn assign_array(
        &mut self,
        name: &str,
        items: Vec<(Option<Key>, String)>,
        append: bool,
    ) -> Result<(), String> {
        let name = self.resolve(name);
        self.check_writable(&name)?;
        let var = self.vars.entry(name.clone()).or_default();
        var.attrs.declared_only = false;
        let attrs = var.attrs;
        if let Value::Assoc(old) = &var.value {
            let mut m = if append {
                old.clone()
            } else {
                Assoc::default()
            };
            let mut pending: Option<String> = None;
            for (key, value) in items {
                match (key, pending.take()) {
                    (Some(Key::Name(k)), _) => m.insert(k, case(attrs, value)),
                    (Some(Key::Index(i)), _) => m.insert(i.to_string(), case(attrs, value)),
                    (None, Some(k)) => m.insert(k, case(attrs, value)),
                    (None, None) => pending = Some(value),
                }
            }
            if let Some(k) = pending {
                m.insert(k, String::new());
            }
            var.value = Value::Assoc(m);
            return Ok(());
        }
        let map = match (append, std::mem::take(&mut var.value)) {
            (true, Value::Array(m)) => m,
            (true, Value::Scalar(s)) => [(0, s)].into_iter().collect(),
            _ => BTreeMap::new(),
        };
        let mut next = map.keys().next_back().map(|k| k + 1).unwrap_or(0);
        let mut values = Vec::new();
        for (key, value) in items {
            let i = match key {
                Some(Key::Index(i)) => i,
                Some(Key::Name(k)) => k.parse().unwrap_or(0),
                None => next,
            };
            values.push((i, value));
            next = i + 1;
        }
        var.value = Value::Array(map);
        for (i, value) in values {
            let value = if attrs.integer {
                crate::arith::eval_text(self, &value)?.to_string()
            } else {
                case(attrs, value)
            };
            if let Some(Var {
                value: Value::Array(m),
                ..
            }) = self.vars.get_mut(&name)
            {
                m.insert(i, value);
            }
        }
        Ok(())
    }

    /// Fails for a readonly variable, with bash's message.
    pub fn check_writable(&self, name: &str) -> Result<(), String> {
        match self.vars.get(name) {
            Some(v) if v.attrs.readonly => Err(format!("{name}: readonly variable")),
            _ => Ok(()),
        }
    }

    /// The value to store for an assignment: `+=` appends (or adds, for `-i`), `-i`
    /// evaluates, `-l`/`-u` change case.
    fn transform(
        &mut self,
        name: &str,
        old: Option<&str>,
        value: String,
        append: bool,
    ) -> Result<String, String> {
        self.check_writable(name)?;
        let attrs = self.vars.get(name).map(|v| v.attrs).unwrap_or_default();
        let value = if attrs.integer {
            let n = crate::arith::eval_text(self, &value)?;
            let base = match (append, old) {
                (true, Some(o)) => crate::arith::eval_text(self, o)?,
                _ => 0,
            };
            base.wrapping_add(n).to_string()
        } else if append {
            format!("{}{value}", old.unwrap_or(""))
        } else {
            value
        };
        Ok(case(attrs, value))
    }

    /// `unset NAME`: fails for a readonly variable. A nameref's target is unset.
    pub fn unset(&mut self, name: &str) -> Result<(), String> {
        let target = self.resolve(name);
        if self.vars.get(&target).is_some_and(|v| v.attrs.readonly) {
            return Err(format!("{target}: cannot unset: readonly variable"));
        }
        self.vars.remove(&target);
        Ok(())
    }

    /// `unset 'a[k]'`.
    pub fn unset_element(&mut self, name: &str, key: &Key) -> Result<(), String> {
        let target = self.resolve(name);
        let Some(var) = self.vars.get_mut(&target) else {
            return Ok(());
        };
        if var.attrs.readonly {
            return Err(format!("{target}: cannot unset: readonly variable"));
        }
        match (&mut var.value, key) {
            (Value::Assoc(m), Key::Name(k)) => m.remove(k),
            (Value::Assoc(m), Key::Index(i)) => m.remove(&i.to_string()),
            (Value::Array(m), Key::Index(i)) => {
                let i = if *i < 0 {
                    m.keys().next_back().map(|l| l + 1 + i).unwrap_or(*i)
                } else {
                    *i
                };
                m.remove(&i);
            }
            (v @ Value::Scalar(_), Key::Index(0)) => *v = Value::Unset,
            _ => {}
        }
        Ok(())
    }

    /// `declare -p NAME`'s line, or `None` when there is no such variable.
    pub fn declaration(&self, name: &str) -> Option<String> {
        let var = self.vars.get(name)?;
        let flags = flags_of(var);
        let flags = if flags.is_empty() { "-".into() } else { flags };
        let value = match &var.value {
            Value::Unset => String::new(),
            Value::Array(m) if m.is_empty() && var.attrs.declared_only => String::new(),
            Value::Assoc(m) if m.is_empty() && var.attrs.declared_only => String::new(),
            Value::Scalar(s) => format!("={}", double_quote(s, self.utf8())),
            other => format!(
                "={}",
                compound_literal(other, self.utf8()).unwrap_or_default()
            ),
        };
        Some(format!("declare -{flags} {name}{value}"))
    }
}

/// Arithmetic reads and writes the shell's variables.
impl Variables for Shell {
    fn is_assoc(&self, name: &str) -> bool {
        Shell::is_assoc(self, name)
    }

    fn get(&self, name: &str) -> Option<&str> {
        Shell::get(self, name)
    }

    fn element(&self, name: &str, key: &Key) -> Option<String> {
        Shell::element(self, name, key)
    }

    fn assign(&mut self, name: &str, value: String) -> Result<(), String> {
        Shell::assign(self, name, value, false)
    }

    fn assign_element(&mut self, name: &str, key: Key, value: String) -> Result<(), String> {
        Shell::assign_element(self, name, key, value, false)
    }

    fn nounset(&self) -> bool {
        self.options.nounset
    }
}
