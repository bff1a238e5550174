//! The HTTP API's bucket routes: import a bucket prefix into a workspace folder, export a
//! folder to a prefix (optionally deleting what the folder lacks), push a snapshot to a
//! bucket, and (through `POST /v1/workspaces` with `pull`) restore one into a new workspace.
//! Endpoint and credentials come from the server's AWS environment variables (credentials
//! also from its secret store); callers name only `s3://BUCKET/PREFIX`. A transfer of a
//! workspace is held to its network policy (`ENDPOINT/BUCKET/PREFIX/`, GET to import, PUT to
//! export or push, DELETE too for an export that deletes), like its guests' requests.
//!
//! A transfer's network I/O runs on the server's runtime and its SQLite work on a blocking
//! thread, as every other route's.

use std::path::Path as FsPath;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::Path;
use axum::extract::rejection::BytesRejection;
use axum::http::StatusCode;
use computer::Workspace;
use computer_bucket::object_store::{self, ObjectStore};
use computer_bucket::{BucketConfig, BucketError, BucketStats, BucketUrl, PushStats};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::AppState;
use super::api::{ApiResult, Shared, blocking, json_body_logged, logged, ok, refuse_if_read_only};
use super::error::ApiError;

fn root() -> String {
    "/workspace".to_string()
}

/// `POST /v1/workspaces/{id}/bucket/import` body.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BucketImport {
    /// `s3://BUCKET/PREFIX`: every object under the prefix is imported.
    pub url: String,
    /// The workspace folder the objects land in (object `PREFIX/a/b` becomes `DEST/a/b`).
    #[serde(default = "root")]
    pub dest: String,
}

/// `POST /v1/workspaces/{id}/bucket/export` body.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BucketExport {
    /// `s3://BUCKET/PREFIX`: file `SRC/a/b` becomes object `PREFIX/a/b`.
    pub url: String,
    /// The workspace folder to export.
    #[serde(default = "root")]
    pub src: String,
    /// Delete objects under the prefix that the folder does not hold (sync).
    #[serde(default)]
    pub delete: bool,
}

/// `POST /v1/workspaces/{id}/bucket/push` body.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BucketPush {
    /// `s3://BUCKET/PREFIX` that holds snapshots (chunks shared by all of them).
    pub url: String,
    /// The snapshot's name; taken now if the workspace has none of that name.
    #[schemars(pattern(r"^[^/\x00-\x1f\x7f-\x9f]{1,255}$"))]
    pub snapshot: String,
}

/// The `pull` of `POST /v1/workspaces`: a snapshot pushed to a bucket.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PullSnapshot {
    /// `s3://BUCKET/PREFIX` it was pushed to.
    pub url: String,
    /// Its name.
    pub snapshot: String,
}

/// The status a bucket failure means, and its message.
fn api_error(e: BucketError) -> ApiError {
    let status = match &e {
        BucketError::Url(_) => StatusCode::BAD_REQUEST,
        BucketError::Refused(_) => StatusCode::FORBIDDEN,
        BucketError::Store { error, .. } => match error {
            object_store::Error::NotFound { .. } => StatusCode::NOT_FOUND,
            object_store::Error::PermissionDenied { .. }
            | object_store::Error::Unauthenticated { .. } => StatusCode::FORBIDDEN,
            // The bucket's server failed or refused: the caller's request was fine.
            _ => StatusCode::BAD_GATEWAY,
        },
        BucketError::Snapshot(_) | BucketError::BadKeys(_) => StatusCode::UNPROCESSABLE_ENTITY,
        BucketError::TooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
        BucketError::Workspace { path, source } => return ApiError::fs(path, source),
        BucketError::Core(_) => StatusCode::INTERNAL_SERVER_ERROR,
    };
    ApiError::new(status, e.to_string())
}

/// The address and a store for it, configured from the server's environment and secret
/// store; only for the buckets the operator listed (`--allow-bucket`): the server's
/// credentials may reach more. A transfer of a workspace (`held`: it, and the methods its
/// requests use) is held to the workspace's network policy as well.
fn open(
    state: &AppState,
    url: &str,
    held: Option<(&Workspace, &[&str])>,
) -> ApiResult<(BucketUrl, Arc<dyn ObjectStore>)> {
    let shown = url;
    let url = BucketUrl::parse(url).map_err(api_error)?;
    let allowed = &state.config.allow_buckets;
    if !allowed.iter().any(|b| b == "*" || *b == url.bucket) {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            format!(
                "{shown}: bucket '{}' is not allowed on this server (start it with \
                 --allow-bucket {})",
                url.bucket, url.bucket
            ),
        ));
    }
    let secrets = held.map_or_else(computer::host_secrets, |(ws, _)| ws.secrets());
    let mut config = BucketConfig::default()
        .with_secrets(&url, &secrets)
        .map_err(api_error)?;
    if let Some((ws, methods)) = held {
        config = config.held_by(&url, ws, methods).map_err(api_error)?;
    }
    let store = computer_bucket::open_store_with(&url, &config).map_err(api_error)?;
    Ok((url, store))
}

/// Runs `transfer` on a blocking thread, where it may wait on the server's runtime.
async fn run<T: Send + 'static>(
    transfer: impl FnOnce(&tokio::runtime::Handle) -> ApiResult<T> + Send + 'static,
) -> ApiResult<T> {
    let handle = tokio::runtime::Handle::current();
    blocking(move || transfer(&handle)).await
}

fn stats_json(s: &BucketStats) -> Value {
    json!({
        "transferred": s.transferred,
        "bytes": s.bytes,
        "unchanged": s.unchanged,
        "deleted": s.deleted,
        "skipped": s.skipped.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
    })
}

fn push_json(s: &PushStats) -> Value {
    json!({
        "entries": s.entries,
        "chunks": s.chunks,
        "chunks_uploaded": s.chunks_uploaded,
        "bytes_uploaded": s.bytes_uploaded,
    })
}

pub(super) async fn import(
    state: Shared,
    Path(id): Path<String>,
    b: Result<Bytes, BytesRejection>,
) -> ApiResult {
    refuse_if_read_only(&state)?;
    let (args, raw): (BucketImport, _) = json_body_logged(b)?;
    let stats = run(move |rt| {
        logged(&state, &id, "bucket.import", raw, |ws| {
            let (url, store) = open(&state, &args.url, Some((ws, &["GET"])))?;
            let dest = FsPath::new(&args.dest);
            let stats = rt
                .block_on(computer_bucket::import(store, &url, ws, dest, &mut |_| {}))
                .map_err(api_error)?;
            let summary = stats_json(&stats).to_string();
            Ok((stats, summary))
        })
    })
    .await?;
    ok(&stats_json(&stats))
}

pub(super) async fn export(
    state: Shared,
    Path(id): Path<String>,
    b: Result<Bytes, BytesRejection>,
) -> ApiResult {
    let (args, raw): (BucketExport, _) = json_body_logged(b)?;
    if args.delete {
        // Deleting objects is a change, if not to the workspace.
        refuse_if_read_only(&state)?;
    }
    let stats = run(move |rt| {
        logged(&state, &id, "bucket.export", raw, |ws| {
            let methods: &[&str] = if args.delete {
                &["PUT", "DELETE"]
            } else {
                &["PUT"]
            };
            let (url, store) = open(&state, &args.url, Some((ws, methods)))?;
            let src = FsPath::new(&args.src);
            let stats = rt
                .block_on(computer_bucket::export(
                    store,
                    &url,
                    ws,
                    src,
                    args.delete,
                    &mut |_| {},
                ))
                .map_err(api_error)?;
            let summary = stats_json(&stats).to_string();
            Ok((stats, summary))
        })
    })
    .await?;
    ok(&stats_json(&stats))
}

pub(super) async fn push(
    state: Shared,
    Path(id): Path<String>,
    b: Result<Bytes, BytesRejection>,
) -> ApiResult {
    // A push may take the snapshot, which changes the workspace.
    refuse_if_read_only(&state)?;
    let (args, raw): (BucketPush, _) = json_body_logged(b)?;
    let stats = run(move |rt| {
        logged(&state, &id, "bucket.push", raw, |ws| {
            let (url, store) = open(&state, &args.url, Some((ws, &["PUT"])))?;
            let stats = rt
                .block_on(computer_bucket::push(store, &url, ws, &args.snapshot))
                .map_err(api_error)?;
            let summary = push_json(&stats).to_string();
            Ok((stats, summary))
        })
    })
    .await?;
    ok(&push_json(&stats))
}

/// Restores `pull` into new workspace `id` (whose id is held meanwhile); what it holds.
pub(super) async fn pull(state: Arc<AppState>, id: String, pull: PullSnapshot) -> ApiResult<Value> {
    run(move |rt| {
        let reservation = state.registry.reserve(&id)?;
        // No workspace yet: the token's scope (creating workspaces) decides, as the
        // server's operator listed the bucket.
        let (url, store) = open(&state, &pull.url, None)?;
        let path = reservation.path().to_path_buf();
        let ws = rt
            .block_on(computer_bucket::pull(store, &url, &pull.snapshot, &path))
            .map_err(api_error)?;
        let usage = ws.fs().statfs().map_err(|e| ApiError::fs("/", &e))?;
        reservation.finish(ws)?;
        Ok(json!({
            "url": pull.url,
            "snapshot": pull.snapshot,
            "inodes": usage.files,
            "bytes_stored": usage.bytes_stored,
        }))
    })
    .await
}
