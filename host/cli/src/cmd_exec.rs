//! `computer exec [--backend B] SCRIPT` or `computer exec [--backend B] -- PROGRAM [ARGS...]`:
//! runs bash source or a command line on an execution backend, through the same path as the
//! Rust API's `Workspace::exec`.

use std::process::ExitCode;

use anyhow::{Result, anyhow};
use clap::{Args, ValueEnum};
use computer::{Backend, ExecRequest, Program, Workspace};

use crate::cmd_run::{RunOptions, forward_output, report, stdin_bytes};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum BackendArg {
    /// The isolate, falling back to the container for what it cannot run.
    Auto,
    /// WebAssembly in this process: the bash-compatible shell, its commands, and components
    /// stored in the workspace.
    Isolate,
    /// A Docker container with the workspace at /workspace (through FUSE).
    Container,
}

#[derive(Debug, Args)]
pub struct ExecArgs {
    /// Where to run it.
    #[arg(long, value_enum, default_value_t = BackendArg::Auto)]
    backend: BackendArg,
    #[command(flatten)]
    options: RunOptions,
    /// Bash source to run (`sh -c` semantics).
    #[arg(conflicts_with = "argv")]
    script: Option<String>,
    /// Or: a program and its arguments, after `--`, run without shell syntax.
    #[arg(last = true)]
    argv: Vec<String>,
}

pub fn exec(ws: &Workspace, args: ExecArgs) -> Result<ExitCode> {
    let program = match (args.script, args.argv.is_empty()) {
        (Some(script), _) => Program::Script(script),
        (None, false) => Program::Argv(args.argv),
        (None, true) => return Err(anyhow!("exec: give a SCRIPT, or a command after `--`")),
    };
    let what = match &program {
        Program::Argv(argv) => format!("exec {}", argv.join(" ")),
        _ => "exec".to_string(),
    };
    let request = ExecRequest {
        program,
        backend: match args.backend {
            BackendArg::Auto => Backend::Auto,
            BackendArg::Isolate => Backend::Isolate,
            BackendArg::Container => Backend::Container,
        },
        cwd: args.options.cwd(ws),
        env: args.options.env()?,
        stdin: stdin_bytes()?,
        limits: args.options.limits()?,
        cancel: Default::default(),
    };
    let out = ws
        .exec_streaming(request, Some(forward_output()))
        .map_err(|e| anyhow!("{what}: {e}"))?;
    Ok(report(&what, &out.ended, out.status))
}
