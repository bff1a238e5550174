//! `shift`: drops positional parameters.

use crate::interp::Interp;

use super::numeric_arg;
use crate::interp::Builtin;

pub async fn shift(sh: &mut Interp<'_>, args: &[String]) -> i32 {
    let n = match args.first() {
        Some(a) => match numeric_arg(sh, "shift", a).await {
            Some(n) if n >= 0 => n as usize,
            Some(n) => {
                sh.error(&format!("shift: {n}: shift count out of range"))
                    .await;
                return 1;
            }
            None => return 1,
        },
        None => 1,
    };
    if n > sh.shell.positional.len() {
        return 1;
    }
    sh.shell.positional.drain(..n);
    0
}

/// `shift`'s registration.
pub const BUILTIN: Builtin = Builtin {
    name: "shift",
    run: status!(shift),
    usage: "[n]",
    about: "Shift positional parameters",
    special: true,
    declaration: None,
};
