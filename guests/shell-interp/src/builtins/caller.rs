//! `caller [N]`: where the running function was called from, as `BASH_LINENO`,
//! `FUNCNAME` and `BASH_SOURCE` say.

use crate::builtins::out;
use crate::expand::Parameters;
use crate::interp::Builtin;
use crate::interp::Interp;

/// `caller`: `LINE FILE` of the current call; `caller N`: `LINE FUNCTION FILE` of frame N.
/// Status 1 when there is no such frame.
pub async fn caller(sh: &mut Interp<'_>, args: &[String]) -> i32 {
    let (lines, sources, names) = (sh.bash_lineno(), sh.bash_source(), sh.funcnames());
    let text = match args.first() {
        None => match lines.first() {
            Some(line) => {
                let file = sources.get(1).map_or("NULL", String::as_str);
                format!("{line} {file}\n")
            }
            None => return 1,
        },
        Some(n) => {
            let Ok(n) = n.parse::<usize>() else {
                sh.error(&format!("caller: {n}: invalid number")).await;
                sh.raw_error("caller: usage: caller [expr]").await;
                return 2;
            };
            match (lines.get(n), names.get(n + 1)) {
                (Some(line), Some(name)) => {
                    let file = sources.get(n + 1).map_or("NULL", String::as_str);
                    format!("{line} {name} {file}\n")
                }
                _ => return 1,
            }
        }
    };
    out(sh, &text).await
}

/// `caller`'s registration.
pub const BUILTIN: Builtin = Builtin {
    name: "caller",
    run: status!(caller),
    usage: "[expr]",
    about: "Return the context of the current subroutine call",
    special: false,
    declaration: None,
};
