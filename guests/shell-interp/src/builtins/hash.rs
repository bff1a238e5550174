//! `hash`: there is no command path cache to keep; it answers as bash does.

use crate::builtins::out;
use crate::interp::Builtin;
use crate::interp::Interp;

/// `hash`: commands are not looked up in directories here, so there is nothing to remember.
pub async fn hash(sh: &mut Interp<'_>, args: &[String]) -> i32 {
    if args.is_empty() {
        return out(sh, "hash: hash table empty\n").await;
    }
    let mut status = 0;
    let mut names = args.iter();
    while let Some(arg) = names.next() {
        match arg.as_str() {
            "-r" | "-d" | "-l" | "-t" => continue,
            // `-p PATH NAME`: told where NAME is; nothing to check.
            "-p" => {
                names.next();
                names.next();
                continue;
            }
            _ => {}
        }
        // Names with a slash are not looked up; others must be found as `type` finds them.
        let found = arg.contains('/')
            || crate::builtins::kind::kind_of(sh, arg)
                .is_some_and(|k| k != crate::builtins::kind::Kind::Keyword);
        if !found {
            sh.error(&format!("hash: {arg}: not found")).await;
            status = 1;
        }
    }
    status
}

/// `hash`'s registration.
pub const BUILTIN: Builtin = Builtin {
    name: "hash",
    run: status!(hash),
    usage: "[-r] [name ...]",
    about: "Remember or display program locations (nothing to remember here)",
    special: false,
    declaration: None,
};
