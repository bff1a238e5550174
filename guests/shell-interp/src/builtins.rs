//! Shell builtins: the commands that act on the shell itself. This module is the table (names
//! and dispatch); each builtin lives in `builtins/<name>.rs` (`type.rs`, `trap.rs`, `cd.rs`...;
//! a few hold a family: `declare.rs` also serves `typeset`, `local`, `export` and `readonly`).
//! `kind.rs` says what a name is (`type`, `command -v`).

mod alias;
mod r#break;
mod cd;
mod command;
pub mod declare;
pub mod dirs;
mod echo;
mod eval;
mod exec;
mod exit;
mod getopts;
mod hash;
mod help;
pub mod kind;
mod r#let;
mod mapfile;
mod popd;
mod printf;
mod pushd;
pub mod read;
pub mod set;
mod shift;
mod shopt;
mod source;
mod test;
mod trap;
mod r#type;
mod umask;
mod unalias;
mod unset;
mod wait;

use crate::exec::Interp;
use crate::state::Flow;
use shell_base::runtime::Task;

pub use declare::{declare, is_declaration};
pub use set::{set_line, set_options};

/// Every builtin, as `help` lists them.
pub const BUILTINS: &[&str] = &[
    ".",
    ":",
    "[",
    "alias",
    "break",
    "builtin",
    "cd",
    "command",
    "continue",
    "declare",
    "dirs",
    "echo",
    "eval",
    "exec",
    "exit",
    "export",
    "false",
    "getopts",
    "hash",
    "help",
    "let",
    "local",
    "mapfile",
    "popd",
    "printf",
    "pushd",
    "pwd",
    "read",
    "readarray",
    "readonly",
    "return",
    "set",
    "shift",
    "shopt",
    "source",
    "test",
    "times",
    "trap",
    "true",
    "type",
    "typeset",
    "umask",
    "unalias",
    "unset",
    "wait",
];

/// Whether `name` is a builtin.
pub fn is_builtin(name: &str) -> bool {
    BUILTINS.contains(&name)
}

/// Runs a builtin; sets `$?`.
pub fn run<'a>(sh: &'a mut Interp<'_>, argv: &'a [String]) -> Task<'a, Result<(), Flow>> {
    Box::pin(run_builtin(sh, argv))
}

async fn run_builtin(sh: &mut Interp<'_>, argv: &[String]) -> Result<(), Flow> {
    let args = &argv[1..];
    let status = match argv[0].as_str() {
        ":" | "true" => 0,
        "false" => 1,
        "echo" => echo::echo(sh, args).await,
        "printf" => printf::printf(sh, args).await,
        "pwd" => out(sh, &format!("{}\n", sh.shell.cwd)).await,
        "cd" => cd::cd(sh, args).await,
        "pushd" => pushd::pushd(sh, args).await,
        "popd" => popd::popd(sh, args).await,
        "dirs" => dirs::dirs(sh, args).await,
        "declare" | "typeset" | "local" | "export" | "readonly" => {
            let args = args.iter().cloned().map(declare::DeclArg::Word).collect();
            declare(sh, &argv[0], args).await
        }
        "unset" => unset::unset(sh, args).await,
        "set" => set::set(sh, args).await,
        "shopt" => shopt::shopt(sh, args).await,
        "read" => read::read(sh, args).await,
        "mapfile" | "readarray" => mapfile::mapfile(sh, args).await,
        "getopts" => getopts::getopts(sh, args).await,
        "exit" | "return" => return exit::exit_or_return(sh, &argv[0], args).await,
        "break" | "continue" => return r#break::break_or_continue(sh, &argv[0], args).await,
        "shift" => shift::shift(sh, args).await,
        "test" => test::test(sh, args, false).await,
        "[" => test::test(sh, args, true).await,
        "eval" => return r#eval::eval(sh, args).await,
        "let" => return r#let::r#let(sh, args).await,
        "source" | "." => return source::source(sh, &argv[0], args).await,
        "exec" => return exec::exec(sh, args).await,
        "command" | "builtin" => return command::command(sh, &argv[0], args).await,
        "type" => r#type::type_of(sh, args).await,
        "hash" => hash::hash(sh, args).await,
        "trap" => trap::trap(sh, args).await,
        "alias" => alias::alias(sh, args).await,
        "unalias" => unalias::unalias(sh, args).await,
        "wait" => wait::wait(sh, args).await,
        "umask" => umask::umask(sh, args).await,
        "times" => out(sh, "0m0.000s 0m0.000s\n0m0.000s 0m0.000s\n").await,
        "help" => help::help(sh, args).await,
        _ => 127,
    };
    sh.shell.status = status;
    Ok(())
}

/// Writes to stdout; a closed pipe gives 141 (as SIGPIPE would).
pub async fn out(sh: &Interp<'_>, text: &str) -> i32 {
    match sh
        .io
        .stdout
        .write_all(&shell_base::format::output_bytes(text))
        .await
    {
        Ok(()) => 0,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => 141,
        Err(_) => 1,
    }
}

/// A numeric argument of `exit`, `return`, `shift`, `break`: `None` (after the message) when
/// it is not a number.
pub(super) async fn numeric_arg(sh: &mut Interp<'_>, cmd: &str, arg: &str) -> Option<i64> {
    match arg.trim().parse::<i64>() {
        Ok(n) => Some(n),
        Err(_) => {
            sh.error(&format!("{cmd}: {arg}: numeric argument required"))
                .await;
            None
        }
    }
}
