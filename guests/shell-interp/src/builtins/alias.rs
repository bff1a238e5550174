//! `alias`: defines and lists aliases (expanded with `shopt -s expand_aliases`).

use crate::builtins::out;
use crate::interp::Builtin;
use crate::interp::Interp;

/// `alias [NAME[=VALUE]...]`. Aliases expand only with `shopt -s expand_aliases`, as in a
/// bash script.
pub async fn alias(sh: &mut Interp<'_>, args: &[String]) -> i32 {
    let show =
        |name: &str, value: &str| format!("alias {name}={}\n", crate::quote::single(value, true));
    if args.is_empty() || args.iter().all(|a| a == "-p") {
        let text: String = sh.shell.aliases.iter().map(|(k, v)| show(k, v)).collect();
        return out(sh, &text).await;
    }
    let mut status = 0;
    for a in args.iter().filter(|a| *a != "-p") {
        match a.split_once('=') {
            Some((name, value)) => {
                let line = sh.line;
                sh.shell.change_alias(line, name, Some(value.to_string()));
            }
            None => match sh.shell.aliases.get(a.as_str()) {
                Some(v) => {
                    let text = show(a, v);
                    status |= out(sh, &text).await;
                }
                None => {
                    sh.error(&format!("alias: {a}: not found")).await;
                    status = 1;
                }
            },
        }
    }
    status
}

/// `alias`'s registration.
pub const BUILTIN: Builtin = Builtin {
    name: "alias",
    run: status!(alias),
    usage: "[-p] [name[=value] ...]",
    about: "Define or display aliases",
    special: false,
    declaration: None,
};
