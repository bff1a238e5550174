//! Small helpers: the clock and name checks.

use std::time::{SystemTime, UNIX_EPOCH};

use crate::error::{Result, VfsError};
use crate::types::NAME_MAX;

/// Now, in nanoseconds since the Unix epoch.
pub(crate) fn now_ns() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as i64)
        .unwrap_or(0)
}

/// Checks one directory-entry name that is about to be created or looked up.
pub(crate) fn check_name(name: &[u8]) -> Result<()> {
    if name.is_empty() {
        return Err(VfsError::NotFound);
    }
    if name.contains(&0) {
        return Err(VfsError::Invalid("name contains a NUL byte"));
    }
    if name.contains(&b'/') {
        return Err(VfsError::Invalid("name contains '/'"));
    }
    if name.len() > NAME_MAX {
        return Err(VfsError::NameTooLong);
    }
    Ok(())
}

/// Whether `name` is `.` or `..`, which can never be created, removed or renamed.
pub(crate) fn is_dot(name: &[u8]) -> bool {
    name == b"." || name == b".."
}
