//! A cluster's system of record: several `computer serve` nodes keep their workspaces in one
//! bucket prefix and hold each by a lease.
//!
//! Under `s3://BUCKET/PREFIX`:
//! - `chunks/BLAKE3`: content-addressed pieces, shared with bucket snapshots;
//! - `workspaces/ID/lease`: who serves workspace ID, until when, with which generation
//!   ([`lease`]); taken with `If-None-Match: *`, renewed and handed over with `If-Match`;
//! - `workspaces/ID/head`: the workspace's newest image, or its tombstone ([`Head`]); replaced
//!   only with `If-Match` on the ETag its owner last wrote, so a node that lost its lease
//!   cannot publish anything (fencing);
//! - `workspaces/ID/images/GEN-SEQ.json`: one image of the workspace's SQLite file ([`image`]),
//!   the file cut into [`PIECE`]-byte pieces. Moving the file itself carries everything a
//!   workspace holds (owners, hard links, special files, snapshots, the audit log, policies)
//!   with no second format to keep in step with the schema;
//! - `index/ID`: present while workspace ID exists, so one listing finds them all;
//! - `tokens.json`: the scoped tokens every node checks (hashes and scopes, never a token);
//! - `sessions/ID`: what an MCP client's session began with, so that any node goes on with
//!   it after its workspace moved.

pub mod image;
pub mod lease;

use std::sync::Arc;

use object_store::path::Path as ObjectPath;
use object_store::{ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload, UpdateVersion};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::error::{BucketError, Result, store};
use crate::url::BucketUrl;

pub use image::{HydrateStats, Image, ImagePush, PIECE};
pub use lease::Lease;

/// The format of the head, lease and image objects.
pub const FORMAT: u32 = 1;

/// A value read from the store with the version a conditional write must name. S3's ETag of
/// a simple upload is the MD5 of its bytes, so an object rewritten with the same bytes keeps
/// its ETag: every lease and head this module writes differs from all before it (a later
/// expiry, a higher generation, a new image), or an old version could match again.
#[derive(Debug, Clone)]
pub struct Versioned<T> {
    /// The value.
    pub value: T,
    /// Its object's ETag (and version, where the store has them).
    pub version: UpdateVersion,
}

/// A conditional write that lost: the object was created or replaced by someone else.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lost;

/// Where a workspace is: its newest image, or that it was deleted.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Head {
    /// [`FORMAT`].
    pub format: u32,
    /// The lease generation of the node that wrote it.
    pub generation: u64,
    /// The image's key relative to the workspace (`images/GEN-SEQ.json`); `None` once deleted.
    pub image: Option<String>,
    /// The workspace was deleted: a node holding an old copy must not bring it back.
    #[serde(default)]
    pub deleted: bool,
    /// Background jobs running on the node that wrote it, as it wrote it (a job does not
    /// move: the node that takes the workspace over says they were lost).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub jobs: Vec<JobNote>,
    /// The number the workspace's next job takes (numbers are never reused across nodes).
    #[serde(default)]
    pub next_job: u64,
}

/// A background job as a head records it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct JobNote {
    /// Its number in the workspace.
    pub id: u64,
    /// Its command line.
    pub command: String,
    /// The node running it.
    pub node: String,
}

/// The cluster's objects in one bucket prefix.
#[derive(Debug, Clone)]
pub struct ClusterStore {
    store: Arc<dyn ObjectStore>,
    url: BucketUrl,
}

impl ClusterStore {
    /// The cluster under `url` in `store` (opened with [`crate::open_store`], whose conditional
    /// writes use `If-Match` and `If-None-Match`).
    pub fn new(store: Arc<dyn ObjectStore>, url: BucketUrl) -> ClusterStore {
        ClusterStore { store, url }
    }

    /// The bucket address.
    pub fn url(&self) -> &BucketUrl {
        &self.url
    }

    fn key(&self, rest: &str) -> ObjectPath {
        self.url.key(rest)
    }

    fn workspace_key(&self, id: &str, rest: &str) -> ObjectPath {
        self.key(&format!("workspaces/{id}/{rest}"))
    }

    /// Workspace `id`'s head, if it has one.
    pub async fn head(&self, id: &str) -> Result<Option<Versioned<Head>>> {
        self.get_json(&self.workspace_key(id, "head")).await
    }

    /// Writes `id`'s head: created if `prior` is `None`, else replaced only if it is still the
    /// version `prior` names. `Ok(Err(Lost))` when another node wrote it first.
    pub async fn put_head(
        &self,
        id: &str,
        head: &Head,
        prior: Option<&UpdateVersion>,
    ) -> Result<Result<UpdateVersion, Lost>> {
        self.put_json(&self.workspace_key(id, "head"), head, prior)
            .await
    }

    /// Notes that workspace `id` exists (for [`ClusterStore::list`]).
    pub async fn add_to_index(&self, id: &str) -> Result<()> {
        let key = self.key(&format!("index/{id}"));
        self.store
            .put(&key, PutPayload::default())
            .await
            .map_err(store(format!("write {key}")))?;
        Ok(())
    }

    /// Notes that workspace `id` is gone.
    pub async fn remove_from_index(&self, id: &str) -> Result<()> {
        self.delete(&self.key(&format!("index/{id}"))).await
    }

    /// Deletes `key`; one already gone is no error.
    async fn delete(&self, key: &ObjectPath) -> Result<()> {
        match self.store.delete(key).await {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(store(format!("delete {key}"))(e)),
        }
    }

    /// The ids of the cluster's workspaces, sorted.
    pub async fn list(&self) -> Result<Vec<String>> {
        use futures::TryStreamExt;
        let prefix = self.key("index");
        let mut ids: Vec<String> = self
            .store
            .list(Some(&prefix))
            .map_ok(|m| m.location.filename().unwrap_or_default().to_string())
            .try_collect()
            .await
            .map_err(store(format!("list {prefix}")))?;
        ids.sort();
        Ok(ids)
    }

    /// The cluster's scoped tokens (as `computer serve` keeps them: hashes and scopes).
    pub async fn tokens<T: DeserializeOwned>(&self) -> Result<Option<Versioned<T>>> {
        self.get_json(&self.key("tokens.json")).await
    }

    /// Replaces the cluster's tokens: created if `prior` is `None`, else only over that
    /// version. `Ok(Err(Lost))` when another node changed them first.
    pub async fn put_tokens<T: Serialize>(
        &self,
        tokens: &T,
        prior: Option<&UpdateVersion>,
    ) -> Result<Result<UpdateVersion, Lost>> {
        self.put_json(&self.key("tokens.json"), tokens, prior).await
    }

    /// The state an MCP session left (`sessions/ID`), so that any node can go on with it.
    pub async fn session<T: DeserializeOwned>(&self, id: &str) -> Result<Option<T>> {
        let key = self.key(&format!("sessions/{id}"));
        Ok(self.get_json(&key).await?.map(|v| v.value))
    }

    /// Keeps an MCP session's state (over any earlier).
    pub async fn put_session<T: Serialize>(&self, id: &str, state: &T) -> Result<()> {
        let key = self.key(&format!("sessions/{id}"));
        let json =
            serde_json::to_vec(state).map_err(|e| BucketError::Snapshot(format!("{key}: {e}")))?;
        self.store
            .put(&key, PutPayload::from(json))
            .await
            .map_err(store(format!("write {key}")))?;
        Ok(())
    }

    /// Forgets an MCP session's state.
    pub async fn delete_session(&self, id: &str) -> Result<()> {
        self.delete(&self.key(&format!("sessions/{id}"))).await
    }

    async fn get_json<T: DeserializeOwned>(
        &self,
        key: &ObjectPath,
    ) -> Result<Option<Versioned<T>>> {
        let got = match self.store.get(key).await {
            Ok(got) => got,
            Err(object_store::Error::NotFound { .. }) => return Ok(None),
            Err(e) => return Err(store(format!("read {key}"))(e)),
        };
        let version = UpdateVersion {
            e_tag: got.meta.e_tag.clone(),
            version: got.meta.version.clone(),
        };
        let bytes = got.bytes().await.map_err(store(format!("read {key}")))?;
        let value = serde_json::from_slice(&bytes).map_err(|e| {
            BucketError::Snapshot(format!("{key} is not what this build wrote: {e}"))
        })?;
        Ok(Some(Versioned { value, version }))
    }

    async fn put_json<T: Serialize>(
        &self,
        key: &ObjectPath,
        value: &T,
        prior: Option<&UpdateVersion>,
    ) -> Result<Result<UpdateVersion, Lost>> {
        let json =
            serde_json::to_vec(value).map_err(|e| BucketError::Snapshot(format!("{key}: {e}")))?;
        let mode = match prior {
            None => PutMode::Create,
            Some(version) => PutMode::Update(version.clone()),
        };
        let options = PutOptions {
            mode,
            ..Default::default()
        };
        match self
            .store
            .put_opts(key, PutPayload::from(json), options)
            .await
        {
            Ok(done) => Ok(Ok(UpdateVersion {
                e_tag: done.e_tag,
                version: done.version,
            })),
            // An `If-Match` on an object deleted meanwhile is a 404.
            Err(
                object_store::Error::AlreadyExists { .. }
                | object_store::Error::Precondition { .. }
                | object_store::Error::NotFound { .. },
            ) => Ok(Err(Lost)),
            Err(e) => Err(store(format!("write {key}"))(e)),
        }
    }
}
