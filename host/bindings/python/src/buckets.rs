//! S3-compatible buckets: `Workspace.import_bucket` / `export_bucket` (folders to and from a
//! prefix) and `push_snapshot` / `pull_snapshot`, through `computer-bucket`. Endpoint and
//! credentials come from the keyword arguments, else the host's AWS variables and secret
//! store, as for the CLI.

use computer_bucket::{BucketConfig, BucketError, BucketStats as Stats};
use pyo3::exceptions::{PyPermissionError, PyValueError};
use pyo3::prelude::*;

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

/// The store's settings from the keyword arguments (`None`: the host's).
pub fn config(
    endpoint: Option<String>,
    region: Option<String>,
    access_key_id: Option<String>,
    secret_access_key: Option<String>,
    allow_http: bool,
) -> BucketConfig {
    BucketConfig {
        endpoint,
        region,
        access_key_id,
        secret_access_key,
        allow_http,
        ..BucketConfig::default()
    }
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
