//! Blocking work off the JavaScript thread: every call that touches the workspace runs as an
//! `AsyncTask` on libuv's pool and settles its Promise with a `Reply`, or, for the `...Sync`
//! methods of index.js, on the JavaScript thread itself (as `fs.readFileSync` does: no
//! thread hop, about 50 µs less per call, but the event loop waits). A failure is a reply
//! too (`ok: false` with `code` and `limit`), which index.js throws as an `Error` carrying
//! them: napi's own errors cannot carry an errno name.

use napi::bindgen_prelude::*;
use napi_derive::napi;

use computer::isolate::{LimitHit, RunStatus};

/// What a call gave back, or why it failed. index.js unpacks it.
#[napi(object)]
#[derive(Default)]
pub struct Reply {
    /// Whether the call succeeded.
    pub ok: bool,
    /// For a `Run`'s chunks: `stdout`, `stderr`, or `exit` (then the whole result).
    pub kind: Option<String>,
    /// The error's message.
    pub message: Option<String>,
    /// The errno name (`ENOENT`...) or `ERR_COMPUTER_LIMIT` / `ERR_INVALID_ARG_VALUE` /
    /// `ERR_COMPUTER`.
    pub code: Option<String>,
    /// The limit that stopped a command (`timeout`, `memory`, `output`, `instances`).
    pub limit: Option<String>,
    /// Bytes read.
    pub data: Option<Buffer>,
    /// Text (tool results, JSON, listings).
    pub text: Option<String>,
    /// A yes/no answer.
    pub flag: Option<bool>,
    /// A command's status.
    pub status: Option<i32>,
    /// A command's stdout.
    pub stdout: Option<Buffer>,
    /// A command's stderr.
    pub stderr: Option<Buffer>,
    /// How a command ended: `exited`, `timeout`, `memory`, `output`, `instances`, `crashed`,
    /// `cancelled`.
    pub ended: Option<String>,
}

impl Reply {
    /// Success with nothing to give back.
    pub fn done() -> Reply {
        Reply {
            ok: true,
            ..Reply::default()
        }
    }

    /// A failure with `code` and `message`.
    pub fn fail(code: impl Into<String>, message: impl Into<String>) -> Reply {
        Reply {
            ok: false,
            code: Some(code.into()),
            message: Some(message.into()),
            ..Reply::default()
        }
    }

    /// A workspace error: its errno's name when it has one, a limit named.
    pub fn error(e: &computer::Error) -> Reply {
        if let computer::Error::Limit { limit, message } = e {
            return Reply {
                limit: Some(limit.to_string()),
                ..Reply::fail("ERR_COMPUTER_LIMIT", message.clone())
            };
        }
        let code = match e.errno() {
            Some(errno) => errno_name(errno),
            None if e.is_bad_input() => "ERR_INVALID_ARG_VALUE",
            None => "ERR_COMPUTER",
        };
        Reply::fail(code, e.to_string())
    }

    /// A finished command; a limit that stopped it makes the reply a failure naming it,
    /// still holding the output.
    pub fn exec(out: computer::ExecOutput) -> Reply {
        let ended = ended_name(&out.ended);
        let limit = match &out.ended {
            RunStatus::Limit(hit) => Some((ended, hit.to_string())),
            _ => None,
        };
        Reply {
            ok: limit.is_none(),
            code: limit.as_ref().map(|_| "ERR_COMPUTER_LIMIT".to_string()),
            message: limit.as_ref().map(|(_, text)| text.clone()),
            limit: limit.map(|(name, _)| name.to_string()),
            status: Some(out.status),
            stdout: Some(out.stdout.into()),
            stderr: Some(out.stderr.into()),
            ended: Some(ended.to_string()),
            ..Reply::default()
        }
    }
}

/// How a command ended: `exited`, `crashed`, `cancelled`, or the limit that stopped it.
pub fn ended_name(ended: &RunStatus) -> &'static str {
    match ended {
        RunStatus::Exited(_) => "exited",
        RunStatus::Trapped(_) => "crashed",
        RunStatus::Cancelled => "cancelled",
        RunStatus::Limit(LimitHit::Timeout(_)) => "timeout",
        RunStatus::Limit(LimitHit::Memory(_)) => "memory",
        RunStatus::Limit(LimitHit::Output(_)) => "output",
        RunStatus::Limit(LimitHit::Instances(_)) => "instances",
    }
}

/// The name Node gives an errno in `error.code`.
pub fn errno_name(errno: i32) -> &'static str {
    match errno {
        libc::EPERM => "EPERM",
        libc::ENOENT => "ENOENT",
        libc::EIO => "EIO",
        libc::EACCES => "EACCES",
        libc::EEXIST => "EEXIST",
        libc::ENOTDIR => "ENOTDIR",
        libc::EISDIR => "EISDIR",
        libc::EINVAL => "EINVAL",
        libc::EFBIG => "EFBIG",
        libc::ENOSPC => "ENOSPC",
        libc::EROFS => "EROFS",
        libc::ENAMETOOLONG => "ENAMETOOLONG",
        libc::ENOTEMPTY => "ENOTEMPTY",
        libc::ELOOP => "ELOOP",
        _ => "ERR_COMPUTER",
    }
}

/// A blocking call, run on libuv's pool.
pub struct Blocking(Option<Box<dyn FnOnce() -> Reply + Send>>);

/// A call's reply now (`sync`), or a Promise of it.
pub type Call = Either<Reply, AsyncTask<Blocking>>;

impl Blocking {
    pub fn task(f: impl FnOnce() -> Reply + Send + 'static) -> AsyncTask<Blocking> {
        AsyncTask::new(Blocking(Some(Box::new(f))))
    }

    /// Runs `f` here when `sync`, else on libuv's pool.
    pub fn call(sync: Option<bool>, f: impl FnOnce() -> Reply + Send + 'static) -> Call {
        match sync {
            Some(true) => Either::A(f()),
            _ => Either::B(Blocking::task(f)),
        }
    }
}

impl Task for Blocking {
    type Output = Reply;
    type JsValue = Reply;

    fn compute(&mut self) -> Result<Reply> {
        let f = self
            .0
            .take()
            .ok_or_else(|| Error::from_reason("a task ran twice"))?;
        Ok(f())
    }

    fn resolve(&mut self, _env: Env, output: Reply) -> Result<Reply> {
        Ok(output)
    }
}
