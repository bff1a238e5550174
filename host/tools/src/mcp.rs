//! The toolkit over the Model Context Protocol, on the official Rust SDK (`rmcp`). A tool's
//! failure is a tool result with `isError` (the model reads it); only an unknown tool or
//! malformed request is a protocol error.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler, ServiceExt};
use serde_json::Value;

use crate::{Content, ToolError, Toolkit};

/// The MCP server of one toolkit.
#[derive(Clone)]
pub struct McpServer {
    kit: Arc<Toolkit>,
}

impl McpServer {
    /// A server for `kit`.
    pub fn new(kit: Toolkit) -> McpServer {
        McpServer { kit: Arc::new(kit) }
    }

    fn tool_list(&self) -> Vec<Tool> {
        self.kit
            .tools()
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
             files with read, write, edit, ls, find, grep and delete; run commands with exec."
                .into(),
        );
        info
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tool_list()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.to_string();
        let args = request.arguments.map(Value::Object).unwrap_or(Value::Null);
        let kit = Arc::clone(&self.kit);
        // Tools block (SQLite, the isolate): off the async workers.
        let result = tokio::task::spawn_blocking(move || kit.call_content(&name, args))
            .await
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
