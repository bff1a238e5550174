//! `break` and `continue`, with the number of loops to leave.

use crate::interp::Interp;
use crate::state::Flow;

use super::numeric_arg;
use crate::interp::Builtin;

pub async fn break_or_continue(
    sh: &mut Interp<'_>,
    cmd: &str,
    args: &[String],
) -> Result<(), Flow> {
    let n = match args.first() {
        Some(a) => match numeric_arg(sh, cmd, a).await {
            Some(n) if n >= 1 => n as u32,
            Some(n) => {
                sh.error(&format!("{cmd}: {n}: loop count out of range"))
                    .await;
                sh.shell.status = 1;
                return Ok(());
            }
            None => {
                sh.shell.status = 1;
                return Ok(());
            }
        },
        None => 1,
    };
    if sh.shell.loop_depth == 0 {
        sh.error(&format!(
            "{cmd}: only meaningful in a `for', `while', or `until' loop"
        ))
        .await;
        sh.shell.status = 0;
        return Ok(());
    }
    sh.shell.status = 0;
    let n = n.min(sh.shell.loop_depth);
    Err(if cmd == "break" {
        Flow::Break(n)
    } else {
        Flow::Continue(n)
    })
}

/// `break`'s registration.
pub const BREAK: Builtin = Builtin {
    name: "break",
    run: flow!(break_or_continue, "break"),
    usage: "[n]",
    about: "Exit for, while, or until loops",
    special: true,
    declaration: None,
};

/// `continue`'s registration.
pub const CONTINUE: Builtin = Builtin {
    name: "continue",
    run: flow!(break_or_continue, "continue"),
    usage: "[n]",
    about: "Resume for, while, or until loops",
    special: true,
    declaration: None,
};
