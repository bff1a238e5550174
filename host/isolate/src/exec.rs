//! The `computer:host/exec` interface: guests run commands on the host's backends through an
//! [`ExecHandler`] (the Workspace's exec router provides it; [`NoBackends`] knows none). `run`
//! waits for the command; `spawn` returns a `process` whose output streams while it runs.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use tokio::sync::{mpsc, watch};
use wasmtime::component::Resource;
use wasmtime_wasi_io::poll::{DynPollable, Pollable, subscribe};
use wasmtime_wasi_io::streams::{DynInputStream, InputStream, StreamError, StreamResult};

use crate::bindings::computer::host::exec as wit;
use crate::state::State;
use computer_exec::{CancelToken, ExecCommand, ExecError, Stream};

impl From<ExecError> for wit::Error {
    fn from(e: ExecError) -> Self {
        match e {
            ExecError::NotFound(m) => wit::Error::NotFound(m),
            ExecError::Unavailable(m) => wit::Error::Unavailable(m),
            ExecError::Limit(m) => wit::Error::Limit(m),
            ExecError::Invalid(m) => wit::Error::Invalid(m),
        }
    }
}

/// A spawned command: its output channels, its status, and how to stop it.
pub struct Process {
    stdout: Option<mpsc::UnboundedReceiver<Bytes>>,
    stderr: Option<mpsc::UnboundedReceiver<Bytes>>,
    status: watch::Receiver<Option<i32>>,
    cancel: CancelToken,
}

#[async_trait::async_trait]
impl Pollable for Process {
    async fn ready(&mut self) {
        let _ = self.status.wait_for(Option::is_some).await;
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        // A process nobody holds any more is stopped, not left running.
        if self.status.borrow().is_none() {
            self.cancel.cancel();
        }
    }
}

/// Output of a spawned process as a `wasi:io` input stream.
struct ChannelReader {
    rx: mpsc::UnboundedReceiver<Bytes>,
    pending: Option<Bytes>,
    closed: bool,
}

#[async_trait::async_trait]
impl Pollable for ChannelReader {
    async fn ready(&mut self) {
        if self.pending.is_some() || self.closed {
            return;
        }
        match self.rx.recv().await {
            Some(bytes) => self.pending = Some(bytes),
            None => self.closed = true,
        }
    }
}

impl InputStream for ChannelReader {
    fn read(&mut self, size: usize) -> StreamResult<Bytes> {
        let mut bytes = match self.pending.take() {
            Some(bytes) => bytes,
            None => match self.rx.try_recv() {
                Ok(bytes) => bytes,
                Err(mpsc::error::TryRecvError::Empty) => return Ok(Bytes::new()),
                Err(mpsc::error::TryRecvError::Disconnected) => {
                    self.closed = true;
                    return Err(StreamError::Closed);
                }
            },
        };
        if bytes.len() > size {
            self.pending = Some(bytes.split_off(size));
        }
        Ok(bytes)
    }
}

/// Status of a command stopped by `kill`, as a shell reports SIGKILL.
const KILLED: i32 = 137;

impl State {
    /// Turns the guest's request into a command the handler can run.
    fn command(&self, cmd: wit::Command) -> Result<ExecCommand, wit::Error> {
        if cmd.argv.is_empty() && cmd.source.is_none() {
            return Err(wit::Error::Invalid(
                "empty command: give argv or source".into(),
            ));
        }
        let cwd = match cmd.cwd {
            Some(cwd) if cwd.starts_with('/') => cwd,
            Some(cwd) => format!("{}/{cwd}", crate::DEFAULT_CWD),
            None => crate::DEFAULT_CWD.to_string(),
        };
        let left = self.host.deadline.left();
        let timeout = cmd
            .timeout_ms
            .map(Duration::from_millis)
            .unwrap_or(left)
            .min(left);
        Ok(ExecCommand {
            argv: cmd.argv,
            source: cmd.source,
            cwd,
            env: cmd.env,
            stdin: cmd.stdin.unwrap_or_default(),
            backend: cmd.backend.filter(|b| b != "auto"),
            timeout,
            deadline: self.host.deadline.clone(),
        })
    }
}

impl wit::Host for State {
    fn run(&mut self, cmd: wit::Command) -> wasmtime::Result<Result<wit::Output, wit::Error>> {
        let cmd = match self.command(cmd) {
            Ok(cmd) => cmd,
            Err(e) => return Ok(Err(e)),
        };
        let limit = self.host.output_limit as usize;
        let collected = Arc::new(Mutex::new((Vec::new(), Vec::new())));
        let sink = {
            let collected = Arc::clone(&collected);
            move |stream: Stream, bytes: &[u8]| {
                let mut c = collected.lock().unwrap_or_else(|e| e.into_inner());
                let buf = match stream {
                    Stream::Stdout => &mut c.0,
                    Stream::Stderr => &mut c.1,
                };
                let room = limit.saturating_sub(buf.len());
                buf.extend_from_slice(&bytes[..room.min(bytes.len())]);
            }
        };
        let handler = Arc::clone(&self.host.exec);
        let cancel = self.host.cancel.clone();
        // On its own thread: the handler may run another guest, with a runtime of its own.
        let status = std::thread::scope(|scope| {
            scope
                .spawn(|| handler.run(cmd, &sink, &cancel))
                .join()
                .unwrap_or_else(|_| Err(ExecError::Unavailable("the backend crashed".into())))
        });
        let (stdout, stderr) =
            std::mem::take(&mut *collected.lock().unwrap_or_else(|e| e.into_inner()));
        Ok(status
            .map(|status| wit::Output {
                status,
                stdout,
                stderr,
            })
            .map_err(wit::Error::from))
    }

    fn spawn(
        &mut self,
        cmd: wit::Command,
    ) -> wasmtime::Result<Result<Resource<Process>, wit::Error>> {
        let cmd = match self.command(cmd) {
            Ok(cmd) => cmd,
            Err(e) => return Ok(Err(e)),
        };
        let (out_tx, out_rx) = mpsc::unbounded_channel();
        let (err_tx, err_rx) = mpsc::unbounded_channel();
        let (status_tx, status_rx) = watch::channel(None);
        // Killing the process, or the guest that spawned it, stops the command.
        let cancel = self.host.cancel.child();
        let handler = Arc::clone(&self.host.exec);
        let token = cancel.clone();
        std::thread::Builder::new()
            .name("exec-spawn".into())
            .spawn(move || {
                let sink = move |stream: Stream, bytes: &[u8]| {
                    let tx = match stream {
                        Stream::Stdout => &out_tx,
                        Stream::Stderr => &err_tx,
                    };
                    let _ = tx.send(Bytes::copy_from_slice(bytes));
                };
                let status = match handler.run(cmd, &sink, &token) {
                    _ if token.is_cancelled() => KILLED,
                    Ok(status) => status,
                    Err(ExecError::NotFound(m)) => {
                        sink(Stream::Stderr, format!("{m}\n").as_bytes());
                        127
                    }
                    Err(
                        ExecError::Unavailable(m) | ExecError::Limit(m) | ExecError::Invalid(m),
                    ) => {
                        sink(Stream::Stderr, format!("{m}\n").as_bytes());
                        126
                    }
                };
                let _ = status_tx.send(Some(status));
            })?;
        let process = Process {
            stdout: Some(out_rx),
            stderr: Some(err_rx),
            status: status_rx,
            cancel,
        };
        Ok(Ok(self.table.push(process)?))
    }
}

impl wit::HostProcess for State {
    fn stdout(&mut self, p: Resource<Process>) -> wasmtime::Result<Resource<DynInputStream>> {
        let rx = self.table.get_mut(&p)?.stdout.take();
        self.reader(rx)
    }

    fn stderr(&mut self, p: Resource<Process>) -> wasmtime::Result<Resource<DynInputStream>> {
        let rx = self.table.get_mut(&p)?.stderr.take();
        self.reader(rx)
    }

    fn subscribe(&mut self, p: Resource<Process>) -> wasmtime::Result<Resource<DynPollable>> {
        subscribe(&mut self.table, p)
    }

    fn status(&mut self, p: Resource<Process>) -> wasmtime::Result<Option<i32>> {
        Ok(*self.table.get(&p)?.status.borrow())
    }

    fn kill(&mut self, p: Resource<Process>) -> wasmtime::Result<()> {
        self.table.get(&p)?.cancel.cancel();
        Ok(())
    }

    fn drop(&mut self, p: Resource<Process>) -> wasmtime::Result<()> {
        self.table.delete(p)?;
        Ok(())
    }
}

impl State {
    /// A stream over a process's output channel; a second request gets an ended stream.
    fn reader(
        &mut self,
        rx: Option<mpsc::UnboundedReceiver<Bytes>>,
    ) -> wasmtime::Result<Resource<DynInputStream>> {
        let stream: DynInputStream = match rx {
            Some(rx) => Box::new(ChannelReader {
                rx,
                pending: None,
                closed: false,
            }),
            None => Box::new(wasmtime_wasi::p2::pipe::ClosedInputStream),
        };
        Ok(self.table.push(stream)?)
    }
}
