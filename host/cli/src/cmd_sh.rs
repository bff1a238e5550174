//! `computer sh`: the bash-compatible shell of the isolate, like `bash`: `-c SCRIPT [NAME
//! [ARGS...]]`, `FILE [ARGS...]` (a host file, else a workspace path), a script on stdin, or
//! an interactive shell when stdin is a terminal.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use computer::Workspace;

use computer::{Backend, ExecRequest, Program};

use crate::cmd_run::{RunOptions, forward_output, report, stdin_bytes};

#[derive(Debug, Args)]
pub struct ShArgs {
    /// Run SCRIPT (then NAME becomes $0 and ARGS $1...).
    #[arg(short = 'c', value_name = "SCRIPT")]
    command: Option<String>,
    #[command(flatten)]
    options: RunOptions,
    /// With -c: NAME and ARGS; without: FILE and ARGS.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    args: Vec<String>,
}

pub fn sh(ws: &Workspace, args: ShArgs) -> Result<ExitCode> {
    let mut argv = Vec::new();
    match (&args.command, args.args.split_first()) {
        (Some(script), _) => {
            argv.extend(["-c".to_string(), script.clone()]);
            argv.extend(args.args.iter().cloned());
        }
        (None, Some((file, rest))) => {
            let host = PathBuf::from(file);
            match std::fs::read_to_string(&host) {
                // A script on the host runs in the workspace as a script file would (bash's
                // statuses and messages differ from `-c`'s).
                Ok(script) => argv.extend(["--as-file".to_string(), file.clone(), script]),
                Err(_) => argv.push(file.clone()),
            }
            argv.extend(rest.iter().cloned());
        }
        // The shell reads its script from stdin, as bash does (`$-` has `s`).
        (None, None) if std::io::stdin().is_terminal() => {
            return crate::interactive::run(ws, &args.options);
        }
        (None, None) => {}
    }
    let stdin = stdin_bytes()?;
    let request = ExecRequest {
        program: Program::Shell(argv),
        backend: Backend::Auto,
        cwd: args.options.cwd(ws),
        env: args.options.env()?,
        stdin,
        limits: args.options.limits()?,
        cancel: Default::default(),
    };
    let out = ws
        .exec_streaming(request, Some(forward_output()))
        .map_err(|e| anyhow::anyhow!("sh: {e}"))?;
    Ok(report("sh", &out.ended, out.status))
}
