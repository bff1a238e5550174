//! `bind`: readline's key bindings. A script's shell has no line editing (bash's neither
//! when not interactive), so `bind` warns as bash does there and changes nothing.

use crate::interp::Builtin;
use crate::interp::Interp;

const USAGE: &str = "[-lpsvPSVX] [-m keymap] [-f filename] [-q name] [-u name] [-r keyseq] [-x keyseq:shell-command] [keyseq:readline-function or readline-command]";

pub async fn bind(sh: &mut Interp<'_>, args: &[String]) -> i32 {
    // bash warns before it reads the options.
    sh.error("bind: warning: line editing not enabled").await;
    let (letters, _) = crate::builtins::leading_options(args);
    if let Some(c) = letters.into_iter().find(|c| !"lpsvPSVXmfqurx".contains(*c)) {
        sh.error(&format!("bind: -{c}: invalid option")).await;
        sh.raw_error(&format!("bind: usage: bind {USAGE}")).await;
        return 2;
    }
    0
}

/// `bind`'s registration.
pub const BUILTIN: Builtin = Builtin {
    name: "bind",
    run: status!(bind),
    usage: USAGE,
    about: "Set Readline key bindings and variables",
    special: false,
    declaration: None,
};
