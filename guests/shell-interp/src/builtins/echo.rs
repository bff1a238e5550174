//! `echo` (`-n -e -E`, and `xpg_echo`).

use crate::builtins::out;
use crate::interp::Builtin;
use crate::interp::Interp;
use shell_base::format::*;

/// `echo [-neE] ARGS...`.
pub async fn echo(sh: &mut Interp<'_>, args: &[String]) -> i32 {
    let mut newline = true;
    let mut escapes = sh.shell.shopt.xpg_echo;
    let mut i = 0;
    while i < args.len()
        && args[i].len() > 1
        && args[i].starts_with('-')
        && args[i][1..].chars().all(|c| matches!(c, 'n' | 'e' | 'E'))
    {
        for c in args[i][1..].chars() {
            match c {
                'n' => newline = false,
                'e' => escapes = true,
                _ => escapes = false,
            }
        }
        i += 1;
    }
    let mut text = args[i..].join(" ");
    if escapes {
        let (t, stop) = escapes_of(&text, true);
        text = t;
        if stop {
            newline = false;
        }
    }
    if newline {
        text.push('\n');
    }
    out(sh, &text).await
}

/// `echo`'s registration.
pub const BUILTIN: Builtin = Builtin {
    name: "echo",
    run: status!(echo),
    usage: "[-neE] [arg ...]",
    about: "Write arguments to the standard output",
    special: false,
    declaration: None,
};
