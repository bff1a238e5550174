//! `computer token create|list|revoke`: tokens of a `computer serve` data directory (or of a
//! cluster's bucket, `--store`) scoped to some workspaces, read-only or read-write. The
//! server's own token (`COMPUTER_TOKEN`, or the one it made in `DATA_DIR/token`) manages them
//! over HTTP too (`/v1/tokens`).

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

/// Where the tokens are: a server's data directory, or a cluster's bucket.
#[derive(Debug, clap::Args)]
pub struct DataDir {
    /// The `computer serve` data directory.
    #[arg(long, default_value = ".computer/workspaces", value_name = "DIR")]
    data_dir: PathBuf,
    /// The tokens of the cluster in this bucket prefix instead (`computer serve --store`;
    /// endpoint and credentials from the AWS environment variables): every node checks them.
    #[arg(long, value_name = "URL", conflicts_with = "data_dir")]
    store: Option<String>,
}

impl DataDir {
    /// Its tokens, and the runtime a cluster's store calls run on (kept alive with them).
    fn open(&self) -> anyhow::Result<(TokenStore, Option<tokio::runtime::Runtime>)> {
        let Some(url) = &self.store else {
            return Ok((TokenStore::new(&self.data_dir), None));
        };
        let url = computer_bucket::BucketUrl::parse(url).context("--store")?;
        let objects = computer_bucket::open_store(&url).context("--store")?;
        // The token calls drive the store through a `Handle`: only a multi-threaded
        // runtime runs its I/O then.
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .context("start the async runtime")?;
        let store = TokenStore::new(&self.data_dir).in_cluster(
            computer_bucket::cluster::ClusterStore::new(objects, url),
            runtime.handle().clone(),
        );
        Ok((store, Some(runtime)))
    }

    /// Where the tokens are, for messages.
    fn shown(&self) -> String {
        match &self.store {
            Some(url) => url.clone(),
            None => self.data_dir.display().to_string(),
        }
    }
}

pub fn run(cmd: TokenCommand) -> anyhow::Result<ExitCode> {
    match cmd {
        TokenCommand::Create {
            workspaces,
            read_only,
            dir,
        } => {
            let (store, _runtime) = dir.open()?;
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
            let (store, _runtime) = dir.open()?;
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
            let (store, _runtime) = dir.open()?;
            if !store.revoke(&id).context("revoke the token")? {
                bail!("no token {id:?} in {}", dir.shown());
            }
            eprintln!("revoked {id}");
        }
    }
    Ok(ExitCode::SUCCESS)
}
