//! Running commands: `Workspace.exec` (collected), `exec_stream` (chunks as they come),
//! sessions and background jobs. Each call releases the GIL; in the main thread a pending
//! Ctrl-C (`KeyboardInterrupt`) cancels the running command, which then ends within a moment.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use computer::isolate::{CancelToken, Limits, OutputSink, RunStatus, Stream};
use computer::{ExecOutput, ExecRequest, Workspace};
use pyo3::exceptions::{PyStopIteration, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use crate::errors::{ComputerError, limit_err, limit_name, py_err};
use crate::fs::BytesOrText;

/// How often a waiting call looks for signals (Ctrl-C).
const SIGNAL_POLL: Duration = Duration::from_millis(50);

/// How a command ended, with its output.
#[pyclass(module = "computer", frozen, get_all)]
pub struct ExecResult {
    /// The status a shell would report (124 after a timeout, 130 when cancelled).
    pub status: i32,
    /// Standard output.
    pub stdout: Py<PyBytes>,
    /// Standard error.
    pub stderr: Py<PyBytes>,
    /// `exited`, `timeout`, `memory`, `output`, `instances`, `crashed` or `cancelled`.
    pub ended: &'static str,
}

#[pymethods]
impl ExecResult {
    /// Standard output as text (UTF-8, undecodable bytes replaced).
    #[getter]
    fn text(&self, py: Python<'_>) -> String {
        String::from_utf8_lossy(self.stdout.as_bytes(py)).into_owned()
    }

    /// Whether the status is 0.
    #[getter]
    fn ok(&self) -> bool {
        self.status == 0
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        format!(
            "ExecResult(status={}, stdout={} bytes, stderr={} bytes, ended={:?})",
            self.status,
            self.stdout.as_bytes(py).len(),
            self.stderr.as_bytes(py).len(),
            self.ended
        )
    }
}

fn ended_name(status: &RunStatus) -> &'static str {
    match status {
        RunStatus::Exited(_) => "exited",
        RunStatus::Trapped(_) => "crashed",
        RunStatus::Cancelled => "cancelled",
        RunStatus::Limit(_) => limit_name(status).unwrap_or("limit"),
    }
}

/// The result as Python sees it: an `ExecResult`, or `LimitExceeded` (holding the result)
/// when a limit stopped the command.
pub fn into_result(py: Python<'_>, out: ExecOutput) -> PyResult<ExecResult> {
    let result = ExecResult {
        status: out.status,
        stdout: PyBytes::new(py, &out.stdout).unbind(),
        stderr: PyBytes::new(py, &out.stderr).unbind(),
        ended: ended_name(&out.ended),
    };
    match (&out.ended, limit_name(&out.ended)) {
        (RunStatus::Limit(hit), Some(limit)) => {
            let result = Py::new(py, result)?.into_any();
            Err(limit_err(py, limit, format!("{hit}"), result))
        }
        _ => Ok(result),
    }
}

/// The options every exec takes, as Python passes them.
pub struct ExecOptions<'a> {
    pub cwd: Option<String>,
    pub env: Option<Vec<(String, String)>>,
    pub stdin: Option<BytesOrText>,
    pub backend: &'a str,
    pub timeout: Option<f64>,
}

/// `command` (a string of bash, or a list of arguments) and the options as a request.
pub fn request(command: &Bound<'_, PyAny>, o: ExecOptions<'_>) -> PyResult<ExecRequest> {
    let mut req = match command.extract::<String>() {
        Ok(script) => ExecRequest::script(script),
        Err(_) => ExecRequest::argv(command.extract::<Vec<String>>().map_err(|_| {
            PyValueError::new_err("command: a string of bash or a list of arguments")
        })?),
    };
    req.backend = o.backend.parse().map_err(PyValueError::new_err)?;
    if let Some(cwd) = o.cwd {
        req.cwd = cwd;
    }
    req.env = o.env.unwrap_or_default();
    if let Some(stdin) = o.stdin {
        req.stdin = stdin.0;
    }
    if let Some(secs) = o.timeout {
        req.limits = Limits {
            timeout: Duration::try_from_secs_f64(secs)
                .ok()
                .filter(|t| !t.is_zero())
                .ok_or_else(|| {
                    PyValueError::new_err(format!("timeout {secs:?}: a positive number of seconds"))
                })?,
            ..req.limits
        };
    }
    Ok(req)
}

/// Waits for one message, cancelling on a signal (then still waiting for the message).
fn wait<T: Send>(py: Python<'_>, rx: &Mutex<Receiver<T>>, cancel: &CancelToken) -> PyResult<T> {
    let recv = |timeout: Option<Duration>| {
        let rx = rx.lock().unwrap_or_else(|e| e.into_inner());
        match timeout {
            Some(t) => rx.recv_timeout(t),
            None => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
        }
    };
    loop {
        match py.detach(|| recv(Some(SIGNAL_POLL))) {
            Ok(v) => return Ok(v),
            Err(RecvTimeoutError::Timeout) => {
                if let Err(signal) = py.check_signals() {
                    cancel.cancel();
                    let _ = py.detach(|| recv(None));
                    return Err(signal);
                }
            }
            Err(RecvTimeoutError::Disconnected) => {
                return Err(ComputerError::new_err("the command's runner crashed"));
            }
        }
    }
}

/// One exec: on the workspace, or in a session.
pub fn exec(
    py: Python<'_>,
    target: Target,
    req: ExecRequest,
    sink: Option<OutputSink>,
) -> PyResult<ExecResult> {
    let cancel = req.cancel.clone();
    let out = crate::interrupt::run(py, &cancel, move || target.run(req, sink))?;
    into_result(py, out.map_err(py_err)?)
}

/// Where an exec runs.
#[derive(Clone)]
pub enum Target {
    /// A fresh shell on the workspace.
    Workspace(Workspace),
    /// A session's shell.
    Session(Arc<computer::Session>),
}

impl Target {
    fn run(&self, req: ExecRequest, sink: Option<OutputSink>) -> computer::Result<ExecOutput> {
        match self {
            Target::Workspace(ws) => ws.exec_streaming(req, sink),
            Target::Session(s) => s.exec_streaming(req, sink),
        }
    }
}

/// What `exec_stream` yields: a chunk of output, then the exit.
#[pyclass(module = "computer", frozen, get_all)]
pub struct Event {
    /// `stdout`, `stderr` or `exit`.
    pub kind: &'static str,
    /// The chunk (empty for `exit`).
    pub data: Py<PyBytes>,
    /// The exit status (`exit` only).
    pub status: Option<i32>,
    /// The whole result (`exit` only): status, all output, how it ended.
    pub result: Option<Py<ExecResult>>,
}

#[pymethods]
impl Event {
    /// The chunk as text (undecodable bytes replaced; a chunk may end inside a character).
    #[getter]
    fn text(&self, py: Python<'_>) -> String {
        String::from_utf8_lossy(self.data.as_bytes(py)).into_owned()
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        match self.status {
            Some(status) => format!("Event(kind='exit', status={status})"),
            None => format!(
                "Event(kind={:?}, data={:?})",
                self.kind,
                String::from_utf8_lossy(self.data.as_bytes(py))
            ),
        }
    }
}

enum Message {
    Chunk(Stream, Vec<u8>),
    Done(computer::Result<ExecOutput>),
}

/// An exec whose output is read as it comes: iterate it for `Event`s. Closing it (or
/// dropping it) before the end cancels the command.
#[pyclass(module = "computer", frozen)]
pub struct ExecStream {
    rx: Mutex<Receiver<Message>>,
    cancel: CancelToken,
    done: AtomicBool,
}

impl ExecStream {
    pub fn start(target: Target, req: ExecRequest) -> PyResult<ExecStream> {
        let (tx, rx) = mpsc::channel();
        let cancel = req.cancel.clone();
        let chunks = tx.clone();
        let sink: OutputSink = Arc::new(move |stream, data: &[u8]| {
            let _ = chunks.send(Message::Chunk(stream, data.to_vec()));
        });
        crate::worker::run(
            move || target.run(req, Some(sink)),
            move |out| {
                let _ = tx.send(Message::Done(out));
            },
        )
        .map_err(|e| ComputerError::new_err(format!("start a command's thread: {e}")))?;
        Ok(ExecStream {
            rx: Mutex::new(rx),
            cancel,
            done: AtomicBool::new(false),
        })
    }
}

#[pymethods]
impl ExecStream {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<Event> {
        if self.done.load(Ordering::Acquire) {
            return Err(PyStopIteration::new_err(()));
        }
        let message = wait(py, &self.rx, &self.cancel)
            .inspect_err(|_| self.done.store(true, Ordering::Release))?;
        Ok(match message {
            Message::Chunk(stream, data) => Event {
                kind: match stream {
                    Stream::Stdout => "stdout",
                    Stream::Stderr => "stderr",
                },
                data: PyBytes::new(py, &data).unbind(),
                status: None,
                result: None,
            },
            Message::Done(out) => {
                self.done.store(true, Ordering::Release);
                let result = into_result(py, out.map_err(py_err)?)?;
                Event {
                    kind: "exit",
                    data: PyBytes::new(py, b"").unbind(),
                    status: Some(result.status),
                    result: Some(Py::new(py, result)?),
                }
            }
        })
    }

    /// Stops the command if it still runs.
    fn close(&self) {
        if !self.done.swap(true, Ordering::AcqRel) {
            self.cancel.cancel();
        }
    }

    fn __enter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __exit__(
        &self,
        _ty: Option<Bound<'_, PyAny>>,
        _value: Option<Bound<'_, PyAny>>,
        _tb: Option<Bound<'_, PyAny>>,
    ) {
        self.close();
    }
}

impl Drop for ExecStream {
    fn drop(&mut self) {
        if !*self.done.get_mut() {
            self.cancel.cancel();
        }
    }
}

/// Calls `computer._aio.NAME(*args, **kwargs)`: the asyncio variants live in Python.
pub fn aio<'py>(
    py: Python<'py>,
    name: &str,
    args: impl pyo3::call::PyCallArgs<'py>,
    kwargs: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    py.import("computer._aio")?
        .getattr(name)?
        .call(args, kwargs)
}
