//! `computer`: the command line of a computer for AI agents. Every subcommand works on one
//! workspace file (`--workspace`, default `./.computer/workspace.db`) or a throwaway
//! in-memory one (`--memory`).

mod cmd_bucket;
mod cmd_compact;
mod cmd_exec;
mod cmd_fs;
mod cmd_git;
mod cmd_image;
mod cmd_log;
mod cmd_mcp;
mod cmd_mount;
mod cmd_net;
mod cmd_run;
mod cmd_runtime;
mod cmd_secret;
mod cmd_serve;
mod cmd_sh;
mod cmd_snapshot;
mod cmd_token;
mod cmd_transfer;
mod format;
mod interactive;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Parser, Subcommand};
use computer::Workspace;

/// A computer for AI agents: a persistent workspace filesystem in one SQLite file.
#[derive(Debug, Parser)]
#[command(
    name = "computer",
    version,
    about,
    max_term_width = 100,
    after_help = "Compiled WebAssembly (the shell, workspace components) is cached in\n\
        $COMPUTER_CACHE_DIR/components, else $XDG_CACHE_HOME/computer/components,\n\
        else ~/.cache/computer/components, else $TMPDIR/computer-UID/components."
)]
struct Cli {
    /// The workspace file (created on first use).
    #[arg(
        long,
        global = true,
        env = "COMPUTER_WORKSPACE",
        default_value = ".computer/workspace.db",
        value_name = "PATH"
    )]
    workspace: PathBuf,

    /// Use a throwaway in-memory workspace instead of a file.
    #[arg(long, global = true, conflicts_with = "workspace")]
    memory: bool,

    /// The host's secret store (`computer secret`), kept outside every workspace file.
    #[arg(
        long,
        global = true,
        env = "COMPUTER_SECRETS",
        default_value = ".computer/secrets.json",
        value_name = "PATH"
    )]
    secrets: PathBuf,

    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Files in the workspace: ls, cat, write, mkdir, rm, mv, cp, stat, tree.
    #[command(subcommand)]
    Fs(cmd_fs::FsCommand),
    /// Copy a host folder, a .tar/.tar.gz archive or an S3 bucket prefix into the workspace.
    Import(cmd_transfer::ImportArgs),
    /// Copy a workspace folder out to a host folder, a .tar/.tar.gz archive or an S3 bucket
    /// prefix (with --delete: sync).
    Export(cmd_transfer::ExportArgs),
    /// Run bash-compatible shell code in the isolate (like `bash`).
    Sh(cmd_sh::ShArgs),
    /// Run a WebAssembly component (WASI 0.2) or WASI 0.1 module against the workspace.
    Run(cmd_run::RunArgs),
    /// Run a command on an execution backend.
    Exec(cmd_exec::ExecArgs),
    /// Snapshots of the whole workspace: create, list, delete, restore, fork.
    #[command(subcommand)]
    Snapshot(cmd_snapshot::SnapshotCommand),
    /// Serve the agent tools (read, write, edit, ls, find, grep, delete, exec) over MCP on
    /// standard input and output.
    Mcp(cmd_mcp::McpArgs),
    /// Serve many workspaces over HTTP: a JSON API (see /v1/openapi.json) and MCP over
    /// streamable HTTP at /v1/workspaces/ID/mcp.
    Serve(cmd_serve::ServeArgs),
    /// The audit log: every agent tool call made on this workspace (MCP, HTTP), newest last.
    Log(cmd_log::LogArgs),
    /// The workspace's network policy: which hosts a guest's requests (today: its git) may
    /// reach. Nothing, until `computer net allow URL`.
    #[command(subcommand)]
    Net(cmd_net::NetCommand),
    /// The host's secrets: set, list, rm. A guest sees only a placeholder; the host adds
    /// the value to https requests to the hosts it is bound to.
    #[command(subcommand)]
    Secret(cmd_secret::SecretCommand),
    /// Git on the workspace's repositories (clone, status, diff, add, commit, log, checkout, ...), run by the host
    Git(cmd_git::GitArgs),
    /// Mount the workspace on the host through FUSE, until Ctrl-C or `computer umount`.
    Mount(cmd_mount::MountArgs),
    /// Unmount a `computer mount` (or clean up one whose process died).
    Umount(cmd_mount::UmountArgs),
    /// Rewrite the workspace file compactly: the space of deleted files goes back to the disk,
    /// and each file's data lies together again (faster cold reads after much churn).
    Compact,
    /// The container backend's image: `computer image build`.
    #[command(subcommand)]
    Image(cmd_image::ImageCommand),
    /// Language runtimes of the host, shared by every workspace: `computer runtime install
    /// python` makes `python3` run in the isolate.
    #[command(subcommand)]
    Runtime(cmd_runtime::RuntimeCommand),
    /// Tokens of `computer serve` scoped to some workspaces: create, list, revoke.
    #[command(subcommand)]
    Token(cmd_token::TokenCommand),
    /// The workspace's owner (who owns the files the tools, the CLI and the isolate make):
    /// print it, or set it (`UID[:GID]`) and give it every file of the old owner.
    Owner {
        /// The new owner, `UID[:GID]` (the group defaults to the uid).
        owner: Option<String>,
    },
}

/// `computer owner [UID[:GID]]`.
fn owner_command(ws: &Workspace, owner: Option<String>) -> anyhow::Result<ExitCode> {
    let vfs = ws.vfs();
    if let Some(text) = owner {
        let bad = || anyhow::anyhow!("{text:?}: expected UID or UID:GID (numbers)");
        let (uid, gid) = match text.split_once(':') {
            Some((u, g)) => (u.parse().map_err(|_| bad())?, g.parse().map_err(|_| bad())?),
            None => {
                let uid = text.parse().map_err(|_| bad())?;
                (uid, uid)
            }
        };
        vfs.set_owner(computer::vfs::Owner { uid, gid })?;
    }
    let owner = vfs.owner()?;
    println!("{}:{}", owner.uid, owner.gid);
    Ok(ExitCode::SUCCESS)
}

fn open_workspace(memory: bool, path: &std::path::Path) -> anyhow::Result<Workspace> {
    if memory {
        return Ok(Workspace::in_memory()?);
    }
    Workspace::open(path).with_context(|| format!("open workspace {}", path.display()))
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let store = computer::net::SecretStore::new(&cli.secrets);
    let command = match cli.command {
        Command::Secret(cmd) => return cmd_secret::run(&store, cmd),
        other => other,
    };
    // What guests' requests get on the way out: the store's secrets and the environment's
    // git token.
    let secrets = computer::env_secrets()
        .merged(&store.load()?)
        .context("the secret store")?;
    computer::set_host_secrets(secrets);
    let command = match command {
        // The server holds its own workspaces, not `--workspace`.
        Command::Serve(args) => return cmd_serve::serve(args, store),
        Command::Umount(args) => return cmd_mount::umount(args),
        Command::Image(cmd) => return cmd_image::run(cmd),
        Command::Token(cmd) => return cmd_token::run(cmd),
        Command::Runtime(cmd) => return cmd_runtime::run(cmd),
        other => other,
    };
    let ws = open_workspace(cli.memory, &cli.workspace)?;
    // Starting the container backend can take a while once (an image is built): say so.
    ws.on_container_progress(Some(std::sync::Arc::new(|step: &str| {
        eprintln!("computer: container: {step}")
    })));
    if matches!(
        command,
        Command::Run(_) | Command::Sh(_) | Command::Exec(_) | Command::Mcp(_)
    ) {
        // One command per process: the pooling allocator's setup would cost more than it
        // saves.
        computer::start_runtime(runtime_config(false)).context("start the wasm runtime")?;
    }
    match command {
        Command::Fs(cmd) => cmd_fs::run(&ws, cmd),
        Command::Import(args) => cmd_transfer::import(&ws, args),
        Command::Export(args) => cmd_transfer::export(&ws, args),
        Command::Snapshot(cmd) => cmd_snapshot::run(&ws, cmd),
        Command::Run(args) => cmd_run::run(&ws, args),
        Command::Sh(args) => cmd_sh::sh(&ws, args),
        Command::Exec(args) => cmd_exec::exec(&ws, args),
        Command::Mcp(args) => cmd_mcp::mcp(ws, args),
        Command::Log(args) => cmd_log::log(&ws, args),
        Command::Compact => cmd_compact::compact(&ws),
        Command::Git(args) => cmd_git::git(&ws, args),
        Command::Net(cmd) => cmd_net::run(&ws, cmd),
        Command::Mount(args) => cmd_mount::mount(&ws, args),
        Command::Serve(args) => cmd_serve::serve(args, store),
        Command::Umount(args) => cmd_mount::umount(args),
        Command::Image(cmd) => cmd_image::run(cmd),
        Command::Token(cmd) => cmd_token::run(cmd),
        Command::Runtime(cmd) => cmd_runtime::run(cmd),
        Command::Owner { owner } => owner_command(&ws, owner),
        Command::Secret(cmd) => cmd_secret::run(&store, cmd),
    }
}

/// The wasm runtime's configuration; says so when compiled components cannot be cached, or
/// not where `COMPUTER_CACHE_DIR` asks.
pub(crate) fn runtime_config(pooling: bool) -> computer::isolate::IsolateConfig {
    let config = computer::isolate::IsolateConfig {
        pooling,
        ..Default::default()
    };
    let asked = std::env::var_os("COMPUTER_CACHE_DIR").filter(|d| !d.is_empty());
    match (&config.cache_dir, asked) {
        (None, _) => eprintln!(
            "computer: no cache directory can be made (tried COMPUTER_CACHE_DIR, \
             XDG_CACHE_HOME, HOME and the temp dir): components are compiled in every run"
        ),
        (Some(dir), Some(asked)) if !dir.starts_with(&asked) => eprintln!(
            "computer: COMPUTER_CACHE_DIR={} cannot be used (not an absolute path, or not \
             writable): caching in {}",
            PathBuf::from(asked).display(),
            dir.display()
        ),
        _ => {}
    }
    config
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) if is_broken_pipe(&e) => ExitCode::from(141),
        Err(e) => {
            eprintln!("computer: {}", error_chain(&e));
            ExitCode::FAILURE
        }
    }
}

/// The error and its causes, `: `-separated, leaving out a cause the message before it
/// already says (our errors name their cause in their own message, as `{path}: {source}`).
fn error_chain(e: &anyhow::Error) -> String {
    let mut said = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if said.ends_with(&text) {
            continue;
        }
        if !said.is_empty() {
            said.push_str(": ");
        }
        said.push_str(&text);
    }
    said
}

/// Output cut short by a closed pipe (`computer fs cat big | head`) is not an error to report.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
