//! An exec backend of the isolate itself: a command whose program is a WebAssembly component
//! stored in the workspace (`/workspace/tools/fmt.wasm args...`) runs as a fresh isolate with
//! the caller's cwd, env, stdin, time left and cancellation. Anything else goes to the next
//! handler.

use std::path::Path;
use std::sync::Arc;

use computer_vfs::{FileType, Vfs};

use crate::engine::{Isolate, Program};
use crate::limits::Limits;
use crate::run::{RunRequest, RunStatus};
use computer_exec::{CancelToken, ExecCommand, ExecError, ExecHandler, Stream};

/// Runs workspace components; passes other commands to `next`.
pub struct WorkspaceComponents {
    /// The runtime to run them in.
    pub isolate: Arc<Isolate>,
    /// The workspace they live in (and run against).
    pub vfs: Arc<Vfs>,
    /// Limits for each nested run (its timeout is further capped by the caller's).
    pub limits: Limits,
    /// Who runs everything else.
    pub next: Arc<dyn ExecHandler>,
    /// Who runs their git command lines.
    pub git: Arc<dyn crate::git::GitHandler>,
    /// Their network egress (as the caller's).
    pub network: Option<computer_net::Egress>,
}

impl WorkspaceComponents {
    /// The component `program` names, if it is a regular file holding a wasm binary.
    fn component(&self, program: &str, cwd: &str) -> Option<Vec<u8>> {
        if !program.contains('/') {
            return None;
        }
        let path = Path::new(cwd).join(program);
        let st = self.vfs.stat(&path).ok()?;
        if st.kind != FileType::File {
            return None;
        }
        let head = self.vfs.read_range(&path, 0, 4).ok()?;
        (head == b"\0asm")
            .then(|| self.vfs.read_file(&path).ok())
            .flatten()
    }
}

impl ExecHandler for WorkspaceComponents {
    fn run(
        &self,
        cmd: ExecCommand,
        sink: &(dyn Fn(Stream, &[u8]) + Send + Sync),
        cancel: &CancelToken,
    ) -> Result<i32, ExecError> {
        let wasm = match (&cmd.source, cmd.argv.first()) {
            (None, Some(program)) => self.component(program, &cmd.cwd),
            _ => None,
        };
        let Some(wasm) = wasm else {
            return self.next.run(cmd, sink, cancel);
        };
        let name = cmd.argv[0].clone();
        let program = self
            .isolate
            .load(&wasm)
            .map_err(|e| ExecError::Invalid(format!("{name}: {e}")))?;
        let req = RunRequest {
            args: cmd.argv,
            env: cmd.env,
            cwd: cmd.cwd,
            stdin: cmd.stdin,
            limits: Limits {
                timeout: cmd.timeout.min(self.limits.timeout),
                ..self.limits
            },
            exec: Arc::clone(&self.next),
            git: Arc::clone(&self.git),
            network: self.network.clone(),
            // A nested program sees the workspace alone.
            layers: Vec::new(),
            ..RunRequest::default()
        };
        run_nested(&self.isolate, &program, &self.vfs, req, &name, sink, cancel)
    }
}

/// Runs `program` for an `exec` of a guest: in another thread, its output handed to `sink`
/// from this one as it comes; a limit or trap reported on stderr under `name`, and turned
/// into an exit status as a shell would.
pub(crate) fn run_nested(
    isolate: &Isolate,
    program: &Program,
    vfs: &Arc<Vfs>,
    mut req: RunRequest,
    name: &str,
    sink: &(dyn Fn(Stream, &[u8]) + Send + Sync),
    cancel: &CancelToken,
) -> Result<i32, ExecError> {
    // The caller's sink is borrowed, so the nested run's output comes back by channel and
    // is handed on from this thread while the run goes on in another.
    let (tx, rx) = std::sync::mpsc::channel::<(Stream, Vec<u8>)>();
    req.on_output = Some(Arc::new(move |stream: Stream, bytes: &[u8]| {
        let _ = tx.send((stream, bytes.to_vec()));
    }));
    req.cancel = cancel.child();
    let outcome = std::thread::scope(|scope| {
        let handle = scope.spawn(|| isolate.run(program, Arc::clone(vfs), req));
        for (stream, bytes) in rx {
            sink(stream, &bytes);
        }
        handle.join()
    })
    .map_err(|_| ExecError::Unavailable("the isolate crashed".into()))?;
    match &outcome.status {
        RunStatus::Exited(code) => Ok(*code),
        RunStatus::Limit(hit) => {
            sink(Stream::Stderr, format!("{name}: {hit}\n").as_bytes());
            Ok(outcome.exit_code())
        }
        RunStatus::Trapped(msg) => {
            sink(Stream::Stderr, format!("{name}: {msg}\n").as_bytes());
            Ok(outcome.exit_code())
        }
        RunStatus::Cancelled => Ok(outcome.exit_code()),
    }
}
