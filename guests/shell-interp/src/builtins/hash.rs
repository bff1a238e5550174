//! `hash`: there is no command path cache to keep; it answers as bash does.

use crate::builtins::out;
use crate::exec::Interp;

/// `hash`: commands are not looked up in directories here, so there is nothing to remember.
pub async fn hash(sh: &mut Interp<'_>, args: &[String]) -> i32 {
    if args.is_empty() {
        return out(sh, "hash: hash table empty\n").await;
    }
    0
}
