//! Exec routing: bash source or a command line, run on one of the workspace's backends.
//!
//! On the isolate backend everything goes through the shell (`shell.wasm`): a script runs as
//! `sh -c SCRIPT`, a command line as `sh -c '"$@"' computer ARGV...`, so builtins, the
//! shell's commands and components stored in the workspace are found the same way in both.
//! What the shell cannot run goes to the next backend: with [`Backend::Auto`], the workspace's
//! container (started on first use), with the same cwd, environment and input; with
//! [`Backend::Isolate`], nowhere ("command not found"). [`Backend::Container`] runs the whole
//! command in the container. `computer sh`, `computer exec` and [`Workspace::exec`] share
//! this path.
//!
//! A [`Session`] keeps the shell's variables, functions, aliases, options and cwd from one
//! exec to the next: the shell saves them as a script in the workspace's `/tmp` when it ends
//! and sources it when the next exec starts.

use std::sync::{Arc, OnceLock};

use computer_isolate::{
    CancelToken, Isolate, IsolateConfig, LimitHit, Limits, NoBackends, OutputSink, RunOutcome,
    RunRequest, RunStatus, Stream, WorkspaceComponents,
};

use crate::error::{Error, Result};
use crate::workspace::{DEFAULT_CWD, Workspace};
use computer_container::ContainerFallback;

/// Where a command runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Backend {
    /// The isolate, falling back to the container for what it cannot run.
    #[default]
    Auto,
    /// WebAssembly in this process: the bash-compatible shell and its commands, and
    /// components stored in the workspace.
    Isolate,
    /// A Docker container whose `/workspace` is the workspace (mounted through FUSE, or
    /// copied in and back for an engine the mount cannot reach).
    Container,
}

impl std::str::FromStr for Backend {
    type Err = String;

    /// `auto`, `isolate` or `container`, as the tools, the CLI's users and the bindings
    /// name them; the error says which names there are.
    fn from_str(name: &str) -> std::result::Result<Backend, String> {
        match name {
            "auto" => Ok(Backend::Auto),
            "isolate" => Ok(Backend::Isolate),
            "container" => Ok(Backend::Container),
            other => Err(format!(
                "backend {other:?}: expected auto, isolate or container"
            )),
        }
    }
}

/// What to run.
#[derive(Debug, Clone)]
pub enum Program {
    /// Bash source, as `bash -c` runs it.
    Script(String),
    /// A command and its arguments, without shell syntax.
    Argv(Vec<String>),
    /// The shell's own arguments, as `bash` takes them (`-c SCRIPT NAME ARGS`, `FILE ARGS`).
    Shell(Vec<String>),
}

/// A command to run, with its environment.
#[derive(Debug, Clone)]
pub struct ExecRequest {
    /// The script or command line.
    pub program: Program,
    /// Which backend runs it.
    pub backend: Backend,
    /// Working directory (absolute, or relative to `/workspace`).
    pub cwd: String,
    /// The environment; nothing is inherited from the host.
    pub env: Vec<(String, String)>,
    /// Standard input.
    pub stdin: Vec<u8>,
    /// Time, memory and output limits.
    pub limits: Limits,
    /// Set it to stop the command.
    pub cancel: CancelToken,
}

impl ExecRequest {
    /// Bash source with the defaults: `/workspace`, no environment, no input.
    pub fn script(source: impl Into<String>) -> ExecRequest {
        ExecRequest::new(Program::Script(source.into()))
    }

    /// A command line with the defaults.
    pub fn argv<S: Into<String>>(argv: impl IntoIterator<Item = S>) -> ExecRequest {
        ExecRequest::new(Program::Argv(argv.into_iter().map(Into::into).collect()))
    }

    fn new(program: Program) -> ExecRequest {
        ExecRequest {
            program,
            backend: Backend::Auto,
            cwd: DEFAULT_CWD.into(),
            env: Vec::new(),
            stdin: Vec::new(),
            limits: Limits::default(),
            cancel: CancelToken::new(),
        }
    }

    /// Runs it on `backend`.
    pub fn backend(mut self, backend: Backend) -> ExecRequest {
        self.backend = backend;
        self
    }

    /// Starts it in `cwd`.
    pub fn cwd(mut self, cwd: impl Into<String>) -> ExecRequest {
        self.cwd = cwd.into();
        self
    }

    /// Adds an environment variable.
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> ExecRequest {
        self.env.push((key.into(), value.into()));
        self
    }

    /// Gives it standard input.
    pub fn stdin(mut self, data: impl Into<Vec<u8>>) -> ExecRequest {
        self.stdin = data.into();
        self
    }

    /// Sets its limits.
    pub fn limits(mut self, limits: Limits) -> ExecRequest {
        self.limits = limits;
        self
    }
}

/// How a command ended, with its output (up to the output limit).
#[derive(Debug, Clone)]
pub struct ExecOutput {
    /// The status a shell would report (124 after a timeout, as `timeout(1)`...).
    pub status: i32,
    /// Standard output.
    pub stdout: Vec<u8>,
    /// Standard error.
    pub stderr: Vec<u8>,
    /// Why it ended: exited, a limit, a crash, cancelled.
    pub ended: RunStatus,
}

impl From<RunOutcome> for ExecOutput {
    fn from(o: RunOutcome) -> ExecOutput {
        ExecOutput {
            status: o.exit_code(),
            ended: o.status,
            stdout: o.stdout,
            stderr: o.stderr,
        }
    }
}

static RUNTIME: OnceLock<Arc<Isolate>> = OnceLock::new();

/// The process's wasm runtime, started on first use with the default configuration (its
/// compiled components are cached on disk, see [`computer_isolate::default_cache_dir`]).
pub fn runtime() -> Result<Arc<Isolate>> {
    if let Some(r) = RUNTIME.get() {
        return Ok(Arc::clone(r));
    }
    start_runtime(IsolateConfig::default())
}

/// Starts the process's runtime with `config`, before anything uses it (a one-shot process
/// does better without the pooling allocator, whose setup costs milliseconds; a server
/// running many commands does better with it). Fails if it has started already.
pub fn start_runtime(config: IsolateConfig) -> Result<Arc<Isolate>> {
    if RUNTIME.get().is_some() {
        return Err(Error::Invalid(
            "the wasm runtime has started already".into(),
        ));
    }
    let isolate = Arc::new(Isolate::new(config).map_err(Error::Isolate)?);
    Ok(Arc::clone(RUNTIME.get_or_init(|| isolate)))
}

/// The shell, loaded once per process (its hash was computed when it was built).
fn shell_program(isolate: &Isolate) -> Result<Arc<computer_isolate::Program>> {
    static SHELL: OnceLock<Arc<computer_isolate::Program>> = OnceLock::new();
    if let Some(p) = SHELL.get() {
        return Ok(Arc::clone(p));
    }
    let program = isolate
        .load_hashed(computer_components::SHELL, computer_components::SHELL_HASH)
        .map_err(Error::Isolate)?;
    Ok(Arc::clone(SHELL.get_or_init(|| program)))
}

impl Workspace {
    /// Runs a command and collects its output.
    pub fn exec(&self, req: ExecRequest) -> Result<ExecOutput> {
        self.exec_streaming(req, None)
    }

    /// Runs a command; `on_output` sees its stdout and stderr as they are written.
    pub fn exec_streaming(
        &self,
        req: ExecRequest,
        on_output: Option<OutputSink>,
    ) -> Result<ExecOutput> {
        self.run_shell(req, on_output, None)
    }

    /// A session: execs that keep the shell's state between them.
    pub fn session(&self) -> Session {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let stamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        Session {
            workspace: self.clone(),
            state: format!("/tmp/.computer-session-{}-{stamp}-{n}", std::process::id()),
        }
    }

    fn run_shell(
        &self,
        mut req: ExecRequest,
        on_output: Option<OutputSink>,
        session: Option<&str>,
    ) -> Result<ExecOutput> {
        // A guest holds the secrets' placeholders, never their values; a value that comes
        // back verbatim (a server echoing a header) is redacted from what it prints.
        let secrets = self.secrets();
        crate::secrets::add_placeholders(&secrets, &mut req.env);
        let (on_output, redactor) = crate::secrets::redacting(&secrets, on_output);
        let out = self.run_backend(req, on_output, session);
        if let Some(redactor) = redactor {
            redactor.flush();
        }
        Ok(out?.redacted(&secrets))
    }

    fn run_backend(
        &self,
        req: ExecRequest,
        on_output: Option<OutputSink>,
        session: Option<&str>,
    ) -> Result<ExecOutput> {
        // The container's proxy sends through the workspace's egress as it is now (its
        // secrets, the host's test names and CA file).
        self.containers()
            .egress()
            .set(self.egress("container").ok());
        if req.backend == Backend::Container {
            return self.run_in_container(req, on_output);
        }
        let next: Arc<dyn computer_isolate::ExecHandler> = match req.backend {
            Backend::Auto => Arc::new(ContainerFallback(Arc::clone(self.containers()))),
            _ => Arc::new(NoBackends),
        };
        let isolate = runtime()?;
        let program = shell_program(&isolate)?;
        // A bad COMPUTER_NET_HOSTS must not stop every command: its test names then do not
        // resolve, and the host's stderr says why.
        let network = self.egress("isolate").unwrap_or_else(|e| {
            eprintln!("computer: {e}; the test names are not used");
            computer_net::Egress::new(self.vfs(), "isolate").with_secrets(self.secrets())
        });
        // `python3` runs in the isolate when the runtime is installed, on any backend but
        // the container's (which was handled above).
        let next = match crate::runtimes::python(&isolate) {
            Some(python) => Arc::new(computer_isolate::python::PythonCommands {
                isolate: Arc::clone(&isolate),
                python,
                vfs: self.vfs(),
                limits: req.limits,
                next,
                network: Some(network.clone()),
            }) as Arc<dyn computer_isolate::ExecHandler>,
            None => next,
        };
        let mut args = vec!["sh".to_string()];
        match req.program {
            Program::Script(s) => args.extend(["-c".into(), s]),
            Program::Argv(argv) => {
                if argv.is_empty() {
                    return Err(Error::Invalid("exec: an empty command line".into()));
                }
                args.extend(["-c".into(), "\"$@\"".into(), "computer".into()]);
                args.extend(argv);
            }
            Program::Shell(a) => args.extend(a),
        }
        let mut env = req.env;
        if let Some(path) = session {
            env.retain(|(k, _)| k != "COMPUTER_SH_SESSION");
            env.push(("COMPUTER_SH_SESSION".into(), path.into()));
        }
        let git = self.git_handler_with(req.backend == Backend::Auto);
        let run = RunRequest {
            args,
            env,
            cwd: self.resolve(&req.cwd).to_string_lossy().into_owned(),
            stdin: req.stdin.into(),
            limits: req.limits,
            cancel: req.cancel,
            on_output,
            exec: Arc::new(WorkspaceComponents {
                isolate: Arc::clone(&isolate),
                vfs: self.vfs(),
                limits: req.limits,
                next,
                git: Arc::clone(&git),
                network: Some(network.clone()),
            }),
            git,
            network: Some(network),
            layers: Vec::new(),
        };
        Ok(isolate.run(&program, self.vfs(), run).into())
    }
}

impl Workspace {
    /// Runs `req` in the workspace's container (started on first use). A script runs with
    /// `/bin/sh -c`, shell arguments with `/bin/sh`.
    fn run_in_container(
        &self,
        req: ExecRequest,
        on_output: Option<OutputSink>,
    ) -> Result<ExecOutput> {
        let (argv, source) = match req.program {
            Program::Script(s) => (Vec::new(), Some(s)),
            Program::Argv(argv) if argv.is_empty() => {
                return Err(Error::Invalid("exec: an empty command line".into()));
            }
            Program::Argv(argv) => (argv, None),
            Program::Shell(args) => {
                let mut argv = vec!["/bin/sh".to_string()];
                argv.extend(args);
                (argv, None)
            }
        };
        let command = computer_container::Command {
            argv,
            source,
            cwd: self.resolve(&req.cwd).to_string_lossy().into_owned(),
            env: req.env,
            stdin: req.stdin.into(),
            timeout: Some(req.limits.timeout),
        };
        let sink = |stream: Stream, bytes: &[u8]| {
            if let Some(on_output) = &on_output {
                on_output(stream, bytes);
            }
        };
        let out = self
            .containers()
            .run(&command, &sink, &req.cancel)
            .map_err(|e| Error::Unavailable(e.to_string()))?;
        let mut stderr = out.stderr;
        let ended = match (out.status, &out.limit) {
            (124, Some(_)) => RunStatus::Limit(LimitHit::Timeout(req.limits.timeout)),
            (130, Some(_)) => RunStatus::Cancelled,
            (status, _) => RunStatus::Exited(status),
        };
        if let Some(limit) = &out.limit {
            let line = format!("computer: {limit}\n");
            sink(Stream::Stderr, line.as_bytes());
            stderr.extend_from_slice(line.as_bytes());
        }
        Ok(ExecOutput {
            status: out.status,
            stdout: out.stdout,
            stderr,
            ended,
        })
    }
}

/// Execs that share the shell's state (variables, functions, aliases, options, cwd). The
/// state lives in a file under the workspace's `/tmp`; dropping the session removes it.
pub struct Session {
    workspace: Workspace,
    state: String,
}

impl Session {
    /// Runs a command in the session. A request's `cwd` is used only by the first exec;
    /// after that the session's own cwd (where the last exec ended) applies.
    pub fn exec(&self, req: ExecRequest) -> Result<ExecOutput> {
        self.exec_streaming(req, None)
    }

    /// [`Session::exec`] with output as it comes.
    pub fn exec_streaming(
        &self,
        req: ExecRequest,
        on_output: Option<OutputSink>,
    ) -> Result<ExecOutput> {
        self.workspace.run_shell(req, on_output, Some(&self.state))
    }
}

impl Session {
    /// The working directory the last exec ended in (`None` before the first).
    pub fn cwd(&self) -> Option<String> {
        let state = self.state_text()?;
        let quoted = state.lines().rev().find_map(|l| l.strip_prefix("cd -- "))?;
        Some(unquote_single(quoted))
    }

    /// Whether the last exec ended the shell (`exit`, or a failure under `set -e`), as an
    /// interactive shell must stop then.
    pub fn exited(&self) -> bool {
        self.state_text()
            .is_some_and(|s| s.ends_with("# computer: the shell exited\n"))
    }

    fn state_text(&self) -> Option<String> {
        let bytes = self.workspace.fs().read_file(&self.state).ok()?;
        Some(String::from_utf8_lossy(&bytes).into_owned())
    }
}

/// Undoes the shell's `'...'` quoting (`'\''` for a quote inside).
fn unquote_single(s: &str) -> String {
    s.trim()
        .trim_start_matches('\'')
        .trim_end_matches('\'')
        .replace("'\\''", "'")
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.workspace.fs().remove_file(&self.state);
    }
}
