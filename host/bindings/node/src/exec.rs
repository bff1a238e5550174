//! Running commands: a workspace's execs, a `Session` (execs that keep the shell's state),
//! and background `Job`s.

use std::sync::Arc;
use std::time::Duration;

use computer::{ExecOutput, ExecRequest};
use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::reply::{Blocking, Call, Reply, ended_name};
use crate::run::{Cancel, Run};

/// How to run a command (all optional).
#[napi(object)]
pub struct ExecOptions {
    /// Working directory (default /workspace).
    pub cwd: Option<String>,
    /// Environment variables; nothing is inherited from the host.
    pub env: Option<std::collections::HashMap<String, String>>,
    /// Standard input.
    pub stdin: Option<Either<String, Buffer>>,
    /// `auto` (default), `isolate` or `container`.
    pub backend: Option<String>,
    /// Time limit in milliseconds (default 60,000).
    pub timeout_ms: Option<f64>,
}

/// A bad argument, thrown as a `TypeError`-like napi error.
pub fn invalid(message: String) -> Error {
    Error::new(Status::InvalidArg, message)
}

/// The request for `command` (bash source, or an argument list) with `options`.
pub fn request(
    command: Either<String, Vec<String>>,
    options: Option<ExecOptions>,
) -> Result<ExecRequest> {
    let mut req = match command {
        Either::A(script) => ExecRequest::script(script),
        Either::B(argv) => ExecRequest::argv(argv),
    };
    let Some(o) = options else {
        return Ok(req);
    };
    if let Some(cwd) = o.cwd {
        req.cwd = cwd;
    }
    let mut env: Vec<(String, String)> = o.env.unwrap_or_default().into_iter().collect();
    env.sort();
    req.env = env;
    req.stdin = match o.stdin {
        Some(Either::A(text)) => text.into_bytes(),
        Some(Either::B(bytes)) => bytes.to_vec(),
        None => Vec::new(),
    };
    req.backend = o
        .backend
        .as_deref()
        .unwrap_or("auto")
        .parse()
        .map_err(invalid)?;
    if let Some(ms) = o.timeout_ms {
        req.limits.timeout = Duration::try_from_secs_f64(ms / 1000.0)
            .ok()
            .filter(|t| !t.is_zero())
            .ok_or_else(|| invalid(format!("timeoutMs {ms}: a positive number of milliseconds")))?;
    }
    Ok(req)
}

/// Where an exec runs.
#[derive(Clone)]
pub enum Target {
    /// A fresh shell on the workspace.
    Workspace(computer::Workspace),
    /// A session's shell.
    Session(Arc<computer::Session>),
}

impl Target {
    /// Runs `req`, its output handed to `sink` as it comes.
    pub fn run(
        &self,
        req: ExecRequest,
        sink: Option<computer::isolate::OutputSink>,
    ) -> computer::Result<ExecOutput> {
        match self {
            Target::Workspace(ws) => ws.exec_streaming(req, sink),
            Target::Session(s) => s.exec_streaming(req, sink),
        }
    }

    /// `exec` of the classes: `command` with `options`, collected.
    pub fn exec(
        &self,
        command: Either<String, Vec<String>>,
        options: Option<ExecOptions>,
        cancel: Option<&Cancel>,
        sync: Option<bool>,
    ) -> Result<Call> {
        let req = with_cancel(request(command, options)?, cancel);
        let target = self.clone();
        Ok(Blocking::call(sync, move || match target.run(req, None) {
            Ok(out) => Reply::exec(out),
            Err(e) => Reply::error(&e),
        }))
    }

    /// `start` of the classes: `command` with `options`, read as it comes.
    pub fn start(
        &self,
        command: Either<String, Vec<String>>,
        options: Option<ExecOptions>,
        cancel: Option<&Cancel>,
    ) -> Result<Run> {
        Run::start(
            self.clone(),
            with_cancel(request(command, options)?, cancel),
        )
    }
}

fn with_cancel(mut req: ExecRequest, cancel: Option<&Cancel>) -> ExecRequest {
    if let Some(cancel) = cancel {
        req.cancel = cancel.token();
    }
    req
}

/// A shell whose state (variables, functions, working directory) lasts from one exec to
/// the next.
#[napi]
pub struct Session(pub(crate) Target);

#[napi]
impl Session {
    /// Runs `command` in the session and collects its output.
    #[napi(ts_return_type = "Promise<Reply> | Reply")]
    pub fn exec(
        &self,
        command: Either<String, Vec<String>>,
        options: Option<ExecOptions>,
        cancel: Option<&Cancel>,
        sync: Option<bool>,
    ) -> Result<Call> {
        self.0.exec(command, options, cancel, sync)
    }

    /// Starts `command` in the session; its output is read chunk by chunk from the `Run`.
    #[napi]
    pub fn start(
        &self,
        command: Either<String, Vec<String>>,
        options: Option<ExecOptions>,
        cancel: Option<&Cancel>,
    ) -> Result<Run> {
        self.0.start(command, options, cancel)
    }
}

/// A command running in the background.
#[napi]
pub struct Job(pub(crate) computer::Job);

#[napi]
impl Job {
    /// Its number in the workspace.
    #[napi(getter)]
    pub fn id(&self) -> i64 {
        i64::try_from(self.0.id()).unwrap_or(i64::MAX)
    }

    /// The command line it runs.
    #[napi(getter)]
    pub fn command(&self) -> String {
        self.0.command().to_string()
    }

    /// Where it stands: `status` once ended (`ok: false` if it could not run), none while
    /// it runs.
    #[napi]
    pub fn state(&self) -> Reply {
        job_reply(self.0.status())
    }

    /// Output written since the last `read`, in `stdout` and `stderr`.
    #[napi]
    pub fn read(&self) -> Reply {
        let logs = self.0.read_new(usize::MAX);
        Reply {
            stdout: Some(logs.stdout.into()),
            stderr: Some(logs.stderr.into()),
            ..Reply::done()
        }
    }

    /// Waits for it to end, at most `timeout_ms` (none: until it ends), holding one of libuv's
    /// pool threads meanwhile: index.js waits in short slices.
    #[napi(ts_return_type = "Promise<Reply>")]
    pub fn wait(&self, timeout_ms: Option<f64>) -> Result<AsyncTask<Blocking>> {
        let timeout = match timeout_ms {
            None => Duration::MAX,
            Some(ms) if ms.is_nan() => {
                return Err(invalid("timeoutMs NaN: a number of milliseconds".into()));
            }
            Some(ms) => Duration::try_from_secs_f64(ms.max(0.0) / 1000.0).unwrap_or(Duration::MAX),
        };
        let job = self.0.clone();
        Ok(Blocking::task(move || job_reply(job.wait(timeout))))
    }

    /// Ends it (status 130).
    #[napi]
    pub fn kill(&self) {
        self.0.kill();
    }
}

/// A job's state as a reply: `status` when ended.
fn job_reply(status: computer::JobStatus) -> Reply {
    match status {
        computer::JobStatus::Running => Reply::done(),
        computer::JobStatus::Ended { status, ended } => Reply {
            status: Some(status),
            ended: Some(ended_name(&ended).to_string()),
            ..Reply::done()
        },
        computer::JobStatus::Failed(why) | computer::JobStatus::Lost(why) => {
            Reply::fail("ERR_COMPUTER", why)
        }
    }
}
