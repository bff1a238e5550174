//! `false`: status 1.

use crate::interp::Builtin;
use crate::interp::Interp;

pub async fn r#false(_sh: &mut Interp<'_>, _args: &[String]) -> i32 {
    1
}

/// `false`'s registration.
pub const BUILTIN: Builtin = Builtin {
    name: "false",
    run: status!(r#false),
    usage: "",
    about: "Return an unsuccessful result",
    special: false,
    declaration: None,
};
