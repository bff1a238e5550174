//! `help`: the builtins' one-line help, or every builtin and command.

use crate::builtins::out;
use crate::interp::Builtin;
use crate::interp::Interp;

/// `help [NAME]`.
pub async fn help(sh: &mut Interp<'_>, args: &[String]) -> i32 {
    match args.first() {
        Some(name) if let Some(b) = sh.builtins.get(name) => {
            let synopsis = match b.usage {
                "" => name.to_string(),
                usage => format!("{name} {usage}"),
            };
            let text = format!("{name}: {synopsis}\n    {}.\n", b.about);
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
                sh.builtins.names().collect::<Vec<_>>().join(" "),
                sh.shell.commands.names().collect::<Vec<_>>().join(" ")
            );
            out(sh, &text).await
        }
    }
}

/// `help`'s registration.
pub const BUILTIN: Builtin = Builtin {
    name: "help",
    run: status!(help),
    usage: "[name]",
    about: "Display information about builtin commands",
    special: false,
    declaration: None,
};
