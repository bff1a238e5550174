//! Shell builtins: the commands that act on the shell itself. This module is the table and
//! the small ones; the others live with their subject (`declare`, `options`, `dirs`, `read`,
//! `printf`, `control`).

use crate::exec::Interp;
use crate::runtime::Task;
use crate::state::Flow;

pub use crate::declare::{declare, is_declaration};
pub use crate::dirs::normalize;
pub use crate::options::{set_line, set_options};

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
        "echo" => crate::printf::echo(sh, args).await,
        "printf" => crate::printf::printf(sh, args).await,
        "pwd" => out(sh, &format!("{}\n", sh.shell.cwd)).await,
        "cd" => crate::dirs::cd(sh, args).await,
        "pushd" => crate::dirs::pushd(sh, args).await,
        "popd" => crate::dirs::popd(sh, args).await,
        "dirs" => crate::dirs::dirs(sh, args).await,
        "declare" | "typeset" | "local" | "export" | "readonly" => {
            let args = args
                .iter()
                .cloned()
                .map(crate::declare::DeclArg::Word)
                .collect();
            declare(sh, &argv[0], args).await
        }
        "unset" => crate::declare::unset(sh, args).await,
        "set" => crate::options::set(sh, args).await,
        "shopt" => crate::options::shopt(sh, args).await,
        "read" => crate::read::read(sh, args).await,
        "mapfile" | "readarray" => crate::read::mapfile(sh, args).await,
        "getopts" => crate::read::getopts(sh, args).await,
        "exit" | "return" => return exit_or_return(sh, &argv[0], args).await,
        "break" | "continue" => return break_or_continue(sh, &argv[0], args).await,
        "shift" => shift(sh, args).await,
        "test" => test(sh, args, false).await,
        "[" => test(sh, args, true).await,
        "eval" => {
            let src = args.join(" ");
            return match sh.run_eval(&src).await {
                Some(f) => Err(f),
                None => Ok(()),
            };
        }
        "let" => {
            if args.is_empty() {
                sh.error("let: expression expected").await;
                1
            } else {
                let mut last = 0;
                for a in args {
                    match crate::arith::eval_text(sh.shell, a) {
                        Ok(v) => last = v,
                        Err(e) if crate::arith::is_unbound(&e) => {
                            return sh
                                .expansion_failed(crate::expand::ExpandError::new(e))
                                .await;
                        }
                        Err(e) => {
                            sh.error(&format!("let: {e}")).await;
                            sh.shell.status = 1;
                            return Ok(());
                        }
                    }
                }
                (last == 0) as i32
            }
        }
        "source" | "." => return crate::control::source(sh, &argv[0], args).await,
        "exec" => return crate::control::exec(sh, args).await,
        "command" | "builtin" => return crate::control::command(sh, &argv[0], args).await,
        "type" => crate::control::type_of(sh, args).await,
        "hash" => crate::control::hash(sh, args).await,
        "trap" => crate::control::trap(sh, args).await,
        "alias" => crate::control::alias(sh, args).await,
        "unalias" => crate::control::unalias(sh, args).await,
        "wait" => crate::control::wait(sh, args).await,
        "umask" => crate::control::umask(sh, args).await,
        "times" => out(sh, "0m0.000s 0m0.000s\n0m0.000s 0m0.000s\n").await,
        "help" => crate::control::help(sh, args).await,
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
        .write_all(&crate::printf::output_bytes(text))
        .await
    {
        Ok(()) => 0,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => 141,
        Err(_) => 1,
    }
}

/// A numeric argument of `exit`, `return`, `shift`, `break`: `None` (after the message) when
/// it is not a number.
async fn numeric_arg(sh: &mut Interp<'_>, cmd: &str, arg: &str) -> Option<i64> {
    match arg.trim().parse::<i64>() {
        Ok(n) => Some(n),
        Err(_) => {
            sh.error(&format!("{cmd}: {arg}: numeric argument required"))
                .await;
            None
        }
    }
}

async fn exit_or_return(sh: &mut Interp<'_>, cmd: &str, args: &[String]) -> Result<(), Flow> {
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

async fn break_or_continue(sh: &mut Interp<'_>, cmd: &str, args: &[String]) -> Result<(), Flow> {
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

async fn shift(sh: &mut Interp<'_>, args: &[String]) -> i32 {
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

async fn test(sh: &mut Interp<'_>, args: &[String], bracket: bool) -> i32 {
    let me = if bracket { "[" } else { "test" };
    let mut args = args.to_vec();
    if bracket {
        if args.last().map(String::as_str) != Some("]") {
            sh.error("[: missing `]'").await;
            return 2;
        }
        args.pop();
    }
    match sh.test_command(&args).await {
        Ok(true) => 0,
        Ok(false) => 1,
        Err(e) => {
            sh.error(&format!("{me}: {}", e.0)).await;
            2
        }
    }
}
