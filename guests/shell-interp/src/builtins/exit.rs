//! `exit` and `return`: end the shell, or the function or sourced script, with a status.

use crate::interp::Interp;
use crate::state::Flow;

use super::numeric_arg;
use crate::interp::Builtin;

pub async fn exit_or_return(sh: &mut Interp<'_>, cmd: &str, args: &[String]) -> Result<(), Flow> {
    if cmd == "return" && sh.shell.funcname.is_empty() && sh.sourcing == 0 {
        sh.error("return: can only `return' from a function or sourced script")
            .await;
        sh.shell.status = 2;
        return Ok(());
    }
    if args.len() > 1 {
        sh.error(&format!("{cmd}: too many arguments")).await;
        sh.shell.status = 1;
        if cmd == "return" {
            return Err(Flow::Return);
        }
        return Ok(());
    }
    if let Some(a) = args.first() {
        sh.shell.status = match numeric_arg(sh, cmd, a).await {
            Some(n) => (n & 255) as i32,
            None => 2,
        };
    }
    Err(if cmd == "exit" {
        Flow::Exit
    } else {
        Flow::Return
    })
}

/// `exit`'s registration.
pub const EXIT: Builtin = Builtin {
    name: "exit",
    run: flow!(exit_or_return, "exit"),
    usage: "[n]",
    about: "Exit the shell",
    special: true,
    declaration: None,
};

/// `return`'s registration.
pub const RETURN: Builtin = Builtin {
    name: "return",
    run: flow!(exit_or_return, "return"),
    usage: "[n]",
    about: "Return from a shell function",
    special: true,
    declaration: None,
};
