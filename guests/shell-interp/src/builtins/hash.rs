//! `hash`: there is no command path cache to keep; it answers as bash does.

use crate::builtins::out;
use crate::interp::Builtin;
use crate::interp::Interp;

/// `hash`: commands are not looked up in directories here, so there is nothing to remember.
pub async fn hash(sh: &mut Interp<'_>, args: &[String]) -> i32 {
    if args.is_empty() {
        return out(sh, "hash: hash table empty\n").await;
    }
    0
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
