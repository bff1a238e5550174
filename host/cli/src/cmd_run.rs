//! `computer run PROGRAM.wasm [-- ARGS...]`: runs any WASI 0.2 command component, or WASI 0.1
//! command module (adapted by the isolate), against the workspace, streaming its output; the
//! exit status propagates.

use std::io::{IsTerminal, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result, anyhow};
use clap::Args;
use computer::Workspace;
use computer::isolate::{
    Isolate, Limits, NoBackends, RunRequest, RunStatus, Stream, WorkspaceComponents,
};

/// Limits and environment shared by `run` and `exec`.
#[derive(Debug, Args)]
pub struct RunOptions {
    /// Wall-clock limit in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0)]
    timeout: f64,
    /// Memory limit of the guest in MiB.
    #[arg(long, value_name = "MIB", default_value_t = 512)]
    memory_limit: u64,
    /// Output limit per stream in MiB.
    #[arg(long, value_name = "MIB", default_value_t = 16)]
    output_limit: u64,
    /// Environment variable for the guest (repeatable); nothing else is passed from the host.
    #[arg(long = "env", short = 'e', value_name = "KEY=VALUE")]
    env: Vec<String>,
    /// Working directory (absolute, or relative to /workspace).
    #[arg(long, default_value = computer::DEFAULT_CWD)]
    cwd: PathBuf,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// A component file on the host, or a workspace path (tried when no host file has it).
    component: PathBuf,
    #[command(flatten)]
    options: RunOptions,
    /// Arguments for the component (after `--`).
    #[arg(last = true)]
    args: Vec<String>,
}

impl RunOptions {
    pub fn limits(&self) -> Result<Limits> {
        if !(self.timeout > 0.0 && self.timeout.is_finite()) {
            return Err(anyhow!("--timeout must be a positive number of seconds"));
        }
        let timeout = Duration::try_from_secs_f64(self.timeout)
            .map_err(|_| anyhow!("--timeout {}: too large a number of seconds", self.timeout))?;
        let mib = |value: u64, flag: &str| {
            value
                .checked_mul(1 << 20)
                .ok_or_else(|| anyhow!("{flag} {value}: too large a number of MiB"))
        };
        Ok(Limits {
            timeout,
            memory: mib(self.memory_limit, "--memory-limit")?,
            output: mib(self.output_limit, "--output-limit")?,
        })
    }

    pub fn env(&self) -> Result<Vec<(String, String)>> {
        self.env
            .iter()
            .map(|kv| {
                kv.split_once('=')
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .ok_or_else(|| anyhow!("--env {kv}: expected KEY=VALUE"))
            })
            .collect()
    }

    pub fn cwd(&self, ws: &Workspace) -> String {
        ws.resolve(&self.cwd).to_string_lossy().into_owned()
    }
}

/// The runtime, with compiled components cached under the user's cache directory.
pub fn isolate() -> Result<Arc<Isolate>> {
    computer::runtime().context("start the wasm runtime")
}

/// Standard input for the guest: ours, unless it is a terminal.
pub fn stdin_bytes() -> Result<Vec<u8>> {
    let mut stdin = std::io::stdin();
    let mut data = Vec::new();
    if !stdin.is_terminal() {
        stdin
            .read_to_end(&mut data)
            .context("read standard input")?;
    }
    Ok(data)
}

/// Writes the guest's output to ours as it comes.
pub fn forward_output() -> computer::isolate::OutputSink {
    Arc::new(|stream, bytes| {
        let _ = match stream {
            Stream::Stdout => std::io::stdout().lock().write_all(bytes),
            Stream::Stderr => std::io::stderr().lock().write_all(bytes),
        };
    })
}

pub fn run(ws: &Workspace, args: RunArgs) -> Result<ExitCode> {
    let label = args.component.display().to_string();
    let wasm = match std::fs::read(&args.component) {
        Ok(bytes) => bytes,
        Err(host_err) => ws
            .fs()
            .read_file(ws.resolve(&args.component))
            .map_err(|_| anyhow!("run {label}: {host_err}"))?,
    };
    let name = args
        .component
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "main".into());
    let argv = std::iter::once(name).chain(args.args).collect();
    run_component(
        ws,
        &wasm,
        argv,
        stdin_bytes()?,
        &args.options,
        &format!("run {label}"),
    )
}

/// Runs a component against the workspace with the CLI's streams, limits and environment;
/// workspace components it asks to exec run as nested isolates.
pub fn run_component(
    ws: &Workspace,
    wasm: &[u8],
    argv: Vec<String>,
    stdin: Vec<u8>,
    options: &RunOptions,
    what: &str,
) -> Result<ExitCode> {
    let isolate = isolate()?;
    let program = isolate.load(wasm).with_context(|| what.to_string())?;
    let limits = options.limits()?;
    let git = ws.git_handler();
    let network = ws.egress("isolate")?;
    // The secrets' placeholders in its environment, their values out of its output.
    let mut env = options.env()?;
    let on_output = ws.guest_view(&mut env, Some(forward_output()));
    let req = RunRequest {
        args: argv,
        env,
        cwd: options.cwd(ws),
        stdin: stdin.into(),
        limits,
        on_output,
        exec: Arc::new(WorkspaceComponents {
            isolate: Arc::clone(&isolate),
            vfs: ws.vfs(),
            limits,
            next: Arc::new(NoBackends),
            git: Arc::clone(&git),
            network: Some(network.clone()),
        }),
        git,
        network: Some(network),
        ..RunRequest::default()
    };
    let outcome = isolate.run(&program, ws.vfs(), req);
    Ok(report(what, &outcome.status, outcome.exit_code()))
}

/// Says why a run ended if it did not simply exit, and gives the status a shell would.
pub fn report(what: &str, ended: &RunStatus, status: i32) -> ExitCode {
    let _ = std::io::stdout().flush();
    match ended {
        RunStatus::Exited(_) => {}
        RunStatus::Limit(hit) => eprintln!("computer: {what}: {hit}"),
        RunStatus::Trapped(msg) => eprintln!("computer: {what}: the component crashed: {msg}"),
        RunStatus::Cancelled => eprintln!("computer: {what}: cancelled"),
    }
    ExitCode::from((status & 0xff) as u8)
}
