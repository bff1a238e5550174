//! One warm container for one workspace: made on first use with the workspace mounted at
//! `/workspace` through FUSE (or copied there: [`crate::Transfer::Copy`]), every command sent
//! with the exec API, removed by [`Sandbox::stop`].

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use bollard::container::LogOutput;
use bollard::exec::{StartExecOptions, StartExecResults};
use bollard::models::{
    ContainerCreateBody, ExecConfig, HostConfig, Mount as DockerMount, MountBindOptions,
    MountBindOptionsPropagationEnum, MountType,
};
use bollard::query_parameters::{CreateContainerOptionsBuilder, RemoveContainerOptionsBuilder};
use computer_exec::Stdin;
use computer_fuse::{Mount, MountOptions};
use computer_vfs::Vfs;
use futures_util::StreamExt;
use tokio::io::AsyncWriteExt;

use crate::config::{ContainerConfig, Transfer};
use crate::copy::CopyState;
use crate::engine::{BOOT, Engine, HOST, LABEL, OWNER};
use crate::error::{ContainerError, Result, docker, io};
use crate::network::{self, Network};
use crate::procs;

/// Where a command's output went: the stream every backend names.
pub use computer_exec::Stream as OutputStream;

/// A command to run in the container.
#[derive(Debug, Clone, Default)]
pub struct Command {
    /// Program and arguments; ignored when `source` is set.
    pub argv: Vec<String>,
    /// Shell source, run by `/bin/sh -c`.
    pub source: Option<String>,
    /// Working directory: absolute (under `/workspace`, `/tmp` or anywhere in the image), or
    /// relative to `/workspace`.
    pub cwd: String,
    /// The environment (nothing comes from the host; `PATH` and `HOME` get defaults).
    pub env: Vec<(String, String)>,
    /// Standard input: bytes (`Vec<u8>` converts), or a stream written while it runs.
    pub stdin: Stdin,
    /// Wall-clock limit; `None` is the configured default (capped by the maximum).
    pub timeout: Option<Duration>,
}

/// What a finished command did.
#[derive(Debug, Clone, Default)]
pub struct Output {
    /// Exit status (124 when its time limit stopped it, 137 when killed by SIGKILL, 130
    /// when cancelled).
    pub status: i32,
    /// Its standard output, up to the output limit.
    pub stdout: Vec<u8>,
    /// Its standard error, up to the output limit.
    pub stderr: Vec<u8>,
    /// Bytes written beyond the output limit (not kept).
    pub dropped: u64,
    /// The limit that stopped it, said plainly, if one did.
    pub limit: Option<String>,
}

/// A running container with a workspace mounted at `/workspace`.
pub struct Sandbox {
    pub(crate) engine: Engine,
    pub(crate) id: String,
    pub(crate) config: ContainerConfig,
    vfs: Arc<Vfs>,
    /// Mount mode: the FUSE mount bound at `/workspace`.
    mount: Option<Mount>,
    mount_dir: PathBuf,
    /// Copy mode: what the container's `/workspace` holds (one command syncs at a time).
    copy: Option<tokio::sync::Mutex<CopyState>>,
    oom_counter: Option<PathBuf>,
    /// The OOM-kill count last read from inside the container (a remote engine), or
    /// [`UNKNOWN`] after a restart.
    oom_seen_inside: AtomicU64,
    /// Host pids of the container's init and of its main process (a local engine only).
    init: Option<(u32, u32)>,
    /// Commands running now.
    running: std::sync::atomic::AtomicUsize,
    /// The egress proxy on the container's loopback (a local engine, given an egress).
    network: Option<Network>,
    /// Removed by [`Sandbox::stop`].
    stopped: bool,
}

/// `oom_seen_inside` after a restart: the next count read is the new baseline, not compared.
const UNKNOWN: u64 = u64::MAX;

/// How long what a finished command left running may take to end by itself before it is
/// killed (and reported): long enough for a process that is already exiting on a loaded
/// host (CI on 2 cores saw a process substitution's child outlive 500 ms), short enough for
/// a command that wrongly left a server running in the background. A process still busy
/// then gets up to 5 s in all (`procs::settle`).
const LEFTOVER_GRACE: Duration = Duration::from_secs(2);

/// What was found in the container after a command ended.
#[derive(Debug, Default, Clone, Copy)]
struct Inside {
    /// Processes of the command left running, killed.
    killed: usize,
    /// The kernel killed a process for memory since the last look.
    oom_killed: bool,
}

/// Counts a running command while it lives.
struct Running<'a>(&'a std::sync::atomic::AtomicUsize);

impl Running<'_> {
    fn start(count: &std::sync::atomic::AtomicUsize) -> Running<'_> {
        count.fetch_add(1, Ordering::SeqCst);
        Running(count)
    }

    /// Whether this is the only command running.
    fn alone(&self) -> bool {
        self.0.load(Ordering::SeqCst) == 1
    }
}

impl Drop for Running<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Makes `root` a shared mount (bind-mounted on itself first if it is not a mount point), so
/// that mounts made under it later reach containers that bind it with `rslave`.
/// Whether a container `user` (`uid[:gid]` or a name) is root, as the mount's own user is.
fn runs_as_root(user: Option<&str>) -> bool {
    match user {
        None => true,
        Some(u) => matches!(u.split(':').next(), Some("" | "0" | "root")),
    }
}

/// Makes `root` a directory only this process's user can enter, or refuses one that another
/// user made (or a link): mount points below it are made and served as root, so a directory
/// another user controls could send them elsewhere or let that user into a workspace.
pub(crate) fn private_root(root: &Path) -> Result<()> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
    match std::fs::DirBuilder::new().mode(0o700).create(root) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(io(format!("create {}", root.display()))(e)),
    }
    let meta = std::fs::symlink_metadata(root).map_err(io(format!("stat {}", root.display())))?;
    let me = computer_vfs::process_owner().uid;
    if !meta.file_type().is_dir() || meta.uid() != me {
        return Err(ContainerError::Mount(format!(
            "the mount root {} is {} owned by uid {}, not a directory of uid {me}: refusing to \
             mount workspaces there (remove it, or set ContainerConfig::mount_root)",
            root.display(),
            if meta.file_type().is_symlink() {
                "a symbolic link"
            } else {
                "a path"
            },
            meta.uid()
        )));
    }
    if meta.mode() & 0o077 != 0 {
        std::fs::set_permissions(root, std::fs::Permissions::from_mode(0o700))
            .map_err(io(format!("chmod {}", root.display())))?;
    }
    Ok(())
}

fn make_shared(root: &Path) -> Result<()> {
    private_root(root)?;
    // The last line for a mount point is what is mounted there now.
    let mounted = computer_fuse::mounts()
        .into_iter()
        .rev()
        .find(|m| m.mountpoint == root);
    if mounted.as_ref().is_some_and(|m| m.shared) {
        return Ok(());
    }
    let run = |args: &[&std::ffi::OsStr]| -> Result<()> {
        let out = std::process::Command::new("mount")
            .args(args)
            .output()
            .map_err(io("run mount"))?;
        if out.status.success() {
            return Ok(());
        }
        let shown: Vec<_> = args.iter().map(|a| a.to_string_lossy()).collect();
        Err(ContainerError::Mount(format!(
            "mount {}: {} (the container backend needs root)",
            shown.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        )))
    };
    let root = root.as_os_str();
    if mounted.is_none() {
        run(&["--bind".as_ref(), root, root])?;
    }
    run(&["--make-rshared".as_ref(), root])
}

fn mib(bytes: i64) -> i64 {
    bytes >> 20
}

/// Whether this process runs as root.
fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .is_ok_and(|s| s.lines().any(|l| l.starts_with("Uid:\t0\t")))
}

/// Whether this process can make FUSE mounts (root, and `/dev/fuse`).
fn can_mount() -> bool {
    is_root() && Path::new("/dev/fuse").exists()
}

/// The mode `transfer` means with `engine`.
fn resolve(transfer: Transfer, engine: &Engine) -> Transfer {
    match transfer {
        Transfer::Auto if engine.is_local() && can_mount() => Transfer::Mount,
        Transfer::Auto => Transfer::Copy,
        other => other,
    }
}

impl Sandbox {
    /// Starts a container for `vfs`: mounts its `/workspace` under the configured mount root,
    /// creates and starts the container with every limit, and checks that the container's
    /// `/workspace` really is the mount before anything runs there. In copy mode the
    /// container's `/workspace` is a volume of its own, filled with the workspace here.
    /// The container has no network (see [`Sandbox::start_with_egress`]).
    pub async fn start(
        engine: &Engine,
        vfs: Arc<Vfs>,
        config: &ContainerConfig,
    ) -> Result<Sandbox> {
        Sandbox::start_with_egress(engine, vfs, config, None).await
    }

    /// [`Sandbox::start`], and with a local engine (and root, to enter the container's
    /// network namespace) the egress proxy of `egress` on the container's `127.0.0.1`,
    /// which every command is pointed at.
    pub async fn start_with_egress(
        engine: &Engine,
        vfs: Arc<Vfs>,
        config: &ContainerConfig,
        egress: Option<computer_net::EgressSlot>,
    ) -> Result<Sandbox> {
        // Commands run as the workspace's owner when no user is set: its files are that
        // user's, and the kernel checks their modes (a root without capabilities could not
        // write another owner's files).
        let mut config = config.clone();
        if config.user.is_none() {
            let owner = vfs
                .owner()
                .map_err(|e| ContainerError::Mount(format!("the workspace's owner: {e}")))?;
            if owner.uid != 0 {
                config.user = Some(format!("{}:{}", owner.uid, owner.gid));
            }
        }
        let config = &config;
        static NEXT: AtomicU64 = AtomicU64::new(1);
        let name = format!(
            "computer-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let transfer = resolve(config.transfer, engine);
        let mount_dir = config.mount_root.join(&name);
        let mount = if transfer == Transfer::Mount {
            make_shared(&config.mount_root)?;
            let _ = computer_fuse::clean_stale(&mount_dir);
            std::fs::create_dir_all(&mount_dir)
                .map_err(io(format!("create {}", mount_dir.display())))?;
            // Users other than the one who mounted (root) may reach the mount only when the
            // container runs as one; the private mount root keeps other host users out.
            let options = MountOptions {
                allow_other: !runs_as_root(config.user.as_deref()),
                ..MountOptions::default()
            };
            let mount = Mount::new(Arc::clone(&vfs), &mount_dir, &options)
                .map_err(|e| ContainerError::Mount(e.to_string()))?;
            Some(mount)
        } else {
            None
        };
        let egress = egress.filter(|_| engine.is_local() && is_root());
        let net_dir = match &egress {
            Some(_) => Some(network::make_dir(&name)?),
            None => None,
        };
        let mut mounts = Vec::new();
        if mount.is_some() {
            mounts.push(DockerMount {
                target: Some("/workspace".into()),
                source: Some(mount_dir.display().to_string()),
                typ: Some(MountType::BIND),
                bind_options: Some(MountBindOptions {
                    propagation: Some(MountBindOptionsPropagationEnum::RSLAVE),
                    ..Default::default()
                }),
                ..Default::default()
            });
        }
        if let Some(dir) = &net_dir {
            mounts.push(network::docker_mount(dir));
        }
        let limits = &config.limits;
        let host_config = HostConfig {
            mounts: (!mounts.is_empty()).then_some(mounts),
            memory: Some(limits.memory_bytes),
            memory_swap: Some(limits.memory_bytes),
            nano_cpus: Some((limits.cpus * 1e9) as i64),
            pids_limit: Some(limits.pids),
            // No interface but loopback, always: a guest's requests go through the host's
            // egress policy, which a bridge would bypass.
            network_mode: Some("none".into()),
            cap_drop: Some(vec!["ALL".into()]),
            security_opt: Some(vec!["no-new-privileges".into()]),
            readonly_rootfs: Some(true),
            tmpfs: Some(HashMap::from([(
                "/tmp".to_string(),
                // Docker's default for a tmpfs is noexec; programs made in /tmp (a venv's
                // scripts, a test build) must run, as they do from the workspace.
                format!("rw,exec,nosuid,nodev,size={},mode=1777", limits.tmp_bytes),
            )])),
            init: Some(true),
            ..Default::default()
        };
        let labels = HashMap::from([
            (LABEL.to_string(), "container".to_string()),
            (OWNER.to_string(), std::process::id().to_string()),
            (BOOT.to_string(), procs::boot_id()),
            (HOST.to_string(), procs::host_id()),
        ]);
        let body = ContainerCreateBody {
            image: Some(config.image.clone()),
            // Kept alive doing nothing; commands arrive through exec.
            cmd: Some(vec!["sleep".into(), "2147483647".into()]),
            working_dir: Some("/workspace".into()),
            // Copy mode: an anonymous volume, writable under the read-only root and removed
            // with the container.
            volumes: mount.is_none().then(|| vec!["/workspace".to_string()]),
            user: config.user.clone(),
            network_disabled: Some(true),
            labels: Some(labels),
            host_config: Some(host_config),
            ..Default::default()
        };
        let options = CreateContainerOptionsBuilder::default().name(&name).build();
        let id = engine
            .docker
            .create_container(Some(options), body)
            .await
            .map_err(docker(format!("create container from {}", config.image)))?
            .id;
        let sandbox = Sandbox {
            engine: engine.clone(),
            oom_counter: None,
            // A new container's memory cgroup has killed nothing yet.
            oom_seen_inside: AtomicU64::new(0),
            init: None,
            running: Default::default(),
            id,
            config: config.clone(),
            vfs,
            copy: mount
                .is_none()
                .then(|| tokio::sync::Mutex::new(CopyState::default())),
            mount,
            mount_dir,
            network: None,
            stopped: false,
        };
        let started = engine
            .docker
            .start_container(
                &sandbox.id,
                None::<bollard::query_parameters::StartContainerOptions>,
            )
            .await
            .map_err(docker("start container"));
        if let Err(e) = started {
            sandbox.stop().await;
            return Err(e);
        }
        let mut sandbox = sandbox;
        // The memory cgroup is readable where the engine runs, if that is here.
        if engine.is_local() {
            sandbox.oom_counter = procs::oom_counter(&sandbox.id);
            sandbox.init = sandbox.init_pids().await;
        }
        if let (Some(slot), Some(dir)) = (egress, net_dir) {
            let started = sandbox.start_network(slot, dir).await;
            if let Err(e) = started {
                sandbox.stop().await;
                return Err(e);
            }
        }
        let ready = match &sandbox.copy {
            None => sandbox.check_mount().await,
            Some(state) => sandbox.push(&sandbox.vfs, &mut *state.lock().await).await,
        };
        if let Err(e) = ready {
            sandbox.stop().await;
            return Err(e);
        }
        Ok(sandbox)
    }

    /// Starts the egress proxy in the container's network namespace, its CA bundled with
    /// the image's own trust store.
    async fn start_network(&mut self, slot: computer_net::EgressSlot, dir: PathBuf) -> Result<()> {
        let Some((init, _)) = self.init else {
            let _ = std::fs::remove_dir_all(&dir);
            return Err(ContainerError::Network(
                "the container's init process was not found".into(),
            ));
        };
        let read = Command {
            argv: network::read_system_roots(),
            cwd: "/".into(),
            timeout: Some(Duration::from_secs(30)),
            ..Default::default()
        };
        // An image without a trust store (or without one of the places) still gets the CA.
        let roots = self
            .run_capped(&read, 16 << 20, true, &|_, _| {}, &|| false)
            .await
            .map(|out| out.stdout)
            .unwrap_or_default();
        self.network = Some(Network::start(slot, init, dir, &roots)?);
        Ok(())
    }

    /// The host pids of the container's init and of the one process it starts (`sleep`).
    async fn init_pids(&self) -> Option<(u32, u32)> {
        let info = self
            .engine
            .docker
            .inspect_container(
                &self.id,
                None::<bollard::query_parameters::InspectContainerOptions>,
            )
            .await
            .ok()?;
        let init = u32::try_from(info.state?.pid?).ok()?;
        for _ in 0..100 {
            if let Some(main) = procs::children_of(init).first() {
                return Some((init, *main));
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        None
    }

    /// The container's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// How the workspace reaches this container (`Mount` or `Copy`).
    pub fn transfer(&self) -> Transfer {
        if self.copy.is_some() {
            Transfer::Copy
        } else {
            Transfer::Mount
        }
    }

    /// Fails unless the container's `/workspace` is our FUSE mount (writes must never land
    /// on a host directory underneath).
    async fn check_mount(&self) -> Result<()> {
        let probe = Command {
            argv: vec!["cat".into(), "/proc/self/mountinfo".into()],
            cwd: "/".into(),
            timeout: Some(Duration::from_secs(30)),
            ..Default::default()
        };
        let out = self.run(&probe, &|_, _| {}, &|| false).await?;
        let ours = computer_fuse::parse_mountinfo(&String::from_utf8_lossy(&out.stdout))
            .iter()
            .any(|m| m.mountpoint == Path::new("/workspace") && m.is_ours());
        if ours {
            Ok(())
        } else {
            Err(ContainerError::Mount(format!(
                "the container's /workspace is not the workspace mount (status {}): {}",
                out.status,
                String::from_utf8_lossy(&out.stderr).trim()
            )))
        }
    }

    /// Runs `cmd` to its end, handing output to `sink` as it comes. `cancelled` is polled;
    /// when it says yes, or the time limit passes, every process of the command is killed.
    pub async fn exec(
        &self,
        cmd: &Command,
        sink: &(dyn Fn(OutputStream, &[u8]) + Send + Sync),
        cancelled: &(dyn Fn() -> bool + Send + Sync),
    ) -> Result<Output> {
        if cmd.argv.is_empty() && cmd.source.is_none() {
            return Err(ContainerError::Invalid(
                "exec: an empty command line".into(),
            ));
        }
        // What the isolate and the tools changed is what this command sees.
        if let Some(mount) = &self.mount {
            mount.sync().map_err(io("refresh the workspace mount"))?;
        }
        let Some(copy) = &self.copy else {
            return self.run(cmd, sink, cancelled).await;
        };
        // Syncs one at a time; commands run side by side (a pull brings whatever changed in
        // the container since the last sync, whichever command changed it).
        self.push(&self.vfs, &mut *copy.lock().await).await?;
        let out = self.run(cmd, sink, cancelled).await?;
        self.pull(&self.vfs, &mut *copy.lock().await).await.map_err(|e| {
            ContainerError::Copy(format!(
                "the command ended (status {}) but its changes did not reach the workspace: {e}",
                out.status
            ))
        })?;
        Ok(out)
    }

    async fn run(
        &self,
        cmd: &Command,
        sink: &(dyn Fn(OutputStream, &[u8]) + Send + Sync),
        cancelled: &(dyn Fn() -> bool + Send + Sync),
    ) -> Result<Output> {
        let cap = self.config.limits.output_bytes;
        self.run_capped(cmd, cap, false, sink, cancelled).await
    }

    /// [`Sandbox::run`] keeping up to `cap` bytes of each stream; `own` for the backend's own
    /// commands.
    pub(crate) async fn run_capped(
        &self,
        cmd: &Command,
        cap: usize,
        own: bool,
        sink: &(dyn Fn(OutputStream, &[u8]) + Send + Sync),
        cancelled: &(dyn Fn() -> bool + Send + Sync),
    ) -> Result<Output> {
        let running = Running::start(&self.running);
        let limits = &self.config.limits;
        let timeout = cmd
            .timeout
            .unwrap_or(limits.timeout)
            .min(limits.max_timeout);
        let mark = format!(
            "{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0)
        );
        let argv = match &cmd.source {
            Some(source) => vec!["/bin/sh".into(), "-c".into(), source.clone()],
            None => cmd.argv.clone(),
        };
        let cwd = if cmd.cwd.is_empty() {
            "/workspace".to_string()
        } else if cmd.cwd.starts_with('/') {
            cmd.cwd.clone()
        } else {
            format!("/workspace/{}", cmd.cwd)
        };
        let mut env: Vec<String> = cmd
            .env
            .iter()
            .filter(|(k, _)| k != procs::MARK)
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        for (key, default) in [
            (
                "PATH",
                "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
            ),
            ("HOME", "/tmp"),
        ] {
            if !cmd.env.iter().any(|(k, _)| k == key) {
                env.push(format!("{key}={default}"));
            }
        }
        if self.network.is_some() {
            for (key, value) in Network::env() {
                if !cmd.env.iter().any(|(k, _)| k == key) {
                    env.push(format!("{key}={value}"));
                }
            }
        }
        env.push(format!("{}={mark}", procs::MARK));
        let config = ExecConfig {
            attach_stdin: Some(true),
            attach_stdout: Some(true),
            attach_stderr: Some(true),
            tty: Some(false),
            cmd: Some(argv),
            env: Some(env),
            working_dir: Some(cwd),
            user: self.config.user.clone(),
            ..Default::default()
        };
        let exec = self
            .engine
            .docker
            .create_exec(&self.id, config)
            .await
            .map_err(docker("create exec"))?
            .id;
        let oom_before = self.oom_counter.as_deref().map(procs::oom_kills);
        let options = StartExecOptions {
            detach: false,
            ..Default::default()
        };
        let started = self
            .engine
            .docker
            .start_exec(&exec, Some(options))
            .await
            .map_err(docker("start exec"))?;
        let StartExecResults::Attached {
            mut output,
            mut input,
        } = started
        else {
            return Err(ContainerError::Invalid("exec started detached".into()));
        };
        let mut stdin = cmd.stdin.reader();
        let feeder = tokio::spawn(async move {
            while let Some(chunk) = stdin.next_chunk().await {
                if input.write_all(&chunk).await.is_err() {
                    break;
                }
            }
            let _ = input.shutdown().await;
        });
        let deadline = Instant::now() + timeout;
        let mut out = Output::default();
        let mut stopped: Option<(i32, String)> = None;
        let mut stopped_at: Option<Instant> = None;
        loop {
            let tick = tokio::time::sleep(Duration::from_millis(50));
            tokio::select! {
                next = output.next() => match next {
                    Some(Ok(LogOutput::StdOut { message })) => {
                        keep(&mut out.stdout, &mut out.dropped, &message, cap);
                        sink(OutputStream::Stdout, &message);
                    }
                    Some(Ok(LogOutput::StdErr { message })) => {
                        keep(&mut out.stderr, &mut out.dropped, &message, cap);
                        sink(OutputStream::Stderr, &message);
                    }
                    Some(Ok(_)) => {}
                    Some(Err(e)) => return Err(docker("read exec output")(e)),
                    None => break,
                },
                _ = tick => {
                    if let Some(at) = stopped_at {
                        // A process that escaped the kill (it cleared its environment and left
                        // the tree) may hold the output open: stop waiting for it, kill again.
                        if at.elapsed() > Duration::from_secs(5) {
                            self.kill(&exec, &mark).await;
                            break;
                        }
                        continue;
                    }
                    let why = if cancelled() {
                        Some((130, "cancelled".to_string()))
                    } else if Instant::now() >= deadline {
                        Some((124, format!("killed: time limit of {} s exceeded", timeout.as_secs_f64())))
                    } else {
                        None
                    };
                    if let Some(why) = why {
                        self.kill(&exec, &mark).await;
                        stopped = Some(why);
                        stopped_at = Some(Instant::now());
                    }
                }
            }
        }
        feeder.abort();
        // The output ends when the process closes it, which can be a moment before the
        // engine has its exit status.
        let mut info = self
            .engine
            .docker
            .inspect_exec(&exec)
            .await
            .map_err(docker("inspect exec"))?;
        for _ in 0..100 {
            if info.running != Some(true) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
            info = self
                .engine
                .docker
                .inspect_exec(&exec)
                .await
                .map_err(docker("inspect exec"))?;
        }
        // Whatever the command left running in the background goes with it (the backend's
        // own commands leave nothing: no second exec for them on a remote engine).
        let leftover = if self.engine.is_local() {
            if stopped.is_none() {
                procs::settle(&mark, LEFTOVER_GRACE).await;
            }
            let mut killed = procs::kill_command(Some(&mark), None);
            // A process that cleared its environment and left the command's tree is an
            // orphan of the container's init with no mark: when no other command runs, no
            // command owns it.
            if let Some((init, main)) = self.init
                && running.alone()
            {
                killed += procs::kill_orphans(init, main);
            }
            Some(Inside {
                killed,
                oom_killed: false,
            })
        } else if own {
            Some(Inside::default())
        } else {
            self.kill_inside(&mark).await
        };
        out.status = info
            .exit_code
            .and_then(|c| i32::try_from(c).ok())
            .unwrap_or(-1);
        if let Some((status, why)) = stopped {
            out.status = status;
            out.limit = Some(why);
        } else if leftover.is_some_and(|inside| inside.oom_killed)
            || oom_before
                .zip(self.oom_counter.as_deref())
                .is_some_and(|(before, counter)| procs::oom_kills(counter) > before)
        {
            out.limit = Some(format!(
                "killed: memory limit of {} MiB exceeded (the kernel's OOM killer stopped a process)",
                mib(limits.memory_bytes)
            ));
        } else if let Some(Inside { killed: 0, .. }) = leftover {
        } else if let Some(Inside { killed, .. }) = leftover {
            out.limit = Some(format!(
                "{killed} background processes were killed when the command ended"
            ));
        } else {
            out.limit = Some(
                "the container was restarted to stop the processes the command left behind \
                 (they held every pid the limit allows)"
                    .into(),
            );
        }
        if out.dropped > 0 && out.limit.is_none() {
            out.limit = Some(format!(
                "output limit of {cap} bytes per stream reached: {} bytes dropped",
                out.dropped
            ));
        }
        Ok(out)
    }

    async fn kill(&self, exec: &str, mark: &str) {
        if !self.engine.is_local() {
            self.kill_inside(mark).await;
            return;
        }
        let root = self
            .engine
            .docker
            .inspect_exec(exec)
            .await
            .ok()
            .and_then(|i| i.pid)
            .and_then(|p| u32::try_from(p).ok());
        let mark = mark.to_string();
        let _ = tokio::task::spawn_blocking(move || procs::kill_command(Some(&mark), root)).await;
    }

    /// Kills the processes marked `mark` from inside the container, for an engine on another
    /// machine (whose processes this host's `/proc` does not show). If nothing can be started
    /// there to do it (a fork bomb holds every pid), the container is restarted, which ends
    /// every command in it. Returns what it found (`None`: restarted).
    async fn kill_inside(&self, mark: &str) -> Option<Inside> {
        let config = ExecConfig {
            attach_stdout: Some(true),
            attach_stderr: Some(true),
            cmd: Some(vec![
                "/bin/sh".into(),
                "-c".into(),
                procs::KILL_INSIDE.into(),
            ]),
            env: Some(vec![format!("COMPUTER_KILL={}={mark}", procs::MARK)]),
            working_dir: Some("/".into()),
            user: self.config.user.clone(),
            ..Default::default()
        };
        let killed = async {
            let exec = self
                .engine
                .docker
                .create_exec(&self.id, config)
                .await
                .ok()?
                .id;
            let started = self.engine.docker.start_exec(&exec, None).await.ok()?;
            let StartExecResults::Attached { mut output, .. } = started else {
                return None;
            };
            let mut said = Vec::new();
            while let Some(Ok(piece)) = output.next().await {
                if let LogOutput::StdOut { message } = piece {
                    said.extend_from_slice(&message);
                }
            }
            let info = self.engine.docker.inspect_exec(&exec).await.ok()?;
            if info.exit_code != Some(0) {
                return None;
            }
            let said = String::from_utf8_lossy(&said);
            let mut words = said.split_whitespace();
            let killed = words.next()?.parse::<usize>().ok()?;
            // The engine's cgroups are not readable here: the container's own count says
            // whether the kernel killed for memory since the last look.
            let oom_killed = match words.next().and_then(|w| w.parse::<u64>().ok()) {
                Some(count) => {
                    let before = self.oom_seen_inside.swap(count, Ordering::SeqCst);
                    before != UNKNOWN && count > before
                }
                None => false,
            };
            Some(Inside { killed, oom_killed })
        };
        match tokio::time::timeout(Duration::from_secs(30), killed).await {
            Ok(Some(inside)) => Some(inside),
            _ => {
                // A restarted container may count afresh.
                self.oom_seen_inside.store(UNKNOWN, Ordering::SeqCst);
                let options = bollard::query_parameters::RestartContainerOptionsBuilder::default()
                    .t(0)
                    .build();
                let _ = self
                    .engine
                    .docker
                    .restart_container(&self.id, Some(options))
                    .await;
                None
            }
        }
    }

    /// Removes the container (with its volume, in copy mode) and unmounts the workspace.
    pub async fn stop(mut self) {
        self.stopped = true;
        let options = RemoveContainerOptionsBuilder::default()
            .force(true)
            .v(true)
            .build();
        let _ = self
            .engine
            .docker
            .remove_container(&self.id, Some(options))
            .await;
        if let Some(mount) = self.mount.take() {
            let _ = mount.unmount();
        }
        let _ = std::fs::remove_dir(&self.mount_dir);
    }
}

impl Drop for Sandbox {
    /// A sandbox dropped without [`Sandbox::stop`] (its owner went while a command ran) still
    /// removes its container, from a thread of its own (this may be inside a runtime); the
    /// mount goes with its own drop.
    fn drop(&mut self) {
        if self.stopped {
            return;
        }
        let docker = self.engine.docker.clone();
        let id = self.id.clone();
        let _ = std::thread::Builder::new()
            .name("computer-container-remove".into())
            .spawn(move || {
                let Ok(rt) = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                else {
                    return;
                };
                let options = RemoveContainerOptionsBuilder::default()
                    .force(true)
                    .v(true)
                    .build();
                let _ = rt.block_on(docker.remove_container(&id, Some(options)));
            });
    }
}

/// Appends `data` to `kept` up to `limit` bytes; counts the rest in `dropped`.
fn keep(kept: &mut Vec<u8>, dropped: &mut u64, data: &[u8], limit: usize) {
    let room = limit.saturating_sub(kept.len());
    let take = room.min(data.len());
    kept.extend_from_slice(&data[..take]);
    *dropped += (data.len() - take) as u64;
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::{MetadataExt, PermissionsExt, symlink};

    use super::{private_root, runs_as_root};

    #[test]
    fn the_mount_root_is_private_or_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let fresh = tmp.path().join("fresh");
        private_root(&fresh).unwrap();
        assert_eq!(std::fs::metadata(&fresh).unwrap().mode() & 0o777, 0o700);
        // One of ours left open to others is closed again.
        std::fs::set_permissions(&fresh, std::fs::Permissions::from_mode(0o777)).unwrap();
        private_root(&fresh).unwrap();
        assert_eq!(std::fs::metadata(&fresh).unwrap().mode() & 0o777, 0o700);
        // A link planted where the root should be is refused, not followed.
        let link = tmp.path().join("link");
        symlink(tmp.path(), &link).unwrap();
        let err = private_root(&link).unwrap_err().to_string();
        assert!(err.contains("symbolic link"), "{err}");
        // So is a directory another user made (where this test may chown).
        let theirs = tmp.path().join("theirs");
        std::fs::create_dir(&theirs).unwrap();
        if std::process::Command::new("chown")
            .args(["65534:65534", &theirs.display().to_string()])
            .status()
            .is_ok_and(|s| s.success())
        {
            let err = private_root(&theirs).unwrap_err().to_string();
            assert!(err.contains("owned by uid 65534"), "{err}");
        }
    }

    #[test]
    fn which_users_are_root() {
        for root in [
            None,
            Some("0"),
            Some("0:0"),
            Some("root"),
            Some("root:root"),
        ] {
            assert!(runs_as_root(root), "{root:?}");
        }
        for other in [Some("1000"), Some("65534:65534"), Some("nobody")] {
            assert!(!runs_as_root(other), "{other:?}");
        }
    }
}
