//! `exec`: replaces the shell with a command, or keeps its redirections for the shell.

use crate::interp::Builtin;
use crate::interp::Interp;
use crate::state::Flow;

/// `exec [COMMAND [ARGS...]]`: without a command, its redirections stay for the shell;
/// with one, the shell runs it and ends with its status.
pub async fn exec(sh: &mut Interp<'_>, args: &[String]) -> Result<(), Flow> {
    let args: Vec<String> = args.iter().skip_while(|a| *a == "--").cloned().collect();
    if args.is_empty() {
        sh.keep_redirections = true;
        sh.shell.status = 0;
        return Ok(());
    }
    sh.run_argv(args).await?;
    Err(Flow::Exit)
}

/// `exec`'s registration.
pub const BUILTIN: Builtin = Builtin {
    name: "exec",
    run: flow!(exec),
    usage: "[command [argument ...]] [redirection ...]",
    about: "Replace the shell with the given command",
    special: true,
    declaration: None,
};
