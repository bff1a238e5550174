//! Shell variables: scalars, indexed and associative arrays, their attributes (`declare
//! -aAilnrux`), namerefs, and how `declare -p` prints them.

use std::collections::{BTreeMap, HashMap};

/// A shell variable.
#[derive(Clone, Debug, Default)]
pub struct Var {
    /// Its value.
    pub value: Value,
    /// Its attributes.
    pub attrs: Attrs,
}

/// `declare`'s attributes (array kinds are in [`Value`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Attrs {
    /// `-x`: passed to commands' environments.
    pub exported: bool,
    /// `-r`: assignments and `unset` fail.
    pub readonly: bool,
    /// `-i`: assignments are evaluated arithmetically.
    pub integer: bool,
    /// `-l`: assigned values are lowercased.
    pub lower: bool,
    /// `-u`: assigned values are uppercased.
    pub upper: bool,
    /// `-n`: the value names another variable, which every use refers to.
    pub nameref: bool,
    /// `-t`: traced (only shown: a variable's trace attribute changes nothing in bash).
    pub trace: bool,
    /// `declare -a` or `-A` made it an empty array and nothing has assigned it since:
    /// `declare -p` shows it without `=()`, as bash does.
    pub declared_only: bool,
}

/// A variable's value.
#[derive(Clone, Debug, Default)]
pub enum Value {
    /// Declared (`local x`, `declare x`) but not set.
    #[default]
    Unset,
    /// A string.
    Scalar(String),
    /// Index → element (sparse, as bash's are).
    Array(BTreeMap<i64, String>),
    /// Key → element.
    Assoc(Assoc),
}

/// An associative array. It iterates in bash's order (its hash table's: FNV-1 buckets of
/// 1,024, the newest first within a bucket), so that scripts print what bash prints.
#[derive(Clone, Debug, Default)]
pub struct Assoc {
    entries: HashMap<String, (u64, String)>,
    next: u64,
}

impl Assoc {
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn get(&self, key: &str) -> Option<&String> {
        self.entries.get(key).map(|(_, v)| v)
    }

    /// Sets a key; an existing key keeps its place.
    pub fn insert(&mut self, key: String, value: String) {
        match self.entries.get_mut(&key) {
            Some(slot) => slot.1 = value,
            None => {
                self.next += 1;
                self.entries.insert(key, (self.next, value));
            }
        }
    }

    pub fn remove(&mut self, key: &str) {
        self.entries.remove(key);
    }

    /// (key, value) in bash's order.
    pub fn ordered(&self) -> Vec<(&String, &String)> {
        let mut all: Vec<_> = self.entries.iter().collect();
        all.sort_by_key(|(k, (seq, _))| (bash_bucket(k), std::cmp::Reverse(*seq)));
        all.into_iter().map(|(k, (_, v))| (k, v)).collect()
    }
}

/// The bucket bash's `hash_string` (FNV-1, 32 bits) puts a key in, of 1,024.
fn bash_bucket(key: &str) -> u32 {
    let mut h: u32 = 2_166_136_261;
    for b in key.bytes() {
        h = h.wrapping_mul(16_777_619) ^ b as u32;
    }
    h & 1023
}

/// Where an element assignment goes.
#[derive(Clone, Debug)]
pub enum Key {
    /// An indexed array's (arithmetic) index.
    Index(i64),
    /// An associative array's key.
    Name(String),
}

/// Whether `name` is a valid variable name.
pub fn is_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The attribute letters `declare -p` and `${x@a}` show, in bash's order.
pub fn flags_of(var: &Var) -> String {
    let a = var.attrs;
    let mut s = String::new();
    for (on, c) in [
        (matches!(var.value, Value::Array(_)), 'a'),
        (matches!(var.value, Value::Assoc(_)), 'A'),
        (a.integer, 'i'),
        (a.nameref, 'n'),
        (a.readonly, 'r'),
        (a.trace, 't'),
        (a.exported, 'x'),
        (a.lower, 'l'),
        (a.upper, 'u'),
    ] {
        if on {
            s.push(c);
        }
    }
    s
}

pub(crate) fn case(attrs: Attrs, value: String) -> String {
    if attrs.lower {
        value.to_lowercase()
    } else if attrs.upper {
        value.to_uppercase()
    } else {
        value
    }
}

/// `"..."` with `"`, `\`, `$` and `` ` `` escaped, as `declare -p` quotes; `$'...'` when
/// there is something unprintable (in the C locale unless `utf8`), as bash's does.
pub fn double_quote(s: &str, utf8: bool) -> String {
    if s.chars().any(|c| crate::quote::unprintable(c, utf8)) {
        return crate::quote::ansi_c(s, utf8);
    }
    let mut out = String::from("\"");
    for c in s.chars() {
        if matches!(c, '"' | '\\' | '$' | '`') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

/// An associative array's key as `declare -p` prints it (quoted when it needs to be).
fn assoc_key(k: &str, utf8: bool) -> String {
    if !k.is_empty()
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./:@%+,".contains(c))
    {
        k.to_string()
    } else {
        double_quote(k, utf8)
    }
}

/// An array as `declare -p` and `set` write it: `([0]="a" [1]="b")`, or for an associative
/// array `([k]="v" )` (bash's trailing space included). `None` for a scalar.
pub fn compound_literal(value: &Value, utf8: bool) -> Option<String> {
    match value {
        Value::Array(m) => {
            let items: Vec<String> = m
                .iter()
                .map(|(k, v)| format!("[{k}]={}", double_quote(v, utf8)))
                .collect();
            Some(format!("({})", items.join(" ")))
        }
        Value::Assoc(m) => {
            let items: String = m
                .ordered()
                .into_iter()
                .map(|(k, v)| format!("[{}]={} ", assoc_key(k, utf8), double_quote(v, utf8)))
                .collect();
            Some(format!("({items})"))
        }
        _ => None,
    }
}
