//! `eval`: runs its arguments, joined by spaces, as shell source.

use crate::interp::Builtin;
use crate::interp::Interp;
use crate::state::Flow;

pub async fn eval(sh: &mut Interp<'_>, args: &[String]) -> Result<(), Flow> {
    let src = args.join(" ");
    match sh.run_eval(&src).await {
        Some(f) => Err(f),
        None => Ok(()),
    }
}

/// `eval`'s registration.
pub const BUILTIN: Builtin = Builtin {
    name: "eval",
    run: flow!(eval),
    usage: "[arg ...]",
    about: "Execute arguments as a shell command",
    special: true,
    declaration: None,
};
