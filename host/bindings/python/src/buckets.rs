//! S3-compatible buckets: `Workspace.import_bucket` / `export_bucket` (folders to and from a
//! prefix) and `push_snapshot` / `pull_snapshot`, through `computer-bucket`. Endpoint and
//! credentials come from the keyword arguments, else the host's AWS variables and secret
//! store, as for the CLI.

use computer_bucket::{BucketConfig, BucketError, BucketStats as Stats, PushStats};
use pyo3::exceptions::{PyPermissionError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{ComputerError, limit_err_bare, os_error, py_err};

/// What an import or export did.
#[pyclass(module = "computer", frozen, get_all)]
pub struct BucketStats {
    /// Objects downloaded or uploaded.
    pub transferred: u64,
    /// Bytes downloaded or uploaded.
    pub bytes: u64,
    /// Files already identical in the bucket (export).
    pub unchanged: u64,
    /// Objects deleted from the bucket (export with `delete=True`).
    pub deleted: u64,
    /// Paths left out of an export: symbolic links, FIFOs, sockets and devices.
    pub skipped: Vec<String>,
}

#[pymethods]
impl BucketStats {
    fn __repr__(&self) -> String {
        format!(
            "BucketStats(transferred={}, bytes={}, unchanged={}, deleted={}, skipped={})",
            self.transferred,
            self.bytes,
            self.unchanged,
            self.deleted,
            self.skipped.len()
        )
    }
}

impl From<Stats> for BucketStats {
    fn from(s: Stats) -> BucketStats {
        BucketStats {
            transferred: s.transferred,
            bytes: s.bytes,
            unchanged: s.unchanged,
            deleted: s.deleted,
            skipped: s
                .skipped
                .iter()
                .map(|p| p.to_string_lossy().into_owned())
                .collect(),
        }
    }
}

/// The store's settings from the keyword arguments (none: the host's).
pub fn config(store: Option<&Bound<'_, PyDict>>) -> PyResult<BucketConfig> {
    let mut config = BucketConfig::default();
    for (key, value) in store.into_iter().flatten() {
        let key: String = key.extract()?;
        let text = || -> PyResult<Option<String>> { value.extract() };
        match key.as_str() {
            "endpoint" => config.endpoint = text()?,
            "region" => config.region = text()?,
            "access_key_id" => config.access_key_id = text()?,
            "secret_access_key" => config.secret_access_key = text()?,
            "allow_http" => config.allow_http = value.is_truthy()?,
            _ => {
                return Err(PyTypeError::new_err(format!(
                    "unexpected keyword argument {key:?} (the store takes endpoint, region, \
                     access_key_id, secret_access_key, allow_http)"
                )));
            }
        }
    }
    Ok(config)
}

/// What a snapshot push did, as a dict.
pub fn push_stats<'py>(py: Python<'py>, s: &PushStats) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    out.set_item("entries", s.entries)?;
    out.set_item("chunks", s.chunks)?;
    out.set_item("chunks_uploaded", s.chunks_uploaded)?;
    out.set_item("bytes_uploaded", s.bytes_uploaded)?;
    Ok(out)
}

/// A bucket error as a Python exception: a bad address or key `ValueError`, a refusal
/// `PermissionError`, an object too large `LimitExceeded` (`file_size`), a workspace
/// error as elsewhere, the store's failures `ComputerError`.
pub fn bucket_err(e: BucketError) -> PyErr {
    let text = e.to_string();
    match e {
        BucketError::Url(_) | BucketError::BadKeys(_) => PyValueError::new_err(text),
        BucketError::Refused(_) => PyPermissionError::new_err(text),
        BucketError::TooLarge { .. } => limit_err_bare("file_size", text),
        BucketError::Core(e) => py_err(e),
        BucketError::Workspace { source, .. } => os_error(source.errno(), text),
        _ => ComputerError::new_err(text),
    }
}
