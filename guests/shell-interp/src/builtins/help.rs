//! `help`: the builtins' one-line help, or every builtin and command.

use crate::builtins::{BUILTINS, is_builtin, out};
use crate::exec::Interp;

/// `help [NAME]`.
pub async fn help(sh: &mut Interp<'_>, args: &[String]) -> i32 {
    match args.first() {
        Some(name) if is_builtin(name) => {
            let text = format!(
                "{name}: a builtin of computer's bash-compatible shell; it behaves as bash 5.2's \
                 `{name}` (see `man bash`).\n"
            );
            out(sh, &text).await
        }
        Some(name) => {
            sh.error(&format!("help: no help topics match `{name}'."))
                .await;
            1
        }
        None => {
            let text = format!(
                "computer's shell: bash-compatible, running in a WebAssembly isolate.\n\
                 Builtins:\n{}\nCommands:\n{}\n",
                BUILTINS.join(" "),
                sh.shell.commands.names().collect::<Vec<_>>().join(" ")
            );
            out(sh, &text).await
        }
    }
}
