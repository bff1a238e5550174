//! `computer serve`: the HTTP API and MCP over streamable HTTP, for many workspaces.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use computer_tools::http::ServerConfig;

/// `computer serve` options.
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// Address to listen on (port 0 picks a free one; the chosen address is printed).
    #[arg(long, default_value = "127.0.0.1:8420", value_name = "ADDR")]
    listen: SocketAddr,
    /// Folder holding the workspaces, one `ID.db` file each.
    #[arg(long, default_value = ".computer/workspaces", value_name = "DIR")]
    data_dir: PathBuf,
    /// Bearer token that every request must carry (required beyond loopback).
    #[arg(long, env = "COMPUTER_TOKEN", hide_env_values = true)]
    token: Option<String>,
    /// Offer only what does not change workspaces (read, ls, find, grep; file reads).
    #[arg(long)]
    read_only: bool,
    /// Close a workspace after this many seconds without use.
    #[arg(long, default_value_t = 300, value_name = "SECONDS")]
    idle_timeout: u64,
    /// Largest request body (and file read), in bytes.
    #[arg(long, default_value_t = 16 << 20, value_name = "BYTES")]
    max_body: usize,
}

/// Serves until Ctrl-C or SIGTERM.
pub fn serve(args: ServeArgs) -> anyhow::Result<ExitCode> {
    if args.token.as_deref() == Some("") {
        anyhow::bail!("the token is empty: give a secret, or no --token/COMPUTER_TOKEN at all");
    }
    // A long-running server runs many commands: the pooling allocator pays off.
    computer::start_runtime(computer::isolate::IsolateConfig::default())
        .context("start the wasm runtime")?;
    let mut config = ServerConfig::new(args.data_dir);
    config.listen = args.listen;
    config.token = args.token;
    config.read_only = args.read_only;
    config.idle = Duration::from_secs(args.idle_timeout);
    config.max_body = args.max_body;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("start the async runtime")?;
    runtime
        .block_on(computer_tools::http::serve(config, shutdown_signal()))
        .map_err(anyhow::Error::msg)?;
    Ok(ExitCode::SUCCESS)
}

async fn shutdown_signal() {
    stop_signal().await;
    eprintln!("computer serve: shutting down");
}

/// Completes on Ctrl-C or SIGTERM.
pub(crate) async fn stop_signal() {
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term => {}
    }
}
