//! `computer serve`: the toolkit for many workspaces over HTTP. One server holds any number of
//! workspaces, each its own SQLite file under a data directory, addressed by id, opened on
//! first use and closed when idle. It speaks
//! - a JSON HTTP API under `/v1` (workspaces, snapshots, files, exec with output streamed as
//!   server-sent events, tool calls, the audit log, bucket import, export and snapshots),
//!   described by the OpenAPI document at `/v1/openapi.json`;
//! - MCP over streamable HTTP at `/v1/workspaces/{id}/mcp` (rmcp's server, one per process;
//!   each request carries the toolkit of the workspace its path names).
//!
//! Every route but `/v1/health` and `/v1/openapi.json` needs `Authorization: Bearer TOKEN`
//! when a token is set; without one the server refuses to listen beyond loopback.

mod api;
mod bucket;
mod error;
mod openapi;
mod registry;

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
}

impl ServerConfig {
    /// Defaults: 127.0.0.1:8420, no token, 16 MiB bodies, workspaces closed after 5 minutes.
    pub fn new(data_dir: impl Into<PathBuf>) -> ServerConfig {
        ServerConfig {
            data_dir: data_dir.into(),
            listen: SocketAddr::from(([127, 0, 0, 1], 8420)),
            token: None,
            read_only: false,
            limits: ToolLimits::default(),
            max_body: 16 << 20,
            idle: Duration::from_secs(300),
        }
    }
}

type McpService = StreamableHttpService<McpServer, LocalSessionManager>;

/// What every handler shares.
pub(crate) struct AppState {
    config: ServerConfig,
    registry: Registry,
    mcp: McpService,
}

impl AppState {
    /// The toolkit of workspace `id`, for calls that come in through `origin`.
    fn toolkit(&self, id: &str, origin: &'static str) -> Result<Toolkit, ApiError> {
        let ws = self.registry.get(id)?;
        let kit = Toolkit::new(ws)
            .with_origin(origin)
            .with_limits(self.config.limits.clone());
        Ok(if self.config.read_only {
            kit.read_only()
        } else {
            kit
        })
    }
}

/// The server's routes over `config` (the registry is created here; nothing listens yet).
pub fn router(config: ServerConfig) -> std::io::Result<Router> {
    let registry = Registry::new(&config.data_dir, config.idle)?;
    let mut mcp_config =
        StreamableHttpServerConfig::default().with_max_request_body_bytes(config.max_body);
    if !config.listen.ip().is_loopback() {
        // Callers reach a public address by names we cannot know; the token guards it.
        mcp_config = mcp_config.disable_allowed_hosts();
    }
    let mcp = StreamableHttpService::new(
        || Ok(McpServer::per_request()),
        Arc::new(LocalSessionManager::default()),
        mcp_config,
    );
    let max_body = config.max_body;
    let state = Arc::new(AppState {
        config,
        registry,
        mcp,
    });
    spawn_idle_sweeper(&state);
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
        .route(&format!("{ws}/bucket/import"), post(bucket::import))
        .route(&format!("{ws}/bucket/export"), post(bucket::export))
        .route(&format!("{ws}/bucket/push"), post(bucket::push))
        .route(&format!("{ws}/mcp"), any(mcp_endpoint))
        .route_layer(middleware::from_fn_with_state(Arc::clone(&state), auth));
    Ok(Router::new()
        .route("/v1/health", get(api::health))
        .route("/v1/openapi.json", get(api::openapi))
        .merge(protected)
        .fallback(|| async { ApiError::not_found("no such route (see /v1/openapi.json)") })
        .layer(middleware::map_response(json_errors))
        .layer(DefaultBodyLimit::max(max_body))
        .with_state(state))
}

/// Listens on `config.listen` and serves until `shutdown` completes. Refuses an address
/// beyond loopback without a token.
pub async fn serve(
    config: ServerConfig,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), String> {
    if config.token.is_none() && !config.listen.ip().is_loopback() {
        return Err(format!(
            "refusing to listen on {} without a token: set COMPUTER_TOKEN (or --token), or \
             listen on 127.0.0.1",
            config.listen
        ));
    }
    let listen = config.listen;
    let app = router(config).map_err(|e| format!("cannot use the data directory: {e}"))?;
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .map_err(|e| format!("cannot listen on {listen}: {e}"))?;
    let local = listener
        .local_addr()
        .map_err(|e| format!("cannot listen on {listen}: {e}"))?;
    // Scripts and tests wait for this line (and read the port from it when it was 0).
    eprintln!("computer serve: listening on http://{local}");
    // Streamed answers (server-sent events) are many small writes: without TCP_NODELAY each
    // waits for the client's delayed ACK (~40 ms).
    let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
        let _ = tcp.set_nodelay(true);
    });
    axum::serve(listener, app)
        .with_graceful_shutdown(shutdown)
        .await
        .map_err(|e| format!("server failed: {e}"))
}

/// Checks `Authorization: Bearer TOKEN` when a token is set.
async fn auth(State(state): State<Arc<AppState>>, request: Request, next: Next) -> Response {
    if let Some(token) = &state.config.token {
        let given = request
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "));
        let Some(given) = given else {
            return ApiError::new(StatusCode::UNAUTHORIZED, "missing bearer token").into_response();
        };
        if !same_secret(given.as_bytes(), token.as_bytes()) {
            return ApiError::new(StatusCode::UNAUTHORIZED, "wrong bearer token").into_response();
        }
    }
    next.run(request).await
}

/// Compares without stopping at the first difference, so timing does not reveal the token.
fn same_secret(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// MCP over streamable HTTP for workspace `id`: the request goes to rmcp's service with the
/// workspace's toolkit attached.
async fn mcp_endpoint(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    mut request: Request,
) -> Response {
    let kit = {
        let state = Arc::clone(&state);
        tokio::task::spawn_blocking(move || state.toolkit(&id, "mcp-http")).await
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

/// Closes idle workspaces once a second (or every `idle`, if shorter).
fn spawn_idle_sweeper(state: &Arc<AppState>) {
    let weak = Arc::downgrade(state);
    let period = state
        .config
        .idle
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
