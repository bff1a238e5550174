//! The workspaces a server holds: one SQLite file each under a data directory, addressed by
//! id, opened on first use and closed when idle.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use computer::{VfsOptions, Workspace};

use super::error::ApiError;

/// Longest workspace id.
pub const MAX_ID_LEN: usize = 64;

/// The file name extension of a workspace file in the data directory.
const EXTENSION: &str = "db";

/// How long a count of the data directory's workspace files is trusted: the registry keeps
/// it up to date itself, and counts again this often for files put there or removed by hand
/// (reading a directory of 10,000 files takes about 20 ms, too much for every create).
const RECOUNT: Duration = Duration::from_secs(10);

/// An open workspace and when it was last used.
struct Open {
    ws: Workspace,
    /// Milliseconds since the registry started.
    last_used: AtomicU64,
}

/// The server's workspaces.
pub struct Registry {
    dir: PathBuf,
    idle: Duration,
    /// Unused this long, an open workspace's database connection sleeps.
    sleep_after: Duration,
    started: Instant,
    state: Mutex<State>,
    max_workspaces: usize,
    default_quota: u64,
    /// The network policy each new workspace starts with.
    net_policy: computer::net::Policy,
}

/// What the registry's lock guards.
#[derive(Default)]
struct State {
    /// Open workspaces by id.
    open: HashMap<String, Open>,
    /// Ids of workspaces being made (a snapshot pull writing their file).
    pending: HashSet<String>,
    /// Workspace files in the data directory as last counted (and kept up to date since),
    /// and when they were counted; `None` until a limit first needs them.
    files: Option<(usize, Instant)>,
}

impl State {
    /// One workspace file more (`1`) or fewer (`-1`) in the data directory.
    fn files_changed(&mut self, by: isize) {
        if let Some((count, _)) = &mut self.files {
            *count = count.saturating_add_signed(by);
        }
    }
}

/// Workspace `id`, held while its file is being made: no other call can create, open, list or
/// delete it until [`Reservation::finish`]; dropped unfinished, the id is free again.
pub struct Reservation<'a> {
    registry: &'a Registry,
    id: String,
    path: PathBuf,
}

impl Reservation<'_> {
    /// Where the workspace file is to be made (it does not exist yet).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file is made: `ws` (opened on it) becomes workspace `id`.
    pub fn finish(self, ws: Workspace) -> Result<Workspace, ApiError> {
        let quota = self.registry.new_workspace(&self.id, &ws);
        let mut state = self.registry.lock();
        // The file is there, whether or not its quota could be set.
        state.files_changed(1);
        quota?;
        state.pending.remove(&self.id);
        Ok(self.registry.hold(&mut state.open, &self.id, ws))
    }
}

impl Drop for Reservation<'_> {
    fn drop(&mut self) {
        self.registry.lock().pending.remove(&self.id);
    }
}

/// A workspace as listed.
#[derive(Debug, serde::Serialize, schemars::JsonSchema)]
pub struct WorkspaceInfo {
    /// Its id.
    pub id: String,
    /// Size of its file on the host, in bytes.
    pub file_bytes: u64,
    /// Whether the server holds it open now.
    pub open: bool,
}

impl Registry {
    /// Workspaces under `dir` (created if missing), closed after `idle` without use.
    pub fn new(dir: impl Into<PathBuf>, idle: Duration) -> std::io::Result<Registry> {
        let dir = dir.into();
        super::private::dir(&dir)?;
        Ok(Registry {
            dir,
            idle,
            sleep_after: Duration::MAX,
            started: Instant::now(),
            state: Mutex::default(),
            max_workspaces: usize::MAX,
            default_quota: 0,
            net_policy: computer::net::Policy::default(),
        })
    }

    /// At most `max_workspaces` workspaces (creating one more is refused), each made with a
    /// size quota of `default_quota` bytes (0: none).
    pub fn with_limits(mut self, max_workspaces: usize, default_quota: u64) -> Registry {
        self.max_workspaces = max_workspaces;
        self.default_quota = default_quota;
        self
    }

    /// Each new workspace (created, or pulled from a bucket) starts with `policy` as its
    /// network policy (default: none, nothing reachable).
    pub fn with_net_policy(mut self, policy: computer::net::Policy) -> Registry {
        self.net_policy = policy;
        self
    }

    /// Open workspaces unused for `sleep_after` close their database connection until their
    /// next use ([`computer_vfs::Vfs::sleep`]); never, by default.
    pub fn with_sleep_after(mut self, sleep_after: Duration) -> Registry {
        self.sleep_after = sleep_after;
        self
    }

    /// Gives a new workspace the default quota.
    fn new_workspace(&self, id: &str, ws: &Workspace) -> Result<(), ApiError> {
        if self.default_quota > 0 {
            ws.fs()
                .set_quota(self.default_quota)
                .map_err(|e| ApiError::internal(format!("set the quota of {id:?}: {e}")))?;
        }
        if !self.net_policy.is_none() {
            ws.set_net_policy(&self.net_policy).map_err(|e| {
                ApiError::internal(format!("set the network policy of {id:?}: {e}"))
            })?;
        }
        Ok(())
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock leaves the maps consistent (inserts and removes only).
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// 409 while workspace `id` is being made.
    fn check_not_pending(state: &State, id: &str) -> Result<(), ApiError> {
        if state.pending.contains(id) {
            return Err(ApiError::conflict(format!(
                "workspace {id:?} is being created"
            )));
        }
        Ok(())
    }

    fn now_ms(&self) -> u64 {
        u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    fn path(&self, id: &str) -> PathBuf {
        self.dir.join(format!("{id}.{EXTENSION}"))
    }

    /// The workspace `id`, opening it if needed. Unknown ids are 404: workspaces are made by
    /// [`Registry::create`] only.
    pub fn get(&self, id: &str) -> Result<Workspace, ApiError> {
        check_id(id)?;
        let mut state = self.lock();
        Self::check_not_pending(&state, id)?;
        if let Some(entry) = state.open.get(id) {
            entry.last_used.store(self.now_ms(), Ordering::Relaxed);
            return Ok(entry.ws.clone());
        }
        let path = self.path(id);
        if !path.is_file() {
            return Err(ApiError::not_found(format!("no workspace {id:?}")));
        }
        let options = VfsOptions {
            create: false,
            ..Default::default()
        };
        let ws = Workspace::open_with(&path, &options)
            .map_err(|e| ApiError::internal(format!("open workspace {id:?}: {e}")))?;
        Ok(self.hold(&mut state.open, id, ws))
    }

    /// Keeps `ws` open under `id`, used now.
    fn hold(&self, open: &mut HashMap<String, Open>, id: &str, ws: Workspace) -> Workspace {
        let entry = Open {
            ws: ws.clone(),
            last_used: AtomicU64::new(self.now_ms()),
        };
        open.insert(id.to_string(), entry);
        ws
    }

    /// Creates workspace `id` (409 if it exists).
    pub fn create(&self, id: &str) -> Result<Workspace, ApiError> {
        check_id(id)?;
        // Under the lock, so that two creates of one id cannot both succeed.
        let mut state = self.lock();
        let path = self.free_path(&mut state, id)?;
        let ws = Workspace::open(&path)
            .map_err(|e| ApiError::internal(format!("create workspace {id:?}: {e}")))?;
        state.files_changed(1);
        self.new_workspace(id, &ws)?;
        Ok(self.hold(&mut state.open, id, ws))
    }

    /// Holds id `id` for a workspace whose file the caller makes (409 if it exists).
    pub fn reserve(&self, id: &str) -> Result<Reservation<'_>, ApiError> {
        check_id(id)?;
        let mut state = self.lock();
        let path = self.free_path(&mut state, id)?;
        state.pending.insert(id.to_string());
        Ok(Reservation {
            registry: self,
            id: id.to_string(),
            path,
        })
    }

    /// The file of a new workspace `id`: 409 if the id is taken or being made.
    fn free_path(&self, state: &mut State, id: &str) -> Result<PathBuf, ApiError> {
        Self::check_not_pending(state, id)?;
        let path = self.path(id);
        if state.open.contains_key(id) || path.exists() {
            return Err(ApiError::conflict(format!("workspace {id:?} exists")));
        }
        if self.max_workspaces != usize::MAX {
            let mut held = self.files(state, false) + state.pending.len();
            if held >= self.max_workspaces {
                // Never refused on a count that may be old.
                held = self.files(state, true) + state.pending.len();
            }
            if held >= self.max_workspaces {
                return Err(ApiError::new(
                    axum::http::StatusCode::INSUFFICIENT_STORAGE,
                    format!(
                        "this server holds {held} workspaces, its limit (--max-workspaces {}); \
                         delete one first",
                        self.max_workspaces
                    ),
                ));
            }
        }
        Ok(path)
    }

    /// Workspace files in the data directory: the kept count, unless it is older than
    /// [`RECOUNT`] or `fresh` asks for a new one.
    fn files(&self, state: &mut State, fresh: bool) -> usize {
        match state.files {
            Some((count, at)) if !fresh && at.elapsed() < RECOUNT => count,
            _ => {
                let count = self.count_files();
                state.files = Some((count, Instant::now()));
                count
            }
        }
    }

    /// Workspace files in the data directory, counted.
    fn count_files(&self) -> usize {
        std::fs::read_dir(&self.dir)
            .map(|d| {
                d.flatten()
                    .filter(|e| workspace_id(&e.path()).is_some())
                    .count()
            })
            .unwrap_or(0)
    }

    /// Deletes workspace `id` and its file. Calls still running on it finish on the open
    /// file; nothing can reach it afterwards.
    pub fn delete(&self, id: &str) -> Result<(), ApiError> {
        check_id(id)?;
        let mut state = self.lock();
        Self::check_not_pending(&state, id)?;
        let path = self.path(id);
        if !path.is_file() {
            return Err(ApiError::not_found(format!("no workspace {id:?}")));
        }
        if let Some(entry) = state.open.remove(id) {
            stop_background(entry.ws);
        }
        Workspace::delete_file(&path).map_err(|e| {
            ApiError::internal(format!("delete workspace {id:?}: {}: {e}", path.display()))
        })?;
        state.files_changed(-1);
        Ok(())
    }

    /// Every workspace in the data directory, by id.
    pub fn list(&self) -> Result<Vec<WorkspaceInfo>, ApiError> {
        let state = self.lock();
        let entries = std::fs::read_dir(&self.dir)
            .map_err(|e| ApiError::internal(format!("list {}: {e}", self.dir.display())))?;
        let mut list = Vec::new();
        for entry in entries.flatten() {
            let path = entry.path();
            let Some(id) = workspace_id(&path) else {
                continue;
            };
            if state.pending.contains(&id) {
                continue;
            }
            let file_bytes = entry.metadata().map(|m| m.len()).unwrap_or(0);
            list.push(WorkspaceInfo {
                open: state.open.contains_key(&id),
                id,
                file_bytes,
            });
        }
        list.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(list)
    }

    /// Closes the workspaces idle for longer than the idle timeout and used by no call, and
    /// puts to sleep those idle for longer than `sleep_after`. Returns how many it closed.
    pub fn close_idle(&self) -> usize {
        let now = self.now_ms();
        let ms = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        let (idle_ms, sleep_ms) = (ms(self.idle), ms(self.sleep_after));
        let mut drowsy = Vec::new();
        let mut state = self.lock();
        let before = state.open.len();
        // Closed under the lock: a call for the same id waits until the close is done.
        state.open.retain(|_, entry| {
            let unused = now.saturating_sub(entry.last_used.load(Ordering::Relaxed));
            // A call in progress, a background job or a container's mount keeps it open.
            if entry.ws.is_shared() {
                return true;
            }
            if unused >= idle_ms {
                return false;
            }
            if unused >= sleep_ms {
                drowsy.push(entry.ws.vfs());
            }
            true
        });
        let closed = before - state.open.len();
        // Putting a connection to sleep checkpoints its log (an fsync): not while holding
        // the registry, which every call goes through.
        drop(state);
        let mut slept = 0;
        for vfs in drowsy {
            // `sleep` is refused while a file is open (a background job's, say); a call that
            // came in meanwhile simply opens the database again.
            if !vfs.is_asleep() && vfs.sleep() {
                slept += 1;
            }
        }
        if closed + slept > 0 {
            give_back_freed_memory();
        }
        closed
    }

    /// Where workspace `id`'s file is (or would be).
    pub fn file(&self, id: &str) -> PathBuf {
        self.path(id)
    }

    /// Closes workspace `id` if it is open (its file stays): its background jobs are killed
    /// and its container stopped, since it is leaving this server. Calls still running on it
    /// finish on the open file.
    pub fn forget(&self, id: &str) {
        let entry = self.lock().open.remove(id);
        if let Some(entry) = entry {
            stop_background(entry.ws);
        }
    }

    /// Whether workspace `id` is open.
    pub fn is_open(&self, id: &str) -> bool {
        self.lock().open.contains_key(id)
    }

    /// How many workspaces are open.
    pub fn open_count(&self) -> usize {
        self.lock().open.len()
    }
}

/// Kills the background jobs of a workspace that leaves the server and stops its container,
/// on a thread of its own (killing waits for the jobs to end; the caller may be an async
/// task or hold the registry).
fn stop_background(ws: Workspace) {
    if !ws.is_shared() {
        return;
    }
    let spawned = std::thread::Builder::new()
        .name("computer-close".into())
        .spawn(move || {
            ws.kill_jobs(JOB_KILL_WAIT);
            ws.stop_container();
        });
    if let Err(e) = spawned {
        eprintln!("computer serve: could not stop a closed workspace's jobs: {e}");
    }
}

/// How long closing a workspace waits for its killed jobs to end.
pub(crate) const JOB_KILL_WAIT: Duration = Duration::from_secs(10);

/// Returns the heap's free pages to the system. glibc keeps what a closed connection freed
/// (about 200 KiB a workspace) resident until then, so a burst of workspaces opened at once
/// would hold the host's memory long after they all went to sleep.
fn give_back_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    #[allow(unsafe_code)]
    // SAFETY: malloc_trim has no preconditions; it only releases free memory.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// The id of the workspace file at `path`, if it is one.
fn workspace_id(path: &Path) -> Option<String> {
    if path.extension()? != EXTENSION {
        return None;
    }
    let id = path.file_stem()?.to_str()?;
    check_id(id).ok()?;
    Some(id.to_string())
}

/// Ids are 1 to 64 ASCII letters, digits, `-` and `_`: they name files, so nothing else
/// (no `/`, no `..`) may reach the file system.
pub fn check_id(id: &str) -> Result<(), ApiError> {
    let ok = !id.is_empty()
        && id.len() <= MAX_ID_LEN
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if ok {
        Ok(())
    } else {
        Err(ApiError::bad_request(format!(
            "invalid workspace id {id:?}: use 1 to {MAX_ID_LEN} letters, digits, '-' or '_'"
        )))
    }
}
