//! The `Workspace` class: open one; its files, commands, sessions, jobs, snapshots, forks
//! and tools. Every method that touches the workspace returns a Promise, or with `sync` its
//! reply (index.js gives them their final shape).

use std::sync::Arc;

use computer_tools::Toolkit;
use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::exec::{ExecOptions, Job, Session, Target, invalid, request};
use crate::reply::{Blocking, Call, Reply, errno_name};
use crate::run::{Cancel, Run};

/// A workspace: a persistent filesystem in one SQLite file, and the backends that run
/// commands on it.
#[napi]
pub struct Workspace {
    pub(crate) ws: computer::Workspace,
}

impl Workspace {
    /// A filesystem call on `path` (relative to /workspace), its error naming the path.
    fn fs_call(
        &self,
        path: String,
        sync: Option<bool>,
        f: impl FnOnce(
            &computer::Vfs,
            &std::path::Path,
        ) -> std::result::Result<Reply, computer::VfsError>
        + Send
        + 'static,
    ) -> Call {
        let ws = self.ws.clone();
        Blocking::call(sync, move || {
            let path = ws.resolve(&path);
            f(ws.fs(), &path)
                .unwrap_or_else(|source| Reply::error(&computer::Error::Fs { path, source }))
        })
    }
}

#[napi]
impl Workspace {
    /// Opens the workspace file at `path`, creating it if missing.
    #[napi(factory)]
    pub fn open(path: String) -> Result<Workspace> {
        computer::Workspace::open(&path)
            .map(|ws| Workspace { ws })
            .map_err(|e| Error::from_reason(e.to_string()))
    }

    /// A throwaway workspace in memory.
    #[napi(factory)]
    pub fn memory() -> Result<Workspace> {
        computer::Workspace::in_memory()
            .map(|ws| Workspace { ws })
            .map_err(|e| Error::from_reason(e.to_string()))
    }

    /// The file's bytes.
    #[napi(ts_return_type = "Promise<Reply> | Reply")]
    pub fn read_file(&self, path: String, sync: Option<bool>) -> Call {
        self.fs_call(path, sync, |fs, p| {
            Ok(Reply {
                data: Some(fs.read_file(p)?.into()),
                ..Reply::done()
            })
        })
    }

    /// Writes `data` (text as UTF-8) as the whole file, making missing parent directories.
    #[napi(ts_return_type = "Promise<Reply> | Reply")]
    pub fn write_file(
        &self,
        path: String,
        data: Either<String, Buffer>,
        sync: Option<bool>,
    ) -> Call {
        let bytes = match data {
            Either::A(text) => text.into_bytes(),
            Either::B(buf) => buf.to_vec(),
        };
        self.fs_call(path, sync, move |fs, p| {
            fs.write_file(p, &bytes).map(|_| Reply::done())
        })
    }

    /// The names in a directory, a line each with its type: `NAME\tKIND`.
    #[napi(ts_return_type = "Promise<Reply> | Reply")]
    pub fn list(&self, path: String, sync: Option<bool>) -> Call {
        self.fs_call(path, sync, |fs, p| {
            let text = fs
                .read_dir(p)?
                .iter()
                .map(|e| format!("{}\t{}\n", e.name.to_string_lossy(), e.kind.name()))
                .collect();
            Ok(Reply {
                text: Some(text),
                ..Reply::done()
            })
        })
    }

    /// Whether `path` exists.
    #[napi(ts_return_type = "Promise<Reply> | Reply")]
    pub fn exists(&self, path: String, sync: Option<bool>) -> Call {
        self.fs_call(path, sync, |fs, p| {
            Ok(Reply {
                flag: Some(fs.exists(p)?),
                ..Reply::done()
            })
        })
    }

    /// Makes a directory and its parents.
    #[napi(ts_return_type = "Promise<Reply> | Reply")]
    pub fn mkdir(&self, path: String, sync: Option<bool>) -> Call {
        self.fs_call(path, sync, |fs, p| {
            fs.create_dir_all(p).map(|_| Reply::done())
        })
    }

    /// Removes a file, or a tree with `recursive`.
    #[napi(ts_return_type = "Promise<Reply> | Reply")]
    pub fn remove(&self, path: String, recursive: bool, sync: Option<bool>) -> Call {
        self.fs_call(path, sync, move |fs, p| {
            match (recursive, fs.lstat(p)?.is_dir()) {
                (true, _) => fs.remove_all(p),
                (false, true) => fs.remove_dir(p),
                (false, false) => fs.remove_file(p),
            }
            .map(|_| Reply::done())
        })
    }

    /// Runs `command` and collects its output; `cancel` stops it.
    #[napi(ts_return_type = "Promise<Reply> | Reply")]
    pub fn exec(
        &self,
        command: Either<String, Vec<String>>,
        options: Option<ExecOptions>,
        cancel: Option<&Cancel>,
        sync: Option<bool>,
    ) -> Result<Call> {
        Target::Workspace(self.ws.clone()).exec(command, options, cancel, sync)
    }

    /// Starts `command`; its output is read chunk by chunk from the `Run`.
    #[napi]
    pub fn start(
        &self,
        command: Either<String, Vec<String>>,
        options: Option<ExecOptions>,
        cancel: Option<&Cancel>,
    ) -> Result<Run> {
        Target::Workspace(self.ws.clone()).start(command, options, cancel)
    }

    /// A session: execs that keep the shell's state between them.
    #[napi]
    pub fn session(&self) -> Session {
        Session(Target::Session(Arc::new(self.ws.session())))
    }

    /// Starts `command` in the background: a `Job`, or a failed reply (the job limit).
    #[napi]
    pub fn spawn(
        &self,
        command: Either<String, Vec<String>>,
        options: Option<ExecOptions>,
    ) -> Result<Either<Job, Reply>> {
        Ok(match self.ws.spawn(request(command, options)?) {
            Ok(job) => Either::A(Job(job)),
            Err(e) => Either::B(Reply::error(&e)),
        })
    }

    /// The workspace's jobs, running and recently ended.
    #[napi]
    pub fn jobs(&self) -> Vec<Job> {
        let mut jobs = self.ws.jobs();
        jobs.sort_by_key(computer::Job::id);
        jobs.into_iter().map(Job).collect()
    }

    /// Takes a snapshot named `name`.
    #[napi(ts_return_type = "Promise<Reply> | Reply")]
    pub fn snapshot(&self, name: String, sync: Option<bool>) -> Call {
        let ws = self.ws.clone();
        Blocking::call(sync, move || match ws.snapshot(&name) {
            Ok(_) => Reply::done(),
            Err(e) => Reply::error(&e),
        })
    }

    /// Puts the workspace back as it was at snapshot `name`.
    #[napi(ts_return_type = "Promise<Reply> | Reply")]
    pub fn restore(&self, name: String, sync: Option<bool>) -> Call {
        let ws = self.ws.clone();
        Blocking::call(sync, move || match ws.restore(&name) {
            Ok(()) => Reply::done(),
            Err(e) => Reply::error(&e),
        })
    }

    /// Writes a new workspace file at `path` holding snapshot `name` (index.js opens it).
    #[napi(ts_return_type = "Promise<Reply> | Reply")]
    pub fn fork(&self, name: String, path: String, sync: Option<bool>) -> Call {
        let ws = self.ws.clone();
        Blocking::call(sync, move || match ws.fork(&name, &path) {
            Ok(_) => Reply::done(),
            Err(e) => Reply::error(&e),
        })
    }

    /// The agent tools as a JSON array in `shape`: `openai`, `anthropic` or `mcp`.
    #[napi]
    pub fn tool_definitions(&self, shape: String, read_only: Option<bool>) -> Result<String> {
        let form = computer_tools::ToolDef::shape(&shape).map_err(invalid)?;
        let defs = computer_tools::tool_defs(read_only.unwrap_or(false));
        Ok(serde_json::Value::Array(defs.iter().map(form).collect()).to_string())
    }

    /// Runs tool `name` with `args` (JSON text): the text for the model.
    #[napi(ts_return_type = "Promise<Reply>")]
    pub fn tool_call(
        &self,
        name: String,
        args: String,
        read_only: Option<bool>,
        cancel: Option<&Cancel>,
    ) -> AsyncTask<Blocking> {
        let kit = Toolkit::new(self.ws.clone()).with_origin("node");
        let kit = Arc::new(if read_only.unwrap_or(false) {
            kit.read_only()
        } else {
            kit
        });
        let context = computer_tools::CallContext {
            on_output: None,
            cancel: cancel.map(Cancel::token),
        };
        Blocking::task(move || {
            let args = match serde_json::from_str(&args) {
                Ok(v) => v,
                Err(e) => {
                    return Reply::fail(
                        "ERR_INVALID_ARG_VALUE",
                        format!("tool arguments are not JSON: {e}"),
                    );
                }
            };
            match kit.call_text(&name, args, context) {
                Ok(text) => Reply {
                    text: Some(text),
                    ..Reply::done()
                },
                Err(e) => {
                    let code = match (&e, e.errno()) {
                        (
                            computer_tools::ToolError::Limit(_)
                            | computer_tools::ToolError::Busy(_),
                            _,
                        ) => "ERR_COMPUTER_LIMIT",
                        (_, Some(errno)) => errno_name(errno),
                        (_, None) => "ERR_COMPUTER",
                    };
                    Reply::fail(code, e.to_string())
                }
            }
        })
    }
}
