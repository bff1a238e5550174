//! How the workspace's errors become Python exceptions: a filesystem error is an `OSError`
//! with its errno (so Python picks `FileNotFoundError`, `IsADirectoryError`...), a limit is
//! `computer.LimitExceeded` naming it, anything else `computer.ComputerError`.

use pyo3::exceptions::{PyException, PyOSError, PyValueError};
use pyo3::prelude::*;

use computer::isolate::{LimitHit, RunStatus};

pyo3::create_exception!(
    computer,
    ComputerError,
    PyException,
    "An error of the workspace that is not a filesystem error (a backend that cannot run, \
     a git or network failure...)."
);
pyo3::create_exception!(
    computer,
    LimitExceeded,
    ComputerError,
    "A limit stopped the call. `.limit` names it (`timeout`, `memory`, `output`, \
     `instances`...), `.result` holds what a command wrote before (or None)."
);

/// A workspace error as a Python exception.
pub fn py_err(e: computer::Error) -> PyErr {
    match e.errno() {
        Some(errno) => os_error(errno, e.to_string()),
        None => match e {
            computer::Error::Limit { limit, message } => limit_err_bare(limit, message),
            e if e.is_bad_input() => PyValueError::new_err(e.to_string()),
            e => ComputerError::new_err(e.to_string()),
        },
    }
}

/// `OSError(errno, message)`: Python's constructor picks the subclass for the errno.
pub fn os_error(errno: i32, message: String) -> PyErr {
    PyOSError::new_err((errno, message))
}

/// A tool's error: not found as `FileNotFoundError`, a limit as `LimitExceeded`, bad
/// arguments as `ValueError`, the rest as `ComputerError`; the text is what a model is told.
pub fn tool_err(e: computer_tools::ToolError) -> PyErr {
    use computer_tools::ToolError;
    let text = e.to_string();
    match (&e, e.errno()) {
        (ToolError::Limit(_) | ToolError::Busy(_), _) => limit_err_bare("tool", text),
        (ToolError::UnknownTool(_) | ToolError::InvalidArgs { .. }, _) => {
            PyValueError::new_err(text)
        }
        (_, Some(errno)) => os_error(errno, text),
        (_, None) => ComputerError::new_err(text),
    }
}

/// The limit a run hit, by the name the API uses for it.
pub fn limit_name(status: &RunStatus) -> Option<&'static str> {
    match status {
        RunStatus::Limit(LimitHit::Timeout(_)) => Some("timeout"),
        RunStatus::Limit(LimitHit::Memory(_)) => Some("memory"),
        RunStatus::Limit(LimitHit::Output(_)) => Some("output"),
        RunStatus::Limit(LimitHit::Instances(_)) => Some("instances"),
        _ => None,
    }
}

/// `LimitExceeded(message)` with `.limit` and `.result` set.
pub fn limit_err(py: Python<'_>, limit: &str, message: String, result: Py<PyAny>) -> PyErr {
    let err = LimitExceeded::new_err(message);
    let value = err.value(py);
    // Setting attributes on a fresh exception instance cannot fail short of memory.
    let _ = value.setattr("limit", limit);
    let _ = value.setattr("result", result);
    err
}

/// `LimitExceeded(message)` naming `limit`, with no result.
pub fn limit_err_bare(limit: &str, message: String) -> PyErr {
    Python::attach(|py| limit_err(py, limit, message, py.None()))
}
