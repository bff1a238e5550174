//! `command` and `builtin`: run a name skipping functions (or aliases and functions), or
//! say what it is (`-v`, `-V`).

use crate::builtins::kind::*;
use crate::builtins::out;
use crate::interp::Builtin;
use crate::interp::Interp;
use crate::state::Flow;

/// `command [-pVv] NAME [ARGS...]` (skips functions) and `builtin NAME [ARGS...]`.
pub async fn command(sh: &mut Interp<'_>, cmd: &str, args: &[String]) -> Result<(), Flow> {
    if cmd == "builtin" {
        let Some(name) = args.first() else {
            sh.shell.status = 0;
            return Ok(());
        };
        let Some(builtin) = sh.builtins.get(name) else {
            sh.error(&format!("builtin: {name}: not a shell builtin"))
                .await;
            sh.shell.status = 1;
            return Ok(());
        };
        return Box::pin(sh.run_builtin(builtin, args)).await;
    }
    let mut rest = args;
    let mut mode = None;
    while let Some(first) = rest.first() {
        match first.as_str() {
            "-v" | "-V" => mode = Some(first.clone()),
            "-p" => {}
            "--" => {
                rest = &rest[1..];
                break;
            }
            _ => break,
        }
        rest = &rest[1..];
    }
    if let Some(mode) = mode {
        // bash's status: success when any name was found (a write error aside).
        let mut status = 0;
        let mut found = false;
        for name in rest {
            let described = describe(sh, name, mode == "-V");
            found |= described.is_some();
            match described {
                Some(text) if mode == "-V" => status |= out(sh, &text).await,
                Some(_) => {
                    let line = match kind_of(sh, name) {
                        Some(Kind::File) => format!("/usr/bin/{name}\n"),
                        Some(Kind::Alias) => format!(
                            "alias {name}={}\n",
                            crate::quote::single(&sh.shell.aliases[name.as_str()], true)
                        ),
                        _ => format!("{name}\n"),
                    };
                    status |= out(sh, &line).await;
                }
                None => {
                    if mode == "-V" {
                        sh.error(&format!("command: {name}: not found")).await;
                    }
                }
            }
        }
        sh.shell.status = if found { status } else { 1 };
        return Ok(());
    }
    if rest.is_empty() {
        sh.shell.status = 0;
        return Ok(());
    }
    sh.run_argv_skipping_functions(rest.to_vec()).await
}

/// `builtin`'s registration.
pub const BUILTIN: Builtin = Builtin {
    name: "builtin",
    run: flow!(command, "builtin"),
    usage: "[shell-builtin [arg ...]]",
    about: "Execute shell builtins",
    special: false,
    declaration: None,
};

/// `command`'s registration.
pub const COMMAND: Builtin = Builtin {
    name: "command",
    run: flow!(command, "command"),
    usage: "[-pVv] command [arg ...]",
    about: "Execute a simple command or display information about commands",
    special: false,
    declaration: None,
};
