//! The JSON HTTP API's handlers: workspaces, snapshots, files, exec (with output streamed as
//! server-sent events), the tools, the audit log. Each is a thin call into the Workspace API
//! or the toolkit, run off the async workers because SQLite and the isolate block.

use std::convert::Infallible;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Extension, Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use computer::isolate::{OutputSink, RunStatus, Stream};
use computer::vfs::{FileType, Stat};
use computer::{ExecOutput, Workspace};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize, de::DeserializeOwned};
use serde_json::{Value, json};

use super::error::ApiError;
use super::{Access, AppState};
use crate::audit::Call;
use crate::{Content, ExecArgs, ToolError};

pub(super) type Shared = State<Arc<AppState>>;
pub(super) type ApiResult<T = Response> = Result<T, ApiError>;

/// Runs blocking work (SQLite, the isolate) on the blocking pool.
pub(super) async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> ApiResult<T> + Send + 'static,
) -> ApiResult<T> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| ApiError::internal(format!("request failed: {e}")))?
}

/// The body, or the reason it could not be read (413 past the size limit).
fn body(b: Result<Bytes, BytesRejection>) -> ApiResult<Bytes> {
    b.map_err(|e| ApiError::new(e.status(), e.body_text()))
}

/// The body parsed as JSON (an empty body is `{}`).
pub(super) fn json_body<T: DeserializeOwned>(b: Result<Bytes, BytesRejection>) -> ApiResult<T> {
    let bytes = body(b)?;
    let bytes: &[u8] = if bytes.iter().all(u8::is_ascii_whitespace) {
        b"{}"
    } else {
        &bytes
    };
    serde_json::from_slice(bytes).map_err(|e| ApiError::bad_request(format!("malformed JSON: {e}")))
}

/// The body parsed as `T`, and as the JSON value the audit log records.
pub(super) fn json_body_logged<T: DeserializeOwned>(
    b: Result<Bytes, BytesRejection>,
) -> ApiResult<(T, Value)> {
    let raw: Value = json_body(b)?;
    let parsed = serde_json::from_value(raw.clone())
        .map_err(|e| ApiError::bad_request(format!("malformed JSON: {e}")))?;
    Ok((parsed, raw))
}

/// Runs `f` on workspace `id` and records it in that workspace's audit log as `tool` called
/// over HTTP with `args` (the summary from `f`'s success, else its error).
pub(super) fn logged<T>(
    state: &AppState,
    id: &str,
    tool: &str,
    args: Value,
    f: impl FnOnce(&Workspace) -> ApiResult<(T, String)>,
) -> ApiResult<T> {
    let ws = state.registry.get(id)?;
    let call = Call::start("http", tool, &args);
    match f(&ws) {
        Ok((value, summary)) => {
            call.finish(&ws, summary, None);
            Ok(value)
        }
        Err(e) => {
            call.finish(&ws, String::new(), Some(e.message.clone()));
            Err(e)
        }
    }
}

pub(super) fn json_response(status: StatusCode, value: &impl Serialize) -> Response {
    match serde_json::to_string(value) {
        Ok(text) => (status, [(header::CONTENT_TYPE, "application/json")], text).into_response(),
        Err(e) => ApiError::internal(format!("cannot encode the response: {e}")).into_response(),
    }
}

pub(super) fn ok(value: &impl Serialize) -> ApiResult {
    Ok(json_response(StatusCode::OK, value))
}

/// The workspace path a URL tail names: `/files/workspace/a.txt` is `/workspace/a.txt`.
fn fs_path(tail: &str) -> String {
    format!("/{}", tail.trim_start_matches('/'))
}

/// 403 on a read-only server.
pub(super) fn refuse_if_read_only(state: &AppState) -> ApiResult<()> {
    if state.config.read_only {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "this server is read-only (--read-only)",
        ));
    }
    Ok(())
}

pub(super) async fn health() -> Response {
    json_response(
        StatusCode::OK,
        &json!({ "ok": true, "version": env!("CARGO_PKG_VERSION") }),
    )
}

pub(super) async fn openapi() -> Response {
    json_response(StatusCode::OK, &super::openapi::document())
}

pub(super) async fn list_tools(state: Shared) -> Response {
    let tools: Vec<Value> = crate::tool_defs(state.config.read_only)
        .into_iter()
        .map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.input_schema}))
        .collect();
    json_response(StatusCode::OK, &json!({ "tools": tools }))
}

/// `POST /v1/workspaces` body.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateWorkspace {
    /// The id (1 to 64 letters, digits, `-`, `_`); a random one when absent.
    #[serde(default)]
    #[schemars(pattern(r"^[A-Za-z0-9_-]{1,64}$"))]
    pub id: Option<String>,
    /// Restore a snapshot pushed to a bucket into the new workspace (credentials and endpoint
    /// from the server's AWS environment variables).
    #[serde(default)]
    pub pull: Option<super::bucket::PullSnapshot>,
}

pub(super) async fn list_workspaces(state: Shared) -> ApiResult {
    if let Some(node) = &state.node {
        // The cluster's, from any node; `open` says whether this node holds it.
        let ids = node.list().await?;
        let list: Vec<super::WorkspaceInfo> = ids
            .into_iter()
            .map(|id| super::WorkspaceInfo {
                open: state.registry.is_open(&id),
                file_bytes: std::fs::metadata(state.registry.file(&id)).map_or(0, |m| m.len()),
                id,
            })
            .collect();
        return ok(&json!({ "workspaces": list }));
    }
    let list = blocking(move || state.registry.list()).await?;
    ok(&json!({ "workspaces": list }))
}

pub(super) async fn create_workspace(state: Shared, b: Result<Bytes, BytesRejection>) -> ApiResult {
    refuse_if_read_only(&state)?;
    let args: CreateWorkspace = json_body(b)?;
    let id = args
        .id
        .unwrap_or_else(|| uuid::Uuid::new_v4().simple().to_string());
    let mut reply = json!({ "id": id });
    let creating = match &state.node {
        Some(node) => {
            super::check_id(&id)?;
            Some(node.begin_create(&id, &state.registry).await?)
        }
        None => None,
    };
    let shared = Arc::clone(&state.0);
    let made = match args.pull {
        Some(pull) => super::bucket::pull(shared, id, pull)
            .await
            .map(|pulled| reply["pulled"] = pulled),
        None => blocking(move || shared.registry.create(&id).map(drop)).await,
    };
    match (&state.node, creating) {
        (Some(node), Some(creating)) => {
            node.finish_create(creating, made, &state.registry).await?;
        }
        _ => made?,
    }
    Ok(json_response(StatusCode::CREATED, &reply))
}

pub(super) async fn get_workspace(state: Shared, Path(id): Path<String>) -> ApiResult {
    blocking(move || {
        let ws = state.registry.get(&id)?;
        let fs = ws.fs();
        let usage = fs.statfs().map_err(|e| ApiError::fs("/", &e))?;
        let revision = fs.revision().map_err(|e| ApiError::fs("/", &e))?;
        let snapshots = ws
            .snapshots()
            .map_err(|e| ApiError::internal(e.to_string()))?;
        ok(&json!({
            "id": id,
            "revision": revision,
            "inodes": usage.files,
            "bytes_stored": usage.bytes_stored,
            "snapshots": snapshots.len(),
        }))
    })
    .await
}

pub(super) async fn delete_workspace(state: Shared, Path(id): Path<String>) -> ApiResult {
    refuse_if_read_only(&state)?;
    if let Some(node) = &state.node {
        node.delete(&id, &state.registry).await?;
        return Ok(StatusCode::NO_CONTENT.into_response());
    }
    blocking(move || state.registry.delete(&id)).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

/// `POST /v1/workspaces/{id}/snapshots` body.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateSnapshot {
    /// Its name: 1 to 255 bytes, no `/` or control characters.
    #[schemars(pattern(r"^[^/\x00-\x1f\x7f-\x9f]{1,255}$"))]
    pub name: String,
}

fn snapshot_json(s: &computer::vfs::SnapshotInfo) -> Value {
    json!({"name": s.name, "created_ns": s.created, "revision": s.rev, "inodes": s.inodes, "bytes": s.bytes})
}

pub(super) async fn list_snapshots(state: Shared, Path(id): Path<String>) -> ApiResult {
    blocking(move || {
        let ws = state.registry.get(&id)?;
        let list = ws
            .snapshots()
            .map_err(|e| ApiError::internal(e.to_string()))?;
        ok(&json!({ "snapshots": list.iter().map(snapshot_json).collect::<Vec<_>>() }))
    })
    .await
}

pub(super) async fn create_snapshot(
    state: Shared,
    Path(id): Path<String>,
    b: Result<Bytes, BytesRejection>,
) -> ApiResult {
    refuse_if_read_only(&state)?;
    let args: CreateSnapshot = json_body(b)?;
    blocking(move || {
        let ws = state.registry.get(&id)?;
        let info = ws
            .fs()
            .snapshot(&args.name)
            .map_err(|e| ApiError::fs(&args.name, &e))?;
        Ok(json_response(StatusCode::CREATED, &snapshot_json(&info)))
    })
    .await
}

pub(super) async fn read_file(
    state: Shared,
    Path((id, tail)): Path<(String, String)>,
) -> ApiResult {
    let path = fs_path(&tail);
    let data = blocking(move || {
        let args = json!({ "path": path });
        logged(&state, &id, "files.read", args, |ws| {
            let st = ws.fs().stat(&path).map_err(|e| ApiError::fs(&path, &e))?;
            if st.kind == FileType::Dir {
                return Err(ApiError::bad_request(format!(
                    "{path}: is a directory (use /ls)"
                )));
            }
            if st.size > state.config.max_body as u64 {
                return Err(ApiError::new(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    format!(
                        "{path}: {} bytes, above the response limit of {} bytes",
                        st.size, state.config.max_body
                    ),
                ));
            }
            let data = ws
                .fs()
                .read_file(&path)
                .map_err(|e| ApiError::fs(&path, &e))?;
            let summary = format!("read {} bytes", data.len());
            Ok((data, summary))
        })
    })
    .await?;
    Ok(([(header::CONTENT_TYPE, "application/octet-stream")], data).into_response())
}

pub(super) async fn write_file(
    state: Shared,
    Path((id, tail)): Path<(String, String)>,
    b: Result<Bytes, BytesRejection>,
) -> ApiResult {
    let data = body(b)?;
    let path = fs_path(&tail);
    blocking(move || {
        refuse_if_read_only(&state)?;
        let args = json!({ "path": path, "bytes": data.len() });
        logged(&state, &id, "files.write", args, |ws| {
            if let Some(parent) = std::path::Path::new(&path).parent() {
                ws.fs()
                    .create_dir_all(parent)
                    .map_err(|e| ApiError::fs(&path, &e))?;
            }
            let st = ws
                .fs()
                .write_file(&path, &data)
                .map_err(|e| ApiError::fs(&path, &e))?;
            Ok((
                ok(&stat_json(&path, &st))?,
                format!("wrote {} bytes", data.len()),
            ))
        })
    })
    .await
}

/// `DELETE .../files/{path}` query.
#[derive(Debug, Default, Deserialize)]
pub(super) struct DeleteQuery {
    #[serde(default)]
    recursive: bool,
}

pub(super) async fn delete_file(
    state: Shared,
    Path((id, tail)): Path<(String, String)>,
    Query(q): Query<DeleteQuery>,
) -> ApiResult {
    let path = fs_path(&tail);
    blocking(move || {
        let kit = state.toolkit(&id, "http", &super::Access::Admin)?;
        kit.call("delete", json!({ "path": path, "recursive": q.recursive }))?;
        Ok(StatusCode::NO_CONTENT.into_response())
    })
    .await
}

fn stat_json(path: &str, st: &Stat) -> Value {
    json!({
        "path": path,
        "type": st.kind.name(),
        "size": st.size,
        "mode": format!("{:o}", st.perm),
        "nlink": st.nlink,
        "mtime_ns": st.mtime,
        "ino": st.ino,
    })
}

pub(super) async fn stat(state: Shared, Path((id, tail)): Path<(String, String)>) -> ApiResult {
    let path = fs_path(&tail);
    blocking(move || {
        let ws = state.registry.get(&id)?;
        let st = ws.fs().lstat(&path).map_err(|e| ApiError::fs(&path, &e))?;
        ok(&stat_json(&path, &st))
    })
    .await
}

/// `GET .../ls/{path}` query.
#[derive(Debug, Default, Deserialize)]
pub(super) struct LsQuery {
    #[serde(default)]
    limit: Option<usize>,
    #[serde(default)]
    offset: Option<usize>,
}

pub(super) async fn ls(
    state: Shared,
    Path((id, tail)): Path<(String, String)>,
    Query(q): Query<LsQuery>,
) -> ApiResult {
    let path = fs_path(&tail);
    blocking(move || {
        let ws = state.registry.get(&id)?;
        let mut entries = ws
            .fs()
            .read_dir(&path)
            .map_err(|e| ApiError::fs(&path, &e))?;
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        let total = entries.len();
        let offset = q.offset.unwrap_or(0);
        let limit = q.limit.unwrap_or(state.config.limits.results);
        let mut list = Vec::new();
        for e in entries.iter().skip(offset).take(limit) {
            let child = format!(
                "{}/{}",
                path.trim_end_matches('/'),
                e.name.to_string_lossy()
            );
            let st = ws
                .fs()
                .lstat(&child)
                .map_err(|err| ApiError::fs(&child, &err))?;
            list.push(stat_json(&child, &st));
        }
        ok(&json!({ "path": path, "total": total, "offset": offset, "entries": list }))
    })
    .await
}

fn exit_json(out: &ExecOutput) -> Value {
    let ended = match &out.ended {
        RunStatus::Exited(_) => "exited".to_string(),
        RunStatus::Limit(l) => l.to_string(),
        RunStatus::Trapped(t) => format!("crashed: {t}"),
        RunStatus::Cancelled => "cancelled".to_string(),
    };
    json!({ "status": out.status, "ended": ended })
}

/// `POST /v1/workspaces/{id}/exec`: the exec tool's arguments; the result as JSON, or, when
/// the request accepts `text/event-stream`, `stdout`/`stderr` events as the output comes and
/// one `exit` event at the end.
pub(super) async fn exec(
    state: Shared,
    Path(id): Path<String>,
    headers: HeaderMap,
    b: Result<Bytes, BytesRejection>,
) -> ApiResult {
    let (args, raw): (ExecArgs, Value) = json_body_logged(b)?;
    refuse_if_read_only(&state)?;
    let ws = {
        let state = Arc::clone(&state);
        blocking(move || state.registry.get(&id)).await?
    };
    let background = args.background == Some(true);
    let call = Call::start("http", "exec", &raw);
    let req = match args.request(&ws, &state.config.limits) {
        Ok(req) => req,
        Err(e) => {
            call.finish(&ws, String::new(), Some(e.to_string()));
            return Err(e.into());
        }
    };
    if background {
        let job = ws.spawn(req);
        let job = match job {
            Ok(job) => job,
            Err(e) => {
                call.finish(&ws, String::new(), Some(e.to_string()));
                return Err(ToolError::from(e).into());
            }
        };
        call.finish(&ws, format!("started job {}", job.id()), None);
        return ok(&json!({ "job": job.id(), "command": job.command() }));
    }
    let streaming = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("text/event-stream"));
    let slots = Arc::clone(&state.exec_slots);
    if !streaming {
        let out = blocking(move || {
            let _slot = match slots.acquire() {
                Ok(slot) => slot,
                Err(e) => {
                    call.finish(&ws, String::new(), Some(e.to_string()));
                    return Err(e.into());
                }
            };
            let out = ws.exec(req);
            finish_exec(call, &ws, &out);
            out.map_err(|e| ApiError::internal(e.to_string()))
        })
        .await?;
        let mut result = exit_json(&out);
        result["stdout"] = Value::String(String::from_utf8_lossy(&out.stdout).into_owned());
        result["stderr"] = Value::String(String::from_utf8_lossy(&out.stderr).into_owned());
        return ok(&result);
    }
    // Streamed, the wait for a place happens before any event: a refusal is a plain error.
    let slot = {
        let slots = Arc::clone(&slots);
        blocking(move || slots.acquire().map_err(ApiError::from)).await
    };
    let slot = match slot {
        Ok(slot) => slot,
        Err(e) => {
            call.finish(&ws, String::new(), Some(e.message.clone()));
            return Err(e);
        }
    };
    Ok(exec_events(ws, req, call, slot).into_response())
}

/// Records an exec's end in the audit log.
fn finish_exec(call: Call, ws: &Workspace, out: &Result<ExecOutput, computer::Error>) {
    match out {
        Ok(out) => call.finish(ws, exit_json(out).to_string(), None),
        Err(e) => call.finish(ws, String::new(), Some(e.to_string())),
    }
}

fn exec_events(
    ws: Workspace,
    req: computer::ExecRequest,
    call: Call,
    slot: crate::ExecSlot,
) -> impl IntoResponse {
    // Unbounded, because the sink runs inside the isolate's own runtime and may not block;
    // what it can hold is bounded by the exec's output limit.
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel::<Event>();
    let out_tx = tx.clone();
    // A client that goes away stops the command.
    let cancel = req.cancel.clone();
    let sink: OutputSink = Arc::new(move |stream, bytes: &[u8]| {
        let name = match stream {
            Stream::Stdout => "stdout",
            Stream::Stderr => "stderr",
        };
        let text = Value::String(String::from_utf8_lossy(bytes).into_owned()).to_string();
        if out_tx
            .send(Event::default().event(name).data(text))
            .is_err()
        {
            cancel.cancel();
        }
    });
    tokio::task::spawn_blocking(move || {
        let out = ws.exec_streaming(req, Some(sink));
        drop(slot);
        finish_exec(call, &ws, &out);
        let end = match out {
            Ok(out) => Event::default()
                .event("exit")
                .data(exit_json(&out).to_string()),
            Err(e) => Event::default()
                .event("error")
                .data(json!({ "error": e.to_string() }).to_string()),
        };
        let _ = tx.send(end);
    });
    let stream = tokio_stream::StreamExt::map(
        tokio_stream::wrappers::UnboundedReceiverStream::new(rx),
        Ok::<_, Infallible>,
    );
    Sse::new(stream).keep_alive(KeepAlive::default())
}

/// `POST /v1/workspaces/{id}/tools/{name}`: a tool call, as an agent makes it (recorded in
/// the audit log).
pub(super) async fn call_tool(
    state: Shared,
    Path((id, name)): Path<(String, String)>,
    Extension(access): Extension<Access>,
    b: Result<Bytes, BytesRejection>,
) -> ApiResult {
    let args: Value = json_body(b)?;
    blocking(move || {
        let kit = state.toolkit(&id, "http", &access)?;
        let (content, is_error) = match kit.call_content(&name, args) {
            Ok(parts) => (parts, false),
            Err(ToolError::UnknownTool(n)) => {
                return Err(ApiError::not_found(format!("unknown tool {n:?}")));
            }
            Err(e) => (vec![Content::Text(e.to_string())], true),
        };
        let content: Vec<Value> = content
            .into_iter()
            .map(|c| match c {
                Content::Text(t) => json!({"type": "text", "text": t}),
                Content::Image { mime, base64 } => {
                    json!({"type": "image", "mime_type": mime, "data": base64})
                }
            })
            .collect();
        ok(&json!({ "content": content, "is_error": is_error }))
    })
    .await
}

/// `GET .../log` query.
#[derive(Debug, Default, Deserialize)]
pub(super) struct LogQuery {
    #[serde(default)]
    after: Option<u64>,
    #[serde(default)]
    limit: Option<usize>,
}

pub(super) async fn audit_log(
    state: Shared,
    Path(id): Path<String>,
    Query(q): Query<LogQuery>,
) -> ApiResult {
    blocking(move || {
        let ws = state.registry.get(&id)?;
        let limit = q.limit.unwrap_or(100).min(10_000);
        let entries = ws
            .fs()
            .audit_log(i64::try_from(q.after.unwrap_or(0)).unwrap_or(i64::MAX), limit)
            .map_err(|e| ApiError::fs("audit log", &e))?;
        let entries: Vec<Value> = entries
            .into_iter()
            .map(|e| {
                json!({"id": e.id, "started_ns": e.started, "duration_ns": e.duration, "origin": e.origin,
                       "tool": e.tool, "args": e.args, "summary": e.summary, "error": e.error})
            })
            .collect();
        ok(&json!({ "entries": entries }))
    })
    .await
}

/// `GET /v1/tokens`: the scoped tokens (never the tokens themselves).
pub(super) async fn list_tokens(state: Shared, Extension(access): Extension<Access>) -> ApiResult {
    admin_only(&access, TOKENS_ADMIN)?;
    let tokens = blocking(move || {
        state
            .tokens
            .list()
            .map_err(|e| ApiError::internal(format!("read the tokens: {e}")))
    })
    .await?;
    ok(&json!({ "tokens": tokens }))
}

/// `POST /v1/tokens` body: what the new token may do.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct CreateToken {
    /// The workspace ids it reaches (`*`: all).
    workspaces: Vec<String>,
    /// Only reads.
    #[serde(default)]
    read_only: bool,
}

/// `POST /v1/tokens`: a new scoped token, shown in this answer only.
pub(super) async fn create_token(
    state: Shared,
    Extension(access): Extension<Access>,
    b: Result<Bytes, BytesRejection>,
) -> ApiResult {
    admin_only(&access, TOKENS_ADMIN)?;
    let args: CreateToken = json_body(b)?;
    let scope = super::Scope {
        workspaces: args.workspaces,
        read_only: args.read_only,
    };
    let (token, info) = blocking(move || {
        state
            .tokens
            .create(scope)
            .map_err(|e| ApiError::bad_request(e.to_string()))
    })
    .await?;
    Ok(json_response(
        StatusCode::CREATED,
        &json!({ "token": token, "info": info }),
    ))
}

/// `DELETE /v1/tokens/{token}`: revokes a scoped token by its id.
pub(super) async fn revoke_token(
    state: Shared,
    Extension(access): Extension<Access>,
    Path(id): Path<String>,
) -> ApiResult {
    admin_only(&access, TOKENS_ADMIN)?;
    let found = blocking(move || {
        state
            .tokens
            .revoke(&id)
            .map_err(|e| ApiError::internal(format!("revoke: {e}")))
    })
    .await?;
    if !found {
        return Err(ApiError::not_found("no such token"));
    }
    Ok(StatusCode::NO_CONTENT.into_response())
}

/// Refuses a scoped token with 403 and `why`.
pub(super) fn admin_only(access: &Access, why: &str) -> ApiResult<()> {
    match access {
        Access::Admin => Ok(()),
        Access::Scoped(_) => Err(ApiError::new(StatusCode::FORBIDDEN, why)),
    }
}

const TOKENS_ADMIN: &str = "tokens are managed with the server's own token";
