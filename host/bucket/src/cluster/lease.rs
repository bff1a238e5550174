//! Leases: which node serves a workspace, until when.

use object_store::UpdateVersion;

use super::{ClusterStore, FORMAT, Lost, Versioned};
use crate::error::Result;

/// Who serves a workspace. Only the holder opens it; every other node sends its requests
/// to [`Lease::url`].
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Lease {
    /// [`FORMAT`].
    pub format: u32,
    /// The holder's node name.
    pub node: String,
    /// Where the holder serves (`http://HOST:PORT`).
    pub url: String,
    /// One more than the previous holder's: a head written under an older generation is
    /// refused, so a node that lost its lease cannot publish.
    pub generation: u64,
    /// Unix time in milliseconds until which the holder may serve; 0 once released.
    pub expires_ms: u64,
}

impl Lease {
    /// A lease for `node` at `url`, generation `generation`, until `expires_ms`.
    pub fn new(node: &str, url: &str, generation: u64, expires_ms: u64) -> Lease {
        Lease {
            format: FORMAT,
            node: node.to_string(),
            url: url.to_string(),
            generation,
            expires_ms,
        }
    }

    /// Whether someone holds it at `now_ms` (Unix milliseconds).
    pub fn live_at(&self, now_ms: u64) -> bool {
        now_ms < self.expires_ms
    }
}

impl ClusterStore {
    /// Workspace `id`'s lease, if one was ever taken.
    pub async fn lease(&self, id: &str) -> Result<Option<Versioned<Lease>>> {
        self.get_json(&self.workspace_key(id, "lease")).await
    }

    /// Writes `id`'s lease: created if `prior` is `None` (`If-None-Match: *`), else only over
    /// the version `prior` names (`If-Match`). `Ok(Err(Lost))` when another node wrote first.
    pub async fn put_lease(
        &self,
        id: &str,
        lease: &Lease,
        prior: Option<&UpdateVersion>,
    ) -> Result<Result<UpdateVersion, Lost>> {
        self.put_json(&self.workspace_key(id, "lease"), lease, prior)
            .await
    }
}

/// Unix time in milliseconds.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}
