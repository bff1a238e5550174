//! Builtins about running things: `source`/`.`, `exec`, `command`, `builtin`, `type`, `hash`,
//! `trap`, `alias`/`unalias`, `wait`, `umask`, `help`.

use crate::builtins::{BUILTINS, is_builtin, out};
use crate::exec::Interp;
use crate::state::Flow;

/// Reserved words, as `type` reports them.
const KEYWORDS: &[&str] = &[
    "if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until", "do",
    "done", "in", "function", "time", "{", "}", "!", "[[", "]]", "coproc",
];

/// `source FILE [ARGS...]` / `. FILE [ARGS...]`.
pub async fn source(sh: &mut Interp<'_>, cmd: &str, args: &[String]) -> Result<(), Flow> {
    let Some(file) = args.first() else {
        sh.error(&format!("{cmd}: filename argument required"))
            .await;
        sh.error(&format!("{cmd}: usage: {cmd} filename [arguments]"))
            .await;
        sh.shell.status = 2;
        return Ok(());
    };
    let path = if file.contains('/') {
        sh.shell.path(file)
    } else {
        let in_path = sh
            .shell
            .get("PATH")
            .unwrap_or_default()
            .split(':')
            .filter(|d| !d.is_empty())
            .map(|d| std::path::Path::new(d).join(file))
            .find(|p| p.is_file());
        in_path.unwrap_or_else(|| sh.shell.path(file))
    };
    let text = match std::fs::read(&path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => {
            sh.error(&format!("{file}: {}", crate::exec::io_message(&e)))
                .await;
            sh.shell.status = 1;
            return Ok(());
        }
    };
    let saved_args = if args.len() > 1 {
        Some(std::mem::replace(
            &mut sh.shell.positional,
            args[1..].to_vec(),
        ))
    } else {
        None
    };
    let line = sh.line;
    sh.sourcing += 1;
    let mut flow = sh.run_source(&text).await;
    if flow != Some(Flow::Exit)
        && let Err(f) = sh.run_return_trap().await
    {
        flow = Some(f);
    }
    sh.sourcing -= 1;
    sh.line = line;
    if let Some(a) = saved_args {
        sh.shell.positional = a;
    }
    match flow {
        Some(Flow::Return) | None => Ok(()),
        Some(f) => Err(f),
    }
}

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

/// `command [-pVv] NAME [ARGS...]` (skips functions) and `builtin NAME [ARGS...]`.
pub async fn command(sh: &mut Interp<'_>, cmd: &str, args: &[String]) -> Result<(), Flow> {
    if cmd == "builtin" {
        let Some(name) = args.first() else {
            sh.shell.status = 0;
            return Ok(());
        };
        if !is_builtin(name) {
            sh.error(&format!("builtin: {name}: not a shell builtin"))
                .await;
            sh.shell.status = 1;
            return Ok(());
        }
        return Box::pin(crate::builtins::run(sh, args)).await;
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
        let mut status = 0;
        for name in rest {
            match describe(sh, name, mode == "-V") {
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
                    status = 1;
                }
            }
        }
        sh.shell.status = status;
        return Ok(());
    }
    if rest.is_empty() {
        sh.shell.status = 0;
        return Ok(());
    }
    sh.run_argv_skipping_functions(rest.to_vec()).await
}

/// What a name is to the shell.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Alias,
    Keyword,
    Function,
    Builtin,
    File,
}

fn kind_of(sh: &Interp<'_>, name: &str) -> Option<Kind> {
    if sh.shell.aliases.contains_key(name) {
        Some(Kind::Alias)
    } else if KEYWORDS.contains(&name) {
        Some(Kind::Keyword)
    } else if sh.shell.functions.contains_key(name) {
        Some(Kind::Function)
    } else if is_builtin(name) {
        Some(Kind::Builtin)
    } else if crate::commands::find(name).is_some() {
        Some(Kind::File)
    } else {
        None
    }
}

/// `type NAME`'s text (with a function's definition when `verbose`).
fn describe(sh: &Interp<'_>, name: &str, verbose: bool) -> Option<String> {
    Some(match kind_of(sh, name)? {
        Kind::Alias => format!("{name} is aliased to `{}'\n", sh.shell.aliases[name]),
        Kind::Keyword => format!("{name} is a shell keyword\n"),
        Kind::Function if verbose => {
            let body = &sh.shell.functions[name];
            format!(
                "{name} is a function\n{}",
                crate::print::function(name, body)
            )
        }
        Kind::Function => format!("{name} is a function\n"),
        Kind::Builtin => format!("{name} is a shell builtin\n"),
        Kind::File => format!("{name} is /usr/bin/{name}\n"),
    })
}

/// `type [-t|-p|-P|-a] NAME...`.
pub async fn type_of(sh: &mut Interp<'_>, args: &[String]) -> i32 {
    let flags: String = args.iter().filter_map(|a| a.strip_prefix('-')).collect();
    let mut status = 0;
    for name in args.iter().filter(|a| !a.starts_with('-')) {
        let kind = kind_of(sh, name);
        let text = match kind {
            None => None,
            Some(k) if flags.contains('t') => Some(
                match k {
                    Kind::Alias => "alias",
                    Kind::Keyword => "keyword",
                    Kind::Function => "function",
                    Kind::Builtin => "builtin",
                    Kind::File => "file",
                }
                .to_string()
                    + "\n",
            ),
            Some(Kind::File) if flags.contains('p') || flags.contains('P') => {
                Some(format!("/usr/bin/{name}\n"))
            }
            Some(_) if flags.contains('p') => Some(String::new()),
            Some(_) => describe(sh, name, true),
        };
        match text {
            Some(t) => status |= out(sh, &t).await,
            None => {
                if !flags.contains('t') && !flags.contains('p') {
                    sh.error(&format!("type: {name}: not found")).await;
                }
                status = 1;
            }
        }
    }
    status
}

/// `hash`: commands are not looked up in directories here, so there is nothing to remember.
pub async fn hash(sh: &mut Interp<'_>, args: &[String]) -> i32 {
    if args.is_empty() {
        return out(sh, "hash: hash table empty\n").await;
    }
    0
}

/// Signal names `trap` accepts, by number.
const SIGNALS: &[&str] = &[
    "EXIT", "HUP", "INT", "QUIT", "ILL", "TRAP", "ABRT", "BUS", "FPE", "KILL", "USR1", "SEGV",
    "USR2", "PIPE", "ALRM", "TERM",
];

/// A condition's canonical name (`SIGINT`, `2`, `int` → `INT`).
fn condition(spec: &str) -> Option<String> {
    let upper = spec.to_ascii_uppercase();
    let name = upper.strip_prefix("SIG").unwrap_or(&upper);
    if let Ok(n) = name.parse::<usize>() {
        return SIGNALS.get(n).map(|s| s.to_string());
    }
    (SIGNALS.contains(&name) || matches!(name, "ERR" | "DEBUG" | "RETURN"))
        .then(|| name.to_string())
}

/// `trap [-lp] [[ACTION] CONDITION...]`. `EXIT`, `ERR` and `RETURN` run; signals are
/// accepted (no signal reaches a script here).
pub async fn trap(sh: &mut Interp<'_>, args: &[String]) -> i32 {
    let args: Vec<&String> = args.iter().filter(|a| *a != "--").collect();
    if args.first().is_some_and(|a| *a == "-l") {
        let text: String = SIGNALS
            .iter()
            .enumerate()
            .skip(1)
            .map(|(i, s)| format!("{i:2}) SIG{s}\n"))
            .collect();
        return out(sh, &text).await;
    }
    if args.is_empty() || args[0] == "-p" {
        let wanted: Vec<String> = args.iter().skip(1).filter_map(|a| condition(a)).collect();
        let mut names: Vec<&String> = sh.shell.traps.keys().collect();
        let order = |n: &str| {
            SIGNALS
                .iter()
                .position(|s| *s == n)
                .unwrap_or(100 + n.len())
        };
        names.sort_by_key(|n| (order(n), (*n).clone()));
        let text: String = names
            .into_iter()
            .filter(|n| wanted.is_empty() || wanted.contains(n))
            .map(|n| {
                format!(
                    "trap -- {} {n}\n",
                    crate::quote::single(&sh.shell.traps[n], true)
                )
            })
            .collect();
        return out(sh, &text).await;
    }
    let (action, specs) =
        if args.len() == 1 || condition(args[0]).is_some() && args[0].parse::<u32>().is_ok() {
            (None, &args[..])
        } else {
            (Some(args[0].as_str()), &args[1..])
        };
    let mut status = 0;
    for spec in specs {
        match condition(spec) {
            Some(name) => match action {
                None | Some("-") => {
                    sh.shell.traps.remove(&name);
                }
                Some(a) => {
                    if name == "RETURN" {
                        sh.shell.return_traps_set += 1;
                    }
                    sh.shell.traps.insert(name, a.to_string());
                }
            },
            None => {
                sh.error(&format!("trap: {spec}: invalid signal specification"))
                    .await;
                status = 1;
            }
        }
    }
    status
}

/// `alias [NAME[=VALUE]...]`. Aliases expand only with `shopt -s expand_aliases`, as in a
/// bash script.
pub async fn alias(sh: &mut Interp<'_>, args: &[String]) -> i32 {
    let show =
        |name: &str, value: &str| format!("alias {name}={}\n", crate::quote::single(value, true));
    if args.is_empty() || args.iter().all(|a| a == "-p") {
        let text: String = sh.shell.aliases.iter().map(|(k, v)| show(k, v)).collect();
        return out(sh, &text).await;
    }
    let mut status = 0;
    for a in args.iter().filter(|a| *a != "-p") {
        match a.split_once('=') {
            Some((name, value)) => {
                sh.shell.aliases.insert(name.to_string(), value.to_string());
            }
            None => match sh.shell.aliases.get(a.as_str()) {
                Some(v) => {
                    let text = show(a, v);
                    status |= out(sh, &text).await;
                }
                None => {
                    sh.error(&format!("alias: {a}: not found")).await;
                    status = 1;
                }
            },
        }
    }
    status
}

/// `unalias [-a] NAME...`.
pub async fn unalias(sh: &mut Interp<'_>, args: &[String]) -> i32 {
    if args.iter().any(|a| a == "-a") {
        sh.shell.aliases.clear();
        return 0;
    }
    if args.is_empty() {
        sh.error("unalias: usage: unalias [-a] name [name ...]")
            .await;
        return 2;
    }
    let mut status = 0;
    for a in args {
        if sh.shell.aliases.remove(a.as_str()).is_none() {
            sh.error(&format!("unalias: {a}: not found")).await;
            status = 1;
        }
    }
    status
}

/// `wait [-n] [ID...]`: background commands have already run to completion, so this returns
/// their statuses.
pub async fn wait(sh: &mut Interp<'_>, args: &[String]) -> i32 {
    let ids: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
    if ids.is_empty() {
        if args.iter().any(|a| a == "-n") {
            return sh.shell.jobs.last().map(|(_, s)| *s).unwrap_or(127);
        }
        return 0;
    }
    let mut status = 0;
    for id in ids {
        let job = id.trim_start_matches('%').parse::<u32>().ok();
        match job.and_then(|j| sh.shell.jobs.iter().find(|(k, _)| *k == j)) {
            Some((_, s)) => status = *s,
            None => {
                sh.error(&format!("wait: pid {id} is not a child of this shell"))
                    .await;
                status = 127;
            }
        }
    }
    status
}

/// `umask [-S] [MODE]` (kept for scripts that read it; WASI files have no modes to apply it to).
pub async fn umask(sh: &mut Interp<'_>, args: &[String]) -> i32 {
    let symbolic = args.iter().any(|a| a == "-S");
    match args.iter().find(|a| !a.starts_with('-')) {
        Some(mode) => match u32::from_str_radix(mode, 8) {
            Ok(m) if m <= 0o777 => {
                sh.shell.umask = m;
                0
            }
            _ => {
                sh.error(&format!("umask: {mode}: octal number out of range"))
                    .await;
                1
            }
        },
        None if symbolic => {
            let allowed = !sh.shell.umask & 0o777;
            let part = |shift: u32| {
                let bits = (allowed >> shift) & 7;
                [(4, 'r'), (2, 'w'), (1, 'x')]
                    .iter()
                    .filter(|(b, _)| bits & b != 0)
                    .map(|(_, c)| *c)
                    .collect::<String>()
            };
            let text = format!("u={},g={},o={}\n", part(6), part(3), part(0));
            out(sh, &text).await
        }
        None => {
            let text = format!("{:04o}\n", sh.shell.umask);
            out(sh, &text).await
        }
    }
}

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
                crate::commands::NAMES.join(" ")
            );
            out(sh, &text).await
        }
    }
}
