//! `unalias`: removes aliases (`-a`: all).

use crate::interp::Builtin;
use crate::interp::Interp;

/// `unalias [-a] NAME...`.
pub async fn unalias(sh: &mut Interp<'_>, args: &[String]) -> i32 {
    let line = sh.line;
    if args.iter().any(|a| a == "-a") {
        let names: Vec<String> = sh.shell.aliases.keys().cloned().collect();
        for name in names {
            sh.shell.change_alias(line, &name, None);
        }
        return 0;
    }
    if args.is_empty() {
        sh.error("unalias: usage: unalias [-a] name [name ...]")
            .await;
        return 2;
    }
    let mut status = 0;
    for a in args {
        if sh.shell.aliases.contains_key(a.as_str()) {
            sh.shell.change_alias(line, a, None);
        } else {
            sh.error(&format!("unalias: {a}: not found")).await;
            status = 1;
        }
    }
    status
}

/// `unalias`'s registration.
pub const BUILTIN: Builtin = Builtin {
    name: "unalias",
    run: status!(unalias),
    usage: "[-a] name [name ...]",
    about: "Remove each NAME from the list of defined aliases",
    special: false,
    declaration: None,
};
