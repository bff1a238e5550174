//! `sh` and `bash`: a child shell, as a new process would be: it sees the exported variables
//! and the working directory, and its variables, functions, `cd` and `exit` stay inside it.
//! It shares the command limit and a `timeout` deadline with its parent. Its messages name
//! the shell `computer`, as the parent's do.

use std::rc::Rc;

use crate::interp::Interp;
use crate::state::{Flow, Origin, Shell};
use shell_base::context::complain;
use shell_base::errno::io_message;
use shell_base::io::{MEMORY_LIMIT, read_all_limited};

/// `sh`/`bash [-euxv] [-o OPTION] [-c SCRIPT [NAME [ARG...]] | -s [ARG...] | FILE [ARG...]]`.
pub async fn sh(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let me = argv[0].clone();
    let mut set_args: Vec<String> = Vec::new();
    let mut command: Option<String> = None;
    let mut from_stdin = false;
    let mut check_only = false;
    let mut i = 1;
    while let Some(a) = argv.get(i) {
        match a.as_str() {
            "-c" => {
                i += 1;
                match argv.get(i) {
                    Some(s) => command = Some(s.clone()),
                    None => {
                        return complain(sh, "computer: -c: option requires an argument").await + 1;
                    }
                }
            }
            "-s" => from_stdin = true,
            "-n" => check_only = true,
            "-o" | "+o" => {
                set_args.push(a.clone());
                i += 1;
                set_args.push(argv.get(i).cloned().unwrap_or_default());
            }
            "--posix" => set_args.extend(["-o".to_string(), "posix".to_string()]),
            "-i" | "-l" | "--login" | "--norc" | "--noprofile" => {}
            "--" => {
                i += 1;
                break;
            }
            s if (s.starts_with('-') || s.starts_with('+'))
                && s.len() > 1
                && s[1..].chars().all(|c| "euxvfCaBhH".contains(c)) =>
            {
                set_args.push(s.to_string());
            }
            s if s.starts_with('-') && s.len() > 1 => {
                return complain(sh, &format!("computer: {s}: invalid option")).await + 1;
            }
            _ => break,
        }
        i += 1;
    }
    let rest = argv[i.min(argv.len())..].to_vec();
    let origin = match (&command, from_stdin || rest.is_empty()) {
        (Some(_), _) => Origin::Command,
        (None, true) => Origin::Stdin,
        (None, false) => Origin::File,
    };
    let (name, script, positional) = match command {
        Some(script) => {
            let name = rest.first().cloned().unwrap_or_else(|| me.clone());
            (name, script, rest.get(1..).unwrap_or_default().to_vec())
        }
        None if from_stdin || rest.is_empty() => {
            match read_all_limited(&sh.io.stdin, MEMORY_LIMIT, &me).await {
                Ok(data) => (
                    me.clone(),
                    String::from_utf8_lossy(&data).into_owned(),
                    rest,
                ),
                Err(m) => return complain(sh, &m).await,
            }
        }
        None => {
            let file = rest[0].clone();
            match std::fs::read(sh.shell.path(&file)) {
                Ok(data) => (
                    file,
                    String::from_utf8_lossy(&data).into_owned(),
                    rest[1..].to_vec(),
                ),
                Err(e) => {
                    return complain(sh, &format!("computer: {file}: {}", io_message(&e))).await
                        + 126;
                }
            }
        }
    };
    let mut child = child_of(sh.shell, name, positional);
    child.options.noexec = check_only;
    child.set_origin(origin);
    let mut interp = Interp::new(&mut child, sh.io.clone(), sh.builtins);
    if !set_args.is_empty() {
        let mut args = vec!["set".to_string()];
        args.extend(set_args);
        crate::builtins::set::set(&mut interp, &args[1..]).await;
    }
    let flow = if origin == Origin::Stdin {
        interp.run_stdin_source(&script).await
    } else {
        interp.run_source(&script).await
    };
    interp.shell.exited = flow == Some(Flow::Exit);
    interp.run_exit_trap().await;
    interp.shell.status
}

/// A fresh shell that inherits what a child process would.
fn child_of(parent: &Shell, name: String, positional: Vec<String>) -> Shell {
    let mut child = Shell::new(name, positional, Rc::clone(&parent.commands));
    // The guest's own environment gives way to the parent's exported variables.
    child.vars.retain(|_, v| !v.attrs.exported);
    for (k, v) in parent.environment() {
        child.vars.insert(k, crate::vars::Var::scalar(v, true));
    }
    let level = parent
        .get("SHLVL")
        .and_then(|l| l.parse::<u32>().ok())
        .unwrap_or(1);
    child.vars.insert(
        "SHLVL".into(),
        crate::vars::Var::scalar((level + 1).to_string(), true),
    );
    child.cwd = parent.cwd.clone();
    child.vars.insert(
        "PWD".into(),
        crate::vars::Var::scalar(parent.cwd.clone(), true),
    );
    child.commands_run = parent.commands_run.clone();
    child.deadline = parent.deadline;
    child.limits = parent.limits.clone();
    child.umask = parent.umask;
    child
}
