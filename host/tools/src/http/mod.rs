//! `computer serve`: the toolkit for many workspaces over HTTP. One server holds any number of
//! workspaces, each its own SQLite file under a data directory, addressed by id, opened on
//! first use and closed when idle. It speaks
//! - a JSON HTTP API under `/v1` (workspaces, snapshots, files, exec with output streamed as
//!   server-sent events, tool calls, the audit log, bucket import, export and snapshots),
//!   described by the OpenAPI document at `/v1/openapi.json`;
//! - MCP over streamable HTTP at `/v1/workspaces/{id}/mcp` (rmcp's server, one per process;
//!   each request carries the toolkit of the workspace its path names).
//!
//! Every route but `/v1/health` and `/v1/openapi.json` needs `Authorization: Bearer TOKEN`.
//! [`serve`] makes a random token when none is given (kept in `DATA_DIR/token`, mode 0600)
//! and refuses to listen beyond loopback without one given. Every route checks `Host`,
//! `Origin` and `Content-Type` first ([`guard`]), so web pages cannot use the server.
//!
//! With [`ServerConfig::cluster`] the server is one node of several over a bucket
//! ([`cluster`]): it serves a workspace while it holds its lease and forwards requests for
//! the others to the node that does.

mod api;
mod bucket;
pub mod cluster;
mod error;
mod guard;
mod net;
mod openapi;
mod private;
mod registry;
mod sessions;
mod tokens;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::{DefaultBodyLimit, Path, Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get, post};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

pub use error::ApiError;
pub use registry::{Registry, WorkspaceInfo, check_id};
pub use tokens::{Scope, TokenInfo, TokenStore};

use crate::mcp::McpServer;
use crate::{ToolLimits, Toolkit};

/// How a server runs.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// Where the workspace files live (`ID.db` each).
    pub data_dir: PathBuf,
    /// Address to listen on.
    pub listen: SocketAddr,
    /// The bearer token callers must send; `None` allows only a loopback address.
    pub token: Option<String>,
    /// Offer only the tools and routes that do not change workspaces.
    pub read_only: bool,
    /// The tools' limits.
    pub limits: ToolLimits,
    /// Largest request body and file response, in bytes.
    pub max_body: usize,
    /// A workspace unused this long is closed (its file stays).
    pub idle: Duration,
    /// A workspace unused this long, with no file open, puts its database connection to
    /// sleep (memory and descriptors back; the next call opens it again). Kept open but
    /// asleep, it is still listed as open.
    pub sleep_after: Duration,
    /// Web origins (`http://localhost:6274`) whose pages may call the server; requests with
    /// any other `Origin` are refused.
    pub allow_origins: Vec<String>,
    /// Buckets (`s3://NAME/...`) the bucket routes may name; `*` allows any. None by default.
    pub allow_buckets: Vec<String>,
    /// Workspaces the server may hold; creating one more is refused.
    pub max_workspaces: usize,
    /// The size quota each new workspace gets, in bytes (0: none).
    pub default_quota: u64,
    /// The network policy each new workspace starts with (default: none).
    pub net_policy: computer::net::Policy,
    /// Commands (`exec`, over the JSON API and the tools) running at once; one more waits
    /// for [`ServerConfig::exec_queue_timeout`], then is refused.
    pub max_concurrent_execs: usize,
    /// How long a command waits for a free place before it is refused.
    pub exec_queue_timeout: Duration,
    /// Connections open at once; one more waits to be accepted until another closes.
    pub max_connections: usize,
    /// How long a client may take to send a request's headers (one that trickles them to
    /// hold a connection open is cut off).
    pub header_timeout: Duration,
    /// Serve as a node of a cluster whose workspaces live in a bucket (`None`: the data
    /// directory is the only copy).
    pub cluster: Option<cluster::ClusterConfig>,
}

impl ServerConfig {
    /// Defaults: 127.0.0.1:8420, no token, 16 MiB bodies, workspaces closed after 5 minutes,
    /// at most 1000 workspaces of 10 GiB each, 32 commands at once.
    pub fn new(data_dir: impl Into<PathBuf>) -> ServerConfig {
        ServerConfig {
            data_dir: data_dir.into(),
            listen: SocketAddr::from(([127, 0, 0, 1], 8420)),
            token: None,
            read_only: false,
            limits: ToolLimits::default(),
            max_body: 16 << 20,
            idle: Duration::from_secs(300),
            sleep_after: Duration::from_secs(10),
            allow_origins: Vec::new(),
            allow_buckets: Vec::new(),
            max_workspaces: 1000,
            default_quota: 10 << 30,
            net_policy: computer::net::Policy::default(),
            max_concurrent_execs: 32,
            exec_queue_timeout: Duration::from_secs(30),
            max_connections: 1024,
            header_timeout: Duration::from_secs(30),
            cluster: None,
        }
    }
}

type McpService = StreamableHttpService<McpServer, LocalSessionManager>;

/// What every handler shares.
pub(crate) struct AppState {
    config: ServerConfig,
    registry: Registry,
    mcp: McpService,
    /// Ends the MCP sessions (on shutdown).
    mcp_cancel: tokio_util::sync::CancellationToken,
    /// Places for commands running at once, shared by every route and tool call.
    exec_slots: Arc<crate::ExecSlots>,
    /// The scoped tokens of the data directory (of the cluster, for a node).
    tokens: TokenStore,
    /// This server's part in a cluster, if it is in one.
    node: Option<cluster::Node>,
}

/// Who is calling, as the bearer token says.
#[derive(Debug, Clone)]
pub(crate) enum Access {
    /// The server's own token (or a server without one): everything.
    Admin,
    /// A scoped token.
    Scoped(Scope),
}

impl Access {
    /// Whether only reads are allowed.
    pub(crate) fn read_only(&self) -> bool {
        matches!(self, Access::Scoped(s) if s.read_only)
    }
}

impl AppState {
    /// The toolkit of workspace `id`, for calls that come in through `origin` (read-only for
    /// a read-only caller).
    fn toolkit(
        &self,
        id: &str,
        origin: &'static str,
        access: &Access,
    ) -> Result<Toolkit, ApiError> {
        let ws = self.registry.get(id)?;
        let kit = Toolkit::new(ws)
            .with_origin(origin)
            .with_limits(self.config.limits.clone())
            .with_exec_slots(Arc::clone(&self.exec_slots));
        Ok(if self.config.read_only || access.read_only() {
            kit.read_only()
        } else {
            kit
        })
    }
}

/// The server's routes over `config` (the registry is created here; nothing listens yet).
pub fn router(config: ServerConfig) -> std::io::Result<Router> {
    Ok(app(config)?.0)
}

/// The routes and the state they share.
fn app(config: ServerConfig) -> std::io::Result<(Router, Arc<AppState>)> {
    let registry = Registry::new(&config.data_dir, config.idle)?
        .with_limits(config.max_workspaces, config.default_quota)
        .with_net_policy(config.net_policy.clone())
        .with_sleep_after(config.sleep_after);
    let mut mcp_config =
        StreamableHttpServerConfig::default().with_max_request_body_bytes(config.max_body);
    if !config.listen.ip().is_loopback() {
        // Callers reach a public address by names we cannot know; the token guards it.
        mcp_config = mcp_config.disable_allowed_hosts();
    }
    if let Some(cluster) = &config.cluster {
        // A session goes on at whichever node serves its workspace.
        mcp_config.session_store = Some(Arc::new(sessions::BucketSessions(cluster.store.clone())));
    }
    let mcp_cancel = mcp_config.cancellation_token.clone();
    let mcp = StreamableHttpService::new(
        || Ok(McpServer::per_request()),
        Arc::new(LocalSessionManager::default()),
        mcp_config,
    );
    let max_body = config.max_body;
    let exec_slots = crate::ExecSlots::new(config.max_concurrent_execs, config.exec_queue_timeout);
    let mut tokens = TokenStore::new(&config.data_dir);
    if let Some(cluster) = &config.cluster {
        let handle = tokio::runtime::Handle::try_current()
            .map_err(|e| std::io::Error::other(format!("a cluster node needs a runtime: {e}")))?;
        tokens = tokens.in_cluster(cluster.store.clone(), handle);
    }
    let node = config.cluster.clone().map(cluster::Node::new);
    let state = Arc::new(AppState {
        config,
        registry,
        mcp,
        mcp_cancel,
        exec_slots,
        tokens,
        node,
    });
    spawn_idle_sweeper(&state);
    spawn_cluster_ticker(&state);
    let ws = "/v1/workspaces/{id}";
    let protected = Router::new()
        .route("/v1/tools", get(api::list_tools))
        .route(
            "/v1/workspaces",
            get(api::list_workspaces).post(api::create_workspace),
        )
        .route(ws, get(api::get_workspace).delete(api::delete_workspace))
        .route(
            &format!("{ws}/snapshots"),
            get(api::list_snapshots).post(api::create_snapshot),
        )
        .route(
            &format!("{ws}/files/{{*path}}"),
            get(api::read_file)
                .put(api::write_file)
                .delete(api::delete_file),
        )
        .route(&format!("{ws}/stat/{{*path}}"), get(api::stat))
        .route(&format!("{ws}/ls/{{*path}}"), get(api::ls))
        .route(&format!("{ws}/exec"), post(api::exec))
        .route(&format!("{ws}/tools/{{name}}"), post(api::call_tool))
        .route(&format!("{ws}/log"), get(api::audit_log))
        .route(
            &format!("{ws}/net"),
            get(net::get_policy).put(net::set_policy),
        )
        .route(&format!("{ws}/bucket/import"), post(bucket::import))
        .route(&format!("{ws}/bucket/export"), post(bucket::export))
        .route(&format!("{ws}/bucket/push"), post(bucket::push))
        .route(&format!("{ws}/mcp"), any(mcp_endpoint))
        .route("/v1/tokens", get(api::list_tokens).post(api::create_token))
        .route(
            "/v1/tokens/{token}",
            axum::routing::delete(api::revoke_token),
        )
        // Inside `auth`: only authorized requests take leases or reach other nodes.
        .route_layer(middleware::from_fn_with_state(
            Arc::clone(&state),
            cluster::route,
        ))
        .route_layer(middleware::from_fn_with_state(Arc::clone(&state), auth));
    let router = Router::new()
        .route("/v1/health", get(api::health))
        .route("/v1/openapi.json", get(api::openapi))
        .merge(protected)
        .fallback(|| async { ApiError::not_found("no such route (see /v1/openapi.json)") })
        .layer(middleware::from_fn_with_state(
            Arc::clone(&state),
            guard::guard,
        ))
        .layer(middleware::map_response(json_errors))
        .layer(DefaultBodyLimit::max(max_body))
        .with_state(Arc::clone(&state));
    Ok((router, state))
}

/// Listens on `config.listen` and serves until `shutdown` completes. Refuses an address
/// beyond loopback without a token; on loopback without one, uses the token kept in
/// `DATA_DIR/token` (made at random, mode 0600, the first time).
pub async fn serve(
    mut config: ServerConfig,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), String> {
    if config.token.is_none() && !config.listen.ip().is_loopback() {
        return Err(format!(
            "refusing to listen on {} without a token: set COMPUTER_TOKEN (or --token-file), \
             or listen on 127.0.0.1",
            config.listen
        ));
    }
    if config.token.is_none() {
        config.token = Some(default_token(&config.data_dir)?);
    }
    if let Some(cluster) = &config.cluster {
        // A wrong endpoint, bucket or key is told now, not at the first request.
        cluster.store.list().await.map_err(|e| {
            format!(
                "cannot use the cluster's store {}: {e}",
                cluster.store.url()
            )
        })?;
    }
    let listen = config.listen;
    let connections = (config.max_connections, config.header_timeout);
    let (app, state) = app(config).map_err(|e| format!("cannot use the data directory: {e}"))?;
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .map_err(|e| format!("cannot listen on {listen}: {e}"))?;
    let local = listener
        .local_addr()
        .map_err(|e| format!("cannot listen on {listen}: {e}"))?;
    // Scripts and tests wait for this line (and read the port from it when it was 0).
    eprintln!("computer serve: listening on http://{local}");
    // Shutting down ends the MCP sessions' event streams too: they would hold the drain.
    let sessions = state.mcp_cancel.clone();
    let shutdown = async move {
        shutdown.await;
        sessions.cancel();
    };
    accept(listener, app, connections, shutdown).await;
    if let Some(node) = &state.node {
        node.leave(&state.registry).await;
    }
    Ok(())
}

/// Serves connections from `listener` with `app` until `shutdown`, then lets the open ones
/// finish. Each connection has `header_timeout` for each request's headers, and at most
/// `max_connections` are open at once (one more waits to be accepted).
async fn accept(
    listener: tokio::net::TcpListener,
    app: Router,
    (max_connections, header_timeout): (usize, Duration),
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) {
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let places = Arc::new(tokio::sync::Semaphore::new(max_connections.max(1)));
    tokio::pin!(shutdown);
    loop {
        let place = tokio::select! {
            place = Arc::clone(&places).acquire_owned() => place,
            () = &mut shutdown => break,
        };
        let Ok(place) = place else { break };
        let (tcp, _) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                // Out of descriptors, say: wait a moment rather than spin.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        // Streamed answers (server-sent events) are many small writes: without TCP_NODELAY
        // each waits for the client's delayed ACK (~40 ms).
        let _ = tcp.set_nodelay(true);
        let service = hyper_util::service::TowerToHyperService::new(app.clone());
        let connection = hyper::server::conn::http1::Builder::new()
            .timer(hyper_util::rt::TokioTimer::new())
            .header_read_timeout(header_timeout)
            .serve_connection(hyper_util::rt::TokioIo::new(tcp), service);
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            let _ = connection.await;
            drop(place);
        });
    }
    drop(listener);
    if tokio::time::timeout(SHUTDOWN_DRAIN, graceful.shutdown())
        .await
        .is_err()
    {
        eprintln!(
            "computer serve: requests still running after the shutdown drain ({} s); \
             stopping them",
            SHUTDOWN_DRAIN.as_secs()
        );
    }
}

/// How long a server that was told to stop waits for the requests in progress (a node of a
/// cluster pushes its workspaces after that, within a Kubernetes pod's grace period).
pub const SHUTDOWN_DRAIN: Duration = Duration::from_secs(10);

/// The token in `data_dir/token`, made (64 random hex digits, mode 0600) if missing.
fn default_token(data_dir: &std::path::Path) -> Result<String, String> {
    let path = data_dir.join("token");
    let fail = |e: std::io::Error| format!("cannot use the token file {}: {e}", path.display());
    private::dir(data_dir).map_err(fail)?;
    match std::fs::read_to_string(&path) {
        Ok(text) if !text.trim().is_empty() => {
            eprintln!(
                "computer serve: using the token in {} (send it as Authorization: Bearer)",
                path.display()
            );
            return Ok(text.trim().to_string());
        }
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(fail(e)),
    }
    let token = format!(
        "{}{}",
        uuid::Uuid::new_v4().simple(),
        uuid::Uuid::new_v4().simple()
    );
    private::write(&path, format!("{token}\n").as_bytes()).map_err(fail)?;
    eprintln!(
        "computer serve: no token was given; made one, kept in {} (mode 0600):\n{token}",
        path.display()
    );
    Ok(token)
}

/// Checks `Authorization: Bearer TOKEN` when a token is set (the scheme in any case): the
/// server's token may do everything; a scoped token only what its scope allows, on the
/// workspaces it names. The caller's [`Access`] goes to the handlers.
async fn auth(State(state): State<Arc<AppState>>, mut request: Request, next: Next) -> Response {
    let access = match &state.config.token {
        None => Access::Admin,
        Some(token) => {
            let given = request
                .headers()
                .get(header::AUTHORIZATION)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| {
                    let (scheme, rest) = v.split_once(' ')?;
                    scheme.eq_ignore_ascii_case("bearer").then(|| rest.trim())
                });
            let Some(given) = given else {
                return ApiError::new(StatusCode::UNAUTHORIZED, "missing bearer token")
                    .into_response();
            };
            if same_secret(given.as_bytes(), token.as_bytes()) {
                Access::Admin
            } else {
                let given = given.to_string();
                let state = Arc::clone(&state);
                let scope = tokio::task::spawn_blocking(move || state.tokens.check(&given))
                    .await
                    .ok()
                    .flatten();
                let Some(scope) = scope else {
                    return ApiError::new(StatusCode::UNAUTHORIZED, "wrong bearer token")
                        .into_response();
                };
                if let Err(why) = allowed(&scope, request.method(), request.uri().path()) {
                    return ApiError::new(StatusCode::FORBIDDEN, why).into_response();
                }
                Access::Scoped(scope)
            }
        }
    };
    request.extensions_mut().insert(access);
    next.run(request).await
}

/// Whether a scoped token may call `method path`: only routes of a workspace in its scope
/// (and the tool list), and with a read-only scope only reads (GET, and the tool and MCP
/// routes, whose toolkit is then read-only).
fn allowed(scope: &Scope, method: &axum::http::Method, path: &str) -> Result<(), String> {
    if path == "/v1/tools" && method == axum::http::Method::GET {
        return Ok(());
    }
    let Some(rest) = path.strip_prefix("/v1/workspaces/") else {
        return Err(format!(
            "this token reaches only workspace routes of {:?}: {path} needs the server's token",
            scope.workspaces
        ));
    };
    let (id, tail) = rest.split_once('/').unwrap_or((rest, ""));
    if !scope.reaches(id) {
        return Err(format!("this token does not reach workspace {id:?}"));
    }
    let reads = matches!(*method, axum::http::Method::GET | axum::http::Method::HEAD)
        || tail.starts_with("tools/")
        || tail == "mcp";
    if scope.read_only && !reads {
        return Err(format!(
            "this token is read-only: {method} {path} would change {id:?}"
        ));
    }
    Ok(())
}

/// Compares without stopping at the first difference, so timing does not reveal the token.
pub(crate) fn same_secret(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// MCP over streamable HTTP for workspace `id`: the request goes to rmcp's service with the
/// workspace's toolkit attached.
async fn mcp_endpoint(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    mut request: Request,
) -> Response {
    let access = request
        .extensions()
        .get::<Access>()
        .cloned()
        .unwrap_or(Access::Scoped(Scope {
            workspaces: Vec::new(),
            read_only: true,
        }));
    let kit = {
        let state = Arc::clone(&state);
        tokio::task::spawn_blocking(move || state.toolkit(&id, "mcp-http", &access)).await
    };
    let kit = match kit {
        Ok(Ok(kit)) => kit,
        Ok(Err(e)) => return e.into_response(),
        Err(e) => return ApiError::internal(format!("request failed: {e}")).into_response(),
    };
    request.extensions_mut().insert(Arc::new(kit));
    state.mcp.handle(request).await.map(axum::body::Body::new)
}

/// axum's own rejections (a query string or path that does not parse) are plain text; every
/// error of this API is `{"error": "..."}`.
async fn json_errors(response: Response) -> Response {
    let is_text = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/plain"));
    if !is_text || !(response.status().is_client_error() || response.status().is_server_error()) {
        return response;
    }
    let status = response.status();
    let text = match axum::body::to_bytes(response.into_body(), 64 << 10).await {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(_) => status.canonical_reason().unwrap_or("error").to_string(),
    };
    ApiError::new(status, text).into_response()
}

/// A cluster node's upkeep, once a second: leases renewed, changes pushed, idle workspaces
/// handed back ([`cluster::Node::tick`]).
fn spawn_cluster_ticker(state: &Arc<AppState>) {
    if state.node.is_none() {
        return;
    }
    let weak = Arc::downgrade(state);
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(Duration::from_secs(1));
        loop {
            tick.tick().await;
            let Some(state) = weak.upgrade() else { break };
            cluster::Node::tick(&state);
        }
    });
}

/// Closes idle workspaces and puts unused ones to sleep once a second (or every `idle` or
/// `sleep_after`, if shorter).
fn spawn_idle_sweeper(state: &Arc<AppState>) {
    let weak = Arc::downgrade(state);
    let period = state
        .config
        .idle
        .min(state.config.sleep_after)
        .clamp(Duration::from_millis(100), Duration::from_secs(1));
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(period);
        loop {
            tick.tick().await;
            let Some(state) = weak.upgrade() else { break };
            let _ = tokio::task::spawn_blocking(move || state.registry.close_idle()).await;
        }
    });
}
