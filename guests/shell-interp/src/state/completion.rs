//! Programmable completion's specifications, as `complete` keeps them and `compgen` takes
//! them (the builtins are in `builtins/complete.rs`).

/// Actions by their `-A` names (in the order bash gathers their candidates), and the letters
/// that stand for them.
pub(crate) const ACTIONS: &[(&str, char)] = &[
    ("alias", 'a'),
    ("arrayvar", '\0'),
    ("binding", '\0'),
    ("builtin", 'b'),
    ("command", 'c'),
    ("directory", 'd'),
    ("disabled", '\0'),
    ("enabled", '\0'),
    ("export", 'e'),
    ("file", 'f'),
    ("function", '\0'),
    ("group", 'g'),
    ("helptopic", '\0'),
    ("hostname", '\0'),
    ("job", 'j'),
    ("keyword", 'k'),
    ("running", '\0'),
    ("service", 's'),
    ("setopt", '\0'),
    ("shopt", '\0'),
    ("signal", '\0'),
    ("stopped", '\0'),
    ("user", 'u'),
    ("variable", 'v'),
];

/// A completion specification: what `complete` and `compgen` take.
#[derive(Clone, Debug, Default)]
pub struct Spec {
    /// `-o` options.
    pub(crate) options: Vec<String>,
    /// Actions, by name.
    pub(crate) actions: Vec<String>,
    pub(crate) glob: Option<String>,
    pub(crate) words: Option<String>,
    pub(crate) function: Option<String>,
    pub(crate) command: Option<String>,
    pub(crate) filter: Option<String>,
    pub(crate) prefix: Option<String>,
    pub(crate) suffix: Option<String>,
}

impl Spec {
    /// As `complete -p` prints it, before the name.
    pub(crate) fn shown(&self) -> String {
        let mut s = String::from("complete");
        let quoted = |v: &str| crate::quote::single(v, true);
        for o in &self.options {
            s.push_str(&format!(" -o {o}"));
        }
        for a in &self.actions {
            match ACTIONS.iter().find(|(n, _)| n == a) {
                Some((_, c)) if *c != '\0' => s.push_str(&format!(" -{c}")),
                _ => s.push_str(&format!(" -A {a}")),
            }
        }
        for (flag, value) in [
            ("-G", &self.glob),
            ("-W", &self.words),
            ("-P", &self.prefix),
            ("-S", &self.suffix),
            ("-X", &self.filter),
            ("-C", &self.command),
        ] {
            if let Some(v) = value {
                s.push_str(&format!(" {flag} {}", quoted(v)));
            }
        }
        if let Some(f) = &self.function {
            s.push_str(&format!(" -F {f}"));
        }
        s
    }
}
