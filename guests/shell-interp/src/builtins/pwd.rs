//! `pwd`: the working directory (kept without symbolic links, so `-L` and `-P` agree).

use crate::builtins::out;
use crate::interp::Builtin;
use crate::interp::Interp;

pub async fn pwd(sh: &mut Interp<'_>, _args: &[String]) -> i32 {
    let text = format!("{}\n", sh.shell.cwd);
    out(sh, &text).await
}

/// `pwd`'s registration.
pub const BUILTIN: Builtin = Builtin {
    name: "pwd",
    run: status!(pwd),
    usage: "[-LP]",
    about: "Print the name of the current working directory",
    special: false,
    declaration: None,
};
