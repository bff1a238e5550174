//! `computer token create|list|revoke`: tokens of a `computer serve` data directory scoped
//! to some workspaces, read-only or read-write. The server's own token (`COMPUTER_TOKEN`, or
//! the one it made in `DATA_DIR/token`) manages them over HTTP too (`/v1/tokens`).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};
use computer_tools::http::{Scope, TokenStore};

/// `computer token` subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum TokenCommand {
    /// Make a token for some workspaces; it is printed this once (only its hash is kept).
    Create {
        /// A workspace id the token reaches (`*`: every one); may be repeated.
        #[arg(long = "for", required = true, value_name = "ID")]
        workspaces: Vec<String>,
        /// Only reads: GET routes, and the read-only tools over the tool routes and MCP.
        #[arg(long)]
        read_only: bool,
        #[command(flatten)]
        dir: DataDir,
    },
    /// List the tokens (ids and scopes, never the tokens).
    List {
        #[command(flatten)]
        dir: DataDir,
    },
    /// Revoke a token by its id.
    Revoke {
        /// The token's id (as `list` shows it).
        id: String,
        #[command(flatten)]
        dir: DataDir,
    },
}

/// The server's data directory.
#[derive(Debug, clap::Args)]
pub struct DataDir {
    /// The `computer serve` data directory.
    #[arg(long, default_value = ".computer/workspaces", value_name = "DIR")]
    data_dir: PathBuf,
}

pub fn run(cmd: TokenCommand) -> anyhow::Result<ExitCode> {
    match cmd {
        TokenCommand::Create {
            workspaces,
            read_only,
            dir,
        } => {
            let store = TokenStore::new(&dir.data_dir);
            let (token, info) = store
                .create(Scope {
                    workspaces,
                    read_only,
                })
                .context("create a token")?;
            eprintln!(
                "token {} for {} ({}); it is not shown again:",
                info.id,
                info.scope.workspaces.join(", "),
                if read_only { "read-only" } else { "read-write" }
            );
            println!("{token}");
        }
        TokenCommand::List { dir } => {
            let store = TokenStore::new(&dir.data_dir);
            for t in store.list().context("read the tokens")? {
                println!(
                    "{}\t{}\t{}",
                    t.id,
                    if t.scope.read_only {
                        "read-only"
                    } else {
                        "read-write"
                    },
                    t.scope.workspaces.join(",")
                );
            }
        }
        TokenCommand::Revoke { id, dir } => {
            let store = TokenStore::new(&dir.data_dir);
            if !store.revoke(&id).context("revoke the token")? {
                bail!("no token {id:?} in {}", dir.data_dir.display());
            }
            eprintln!("revoked {id}");
        }
    }
    Ok(ExitCode::SUCCESS)
}
