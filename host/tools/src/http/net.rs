//! The HTTP API's network policy routes: `GET /v1/workspaces/{id}/net` (any token that
//! reaches the workspace) and `PUT` (the server's own token only: an agent holding a scoped
//! token must not open its own network).

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Extension, Path};
use computer::net::Policy;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use super::Access;
use super::api::{ApiResult, Shared, admin_only, blocking, json_body, ok};
use super::error::ApiError;

/// `PUT /v1/workspaces/{id}/net` body: the whole policy.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct SetPolicy {
    /// Its lines, as `computer net show` prints them: `all`, `allow RULE [METHODS]`, `deny
    /// RULE [METHODS]` (a rule is `SCHEME://HOST[:PORT][/PATH]`). Empty: nothing is
    /// reachable. At most 1,000 rules (`MAX_RULES`).
    rules: Vec<String>,
}

/// The policy as the routes answer it.
fn answer(policy: &Policy) -> ApiResult {
    let text = policy.to_text();
    ok(&json!({
        "rules": text.lines().collect::<Vec<_>>(),
        "none": policy.is_none(),
    }))
}

/// `GET /v1/workspaces/{id}/net`.
pub(super) async fn get_policy(state: Shared, Path(id): Path<String>) -> ApiResult {
    blocking(move || {
        let ws = state.registry.get(&id)?;
        let policy = ws
            .net_policy()
            .map_err(|e| ApiError::internal(e.to_string()))?;
        answer(&policy)
    })
    .await
}

/// `PUT /v1/workspaces/{id}/net`: replaces the policy.
pub(super) async fn set_policy(
    state: Shared,
    Extension(access): Extension<Access>,
    Path(id): Path<String>,
    b: Result<Bytes, BytesRejection>,
) -> ApiResult {
    admin_only(
        &access,
        "the network policy is set with the server's own token",
    )?;
    let args: SetPolicy = json_body(b)?;
    let policy = Policy::from_text(&args.rules.join("\n"))
        .map_err(|e| ApiError::bad_request(e.to_string()))?;
    blocking(move || {
        let ws = state.registry.get(&id)?;
        ws.set_net_policy(&policy)
            .map_err(|e| ApiError::internal(e.to_string()))?;
        answer(&policy)
    })
    .await
}
