//! A workspace's container backend: one warm container (a [`Sandbox`]), started
//! on the first command that needs it, reused for every command after, stopped after the
//! configured idle time and when the last handle to the workspace goes.

use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::{Duration, Instant};

use computer_exec::{CancelToken, ExecCommand, ExecError, ExecHandler, Stream};
use computer_vfs::Vfs;

use crate::{Command, ContainerConfig, ContainerError, Engine, Output, Sandbox};

/// A poisoned lock still guards consistent data here: every critical section is short and
/// leaves the state whole.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A step of starting the backend (pulling or building an image takes minutes once).
pub type ContainerProgress = Arc<dyn Fn(&str) + Send + Sync>;

/// The state behind the lock.
#[derive(Default)]
struct State {
    engine: Option<Engine>,
    sandbox: Option<Arc<Sandbox>>,
    last_used: Option<Instant>,
}

/// The container backend of one workspace.
pub struct Containers {
    /// Weak: a workspace whose container is stopped counts its file's users exactly.
    vfs: Weak<Vfs>,
    config: Mutex<ContainerConfig>,
    /// A setting from the environment that could not be used: said at the first command.
    bad_setting: Option<String>,
    progress: Mutex<Option<ContainerProgress>>,
    state: Mutex<State>,
    runtime: std::sync::OnceLock<tokio::runtime::Runtime>,
    /// What the container's egress proxy sends through (set by the workspace).
    egress: computer_net::EgressSlot,
}

impl std::fmt::Debug for Containers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Containers").finish_non_exhaustive()
    }
}

impl Containers {
    /// The backend of the workspace stored in `vfs`, with the image and transfer mode of
    /// `COMPUTER_CONTAINER_IMAGE` and `COMPUTER_CONTAINER_TRANSFER` when they are set.
    pub fn new(vfs: Weak<Vfs>) -> Arc<Containers> {
        let mut config = ContainerConfig::default();
        if let Ok(image) = std::env::var("COMPUTER_CONTAINER_IMAGE") {
            config.image = image;
        }
        let mut bad_setting = None;
        if let Ok(transfer) = std::env::var("COMPUTER_CONTAINER_TRANSFER") {
            match transfer.parse() {
                Ok(transfer) => config.transfer = transfer,
                Err(e) => bad_setting = Some(format!("COMPUTER_CONTAINER_TRANSFER: {e}")),
            }
        }
        Arc::new(Containers {
            vfs,
            config: Mutex::new(config),
            bad_setting,
            progress: Mutex::new(None),
            state: Mutex::default(),
            runtime: std::sync::OnceLock::new(),
            egress: computer_net::EgressSlot::default(),
        })
    }

    /// The settings of containers started from now on.
    pub fn set_config(&self, config: ContainerConfig) {
        *lock(&self.config) = config;
    }

    /// The settings in force.
    pub fn config(&self) -> ContainerConfig {
        lock(&self.config).clone()
    }

    /// What the container's egress proxy sends through: the workspace's policy, secrets and
    /// resolver, replaced before each command (requests take the one in place).
    pub fn egress(&self) -> &computer_net::EgressSlot {
        &self.egress
    }

    /// Where the steps of getting a container ready are said (an image build takes minutes).
    pub fn set_progress(&self, progress: Option<ContainerProgress>) {
        *lock(&self.progress) = progress;
    }

    fn runtime(&self) -> Result<&tokio::runtime::Runtime, ContainerError> {
        if let Some(rt) = self.runtime.get() {
            return Ok(rt);
        }
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("computer-container")
            .enable_all()
            .build()
            .map_err(|error| ContainerError::Io {
                what: "start the container backend's runtime".into(),
                error,
            })?;
        Ok(self.runtime.get_or_init(|| rt))
    }

    /// The warm container, started (with the engine connected, the image made present, the
    /// containers of dead hosts removed) if there is none.
    fn sandbox(self: &Arc<Self>) -> Result<Arc<Sandbox>, ContainerError> {
        if let Some(bad) = &self.bad_setting {
            return Err(ContainerError::Invalid(bad.clone()));
        }
        let rt = self.runtime()?;
        let mut state = lock(&self.state);
        state.last_used = Some(Instant::now());
        if let Some(sandbox) = &state.sandbox {
            return Ok(Arc::clone(sandbox));
        }
        let config = self.config();
        let progress = lock(&self.progress).clone();
        let engine = match &state.engine {
            Some(engine) => engine.clone(),
            None => {
                let engine = rt.block_on(Engine::connect())?;
                let _ = rt.block_on(engine.clean_stale(&config.mount_root));
                state.engine = Some(engine.clone());
                engine
            }
        };
        let mut say = |step: &str| {
            if let Some(progress) = &progress {
                progress(step);
            }
        };
        rt.block_on(engine.ensure_image(&config.image, &mut say))?;
        let vfs = self
            .vfs
            .upgrade()
            .ok_or_else(|| ContainerError::Invalid("the workspace is closed".into()))?;
        let sandbox = rt.block_on(Sandbox::start_with_egress(
            &engine,
            vfs,
            &config,
            Some(self.egress.clone()),
        ))?;
        let sandbox = Arc::new(sandbox);
        state.sandbox = Some(Arc::clone(&sandbox));
        drop(state);
        self.watch_idle(config.idle);
        Ok(sandbox)
    }

    /// Stops the container once it has been idle for `idle` (checked once a second). The
    /// thread holds only a weak reference: it ends with the workspace.
    fn watch_idle(self: &Arc<Self>, idle: Duration) {
        let weak: Weak<Containers> = Arc::downgrade(self);
        let spawned = std::thread::Builder::new()
            .name("computer-container-idle".into())
            .spawn(move || {
                loop {
                    std::thread::sleep(idle.min(Duration::from_secs(1)));
                    let Some(this) = weak.upgrade() else { return };
                    let mut state = lock(&this.state);
                    let Some(sandbox) = &state.sandbox else {
                        return;
                    };
                    let idle_for = state.last_used.map_or(Duration::MAX, |t| t.elapsed());
                    // A command still running holds a clone.
                    if idle_for < idle || Arc::strong_count(sandbox) > 1 {
                        continue;
                    }
                    let sandbox = state.sandbox.take();
                    drop(state);
                    this.stop(sandbox);
                    return;
                }
            });
        drop(spawned);
    }

    /// Stops the container now if one runs (its workspace leaves this host). One a command
    /// still runs in goes when that command ends.
    pub fn stop_now(&self) {
        let sandbox = lock(&self.state).sandbox.take();
        self.stop(sandbox);
    }

    fn stop(&self, sandbox: Option<Arc<Sandbox>>) {
        let (Some(sandbox), Some(rt)) = (sandbox, self.runtime.get()) else {
            return;
        };
        if let Ok(sandbox) = Arc::try_unwrap(sandbox) {
            // On a thread of its own: this may be called from inside another runtime.
            std::thread::scope(|scope| {
                scope.spawn(|| rt.block_on(sandbox.stop()));
            });
        }
    }

    /// Runs `cmd` in the container.
    pub fn run(
        self: &Arc<Self>,
        cmd: &Command,
        sink: &(dyn Fn(Stream, &[u8]) + Send + Sync),
        cancel: &CancelToken,
    ) -> Result<Output, ContainerError> {
        let sandbox = self.sandbox()?;
        let rt = self.runtime()?;
        let cancelled = || cancel.is_cancelled();
        let out = rt.block_on(sandbox.exec(cmd, sink, &cancelled));
        lock(&self.state).last_used = Some(Instant::now());
        out
    }
}

impl Drop for Containers {
    fn drop(&mut self) {
        let sandbox = lock(&self.state).sandbox.take();
        self.stop(sandbox);
        // The last handle may go inside some async runtime, where a runtime cannot be
        // dropped by waiting for it.
        if let Some(rt) = self.runtime.take() {
            rt.shutdown_background();
        }
    }
}

/// The last backend of `auto`: what neither the shell nor a workspace component can run goes
/// to the container, with the same cwd, environment and input.
pub struct ContainerFallback(pub Arc<Containers>);

impl ExecHandler for ContainerFallback {
    fn run(
        &self,
        cmd: ExecCommand,
        sink: &(dyn Fn(Stream, &[u8]) + Send + Sync),
        cancel: &CancelToken,
    ) -> Result<i32, ExecError> {
        let what = cmd
            .argv
            .first()
            .cloned()
            .or_else(|| cmd.source.clone())
            .unwrap_or_default();
        // A program the image lacks is "not found" as the shell says it (status 127, its
        // own message), not the engine's "executable file not found in $PATH" (126).
        let argv = if cmd.argv.is_empty() {
            cmd.argv
        } else {
            let mut wrapped: Vec<String> = [
                "/bin/sh",
                "-c",
                "command -v \"$1\" >/dev/null 2>&1 || exit 127; exec \"$@\"",
                "sh",
            ]
            .map(String::from)
            .to_vec();
            wrapped.extend(cmd.argv);
            wrapped
        };
        let command = Command {
            argv,
            source: cmd.source,
            cwd: cmd.cwd,
            env: cmd.env,
            stdin: cmd.stdin,
            timeout: Some(cmd.timeout),
        };
        let forward = |stream: Stream, bytes: &[u8]| sink(stream, bytes);
        let unavailable = |e| match e {
            // No engine here, or no way to mount the workspace for it (not root): as bash
            // on a machine without the program.
            ContainerError::Engine(_) | ContainerError::Mount(_) => {
                ExecError::NotFound(format!("{what}: command not found"))
            }
            // An engine that fails otherwise (an image that cannot be made): say why.
            other => ExecError::Unavailable(format!("container backend: {other}")),
        };
        // Getting the container ready (an image built on first use, the container started)
        // is not the guest's time: its clock stops meanwhile.
        cmd.deadline
            .paused(|| self.0.sandbox())
            .map_err(unavailable)?;
        let out = self
            .0
            .run(&command, &forward, cancel)
            .map_err(unavailable)?;
        if out.status == 127 && out.stdout.is_empty() && out.stderr.is_empty() {
            return Err(ExecError::NotFound(format!("{what}: command not found")));
        }
        if let Some(limit) = &out.limit {
            sink(Stream::Stderr, format!("{what}: {limit}\n").as_bytes());
        }
        Ok(out.status)
    }
}
