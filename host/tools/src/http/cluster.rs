//! A node of a cluster (`computer serve --store s3://BUCKET/PREFIX`): workspaces live in the
//! bucket ([`computer_bucket::cluster`]); a node serves one only while it holds its lease, keeps
//! its file in the data directory as a cache, and pushes it back (on idle, every
//! [`ClusterConfig::push_every`], or before answering each write with
//! [`ClusterConfig::sync_writes`]). A request for a workspace another node holds is proxied to
//! that node, `Authorization` and all.
//!
//! Taking a lease: read the lease; if another node's is live, proxy; else write ours (one
//! generation up, `If-Match` on what was read, or `If-None-Match: *`), then rewrite the head
//! under the new generation (`If-Match`), which fences the previous holder out, then hydrate
//! the file from the head's image. A node stops serving a workspace when its lease runs out
//! by its own clock ([`ClusterConfig::lease`] from when the renewal was sent, less
//! [`CLOCK_MARGIN`]), before another node may take it (the lease's written expiry).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderName, HeaderValue, StatusCode, Uri, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use computer::Workspace;
use computer_bucket::cluster::{ClusterStore, Head, Image, JobNote, Lease, Lost, lease::now_ms};
use computer_bucket::object_store::UpdateVersion;

use super::AppState;
use super::error::ApiError;
use super::registry::Registry;

/// Set on a request one node forwards to another: the receiver never forwards it again.
pub const FORWARDED: HeaderName = HeaderName::from_static("x-computer-forwarded");

/// Set on every answer about a workspace: the node that served it.
pub const NODE: HeaderName = HeaderName::from_static("x-computer-node");

/// How much sooner than its lease's written expiry a node stops serving, at most: room for
/// the clocks of two nodes to disagree (a fifth of a shorter lease).
pub const CLOCK_MARGIN: Duration = Duration::from_secs(1);

/// How a node joins a cluster.
#[derive(Debug, Clone)]
pub struct ClusterConfig {
    /// The bucket prefix holding the cluster.
    pub store: ClusterStore,
    /// This node's name (unique in the cluster).
    pub node: String,
    /// Where other nodes reach this one (`http://HOST:PORT`).
    pub url: String,
    /// How long a lease lasts without renewal (renewed every third of it).
    pub lease: Duration,
    /// How often a held workspace that changed is pushed.
    pub push_every: Duration,
    /// Push before answering each request that changed a workspace.
    pub sync_writes: bool,
}

/// A workspace this node holds.
struct Held {
    lease: Lease,
    lease_version: UpdateVersion,
    /// Until when this node may serve it, by its own clock.
    valid_until: Instant,
    renewed: Instant,
    head_version: UpdateVersion,
    /// The newest image in the store (pieces a push need not send), and its key.
    image: Image,
    image_key: String,
    seq: u64,
    pushed_revision: Option<u64>,
    /// The running jobs the head names.
    pushed_jobs: Vec<JobNote>,
    pushed: Instant,
    /// `valid_until`, for requests that do not take the slot's lock.
    serving: Arc<Serving>,
}

impl Held {
    fn set_valid_until(&mut self, until: Instant) {
        self.valid_until = until;
        self.serving.until(until);
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        self.serving.stop();
    }
}

/// Until when a node may serve a workspace, readable without its slot's lock: a request need
/// not wait while a push or a renewal holds it. Milliseconds after [`EPOCH`]; 0: not served.
#[derive(Debug, Default)]
struct Serving(AtomicU64);

static EPOCH: std::sync::LazyLock<Instant> = std::sync::LazyLock::new(Instant::now);

impl Serving {
    fn until(&self, until: Instant) {
        let ms = until.saturating_duration_since(*EPOCH).as_millis();
        self.0
            .store(u64::try_from(ms).unwrap_or(u64::MAX), Ordering::SeqCst);
    }

    fn stop(&self) {
        self.0.store(0, Ordering::SeqCst);
    }

    fn allows(&self, now: Instant) -> bool {
        let now = now.saturating_duration_since(*EPOCH).as_millis();
        u128::from(self.0.load(Ordering::SeqCst)) > now
    }
}

/// Where a request for a workspace goes.
pub(crate) enum Route {
    /// This node holds it.
    Here,
    /// Another node does, at this URL.
    There(String),
}

/// A workspace's place on this node.
#[derive(Default)]
struct SlotState {
    held: Arc<tokio::sync::Mutex<Option<Held>>>,
    serving: Arc<Serving>,
}

type Slot = Arc<SlotState>;

/// This node's part in the cluster.
pub(crate) struct Node {
    config: ClusterConfig,
    slots: Mutex<HashMap<String, Slot>>,
    client: hyper_util::client::legacy::Client<
        hyper_util::client::legacy::connect::HttpConnector,
        Body,
    >,
}

fn store_error(e: computer_bucket::BucketError) -> ApiError {
    ApiError::new(StatusCode::BAD_GATEWAY, format!("the cluster's store: {e}"))
}

fn lease_ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

impl Node {
    pub(crate) fn new(config: ClusterConfig) -> Node {
        let client =
            hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
                .build_http();
        Node {
            config,
            slots: Mutex::default(),
            client,
        }
    }

    fn slot(&self, id: &str) -> Slot {
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        Arc::clone(slots.entry(id.to_string()).or_default())
    }

    /// The workspaces this node has a slot for. Slots of workspaces it does not hold, that
    /// no call is using, are dropped here: requests for ids that do not exist must not grow
    /// the map for ever.
    fn held_ids(&self) -> Vec<(String, Slot)> {
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        slots.retain(|_, slot| {
            Arc::strong_count(slot) > 1 || slot.held.try_lock().map_or(true, |held| held.is_some())
        });
        slots
            .iter()
            .map(|(id, slot)| (id.clone(), Arc::clone(slot)))
            .collect()
    }

    /// A lease for this node, generation `generation`, from now.
    fn fresh_lease(&self, generation: u64) -> (Lease, Instant) {
        let sent = Instant::now();
        let lease = Lease::new(
            &self.config.node,
            &self.config.url,
            generation,
            now_ms().saturating_add(lease_ms(self.config.lease)),
        );
        (lease, sent)
    }

    fn valid_until(&self, sent: Instant) -> Instant {
        let margin = CLOCK_MARGIN.min(self.config.lease / 5);
        sent + self.config.lease.saturating_sub(margin)
    }

    /// Where requests for workspace `id` go; takes its lease (and its file from the store)
    /// when no node holds it.
    pub(crate) async fn claim(&self, id: &str, registry: &Registry) -> Result<Route, ApiError> {
        let slot = self.slot(id);
        if slot.serving.allows(Instant::now()) {
            return Ok(Route::Here);
        }
        let mut held = slot.held.lock().await;
        if let Some(h) = held.as_ref() {
            if Instant::now() < h.valid_until {
                // Served without the lock again (a push that stopped it failed).
                slot.serving.until(h.valid_until);
                return Ok(Route::Here);
            }
            // Not renewed in time (the store unreachable): never serve past the lease.
            eprintln!("computer serve: lost the lease of workspace {id:?} (not renewed in time)");
            *held = None;
            registry.forget(id);
        }
        let store = &self.config.store;
        let lease = store.lease(id).await.map_err(store_error)?;
        if let Some(l) = &lease
            && l.value.node != self.config.node
            && l.value.live_at(now_ms())
        {
            return Ok(Route::There(l.value.url.clone()));
        }
        let Some(head) = store.head(id).await.map_err(store_error)? else {
            return Err(ApiError::not_found(format!("no workspace {id:?}")));
        };
        if head.value.deleted {
            registry.forget(id);
            let _ = Workspace::delete_file(registry.file(id));
            return Err(ApiError::not_found(format!("no workspace {id:?}")));
        }
        let generation = lease
            .as_ref()
            .map_or(0, |l| l.value.generation)
            .max(head.value.generation)
            + 1;
        let (new_lease, sent) = self.fresh_lease(generation);
        let lease_version = match store
            .put_lease(id, &new_lease, lease.as_ref().map(|l| &l.version))
            .await
            .map_err(store_error)?
        {
            Ok(version) => version,
            Err(Lost) => return self.taken_meanwhile(id).await,
        };
        // Rewrite the head under our generation: from here on the previous holder's pushes
        // fail. It may have pushed since we read the head: read it again each time.
        let mut head = head;
        let head_version = loop {
            let ours = Head {
                generation,
                ..head.value.clone()
            };
            match store
                .put_head(id, &ours, Some(&head.version))
                .await
                .map_err(store_error)?
            {
                Ok(version) => break version,
                Err(Lost) => {
                    head = store
                        .head(id)
                        .await
                        .map_err(store_error)?
                        .ok_or_else(|| ApiError::not_found(format!("no workspace {id:?}")))?;
                    if head.value.deleted {
                        return Err(ApiError::not_found(format!("no workspace {id:?}")));
                    }
                }
            }
        };
        let (image, image_key) = self.hydrate(id, &head.value, registry).await?;
        // Open (and used now), so that the upkeep does not hand it back as idle before the
        // request that claimed it runs.
        let ws = registry.get(id)?;
        record_lost_jobs(&ws, &head.value);
        let mut taken = Held {
            lease: new_lease,
            lease_version,
            valid_until: sent,
            renewed: sent,
            head_version,
            image,
            image_key,
            seq: 0,
            pushed_revision: None,
            pushed_jobs: head.value.jobs.clone(),
            pushed: Instant::now(),
            serving: Arc::clone(&slot.serving),
        };
        taken.set_valid_until(self.valid_until(sent));
        // A big file takes a while to hydrate: the lease must still have most of its time
        // when the first request runs (and the upkeep renews it only once it is held).
        if sent.elapsed() >= self.config.lease / 3 {
            match self.renew(id, &mut taken).await.map_err(store_error)? {
                Ok(()) => {}
                Err(Lost) => {
                    registry.forget(id);
                    return self.taken_meanwhile(id).await;
                }
            }
        }
        *held = Some(taken);
        Ok(Route::Here)
    }

    /// Renews `h`'s lease from now; `Ok(Err(Lost))` when another node took it.
    async fn renew(
        &self,
        id: &str,
        h: &mut Held,
    ) -> Result<Result<(), Lost>, computer_bucket::BucketError> {
        let (lease, sent) = self.fresh_lease(h.lease.generation);
        let version = match self
            .config
            .store
            .put_lease(id, &lease, Some(&h.lease_version))
            .await?
        {
            Ok(version) => version,
            Err(Lost) => return Ok(Err(Lost)),
        };
        h.lease = lease;
        h.lease_version = version;
        h.renewed = sent;
        h.set_valid_until(self.valid_until(sent));
        Ok(Ok(()))
    }

    /// After losing the race for `id`'s lease: where the winner serves.
    async fn taken_meanwhile(&self, id: &str) -> Result<Route, ApiError> {
        match self.config.store.lease(id).await.map_err(store_error)? {
            Some(l) if l.value.node != self.config.node && l.value.live_at(now_ms()) => {
                Ok(Route::There(l.value.url))
            }
            _ => Err(ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                format!("workspace {id:?} is changing hands; try again"),
            )),
        }
    }

    /// Makes the local file of `id` the image `head` names, reusing what the local copy
    /// already holds; the image and its key.
    async fn hydrate(
        &self,
        id: &str,
        head: &Head,
        registry: &Registry,
    ) -> Result<(Image, String), ApiError> {
        let Some(key) = &head.image else {
            return Err(ApiError::internal(format!(
                "workspace {id:?} has no image in the store"
            )));
        };
        let store = &self.config.store;
        let image = store.image(id, key).await.map_err(store_error)?;
        registry.forget(id);
        let file = registry.file(id);
        let staged = PathBuf::from(format!("{}.hydrate", file.display()));
        let local = file.exists().then_some(file.as_path());
        store
            .hydrate(&image, &staged, local)
            .await
            .map_err(store_error)?;
        // The old copy's log must not be replayed over the new file.
        for suffix in ["-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", file.display()));
        }
        std::fs::rename(&staged, &file).map_err(|e| {
            ApiError::internal(format!("hydrate workspace {id:?}: {}: {e}", file.display()))
        })?;
        Ok((image, key.clone()))
    }

    /// Starts creating workspace `id`: takes its lease (409 if it exists or another node is
    /// making it). The caller makes the local file, then calls [`Node::finish_create`].
    pub(crate) async fn begin_create(
        &self,
        id: &str,
        registry: &Registry,
    ) -> Result<Creating, ApiError> {
        let exists = || ApiError::conflict(format!("workspace {id:?} exists"));
        let slot = self.slot(id);
        let held = Arc::clone(&slot.held).lock_owned().await;
        if held.is_some() {
            return Err(exists());
        }
        let store = &self.config.store;
        let lease = store.lease(id).await.map_err(store_error)?;
        if lease
            .as_ref()
            .is_some_and(|l| l.value.node != self.config.node && l.value.live_at(now_ms()))
        {
            return Err(exists());
        }
        let head = store.head(id).await.map_err(store_error)?;
        if head.as_ref().is_some_and(|h| !h.value.deleted) {
            return Err(exists());
        }
        let generation = lease
            .as_ref()
            .map_or(0, |l| l.value.generation)
            .max(head.as_ref().map_or(0, |h| h.value.generation))
            + 1;
        let (new_lease, sent) = self.fresh_lease(generation);
        let Ok(lease_version) = store
            .put_lease(id, &new_lease, lease.as_ref().map(|l| &l.version))
            .await
            .map_err(store_error)?
        else {
            return Err(exists());
        };
        // A copy left from before a delete is not this workspace.
        registry.forget(id);
        let _ = Workspace::delete_file(registry.file(id));
        Ok(Creating {
            held,
            serving: Arc::clone(&slot.serving),
            id: id.to_string(),
            lease: new_lease,
            lease_version,
            sent,
            prior_head: head.map(|h| h.version),
        })
    }

    /// Publishes the workspace `creating` made (its first image and head) if `made` is `Ok`;
    /// on failure the local file is removed and the lease let go.
    pub(crate) async fn finish_create(
        &self,
        mut creating: Creating,
        made: Result<(), ApiError>,
        registry: &Registry,
    ) -> Result<(), ApiError> {
        let id = creating.id.clone();
        let result = match made {
            Ok(()) => self.publish_new(&mut creating, registry).await,
            Err(e) => Err(e),
        };
        if result.is_err() {
            registry.forget(&id);
            let _ = Workspace::delete_file(registry.file(&id));
            let _ = self
                .release_lease(&id, &creating.lease, &creating.lease_version)
                .await;
        }
        result
    }

    async fn publish_new(&self, c: &mut Creating, registry: &Registry) -> Result<(), ApiError> {
        let store = &self.config.store;
        let revision = registry
            .get(&c.id)?
            .fs()
            .revision()
            .map_err(|e| ApiError::internal(format!("push {:?}: {e}", c.id)))?;
        let pushed = self
            .push_file(&c.id, registry, (c.lease.generation, 1), None)
            .await?;
        let head = Head {
            format: computer_bucket::cluster::FORMAT,
            generation: c.lease.generation,
            image: Some(pushed.key.clone()),
            deleted: false,
            jobs: Vec::new(),
            next_job: 0,
        };
        let Ok(head_version) = store
            .put_head(&c.id, &head, c.prior_head.as_ref())
            .await
            .map_err(store_error)?
        else {
            return Err(ApiError::conflict(format!("workspace {:?} exists", c.id)));
        };
        store.add_to_index(&c.id).await.map_err(store_error)?;
        let mut made = Held {
            lease: c.lease.clone(),
            lease_version: c.lease_version.clone(),
            valid_until: c.sent,
            renewed: c.sent,
            head_version,
            image: pushed.image,
            image_key: pushed.key,
            seq: 1,
            pushed_revision: Some(revision),
            pushed_jobs: Vec::new(),
            pushed: Instant::now(),
            serving: Arc::clone(&c.serving),
        };
        made.set_valid_until(self.valid_until(c.sent));
        *c.held = Some(made);
        Ok(())
    }

    /// Copies workspace `id`'s file and uploads it as image `(generation, seq)`. The copy
    /// holds at least every revision read before the call.
    async fn push_file(
        &self,
        id: &str,
        registry: &Registry,
        at: (u64, u64),
        previous: Option<&Image>,
    ) -> Result<computer_bucket::cluster::ImagePush, ApiError> {
        let vfs = registry.get(id)?.vfs();
        let copy = PathBuf::from(format!("{}.push", registry.file(id).display()));
        let copy_ = copy.clone();
        tokio::task::spawn_blocking(move || vfs.copy_file_to(&copy_))
            .await
            .map_err(|e| ApiError::internal(format!("push {id:?}: {e}")))?
            .map_err(|e| ApiError::internal(format!("push {id:?}: copy its file: {e}")))?;
        let pushed = self
            .config
            .store
            .push_image(id, &copy, at, previous)
            .await
            .map_err(store_error);
        let _ = std::fs::remove_file(&copy);
        pushed
    }

    /// Pushes `id` if it changed since its last push; a head refused means another node took
    /// the workspace: this one stops serving it. The head names the jobs running (or
    /// `killed`, on the way out), so that the next node can say they were lost; when only
    /// they changed, the head is rewritten over the same image.
    async fn push_held(
        &self,
        id: &str,
        held: &mut Option<Held>,
        registry: &Registry,
        killed: Option<Vec<JobNote>>,
    ) -> Result<(), ApiError> {
        let Some(h) = held.as_mut() else {
            return Ok(());
        };
        let ws = registry.get(id)?;
        let revision = ws
            .fs()
            .revision()
            .map_err(|e| ApiError::internal(format!("push {id:?}: {e}")))?;
        let jobs = killed.unwrap_or_else(|| self.running_jobs(&ws));
        let next_job = ws.next_job_id();
        drop(ws);
        if h.pushed_revision == Some(revision) && h.pushed_jobs == jobs {
            h.pushed = Instant::now();
            return Ok(());
        }
        let pushed = if h.pushed_revision == Some(revision) {
            None
        } else {
            let at = (h.lease.generation, h.seq + 1);
            Some(self.push_file(id, registry, at, Some(&h.image)).await?)
        };
        if Instant::now() >= h.valid_until {
            return Err(self.lose(id, held, registry, "its lease ran out during a push"));
        }
        let head = Head {
            format: computer_bucket::cluster::FORMAT,
            generation: h.lease.generation,
            image: Some(pushed.as_ref().map_or(&h.image_key, |p| &p.key).clone()),
            deleted: false,
            jobs: jobs.clone(),
            next_job,
        };
        match self
            .config
            .store
            .put_head(id, &head, Some(&h.head_version))
            .await
            .map_err(store_error)?
        {
            Ok(version) => {
                h.head_version = version;
                if let Some(pushed) = pushed {
                    h.image = pushed.image;
                    h.image_key = pushed.key;
                    h.seq += 1;
                }
                h.pushed_revision = Some(revision);
                h.pushed_jobs = jobs;
                h.pushed = Instant::now();
                Ok(())
            }
            Err(Lost) => Err(self.lose(id, held, registry, "another node took it")),
        }
    }

    /// The jobs running in `ws`, as a head records them.
    fn running_jobs(&self, ws: &Workspace) -> Vec<JobNote> {
        ws.jobs()
            .iter()
            .filter(|j| j.status() == computer::JobStatus::Running)
            .map(|j| self.note(j))
            .collect()
    }

    fn note(&self, job: &computer::Job) -> JobNote {
        JobNote {
            id: job.id(),
            command: job.command().to_string(),
            node: self.config.node.clone(),
        }
    }

    /// Stops serving `id`; the error to answer with.
    fn lose(&self, id: &str, held: &mut Option<Held>, registry: &Registry, why: &str) -> ApiError {
        eprintln!("computer serve: no longer serving workspace {id:?}: {why}");
        *held = None;
        registry.forget(id);
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            format!(
                "workspace {id:?} moved to another node ({why}); changes since its last push were not kept"
            ),
        )
    }

    async fn release_lease(
        &self,
        id: &str,
        lease: &Lease,
        version: &UpdateVersion,
    ) -> Result<(), ApiError> {
        let released = Lease {
            expires_ms: 0,
            ..lease.clone()
        };
        let _ = self
            .config
            .store
            .put_lease(id, &released, Some(version))
            .await
            .map_err(store_error)?;
        Ok(())
    }

    /// Pushes `id` now if it changed (for `--sync-writes`).
    pub(crate) async fn sync(&self, id: &str, registry: &Registry) -> Result<(), ApiError> {
        let slot = self.slot(id);
        let mut held = slot.held.lock().await;
        if held.is_none() {
            return Err(ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                format!("workspace {id:?} moved to another node before its change was stored"),
            ));
        }
        self.push_held(id, &mut held, registry, None).await
    }

    /// Deletes workspace `id` (held here): its tombstone, so that no node brings an old copy
    /// back, then its file.
    pub(crate) async fn delete(&self, id: &str, registry: &Registry) -> Result<(), ApiError> {
        let slot = self.slot(id);
        let mut held = slot.held.lock().await;
        let Some(h) = held.take() else {
            return Err(ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                format!("workspace {id:?} moved to another node; try again"),
            ));
        };
        slot.serving.stop();
        let store = &self.config.store;
        let tombstone = Head {
            format: computer_bucket::cluster::FORMAT,
            generation: h.lease.generation,
            image: None,
            deleted: true,
            jobs: Vec::new(),
            next_job: 0,
        };
        if store
            .put_head(id, &tombstone, Some(&h.head_version))
            .await
            .map_err(store_error)?
            .is_err()
        {
            registry.forget(id);
            return Err(ApiError::conflict(format!(
                "workspace {id:?} was taken by another node; nothing deleted"
            )));
        }
        store.remove_from_index(id).await.map_err(store_error)?;
        let _ = self.release_lease(id, &h.lease, &h.lease_version).await;
        registry.forget(id);
        let _ = Workspace::delete_file(registry.file(id));
        Ok(())
    }

    /// The cluster's workspaces.
    pub(crate) async fn list(&self) -> Result<Vec<String>, ApiError> {
        self.config.store.list().await.map_err(store_error)
    }

    /// Renews the leases due, pushes what changed, and lets go of workspaces the registry
    /// closed as idle (pushed first), each workspace on a task of its own: a long push of one
    /// does not hold up the renewals of the others. A workspace whose previous upkeep still
    /// runs is skipped. Run about once a second.
    pub(crate) fn tick(state: &Arc<AppState>) {
        let Some(node) = &state.node else { return };
        for (id, slot) in node.held_ids() {
            let state = Arc::clone(state);
            tokio::spawn(async move {
                if let Some(node) = &state.node {
                    node.upkeep(&id, &slot, &state.registry).await;
                }
            });
        }
    }

    async fn upkeep(&self, id: &str, slot: &SlotState, registry: &Registry) {
        let renew_every = self.config.lease / 3;
        let Ok(mut held) = slot.held.try_lock() else {
            return;
        };
        let Some(h) = held.as_mut() else {
            return;
        };
        if Instant::now() >= h.valid_until {
            self.lose(id, &mut held, registry, "its lease was not renewed in time");
            return;
        }
        if h.renewed.elapsed() >= renew_every {
            match self.renew(id, h).await {
                Ok(Ok(())) => {}
                Ok(Err(Lost)) => {
                    self.lose(id, &mut held, registry, "another node took its lease");
                    return;
                }
                // Tried again next tick; past `valid_until` the workspace is let go.
                Err(e) => eprintln!("computer serve: renew the lease of {id:?}: {e}"),
            }
        }
        let Some(h) = held.as_ref() else { return };
        let idle = !registry.is_open(id);
        if idle {
            // Requests wait for the lock from here on: the last push must hold their
            // writes, or they are served after the lease is let go.
            slot.serving.stop();
        }
        if (idle || h.pushed.elapsed() >= self.config.push_every)
            && let Err(e) = self.push_held(id, &mut held, registry, None).await
        {
            eprintln!("computer serve: push workspace {id:?}: {}", e.message);
            return;
        }
        if idle && let Some(h) = held.take() {
            let _ = self.release_lease(id, &h.lease, &h.lease_version).await;
            registry.forget(id);
        }
    }

    /// On shutdown: kills every held workspace's jobs and stops its container (nothing may
    /// change it once pushed), pushes it and lets its lease go, so another node can take it
    /// at once.
    pub(crate) async fn leave(&self, registry: &Registry) {
        for (id, slot) in self.held_ids() {
            let mut held = slot.held.lock().await;
            if held.is_none() {
                continue;
            }
            // As for an idle workspace: requests from here on wait, then go elsewhere.
            slot.serving.stop();
            let killed = match registry.get(&id) {
                Ok(ws) => {
                    let killed = tokio::task::spawn_blocking(move || {
                        let killed = ws.kill_jobs(super::registry::JOB_KILL_WAIT);
                        ws.stop_container();
                        killed
                    })
                    .await
                    .unwrap_or_default();
                    killed.iter().map(|j| self.note(j)).collect()
                }
                Err(_) => Vec::new(),
            };
            if let Err(e) = self.push_held(&id, &mut held, registry, Some(killed)).await {
                eprintln!(
                    "computer serve: push workspace {id:?} on shutdown: {}",
                    e.message
                );
                continue;
            }
            if let Some(h) = held.take() {
                let _ = self.release_lease(&id, &h.lease, &h.lease_version).await;
                registry.forget(&id);
            }
        }
    }

    /// Sends `request` to the node at `url` and streams its answer back.
    pub(crate) async fn forward(&self, url: &str, mut request: Request) -> Response {
        if request.headers().contains_key(&FORWARDED) {
            return ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "the workspace is changing hands between nodes; try again",
            )
            .into_response();
        }
        let target = format!(
            "{}{}",
            url.trim_end_matches('/'),
            request.uri().path_and_query().map_or("/", |p| p.as_str())
        );
        let Ok(uri) = target.parse::<Uri>() else {
            return ApiError::internal(format!("bad node address {url:?}")).into_response();
        };
        if let Some(authority) = uri.authority()
            && let Ok(host) = HeaderValue::from_str(authority.as_str())
        {
            request.headers_mut().insert(header::HOST, host);
        }
        *request.uri_mut() = uri;
        if let Ok(name) = HeaderValue::from_str(&self.config.node) {
            request.headers_mut().insert(FORWARDED, name);
        }
        match self.client.request(request).await {
            Ok(response) => response.map(Body::new),
            Err(e) => ApiError::new(
                StatusCode::BAD_GATEWAY,
                format!("the node holding this workspace ({url}) did not answer: {e}"),
            )
            .into_response(),
        }
    }
}

/// A workspace being created: its lease is held, its slot locked.
pub(crate) struct Creating {
    held: tokio::sync::OwnedMutexGuard<Option<Held>>,
    serving: Arc<Serving>,
    id: String,
    lease: Lease,
    lease_version: UpdateVersion,
    sent: Instant,
    prior_head: Option<UpdateVersion>,
}

/// Gives `ws` the jobs `head` says were running where it was pushed (they did not come
/// along), and numbers its next job after every job it had there.
fn record_lost_jobs(ws: &Workspace, head: &Head) {
    for job in &head.jobs {
        let why = format!(
            "it was running on node {} when that node stopped serving this workspace (it \
             shut down, died or lost its lease); the workspace holds what that node last \
             stored, the job's output is gone",
            job.node
        );
        ws.record_lost_jobs(&[(job.id, job.command.clone())], &why, head.next_job);
    }
    ws.record_lost_jobs(&[], "", head.next_job);
}

/// The workspace id a path names (`/v1/workspaces/ID` and below).
fn workspace_of(path: &str) -> Option<&str> {
    let rest = path.strip_prefix("/v1/workspaces/")?;
    let id = rest.split('/').next()?;
    (!id.is_empty()).then_some(id)
}

/// Routes each workspace request to the node holding its workspace: here (taking the lease
/// if no node holds it), or forwarded. With `--sync-writes`, a request that may have changed
/// the workspace is answered only once the change is in the store.
pub(crate) async fn route(
    State(state): State<Arc<AppState>>,
    request: Request,
    next: Next,
) -> Response {
    let Some(node) = &state.node else {
        return next.run(request).await;
    };
    let Some(id) = workspace_of(request.uri().path()).map(str::to_string) else {
        return next.run(request).await;
    };
    if let Err(e) = super::registry::check_id(&id) {
        return e.into_response();
    }
    match node.claim(&id, &state.registry).await {
        Ok(Route::There(url)) => return node.forward(&url, request).await,
        Ok(Route::Here) => {}
        Err(e) => return e.into_response(),
    }
    let writes = !matches!(
        *request.method(),
        axum::http::Method::GET | axum::http::Method::HEAD | axum::http::Method::DELETE
    );
    let mut response = next.run(request).await;
    if let Ok(name) = HeaderValue::from_str(&node.config.node) {
        response.headers_mut().insert(NODE, name);
    }
    if !(writes && node.config.sync_writes) {
        return response;
    }
    let streamed = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"text/event-stream"));
    if streamed {
        return sync_at_end(Arc::clone(&state), id, response);
    }
    let (parts, body) = response.into_parts();
    let bytes = match axum::body::to_bytes(body, usize::MAX).await {
        Ok(bytes) => bytes,
        Err(e) => return ApiError::internal(format!("read the answer: {e}")).into_response(),
    };
    if let Err(e) = node.sync(&id, &state.registry).await {
        return e.into_response();
    }
    Response::from_parts(parts, Body::from(bytes))
}

/// A streamed answer (server-sent events) whose last event waits for the push; if the push
/// fails, an `error` event says so in its place.
fn sync_at_end(state: Arc<AppState>, id: String, response: Response) -> Response {
    use tokio_stream::StreamExt;
    let (parts, body) = response.into_parts();
    let mut frames = body.into_data_stream();
    let stream = async_stream(move |tx| async move {
        let mut last = None;
        while let Some(frame) = frames.next().await {
            let Ok(frame) = frame else { break };
            if let Some(previous) = last.replace(frame)
                && tx.send(previous).await.is_err()
            {
                return;
            }
        }
        let Some(node) = state.node.as_ref() else {
            return;
        };
        match node.sync(&id, &state.registry).await {
            Ok(()) => {
                if let Some(frame) = last {
                    let _ = tx.send(frame).await;
                }
            }
            Err(e) => {
                let data = serde_json::json!({ "error": e.message }).to_string();
                let event = format!("event: error\ndata: {data}\n\n");
                let _ = tx.send(axum::body::Bytes::from(event)).await;
            }
        }
    });
    Response::from_parts(parts, Body::from_stream(stream))
}

/// A stream fed by `f` through a channel.
fn async_stream<F, Fut>(
    f: F,
) -> impl tokio_stream::Stream<Item = Result<axum::body::Bytes, std::convert::Infallible>>
where
    F: FnOnce(tokio::sync::mpsc::Sender<axum::body::Bytes>) -> Fut,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    let (tx, rx) = tokio::sync::mpsc::channel(16);
    tokio::spawn(f(tx));
    use tokio_stream::StreamExt;
    tokio_stream::wrappers::ReceiverStream::new(rx).map(Ok)
}
