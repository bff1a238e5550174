//! The toolkit over the Model Context Protocol, on the official Rust SDK (`rmcp`). A tool's
//! failure is a tool result with `isError` (the model reads it); only an unknown tool or
//! malformed request is a protocol error. While `exec` runs, a client that asked for progress
//! (a `progressToken`) gets the command's output as progress notifications.
//!
//! Over stdio the server has one toolkit; over streamable HTTP (`computer serve`) the HTTP
//! layer puts the addressed workspace's toolkit into each request, see [`McpServer::per_request`].

use std::sync::Arc;

use computer::isolate::{CancelToken, OutputSink, Stream};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ProgressNotificationParam, ServerCapabilities,
    ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler, ServiceExt};
use serde_json::Value;

use crate::{CallContext, Content, ToolError, Toolkit};

/// How long a result waits for its queued progress notifications to go out.
const PROGRESS_DRAIN: std::time::Duration = std::time::Duration::from_secs(2);

/// The MCP server of one toolkit, or of the toolkit each HTTP request carries.
#[derive(Clone)]
pub struct McpServer {
    kit: Option<Arc<Toolkit>>,
}

impl McpServer {
    /// A server for `kit`.
    pub fn new(kit: Toolkit) -> McpServer {
        McpServer {
            kit: Some(Arc::new(kit)),
        }
    }

    /// A server whose toolkit comes with each request: the HTTP layer inserts an
    /// `Arc<Toolkit>` into the request's extensions (rmcp hands the request's
    /// `http::request::Parts` to the handler).
    pub fn per_request() -> McpServer {
        McpServer { kit: None }
    }

    fn kit(&self, context: &RequestContext<RoleServer>) -> Result<Arc<Toolkit>, ErrorData> {
        if let Some(kit) = &self.kit {
            return Ok(Arc::clone(kit));
        }
        context
            .extensions
            .get::<axum::http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<Arc<Toolkit>>())
            .cloned()
            .ok_or_else(|| ErrorData::internal_error("no workspace for this request", None))
    }

    fn tool_list(kit: &Toolkit) -> Vec<Tool> {
        kit.tools()
            .into_iter()
            .map(|t| {
                let schema = match t.input_schema {
                    Value::Object(map) => map,
                    _ => Default::default(),
                };
                Tool::new(t.name, t.description, Arc::new(schema))
            })
            .collect()
    }
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(ServerCapabilities::builder().enable_tools().build());
        info.server_info = Implementation::new("computer", env!("CARGO_PKG_VERSION"));
        info.instructions = Some(
            "A computer for agents: a persistent workspace under /workspace. Read and change \
             files with read, write, edit, ls, find, grep and delete; run commands with exec \
             (background ones followed with job)."
                .into(),
        );
        info
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let kit = self.kit(&context)?;
        Ok(ListToolsResult::with_all_items(McpServer::tool_list(&kit)))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let kit = self.kit(&context)?;
        let name = request.name.to_string();
        let args = request.arguments.map(Value::Object).unwrap_or(Value::Null);
        let cancel = CancelToken::new();
        let (on_output, progress) = progress_sink(&context).unzip();
        let call = CallContext {
            on_output,
            cancel: Some(cancel.clone()),
        };
        // A client's `notifications/cancelled` (or its going away) stops a running exec.
        let cancelled = context.ct.clone();
        let watcher = tokio::spawn(async move {
            cancelled.cancelled().await;
            cancel.cancel();
        });
        // Tools block (SQLite, the isolate): off the async workers.
        let result = tokio::task::spawn_blocking(move || kit.call_with(&name, args, call)).await;
        watcher.abort();
        // Over streamable HTTP the result closes the request's event stream: progress still
        // queued then would be lost, so it goes out first (the sink was dropped with the call).
        if let Some(progress) = progress {
            let _ = tokio::time::timeout(PROGRESS_DRAIN, progress).await;
        }
        let result = result
            .map_err(|e| ErrorData::internal_error(format!("tool call failed: {e}"), None))?;
        Ok(match result {
            Ok(parts) => CallToolResult::success(
                parts
                    .into_iter()
                    .map(|p| match p {
                        Content::Text(t) => ContentBlock::text(t),
                        Content::Image { mime, base64 } => ContentBlock::image(base64, mime),
                    })
                    .collect(),
            ),
            Err(ToolError::UnknownTool(n)) => {
                return Err(ErrorData::invalid_params(
                    format!("unknown tool {n:?}"),
                    None,
                ));
            }
            Err(e) => CallToolResult::error(vec![ContentBlock::text(e.to_string())]),
        }
        .into())
    }
}

/// When the client gave a progress token: a sink that sends each piece of output as a progress
/// notification (`progress` counts the bytes so far; `message` is the text, prefixed with
/// `stderr: ` for standard error).
/// The task it returns ends when the sink is dropped and everything queued was sent.
fn progress_sink(
    context: &RequestContext<RoleServer>,
) -> Option<(OutputSink, tokio::task::JoinHandle<()>)> {
    let token = context.meta.get_progress_token()?;
    let peer = context.peer.clone();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<(Stream, Vec<u8>)>();
    let sender = tokio::spawn(async move {
        let mut sent = 0usize;
        while let Some((stream, bytes)) = rx.recv().await {
            sent += bytes.len();
            let text = String::from_utf8_lossy(&bytes);
            let message = match stream {
                Stream::Stdout => text.into_owned(),
                Stream::Stderr => format!("stderr: {text}"),
            };
            let note =
                ProgressNotificationParam::new(token.clone(), sent as f64).with_message(message);
            if peer.notify_progress(note).await.is_err() {
                break;
            }
        }
    });
    let sink: OutputSink = Arc::new(move |stream, bytes: &[u8]| {
        let _ = tx.send((stream, bytes.to_vec()));
    });
    Some((sink, sender))
}

/// Serves `kit` over MCP on standard input and output until the client goes away.
pub fn serve_stdio(kit: Toolkit) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    runtime.block_on(async {
        let service = McpServer::new(kit)
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| format!("MCP start-up failed: {e}"))?;
        service
            .waiting()
            .await
            .map_err(|e| format!("MCP server stopped: {e}"))?;
        Ok(())
    })
}
