//! `computer log`: the audit log of agent tool calls in the workspace.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use computer::Workspace;

use crate::format::datetime;

/// `computer log` options.
#[derive(Debug, clap::Args)]
pub struct LogArgs {
    /// Show the newest N calls.
    #[arg(short = 'n', long, default_value_t = 50)]
    limit: usize,
    /// Show the arguments of each call too.
    #[arg(short, long)]
    verbose: bool,
    /// Only calls that failed.
    #[arg(long)]
    errors: bool,
}

/// Prints the log, oldest first.
pub fn log(ws: &Workspace, args: LogArgs) -> Result<ExitCode> {
    let entries = ws.fs().audit_log(0, args.limit)?;
    let mut out = std::io::stdout().lock();
    for e in entries.iter().filter(|e| !args.errors || e.error.is_some()) {
        let ms = e.duration as f64 / 1e6;
        let outcome = match &e.error {
            Some(err) => format!("error: {}", err.lines().next().unwrap_or("")),
            None => e.summary.clone(),
        };
        writeln!(
            out,
            "{:>6}  {}  {:>9.2} ms  {:<8} {:<6}  {outcome}",
            e.id,
            datetime(e.started, false),
            ms,
            e.origin,
            e.tool
        )?;
        if args.verbose {
            writeln!(out, "        args: {}", e.args)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
