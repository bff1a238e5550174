//! `true` and `:`: status 0, arguments ignored.

use crate::interp::Builtin;
use crate::interp::Interp;

pub async fn r#true(_sh: &mut Interp<'_>, _args: &[String]) -> i32 {
    0
}

/// `:`'s registration.
pub const COLON: Builtin = Builtin {
    name: ":",
    run: status!(r#true),
    usage: "[arguments]",
    about: "Null command: no effect, status 0",
    special: true,
    declaration: None,
};

/// `true`'s registration.
pub const TRUE: Builtin = Builtin {
    name: "true",
    run: status!(r#true),
    usage: "",
    about: "Return a successful result",
    special: false,
    declaration: None,
};
