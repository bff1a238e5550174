//! `type`: what each name would run as (`-t`, `-a`, `-p`, `-P`, `-f`).

use crate::builtins::kind::*;
use crate::builtins::out;
use crate::interp::Builtin;
use crate::interp::Interp;

/// `type [-t|-p|-P|-a] NAME...`.
pub async fn type_of(sh: &mut Interp<'_>, args: &[String]) -> i32 {
    let flags: String = args.iter().filter_map(|a| a.strip_prefix('-')).collect();
    let mut status = 0;
    for name in args.iter().filter(|a| !a.starts_with('-')) {
        let kind = kind_of(sh, name);
        let text = match kind {
            None => None,
            Some(k) if flags.contains('t') => Some(
                match k {
                    Kind::Alias => "alias",
                    Kind::Keyword => "keyword",
                    Kind::Function => "function",
                    Kind::Builtin => "builtin",
                    Kind::File => "file",
                }
                .to_string()
                    + "\n",
            ),
            Some(Kind::File) if flags.contains('p') || flags.contains('P') => {
                Some(format!("/usr/bin/{name}\n"))
            }
            Some(_) if flags.contains('p') => Some(String::new()),
            Some(_) => describe(sh, name, true),
        };
        match text {
            Some(t) => status |= out(sh, &t).await,
            None => {
                if !flags.contains('t') && !flags.contains('p') {
                    sh.error(&format!("type: {name}: not found")).await;
                }
                status = 1;
            }
        }
    }
    status
}

/// `type`'s registration.
pub const BUILTIN: Builtin = Builtin {
    name: "type",
    run: status!(type_of),
    usage: "[-afptP] name [name ...]",
    about: "Display information about command type",
    special: false,
    declaration: None,
};
