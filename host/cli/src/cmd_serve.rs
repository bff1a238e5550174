//! `computer serve`: the HTTP API and MCP over streamable HTTP, for many workspaces.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use computer::net::SecretStore;
use computer_tools::http::ServerConfig;
use computer_tools::http::cluster::ClusterConfig;

/// `computer serve` options.
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// Address to listen on (port 0 picks a free one; the chosen address is printed).
    #[arg(long, default_value = "127.0.0.1:8420", value_name = "ADDR")]
    listen: SocketAddr,
    /// Folder holding the workspaces, one `ID.db` file each.
    #[arg(long, default_value = ".computer/workspaces", value_name = "DIR")]
    data_dir: PathBuf,
    /// Bearer token that every request must carry (required beyond loopback). Prefer the
    /// environment or --token-file: a command line is visible to every local user in `ps`.
    /// Without one, a random token is made and kept in DATA_DIR/token (mode 0600).
    #[arg(long, env = "COMPUTER_TOKEN", hide_env_values = true)]
    token: Option<String>,
    /// Read the bearer token from this file (its first line).
    #[arg(long, value_name = "FILE", conflicts_with = "token")]
    token_file: Option<PathBuf>,
    /// A web origin (scheme://host:port) whose pages may call the server, such as a local
    /// MCP inspector; may be repeated. Requests from any other page are refused.
    #[arg(long = "allow-origin", value_name = "URL")]
    allow_origins: Vec<String>,
    /// A bucket the bucket routes may import from, export to or push to, with the server's
    /// own credentials; may be repeated; `*` allows any. None by default.
    #[arg(long = "allow-bucket", value_name = "NAME")]
    allow_buckets: Vec<String>,
    /// A network rule every workspace the server creates starts with
    /// (`SCHEME://HOST[:PORT][/PATH]`, as `computer net allow` takes, or `all`); may be
    /// repeated. None by default: a new workspace reaches nothing until its policy is set
    /// (`PUT /v1/workspaces/ID/net`).
    #[arg(long = "net-allow", value_name = "RULE")]
    net_allow: Vec<String>,
    /// Offer only what does not change workspaces (read, ls, find, grep; file reads).
    #[arg(long)]
    read_only: bool,
    /// Close a workspace after this many seconds without use.
    #[arg(long, default_value_t = 300, value_name = "SECONDS")]
    idle_timeout: u64,
    /// Close a workspace's database connection (memory and file descriptors back) after
    /// this many seconds without use; the next call opens it again.
    #[arg(long, default_value_t = 10, value_name = "SECONDS")]
    sleep_after: u64,
    /// Largest request body (and file read), in bytes.
    #[arg(long, default_value_t = 16 << 20, value_name = "BYTES")]
    max_body: usize,
    /// Workspaces the server may hold; creating one more is refused.
    #[arg(long, default_value_t = 1000, value_name = "N")]
    max_workspaces: usize,
    /// The size quota of each new workspace, in MiB (0: none).
    #[arg(long, default_value_t = 10 << 10, value_name = "MIB")]
    workspace_quota: u64,
    /// Commands running at once across all workspaces; one more waits (--exec-wait), then is
    /// refused (503).
    #[arg(long, default_value_t = 32, value_name = "N")]
    max_execs: usize,
    /// Seconds a command waits for a place among --max-execs before it is refused.
    #[arg(long, default_value_t = 30.0, value_name = "SECONDS")]
    exec_wait: f64,
    /// Connections open at once; one more waits until another closes.
    #[arg(long, default_value_t = 1024, value_name = "N")]
    max_connections: usize,
    /// Seconds a client may take to send a request's headers.
    #[arg(long, default_value_t = 30.0, value_name = "SECONDS")]
    header_timeout: f64,
    /// The longest `timeout` an exec may ask for, in seconds.
    #[arg(long, default_value_t = 3600.0, value_name = "SECONDS")]
    max_exec_timeout: f64,
    /// Serve as a node of a cluster whose workspaces live in this bucket prefix
    /// (`s3://BUCKET/PREFIX`; endpoint and credentials from the AWS environment variables).
    /// The data directory is then a cache; every node of the cluster gives the same --store
    /// and the same token. See docs/cluster.md.
    #[arg(long, value_name = "URL")]
    store: Option<String>,
    /// Where the other nodes reach this one (default: http://ADDR of --listen).
    #[arg(long, value_name = "URL", requires = "store")]
    advertise: Option<String>,
    /// Seconds a workspace's lease lasts without renewal (renewed every third of it); a
    /// node that dies holds its workspaces this long.
    #[arg(long, default_value_t = 30, value_name = "SECONDS", requires = "store")]
    lease_seconds: u64,
    /// Seconds between pushes of a workspace that changed.
    #[arg(long, default_value_t = 10, value_name = "SECONDS", requires = "store")]
    push_every: u64,
    /// Push a workspace to the store before answering each request that changed it.
    #[arg(long, requires = "store")]
    sync_writes: bool,
}

/// Serves until Ctrl-C or SIGTERM; `secrets` is reread when its file changes.
pub fn serve(mut args: ServeArgs, secrets: SecretStore) -> anyhow::Result<ExitCode> {
    if let Some(file) = &args.token_file {
        let text = std::fs::read_to_string(file)
            .with_context(|| format!("read the token file {}", file.display()))?;
        args.token = Some(text.lines().next().unwrap_or("").trim().to_string());
    }
    if args.token.as_deref() == Some("") {
        anyhow::bail!("the token is empty: give a secret, or no --token/COMPUTER_TOKEN at all");
    }
    let cluster = cluster_config(&args)?;
    raise_open_files_limit();
    // A long-running server runs many commands: the pooling allocator pays off.
    computer::start_runtime(crate::runtime_config(true)).context("start the wasm runtime")?;
    let mut config = ServerConfig::new(args.data_dir);
    config.listen = args.listen;
    config.token = args.token;
    config.read_only = args.read_only;
    config.idle = Duration::from_secs(args.idle_timeout);
    config.sleep_after = Duration::from_secs(args.sleep_after);
    config.max_body = args.max_body;
    config.max_workspaces = args.max_workspaces;
    config.default_quota = args
        .workspace_quota
        .checked_mul(1 << 20)
        .context("--workspace-quota: too large a number of MiB")?;
    config.max_concurrent_execs = args.max_execs;
    config.exec_queue_timeout =
        Duration::try_from_secs_f64(args.exec_wait).context("--exec-wait: a number of seconds")?;
    config.max_connections = args.max_connections;
    config.header_timeout = Duration::try_from_secs_f64(args.header_timeout)
        .ok()
        .filter(|d| !d.is_zero())
        .context("--header-timeout: a positive number of seconds")?;
    config.limits.max_exec_timeout = Duration::try_from_secs_f64(args.max_exec_timeout)
        .ok()
        .filter(|d| !d.is_zero())
        .context("--max-exec-timeout: a positive number of seconds")?;
    config.allow_origins = args.allow_origins;
    config.allow_buckets = args.allow_buckets;
    for rule in &args.net_allow {
        if rule == "all" {
            config.net_policy.all = true;
        } else {
            config
                .net_policy
                .allow(computer::net::Rule::parse(rule, &[]).context("--net-allow")?)
                .context("--net-allow")?;
        }
    }
    config.cluster = cluster;
    watch_secrets(secrets);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("start the async runtime")?;
    runtime
        .block_on(computer_tools::http::serve(config, shutdown_signal()))
        .map_err(anyhow::Error::msg)?;
    Ok(ExitCode::SUCCESS)
}

/// The cluster `--store` names, if any.
fn cluster_config(args: &ServeArgs) -> anyhow::Result<Option<ClusterConfig>> {
    let Some(store) = &args.store else {
        return Ok(None);
    };
    if args.token.is_none() {
        // A node would make a token of its own, and the others could not forward to it.
        anyhow::bail!(
            "--store: give the token every node of the cluster checks (COMPUTER_TOKEN or \
             --token-file)"
        );
    }
    let url = computer_bucket::BucketUrl::parse(store).context("--store")?;
    let advertise = match &args.advertise {
        Some(url) => url.trim_end_matches('/').to_string(),
        None if args.listen.port() == 0 || args.listen.ip().is_unspecified() => anyhow::bail!(
            "--store: other nodes cannot reach {}: give --advertise http://HOST:PORT",
            args.listen
        ),
        None => format!("http://{}", args.listen),
    };
    if args.lease_seconds < 2 {
        anyhow::bail!("--lease-seconds: at least 2");
    }
    let objects = computer_bucket::open_store(&url).context("--store")?;
    Ok(Some(ClusterConfig {
        store: computer_bucket::cluster::ClusterStore::new(objects, url),
        node: advertise.clone(),
        url: advertise,
        lease: Duration::from_secs(args.lease_seconds),
        push_every: Duration::from_secs(args.push_every.max(1)),
        sync_writes: args.sync_writes,
    }))
}

/// Rereads the secret store when its file changes (`computer secret set` beside the
/// server, or a Kubernetes Secret mounted on every node of a cluster and updated in place):
/// commands started afterwards get the new secrets. A file that does not parse is reported
/// and the secrets in force are kept.
fn watch_secrets(store: SecretStore) {
    use std::os::unix::fs::MetadataExt;
    let stamp = |store: &SecretStore| {
        std::fs::metadata(store.path())
            .ok()
            .map(|m| (m.modified().ok(), m.len(), m.ino(), m.dev()))
    };
    let mut seen = stamp(&store);
    let spawned = std::thread::Builder::new()
        .name("computer-secrets".into())
        .spawn(move || {
            loop {
                std::thread::sleep(SECRETS_CHECK);
                let now = stamp(&store);
                if now == seen {
                    continue;
                }
                seen = now;
                let shown = store.path().display();
                match store
                    .load()
                    .and_then(|s| computer::env_secrets().merged(&s))
                {
                    Ok(secrets) => {
                        eprintln!(
                            "computer serve: secrets reread from {shown} ({} in force)",
                            secrets.list().len()
                        );
                        computer::set_host_secrets(secrets);
                    }
                    Err(e) => {
                        eprintln!("computer serve: {e}; the secrets in force are kept")
                    }
                }
            }
        });
    if let Err(e) = spawned {
        eprintln!("computer serve: secrets will not be reread: {e}");
    }
}

/// How often the secret store's file is checked for a change.
const SECRETS_CHECK: Duration = Duration::from_secs(1);

/// Raises this process's soft limit on open files to its hard limit. Each awake workspace
/// holds three descriptors (its database, log and shared memory) and each connection one, so
/// the usual soft default of 1,024 would refuse calls ("unable to open database file") with
/// hundreds of workspaces in use and memory to spare; the hard limit is the administrator's.
fn raise_open_files_limit() {
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    let Ok((soft, hard)) = getrlimit(Resource::RLIMIT_NOFILE) else {
        return;
    };
    if soft < hard
        && let Err(e) = setrlimit(Resource::RLIMIT_NOFILE, hard, hard)
    {
        eprintln!(
            "computer serve: could not raise the open files limit from {soft} to {hard}: {e}"
        );
    }
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
