//! `computer exec [--backend B] -- PROGRAM [ARGS...]`: runs a command on an execution backend.
//! Today the isolate backend runs WebAssembly components stored in the workspace; the shell
//! (bash source on the isolate) and the container backend plug in here as they arrive.

use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Result, anyhow};
use clap::{Args, ValueEnum};
use computer::Workspace;
use computer::isolate::{
    CancelToken, ExecCommand, ExecError, ExecHandler, NoBackends, Stream, WorkspaceComponents,
};

use crate::cmd_run::{RunOptions, forward_output, isolate, stdin_bytes};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Backend {
    /// Pick the backend that has the program.
    Auto,
    /// WebAssembly in this process: components stored in the workspace.
    Isolate,
    /// A Docker container (not available in this build yet).
    Container,
}

#[derive(Debug, Args)]
pub struct ExecArgs {
    /// Where to run it.
    #[arg(long, value_enum, default_value_t = Backend::Auto)]
    backend: Backend,
    #[command(flatten)]
    options: RunOptions,
    /// The program and its arguments (after `--`).
    #[arg(last = true, required = true)]
    argv: Vec<String>,
}

pub fn exec(ws: &Workspace, args: ExecArgs) -> Result<ExitCode> {
    let what = format!("exec {}", args.argv.join(" "));
    if args.backend == Backend::Container {
        return Err(anyhow!(
            "{what}: the container backend is not available in this build yet"
        ));
    }
    let isolate = isolate()?;
    let limits = args.options.limits()?;
    let handler = WorkspaceComponents {
        isolate,
        vfs: ws.vfs(),
        limits,
        next: Arc::new(NoBackends),
    };
    let cmd = ExecCommand {
        argv: args.argv,
        source: None,
        cwd: args.options.cwd(ws),
        env: args.options.env()?,
        stdin: stdin_bytes()?,
        backend: None,
        timeout: limits.timeout,
    };
    let sink = forward_output();
    let status = handler.run(cmd, &|s: Stream, b: &[u8]| sink(s, b), &CancelToken::new());
    match status {
        Ok(code) => Ok(ExitCode::from((code & 0xff) as u8)),
        Err(ExecError::NotFound(msg)) => {
            eprintln!("computer: {what}: command not found ({msg})");
            Ok(ExitCode::from(127))
        }
        Err(ExecError::Unavailable(msg) | ExecError::Limit(msg) | ExecError::Invalid(msg)) => {
            eprintln!("computer: {what}: {msg}");
            Ok(ExitCode::from(126))
        }
    }
}
