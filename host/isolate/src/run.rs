//! One execution: a fresh store, the guest's stdio, the limits, and what came of it.

use std::sync::Arc;
use std::time::{Duration, Instant};

use computer_vfs::Vfs;
use computer_wasi::{Layer, WasiFsCtx};
use wasmtime::{Store, UpdateDeadline};
use wasmtime_wasi::WasiCtx;
use wasmtime_wasi::cli::AsyncStdinStream;
use wasmtime_wasi::p2::pipe::MemoryInputPipe;

use crate::engine::{Entry, Isolate, Program, TICK};
use crate::limits::{LimitHit, Limits, MemoryLimiter};
use crate::output::{Capture, OutputLimit};
use crate::state::{HostCtx, State};
use computer_exec::{CancelToken, Deadline, ExecHandler, NoBackends, OutputSink, Stdin, Stream};

/// What to run a program with.
#[derive(Clone)]
pub struct RunRequest {
    /// `argv`, program name first.
    pub args: Vec<String>,
    /// The environment (nothing is inherited from the host). `PWD` is set from `cwd` unless
    /// given, which is where the guest's relative paths start.
    pub env: Vec<(String, String)>,
    /// The working directory. Default `/workspace`.
    pub cwd: String,
    /// Standard input: bytes (`Vec<u8>` converts), or a stream written while it runs.
    pub stdin: Stdin,
    /// Limits.
    pub limits: Limits,
    /// Set it to stop the run.
    pub cancel: CancelToken,
    /// Receives stdout and stderr while the guest writes them.
    pub on_output: Option<OutputSink>,
    /// Runs the commands the guest asks for through `computer:host/exec`.
    pub exec: Arc<dyn ExecHandler>,
    /// Runs the git command lines the guest asks for through `computer:host/git`.
    pub git: Arc<dyn crate::git::GitHandler>,
    /// Sends the guest's HTTP requests (`computer:host/http`) through the workspace's network
    /// policy; `None` (the default): every request is refused.
    pub network: Option<computer_net::Egress>,
    /// Read-only trees of the host the guest sees beside the workspace, each at its path (a
    /// runtime's standard library, shared by every workspace). None by default.
    pub layers: Vec<Layer>,
}

impl Default for RunRequest {
    fn default() -> Self {
        RunRequest {
            args: vec!["main".into()],
            env: Vec::new(),
            cwd: crate::DEFAULT_CWD.into(),
            stdin: Stdin::default(),
            limits: Limits::default(),
            cancel: CancelToken::new(),
            on_output: None,
            exec: Arc::new(NoBackends),
            git: Arc::new(crate::git::NoGit),
            network: None,
            layers: Vec::new(),
        }
    }
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunStatus {
    /// The guest returned or called `exit`.
    Exited(i32),
    /// A limit stopped it.
    Limit(LimitHit),
    /// It trapped (a bug in the guest, such as a panic or an out-of-bounds access).
    Trapped(String),
    /// The caller cancelled it.
    Cancelled,
}

/// What came of a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunOutcome {
    /// How it ended.
    pub status: RunStatus,
    /// Standard output (up to the output limit).
    pub stdout: Vec<u8>,
    /// Standard error (up to the output limit).
    pub stderr: Vec<u8>,
    /// Wall-clock time of instantiation and run.
    pub elapsed: Duration,
}

impl RunOutcome {
    /// The exit code a shell would report: the guest's own, 124 after a timeout (as
    /// `timeout(1)`), 137 for memory (as an OOM kill), 141 for output (as SIGPIPE), 134 for a
    /// trap (as an abort), 130 when cancelled (as Ctrl-C), 75 when too many isolates run at
    /// once (`EX_TEMPFAIL`: try again).
    pub fn exit_code(&self) -> i32 {
        match &self.status {
            RunStatus::Exited(code) => *code,
            RunStatus::Limit(LimitHit::Timeout(_)) => 124,
            RunStatus::Limit(LimitHit::Memory(_)) => 137,
            RunStatus::Limit(LimitHit::Output(_)) => 141,
            RunStatus::Limit(LimitHit::Instances(_)) => 75,
            RunStatus::Trapped(_) => 134,
            RunStatus::Cancelled => 130,
        }
    }
}

/// The trap our epoch callback raises.
#[derive(Debug)]
struct Interrupted;

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("interrupted")
    }
}

impl std::error::Error for Interrupted {}

thread_local! {
    /// Each thread that runs guests drives them with its own single-threaded runtime, so the
    /// VFS's blocking SQLite calls never stall a shared async executor.
    static RUNTIME: std::io::Result<tokio::runtime::Runtime> =
        tokio::runtime::Builder::new_current_thread().enable_time().build();
}

impl Isolate {
    /// Runs `program` against `vfs` to completion (blocking this thread; from async code, call
    /// it through `spawn_blocking`).
    pub fn run(&self, program: &Program, vfs: Arc<Vfs>, req: RunRequest) -> RunOutcome {
        let started = Instant::now();
        let Some(_slot) = self.slot() else {
            let limit = LimitHit::Instances(self.max_instances());
            return RunOutcome {
                stderr: format!("{limit}\n").into_bytes(),
                status: RunStatus::Limit(limit),
                stdout: Vec::new(),
                elapsed: started.elapsed(),
            };
        };
        let result = RUNTIME.with(|rt| match rt {
            Ok(rt) => rt.block_on(self.run_async(program, vfs, req)),
            Err(e) => (
                RunStatus::Trapped(format!("no async runtime: {e}")),
                Vec::new(),
                Vec::new(),
            ),
        });
        let (status, stdout, stderr) = result;
        RunOutcome {
            status,
            stdout,
            stderr,
            elapsed: started.elapsed(),
        }
    }

    async fn run_async(
        &self,
        program: &Program,
        vfs: Arc<Vfs>,
        req: RunRequest,
    ) -> (RunStatus, Vec<u8>, Vec<u8>) {
        let limits = req.limits;
        // A guest's reads come in bursts (a `grep -r`, an `import`): they share a read
        // transaction while nothing is committed. Released at every tick, so that a guest
        // that waits or computes never holds back other connections' checkpoints.
        let workspace = Arc::clone(&vfs);
        let _hold = workspace.hold_reads();
        let fs = match WasiFsCtx::with_layers(vfs, req.layers) {
            Ok(fs) => fs,
            Err(e) => return (RunStatus::Trapped(e), Vec::new(), Vec::new()),
        };
        let stdout = Capture::new(Stream::Stdout, limits.output, req.on_output.clone());
        let stderr = Capture::new(Stream::Stderr, limits.output, req.on_output.clone());
        let mut wasi = WasiCtx::builder();
        if req.stdin.is_closed() {
            wasi.stdin(MemoryInputPipe::new(req.stdin.into_head()));
        } else {
            wasi.stdin(AsyncStdinStream::new(req.stdin.reader()));
        }
        wasi.args(&req.args)
            .stdout(stdout.clone())
            .stderr(stderr.clone());
        // wasi-libc starts in `initial-cwd`; `PWD` tells programs that look for it.
        wasi.initial_cwd(&req.cwd);
        if !req.env.iter().any(|(k, _)| k == "PWD") {
            wasi.env("PWD", &req.cwd);
        }
        wasi.envs(&req.env);
        let deadline = Deadline::after(limits.timeout);
        let state = State {
            wasi: wasi.build(),
            table: wasmtime::component::ResourceTable::new(),
            fs,
            limiter: MemoryLimiter::new(limits.memory),
            host: HostCtx {
                exec: req.exec,
                git: req.git,
                network: req.network,
                requests: 0,
                env: req.env.clone(),
                cancel: req.cancel.clone(),
                deadline: deadline.clone(),
                output_limit: limits.output,
            },
        };
        let mut store = Store::new(&self.engine, state);
        store.limiter(|s| &mut s.limiter);
        store.set_epoch_deadline(1);
        let cancel = req.cancel.clone();
        let time_up = deadline.clone();
        let ticked = Arc::clone(&workspace);
        store.epoch_deadline_callback(move |_| {
            ticked.release_reads();
            if cancel.is_cancelled() || time_up.passed() {
                Err(wasmtime::Error::new(Interrupted))
            } else {
                Ok(UpdateDeadline::Continue(1))
            }
        });

        let run = async {
            let status: wasmtime::Result<i32> = match &program.entry {
                Entry::Command(pre) => {
                    let command = pre.instantiate_async(&mut store).await?;
                    let ran = command.wasi_cli_run().call_run(&mut store).await?;
                    Ok(if ran.is_ok() { 0 } else { 1 })
                }
                Entry::Reactor(pre) => {
                    let instance = pre.instantiate_async(&mut store).await?;
                    let run = instance.get_typed_func::<(), (i32,)>(&mut store, "run")?;
                    let (status,) = run.call_async(&mut store, ()).await?;
                    Ok(status)
                }
            };
            status
        };
        // The epoch callback stops busy guests; this stops guests waiting in the host (the
        // deadline moves when a backend gives back its setup time).
        let watch = async {
            while !req.cancel.is_cancelled() && Instant::now() < deadline.at() + TICK * 2 {
                tokio::time::sleep(TICK).await;
                workspace.release_reads();
            }
        };
        let result = tokio::select! {
            r = run => Some(r),
            () = watch => None,
        };
        let memory_hit = store.data().limiter.hit;
        drop(store);
        let (out, err) = (stdout.take(), stderr.take());
        let status = match result {
            None if req.cancel.is_cancelled() => RunStatus::Cancelled,
            None => RunStatus::Limit(LimitHit::Timeout(limits.timeout)),
            Some(Ok(status)) => RunStatus::Exited(status),
            Some(Err(e)) => {
                if let Some(exit) = e.downcast_ref::<wasmtime_wasi::I32Exit>() {
                    RunStatus::Exited(exit.0)
                } else if out.limit_hit || err.limit_hit || e.is::<OutputLimit>() {
                    RunStatus::Limit(LimitHit::Output(limits.output))
                } else if e.is::<Interrupted>() && req.cancel.is_cancelled() {
                    RunStatus::Cancelled
                } else if e.is::<Interrupted>() {
                    RunStatus::Limit(LimitHit::Timeout(limits.timeout))
                } else if memory_hit {
                    RunStatus::Limit(LimitHit::Memory(limits.memory))
                } else {
                    RunStatus::Trapped(trap_message(&e))
                }
            }
        };
        (status, out.bytes, err.bytes)
    }
}

/// What went wrong, in one line: the trap's own text (`wasm trap: wasm \`unreachable\` instruction
/// executed`) or the error's root cause; the wasm backtrace is left out.
fn trap_message(e: &wasmtime::Error) -> String {
    match e.downcast_ref::<wasmtime::Trap>() {
        Some(wasmtime::Trap::StackOverflow) => format!(
            "stack limit of {} KiB exceeded (recursion too deep)",
            crate::engine::WASM_STACK >> 10
        ),
        Some(trap) => trap.to_string(),
        None => e.root_cause().to_string(),
    }
}
