//! The `computer:host/exec` interface: guests run commands on the host's backends through an
//! [`ExecHandler`] (the Workspace's exec router provides it; [`NoBackends`] knows none). `run`
//! waits for the command; `spawn` returns a `process` whose output streams while it runs, and
//! `spawn-with-stdin` also an output stream that feeds its standard input.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use tokio::sync::{mpsc, watch};
use wasmtime::component::Resource;
use wasmtime_wasi_io::poll::{DynPollable, Pollable, subscribe};
use wasmtime_wasi_io::streams::{
    DynInputStream, DynOutputStream, InputStream, OutputStream, StreamError, StreamResult,
};

use crate::bindings::computer::host::exec as wit;
use crate::state::State;
use computer_exec::{CancelToken, ExecCommand, ExecError, Stdin, StdinWriter, Stream};

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
    /// Why it could not run, set before its status.
    failure: Arc<Mutex<Option<ExecError>>>,
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

/// Bytes the guest may write to a command's standard input at once.
const WRITE_BUDGET: usize = 64 * 1024;

/// A spawned command's standard input as a `wasi:io` output stream: each write is a chunk
/// of its pipe, and the stream closes once the command stops reading.
struct ChannelWriter {
    tx: Option<StdinWriter>,
}

#[async_trait::async_trait]
impl Pollable for ChannelWriter {
    async fn ready(&mut self) {
        if let Some(tx) = &self.tx {
            // Ready when a chunk fits, or when the command is gone (the write then fails).
            let _ = tx.reserve().await;
        }
    }
}

impl OutputStream for ChannelWriter {
    fn write(&mut self, bytes: Bytes) -> StreamResult<()> {
        let tx = self.tx.as_ref().ok_or(StreamError::Closed)?;
        if bytes.is_empty() {
            return Ok(());
        }
        match tx.try_send(bytes.to_vec()) {
            Ok(()) => Ok(()),
            Err(mpsc::error::TrySendError::Closed(_)) => {
                self.tx = None;
                Err(StreamError::Closed)
            }
            Err(mpsc::error::TrySendError::Full(_)) => Err(StreamError::trap(
                "wrote to a full stdin without check-write",
            )),
        }
    }

    fn flush(&mut self) -> StreamResult<()> {
        // A chunk is in the pipe as soon as it is written.
        Ok(())
    }

    fn check_write(&mut self) -> StreamResult<usize> {
        match &self.tx {
            Some(tx) if !tx.is_closed() => Ok(if tx.capacity() > 0 { WRITE_BUDGET } else { 0 }),
            _ => {
                self.tx = None;
                Err(StreamError::Closed)
            }
        }
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
            stdin: Stdin::bytes(cmd.stdin.unwrap_or_default()),
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
        self.before_blocking();
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
        match self.command(cmd) {
            Ok(cmd) => Ok(Ok(self.start(cmd, true)?)),
            Err(e) => Ok(Err(e)),
        }
    }

    fn spawn_with_stdin(
        &mut self,
        cmd: wit::Command,
    ) -> wasmtime::Result<Result<(Resource<Process>, Resource<DynOutputStream>), wit::Error>> {
        let mut cmd = match self.command(cmd) {
            Ok(cmd) => cmd,
            Err(e) => return Ok(Err(e)),
        };
        let head = std::mem::take(&mut cmd.stdin).into_head();
        let (tx, stdin) = Stdin::piped(head);
        cmd.stdin = stdin;
        let process = self.start(cmd, false)?;
        let writer: DynOutputStream = Box::new(ChannelWriter { tx: Some(tx) });
        Ok(Ok((process, self.table.push(writer)?)))
    }
}

impl State {
    /// Starts `cmd` on its own thread; its output streams through the process's channels.
    /// When it cannot run, the process says why in `failure`, and on its stderr if `tell`.
    fn start(&mut self, cmd: ExecCommand, tell: bool) -> wasmtime::Result<Resource<Process>> {
        let (out_tx, out_rx) = mpsc::unbounded_channel();
        let (err_tx, err_rx) = mpsc::unbounded_channel();
        let (status_tx, status_rx) = watch::channel(None);
        let failure = Arc::new(Mutex::new(None));
        let failed = Arc::clone(&failure);
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
                    Err(e) => {
                        let (status, m) = match &e {
                            ExecError::NotFound(m) => (127, m),
                            ExecError::Unavailable(m)
                            | ExecError::Limit(m)
                            | ExecError::Invalid(m) => (126, m),
                        };
                        if tell {
                            sink(Stream::Stderr, format!("{m}\n").as_bytes());
                        }
                        *failed.lock().unwrap_or_else(|e| e.into_inner()) = Some(e);
                        status
                    }
                };
                let _ = status_tx.send(Some(status));
            })?;
        let process = Process {
            stdout: Some(out_rx),
            stderr: Some(err_rx),
            status: status_rx,
            failure,
            cancel,
        };
        Ok(self.table.push(process)?)
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

    fn failure(&mut self, p: Resource<Process>) -> wasmtime::Result<Option<wit::Error>> {
        let process = self.table.get(&p)?;
        let failure = process.failure.lock().unwrap_or_else(|e| e.into_inner());
        Ok(failure.clone().map(wit::Error::from))
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
