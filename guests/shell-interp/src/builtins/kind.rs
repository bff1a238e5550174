//! What a name is, for `type` and `command -v`: an alias, keyword, function, builtin or file.

use crate::interp::Interp;

/// Reserved words, as `type` reports them.
pub(crate) const KEYWORDS: &[&str] = &[
    "if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until", "do",
    "done", "in", "function", "time", "{", "}", "!", "[[", "]]", "coproc",
];

/// What a name is to the shell.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Kind {
    Alias,
    Keyword,
    Function,
    Builtin,
    File,
}

pub(crate) fn kind_of(sh: &Interp<'_>, name: &str) -> Option<Kind> {
    if sh.shell.aliases.contains_key(name) {
        Some(Kind::Alias)
    } else if KEYWORDS.contains(&name) {
        Some(Kind::Keyword)
    } else if sh.shell.functions.contains_key(name) {
        Some(Kind::Function)
    } else if sh.builtins.is_builtin(name) {
        Some(Kind::Builtin)
    } else if sh.shell.commands.find(name).is_some() {
        Some(Kind::File)
    } else {
        None
    }
}

/// `type NAME`'s text (with a function's definition when `verbose`).
pub(crate) fn describe(sh: &Interp<'_>, name: &str, verbose: bool) -> Option<String> {
    Some(match kind_of(sh, name)? {
        Kind::Alias => format!("{name} is aliased to `{}'\n", sh.shell.aliases[name]),
        Kind::Keyword => format!("{name} is a shell keyword\n"),
        Kind::Function if verbose => {
            let body = &sh.shell.functions[name];
            format!(
                "{name} is a function\n{}",
                crate::unparse::function(name, body)
            )
        }
        Kind::Function => format!("{name} is a function\n"),
        Kind::Builtin => format!("{name} is a shell builtin\n"),
        Kind::File => format!("{name} is /usr/bin/{name}\n"),
    })
}
