//! Shell builtins: the commands that act on the shell itself. Each lives in
//! `builtins/<name>.rs` with its registration (a [`Builtin`]: name, run, usage and help,
//! whether POSIX calls it special, whether it takes assignments); a few files hold a family
//! (`declare.rs` also registers `typeset`, `local`, `export` and `readonly`). [`ALL`] lists
//! the registrations; the interpreter gets it as a table and names none of them. `kind.rs`
//! says what a name is (`type`, `command -v`).

/// The `run` of a builtin whose function gives its status (set as `$?`); with a name, for
/// a function that serves several builtins.
macro_rules! status {
    ($f:path) => {
        |sh, args| {
            Box::pin(async move {
                let status = $f(&mut *sh, args).await;
                sh.shell.status = status;
                Ok(())
            })
        }
    };
    ($f:path, $name:literal) => {
        |sh, args| {
            Box::pin(async move {
                let status = $f(&mut *sh, $name, args).await;
                sh.shell.status = status;
                Ok(())
            })
        }
    };
}

/// The `run` of a builtin that may end a loop, function or the shell (`break`, `exit`...):
/// its function sets `$?` itself.
macro_rules! flow {
    ($f:path) => {
        |sh, args| Box::pin($f(sh, args))
    };
    ($f:path, $name:literal) => {
        |sh, args| Box::pin($f(sh, $name, args))
    };
}

mod alias;
mod bind;
mod r#break;
mod caller;
mod cd;
mod command;
pub(crate) mod complete;
pub mod declare;
pub mod dirs;
mod echo;
mod eval;
mod exec;
mod exit;
mod r#false;
mod getopts;
mod hash;
mod help;
mod history;
pub mod kind;
mod r#let;
mod mapfile;
mod popd;
mod printf;
mod pushd;
mod pwd;
pub mod read;
pub mod set;
mod shift;
mod shopt;
mod source;
mod test;
mod times;
mod trap;
mod r#true;
mod r#type;
mod umask;
mod unalias;
mod unset;
mod wait;

use crate::interp::{Builtin, Interp};

/// Every builtin, sorted by name (lookup searches it in halves).
pub const ALL: &[Builtin] = &[
    source::DOT,
    r#true::COLON,
    test::BRACKET,
    alias::BUILTIN,
    bind::BUILTIN,
    r#break::BREAK,
    command::BUILTIN,
    caller::BUILTIN,
    cd::BUILTIN,
    command::COMMAND,
    complete::COMPGEN,
    complete::COMPLETE,
    complete::COMPOPT,
    r#break::CONTINUE,
    declare::DECLARE,
    dirs::BUILTIN,
    echo::BUILTIN,
    eval::BUILTIN,
    exec::BUILTIN,
    exit::EXIT,
    declare::EXPORT,
    r#false::BUILTIN,
    getopts::BUILTIN,
    hash::BUILTIN,
    help::BUILTIN,
    history::BUILTIN,
    r#let::BUILTIN,
    declare::LOCAL,
    mapfile::MAPFILE,
    popd::BUILTIN,
    printf::BUILTIN,
    pushd::BUILTIN,
    pwd::BUILTIN,
    read::BUILTIN,
    mapfile::READARRAY,
    declare::READONLY,
    exit::RETURN,
    set::BUILTIN,
    shift::BUILTIN,
    shopt::BUILTIN,
    source::SOURCE,
    test::TEST,
    times::BUILTIN,
    trap::BUILTIN,
    r#true::TRUE,
    r#type::BUILTIN,
    declare::TYPESET,
    umask::BUILTIN,
    unalias::BUILTIN,
    unset::BUILTIN,
    wait::BUILTIN,
];

/// The letters of `args`' leading option words (`-pS` gives `p`, `S`) and the words after
/// them (after `--`, when it is there).
pub(crate) fn leading_options(args: &[String]) -> (Vec<char>, &[String]) {
    let mut letters = Vec::new();
    let mut rest = args;
    while let Some(arg) = rest.first().filter(|a| a.starts_with('-') && a.len() > 1) {
        rest = &rest[1..];
        if arg == "--" {
            break;
        }
        letters.extend(arg[1..].chars());
    }
    (letters, rest)
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
