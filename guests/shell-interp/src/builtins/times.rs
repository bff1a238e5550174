//! `times`: the shell's and its children's user and system times; none is measured in the
//! isolate, so they are zero.

use crate::builtins::out;
use crate::interp::Builtin;
use crate::interp::Interp;

pub async fn times(sh: &mut Interp<'_>, _args: &[String]) -> i32 {
    out(sh, "0m0.000s 0m0.000s\n0m0.000s 0m0.000s\n").await
}

/// `times`'s registration.
pub const BUILTIN: Builtin = Builtin {
    name: "times",
    run: status!(times),
    usage: "",
    about: "Display process times",
    special: true,
    declaration: None,
};
