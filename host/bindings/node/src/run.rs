//! A running command whose output is read as it comes (`Run.next()`, which index.js turns
//! into an async iterator), and `Cancel`, which stops commands (index.js ties it to an
//! `AbortSignal`).

use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex};

use computer::isolate::{CancelToken, OutputSink, Stream};
use computer::{ExecOutput, ExecRequest};
use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::exec::Target;
use crate::reply::{Blocking, Reply};

/// Stops the commands it is given to.
#[napi]
#[derive(Default)]
pub struct Cancel(CancelToken);

#[napi]
impl Cancel {
    /// A new, not cancelled handle.
    #[napi(constructor)]
    pub fn new() -> Cancel {
        Cancel::default()
    }

    /// Stops the commands (status 130).
    #[napi]
    pub fn cancel(&self) {
        self.0.cancel();
    }

    /// Whether `cancel` was called.
    #[napi(getter)]
    pub fn cancelled(&self) -> bool {
        self.0.is_cancelled()
    }
}

impl Cancel {
    /// The token a request takes.
    pub fn token(&self) -> CancelToken {
        self.0.clone()
    }
}

enum Message {
    Chunk(Stream, Vec<u8>),
    Done(computer::Result<ExecOutput>),
}

/// A command started with `Workspace.start` or `Session.start`: `next()` gives its chunks, then its exit.
#[napi]
pub struct Run {
    rx: Arc<Mutex<Receiver<Message>>>,
    cancel: CancelToken,
}

impl Run {
    /// Starts `req` on its own thread, its output sent to the `Run`.
    pub fn start(target: Target, req: ExecRequest) -> Result<Run> {
        let (tx, rx) = mpsc::channel();
        let cancel = req.cancel.clone();
        let chunks = tx.clone();
        let sink: OutputSink = Arc::new(move |stream, data: &[u8]| {
            let _ = chunks.send(Message::Chunk(stream, data.to_vec()));
        });
        std::thread::Builder::new()
            .name("computer-exec".into())
            .spawn(move || {
                let _ = tx.send(Message::Done(target.run(req, Some(sink))));
            })
            .map_err(|e| Error::from_reason(format!("start a command's thread: {e}")))?;
        Ok(Run {
            rx: Arc::new(Mutex::new(rx)),
            cancel,
        })
    }
}

#[napi]
impl Run {
    /// The next chunk (`kind` `stdout` or `stderr`, bytes in `data`), then the exit (`kind`
    /// `exit` with the whole result); after that, a reply with no `kind`.
    #[napi(ts_return_type = "Promise<Reply>")]
    pub fn next(&self) -> AsyncTask<Blocking> {
        let rx = Arc::clone(&self.rx);
        Blocking::task(move || {
            let message = rx.lock().unwrap_or_else(|e| e.into_inner()).recv();
            match message {
                Ok(Message::Chunk(stream, data)) => Reply {
                    kind: Some(
                        match stream {
                            Stream::Stdout => "stdout",
                            Stream::Stderr => "stderr",
                        }
                        .into(),
                    ),
                    data: Some(data.into()),
                    ..Reply::done()
                },
                Ok(Message::Done(Ok(out))) => Reply {
                    kind: Some("exit".into()),
                    ..Reply::exec(out)
                },
                Ok(Message::Done(Err(e))) => Reply::error(&e),
                Err(_) => Reply::done(),
            }
        })
    }

    /// Stops the command.
    #[napi]
    pub fn cancel(&self) {
        self.cancel.cancel();
    }
}
