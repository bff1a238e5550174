//! The isolate's shell: a bash-compatible interpreter over the `brush-parser` AST, compiled to
//! a wasm32-wasip2 component. `shell -c SCRIPT [NAME [ARGS...]]`, `shell FILE [ARGS...]`, or a
//! script on stdin. `shell --as-file NAME SCRIPT [ARGS...]` runs SCRIPT as if read from the
//! file NAME (the host's `computer sh FILE` gives a host file's text so). The exit status goes
//! to the host whole (`computer:host/process.exit`).
//!
//! This crate is the component's shell only: the interpreter is `shell-interp`, the utilities
//! `shell-utils`, what they share `shell-base`; here are argv, sessions, and the WIT imports
//! behind `shell_base::Host` (`host.rs`).

mod host;

mod bindings {
    wit_bindgen::generate!({
        path: "../../wit",
        world: "computer:host/shell",
        generate_all,
    });
}

use std::io::Read;
use std::rc::Rc;

use shell_base::Registry;
use shell_interp::{Interp, session, state};

fn main() {
    let mut args: Vec<String> = std::env::args().collect();
    // `-n`: read the script and report syntax errors, run nothing (as `bash -n`).
    let check_only = args.get(1).is_some_and(|a| a == "-n");
    if check_only {
        args.remove(1);
    }
    let (name, script, positional) = match args.get(1).map(String::as_str) {
        Some("-c") => match args.get(2) {
            Some(script) => (
                args.get(3).cloned().unwrap_or_else(|| "computer".into()),
                script.clone(),
                args.get(4..).map(<[String]>::to_vec).unwrap_or_default(),
            ),
            None => fail("-c: option requires an argument", 2),
        },
        Some("--as-file") => match (args.get(2), args.get(3)) {
            (Some(name), Some(script)) => (name.clone(), script.clone(), args[4..].to_vec()),
            _ => fail("--as-file: NAME and SCRIPT are required", 2),
        },
        Some(file) => match std::fs::read_to_string(file) {
            Ok(script) => (file.to_string(), script, args[2..].to_vec()),
            Err(e) => fail(
                &format!("{file}: {}", shell_base::errno::io_message(&e)),
                127,
            ),
        },
        None => {
            let mut script = String::new();
            if let Err(e) = std::io::stdin().read_to_string(&mut script) {
                fail(&format!("reading the script: {e}"), 2);
            }
            ("computer".into(), script, Vec::new())
        }
    };
    shell_base::host::install(Box::new(host::Wit));
    let commands = Rc::new(Registry::new(shell_utils::UTILITIES));
    let mut shell = state::Shell::new(name, positional, commands);
    shell.options.noexec = check_only;
    shell.set_origin(match args.get(1).map(String::as_str) {
        Some("-c") => state::Origin::Command,
        Some(_) => state::Origin::File,
        None => state::Origin::Stdin,
    });
    let status = shell_base::runtime::block_on(Box::pin(async {
        let mut interp = Interp::new(
            &mut shell,
            shell_base::io::Io::standard(),
            &shell_interp::BUILTINS,
        );
        let session = session::state_file();
        if let Some(path) = &session {
            interp.restore_session(path).await;
        }
        let flow = if interp.shell.origin == state::Origin::Stdin {
            interp.run_stdin_source(&script).await
        } else {
            interp.run_source(&script).await
        };
        interp.shell.exited = flow == Some(state::Flow::Exit);
        interp.run_exit_trap().await;
        if let Some(path) = &session
            && let Err(e) = interp.save_session(path)
        {
            eprintln!("computer: saving the session to {path}: {e}");
        }
        interp.shell.status
    }));
    use std::io::Write;
    let _ = std::io::stdout().flush();
    bindings::computer::host::process::exit((status & 255) as u8);
}

fn fail(msg: &str, status: u8) -> ! {
    eprintln!("computer: {msg}");
    bindings::computer::host::process::exit(status);
    std::process::exit(status as i32)
}
