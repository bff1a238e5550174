//! `Workspace.spawn`: commands in the background, and `Cancel`, the token that stops a
//! command from another thread (the asyncio variants use it).

use std::time::Duration;

use computer::isolate::CancelToken;
use computer::{Job as CoreJob, JobStatus};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// Stops the command it is given to: `ws.exec(cmd, cancel=c)` in one thread, `c.cancel()`
/// in another.
#[pyclass(module = "computer", frozen, from_py_object)]
#[derive(Clone, Default)]
pub struct Cancel(pub CancelToken);

#[pymethods]
impl Cancel {
    #[new]
    fn new() -> Cancel {
        Cancel::default()
    }

    /// Stops the command (status 130, as after Ctrl-C).
    fn cancel(&self) {
        self.0.cancel();
    }

    /// Whether `cancel` was called.
    #[getter]
    fn cancelled(&self) -> bool {
        self.0.is_cancelled()
    }
}

/// A command running in the background.
#[pyclass(module = "computer", frozen)]
pub struct Job(pub CoreJob);

#[pymethods]
impl Job {
    /// Its number in the workspace.
    #[getter]
    fn id(&self) -> u64 {
        self.0.id()
    }

    /// The command line it runs.
    #[getter]
    fn command(&self) -> &str {
        self.0.command()
    }

    /// Whether it still runs.
    #[getter]
    fn running(&self) -> bool {
        self.0.status() == JobStatus::Running
    }

    /// Its exit status once ended (`None` while it runs; raises if it could not run).
    #[getter]
    fn status(&self) -> PyResult<Option<i32>> {
        status_of(self.0.status())
    }

    /// Output written since the last `read`: `(stdout, stderr)`.
    fn read<'py>(&self, py: Python<'py>) -> (Bound<'py, PyBytes>, Bound<'py, PyBytes>) {
        let logs = self.0.read_new(usize::MAX);
        (
            PyBytes::new(py, &logs.stdout),
            PyBytes::new(py, &logs.stderr),
        )
    }

    /// Waits for it to end (at most `timeout` seconds): its status, or `None` if it still
    /// runs. Ctrl-C stops the waiting, not the job.
    #[pyo3(signature = (timeout = None))]
    fn wait(&self, py: Python<'_>, timeout: Option<f64>) -> PyResult<Option<i32>> {
        let deadline = match timeout {
            None => None,
            Some(t) if t.is_nan() => {
                return Err(PyValueError::new_err("timeout NaN: a number of seconds"));
            }
            // Past what an Instant holds: as good as no timeout.
            Some(t) => Duration::try_from_secs_f64(t.max(0.0))
                .ok()
                .and_then(|d| std::time::Instant::now().checked_add(d)),
        };
        loop {
            let slice = match deadline {
                Some(d) => d
                    .saturating_duration_since(std::time::Instant::now())
                    .min(Duration::from_millis(50)),
                None => Duration::from_millis(50),
            };
            let status = py.detach(|| self.0.wait(slice));
            if status != JobStatus::Running {
                return status_of(status);
            }
            py.check_signals()?;
            if deadline.is_some_and(|d| std::time::Instant::now() >= d) {
                return Ok(None);
            }
        }
    }

    /// Ends it (status 130).
    fn kill(&self) {
        self.0.kill();
    }

    fn __repr__(&self) -> String {
        format!("Job(id={}, command={:?})", self.0.id(), self.0.command())
    }
}

fn status_of(status: JobStatus) -> PyResult<Option<i32>> {
    match status {
        JobStatus::Running => Ok(None),
        JobStatus::Ended { status, .. } => Ok(Some(status)),
        JobStatus::Failed(why) | JobStatus::Lost(why) => {
            Err(crate::errors::ComputerError::new_err(why))
        }
    }
}
