//! The OpenAPI 3.1 document of the HTTP API, built from one table of operations; request body
//! schemas are generated from the same Rust types the handlers parse (schemars), so they
//! cannot drift from what the server accepts.

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, SchemaGenerator};
use serde_json::{Map, Value, json};

use super::api::{CreateSnapshot, CreateToken, CreateWorkspace};
use super::bucket::{BucketExport, BucketImport, BucketPush};
use super::net::SetPolicy;
use super::registry::WorkspaceInfo;
use crate::ExecArgs;

/// What a request carries.
enum Body {
    None,
    /// JSON of a type's schema; whether a body is required (an absent one is `{}`).
    Json(Value, bool),
    /// Any JSON object (a tool's arguments: see `GET /v1/tools` for each tool's schema).
    AnyJson,
    /// Raw bytes (a file's content).
    Bytes,
}

/// What a success returns.
enum Reply {
    Json(u16, Value),
    Bytes,
    Empty,
    /// JSON, or server-sent events when the request accepts `text/event-stream`.
    JsonOrEvents,
}

struct Op {
    method: &'static str,
    path: &'static str,
    id: &'static str,
    summary: &'static str,
    query: &'static [(&'static str, &'static str, &'static str)],
    body: Body,
    reply: Reply,
    auth: bool,
}

fn schema<T: JsonSchema>(generator: &mut SchemaGenerator) -> Value {
    generator.subschema_for::<T>().to_value()
}

fn object() -> Value {
    json!({ "type": "object" })
}

fn operations(g: &mut SchemaGenerator) -> Vec<Op> {
    let op = |method, path, id, summary, body, reply| Op {
        method,
        path,
        id,
        summary,
        query: &[],
        body,
        reply,
        auth: true,
    };
    let workspaces = json!({
        "type": "object",
        "properties": { "workspaces": { "type": "array", "items": schema::<WorkspaceInfo>(g) } },
    });
    vec![
        Op {
            auth: false,
            ..op(
                "get",
                "/v1/health",
                "health",
                "Whether the server is up.",
                Body::None,
                Reply::Json(200, object()),
            )
        },
        Op {
            auth: false,
            ..op(
                "get",
                "/v1/openapi.json",
                "openapi",
                "This document.",
                Body::None,
                Reply::Json(200, object()),
            )
        },
        op(
            "get",
            "/v1/tools",
            "listTools",
            "The agent tools with their JSON schemas.",
            Body::None,
            Reply::Json(200, object()),
        ),
        op(
            "get",
            "/v1/workspaces",
            "listWorkspaces",
            "Every workspace in the data directory.",
            Body::None,
            Reply::Json(200, workspaces),
        ),
        op(
            "post",
            "/v1/workspaces",
            "createWorkspace",
            "Creates a workspace (409 if the id exists), empty or pulled from a snapshot in a bucket.",
            Body::Json(schema::<CreateWorkspace>(g), false),
            Reply::Json(201, object()),
        ),
        op(
            "get",
            "/v1/workspaces/{id}",
            "getWorkspace",
            "A workspace's revision, size and snapshot count.",
            Body::None,
            Reply::Json(200, object()),
        ),
        op(
            "delete",
            "/v1/workspaces/{id}",
            "deleteWorkspace",
            "Deletes a workspace and its file.",
            Body::None,
            Reply::Empty,
        ),
        op(
            "get",
            "/v1/workspaces/{id}/snapshots",
            "listSnapshots",
            "The workspace's snapshots.",
            Body::None,
            Reply::Json(200, object()),
        ),
        op(
            "post",
            "/v1/workspaces/{id}/snapshots",
            "createSnapshot",
            "Snapshots the whole workspace.",
            Body::Json(schema::<CreateSnapshot>(g), true),
            Reply::Json(201, object()),
        ),
        op(
            "get",
            "/v1/workspaces/{id}/files/{path}",
            "readFile",
            "A file's bytes (`path` is absolute without its first slash: `workspace/a.txt`).",
            Body::None,
            Reply::Bytes,
        ),
        op(
            "put",
            "/v1/workspaces/{id}/files/{path}",
            "writeFile",
            "Writes a file from the body's bytes, creating parent directories.",
            Body::Bytes,
            Reply::Json(200, object()),
        ),
        Op {
            query: &[(
                "recursive",
                "boolean",
                "Delete a directory and everything in it.",
            )],
            ..op(
                "delete",
                "/v1/workspaces/{id}/files/{path}",
                "deleteFile",
                "Deletes a file or directory.",
                Body::None,
                Reply::Empty,
            )
        },
        op(
            "get",
            "/v1/workspaces/{id}/stat/{path}",
            "stat",
            "A path's type, size, mode and times (symlinks not followed).",
            Body::None,
            Reply::Json(200, object()),
        ),
        Op {
            query: &[
                ("limit", "integer", "Entries to return (default 500)."),
                ("offset", "integer", "Entries to skip."),
            ],
            ..op(
                "get",
                "/v1/workspaces/{id}/ls/{path}",
                "ls",
                "A directory's entries by name, with their stat.",
                Body::None,
                Reply::Json(200, object()),
            )
        },
        op(
            "post",
            "/v1/workspaces/{id}/exec",
            "exec",
            "Runs bash source; with `Accept: text/event-stream`, `stdout`/`stderr` events stream the output and an `exit` event ends it. With `background: true` it answers at once with `{job, command}`: follow the job with the `job` tool (`tools/job`).",
            Body::Json(schema::<ExecArgs>(g), true),
            Reply::JsonOrEvents,
        ),
        op(
            "post",
            "/v1/workspaces/{id}/tools/{name}",
            "callTool",
            "Calls an agent tool (recorded in the audit log); failures of the tool are `is_error` results.",
            Body::AnyJson,
            Reply::Json(200, object()),
        ),
        Op {
            query: &[
                ("after", "integer", "Only entries with a larger id."),
                ("limit", "integer", "The newest N entries (default 100)."),
            ],
            ..op(
                "get",
                "/v1/workspaces/{id}/log",
                "auditLog",
                "The audit log of tool calls, oldest first.",
                Body::None,
                Reply::Json(200, object()),
            )
        },
        op(
            "get",
            "/v1/workspaces/{id}/net",
            "getNetPolicy",
            "The workspace's network policy: the hosts a guest's requests (curl, wget, git) may reach; `none` when nothing is.",
            Body::None,
            Reply::Json(200, object()),
        ),
        op(
            "put",
            "/v1/workspaces/{id}/net",
            "setNetPolicy",
            "Replaces the workspace's network policy (lines as `computer net show` prints them). The server's own token only.",
            Body::Json(schema::<SetPolicy>(g), true),
            Reply::Json(200, object()),
        ),
        op(
            "post",
            "/v1/workspaces/{id}/bucket/import",
            "bucketImport",
            "Imports every object under an `s3://` prefix into a workspace folder, all or nothing (the server's AWS credentials; the workspace's network policy must allow GET on the prefix).",
            Body::Json(schema::<BucketImport>(g), true),
            Reply::Json(200, object()),
        ),
        op(
            "post",
            "/v1/workspaces/{id}/bucket/export",
            "bucketExport",
            "Exports a workspace folder to an `s3://` prefix, uploading only what changed; `delete` removes objects the folder lacks.",
            Body::Json(schema::<BucketExport>(g), true),
            Reply::Json(200, object()),
        ),
        op(
            "post",
            "/v1/workspaces/{id}/bucket/push",
            "bucketPush",
            "Pushes a snapshot (taken now if missing) to an `s3://` prefix as content-addressed chunks, uploading only those the bucket lacks. `POST /v1/workspaces` with `pull` restores one.",
            Body::Json(schema::<BucketPush>(g), true),
            Reply::Json(200, object()),
        ),
        op(
            "get",
            "/v1/tokens",
            "listTokens",
            "The tokens scoped to some workspaces (ids and scopes, never the tokens). The server's own token only.",
            Body::None,
            Reply::Json(200, object()),
        ),
        op(
            "post",
            "/v1/tokens",
            "createToken",
            "Makes a token that reaches only the given workspaces, read-only or read-write; the answer is the only place it is shown. The server's own token only.",
            Body::Json(schema::<CreateToken>(g), true),
            Reply::Json(201, object()),
        ),
        op(
            "delete",
            "/v1/tokens/{token}",
            "revokeToken",
            "Revokes a scoped token by its id. The server's own token only.",
            Body::None,
            Reply::Empty,
        ),
        op(
            "post",
            "/v1/workspaces/{id}/mcp",
            "mcp",
            "MCP over streamable HTTP (JSON-RPC; GET and DELETE as the MCP transport specifies).",
            Body::AnyJson,
            Reply::JsonOrEvents,
        ),
    ]
}

/// The document.
pub(crate) fn document() -> Value {
    let mut settings = SchemaSettings::draft2020_12();
    settings.definitions_path = "/components/schemas".into();
    settings.meta_schema = None;
    let mut generator = settings.into_generator();
    let ops = operations(&mut generator);
    let mut paths = Map::new();
    for op in &ops {
        if let Some(methods) = paths
            .entry(op.path)
            .or_insert_with(|| json!({}))
            .as_object_mut()
        {
            methods.insert(op.method.to_string(), operation(op));
        }
    }
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "computer",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "A computer for AI agents: workspaces (a filesystem in one SQLite file each), exec on the isolate or a container, the agent tools, MCP.",
        },
        "paths": paths,
        "components": {
            "schemas": generator.take_definitions(true),
            "securitySchemes": { "bearer": { "type": "http", "scheme": "bearer" } },
        },
    })
}

fn operation(op: &Op) -> Value {
    let mut params: Vec<Value> = op
        .path
        .split('/')
        .filter_map(|seg| seg.strip_prefix('{')?.strip_suffix('}'))
        .map(|name| {
            let schema = match name {
                "id" => json!({ "type": "string", "pattern": "^[A-Za-z0-9_-]{1,64}$" }),
                _ => json!({ "type": "string", "minLength": 1 }),
            };
            json!({ "name": name, "in": "path", "required": true, "schema": schema })
        })
        .collect();
    params.extend(op.query.iter().map(|(name, ty, doc)| {
        let mut schema = json!({ "type": ty });
        if *ty == "integer" {
            schema["minimum"] = json!(0);
            schema["maximum"] = json!(i64::MAX);
        }
        json!({ "name": name, "in": "query", "required": false, "description": doc, "schema": schema })
    }));
    let error = json!({ "description": "An error", "content": { "application/json": { "schema": {
        "type": "object", "properties": { "error": { "type": "string" } }, "required": ["error"] } } } });
    let mut responses = Map::new();
    match &op.reply {
        Reply::Json(code, schema) => {
            responses.insert(code.to_string(), json!({ "description": "Done", "content": { "application/json": { "schema": schema } } }));
        }
        Reply::Bytes => {
            responses.insert("200".into(), json!({ "description": "The bytes", "content": { "application/octet-stream": { "schema": { "type": "string", "format": "binary" } } } }));
        }
        Reply::Empty => {
            responses.insert("204".into(), json!({ "description": "Done" }));
        }
        Reply::JsonOrEvents => {
            responses.insert("200".into(), json!({ "description": "The result, or a stream of events", "content": {
                "application/json": { "schema": object() }, "text/event-stream": { "schema": { "type": "string" } } } }));
        }
    }
    responses.insert("default".into(), error);
    let mut out = json!({
        "operationId": op.id,
        "summary": op.summary,
        "parameters": params,
        "responses": responses,
    });
    if op.auth {
        out["security"] = json!([{ "bearer": [] }]);
    } else {
        out["security"] = json!([]);
    }
    let body = match &op.body {
        Body::None => None,
        Body::Json(schema, _) => Some(json!({ "application/json": { "schema": schema } })),
        Body::AnyJson => Some(json!({ "application/json": { "schema": object() } })),
        Body::Bytes => Some(
            json!({ "application/octet-stream": { "schema": { "type": "string", "format": "binary" } } }),
        ),
    };
    if let Some(content) = body {
        // An empty PUT writes an empty file; a tool without arguments gets `{}`.
        let required = matches!(op.body, Body::Json(_, true));
        out["requestBody"] = json!({ "required": required, "content": content });
    }
    out
}
