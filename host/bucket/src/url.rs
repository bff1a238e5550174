//! `s3://bucket/prefix` addresses.

use object_store::path::Path as ObjectPath;

use crate::error::{BucketError, Result};

/// A bucket and a key prefix (without slashes at either end; empty for the whole bucket).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BucketUrl {
    /// The bucket's name.
    pub bucket: String,
    /// The prefix, `a/b` for `s3://bucket/a/b/`.
    pub prefix: String,
}

impl BucketUrl {
    /// Whether `s` names a bucket (`s3://...`) rather than a host path.
    pub fn is_bucket(s: &str) -> bool {
        s.starts_with("s3://")
    }

    /// Parses `s3://bucket[/prefix]`.
    pub fn parse(s: &str) -> Result<BucketUrl> {
        let rest = s
            .strip_prefix("s3://")
            .ok_or_else(|| BucketError::Url(format!("{s}: expected s3://BUCKET[/PREFIX]")))?;
        let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
        let valid_bucket = (3..=63).contains(&bucket.len())
            && bucket
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.');
        if !valid_bucket {
            return Err(BucketError::Url(format!(
                "{s}: {bucket:?} is not a bucket name (3 to 63 lowercase letters, digits, '-', '.')"
            )));
        }
        let prefix = prefix.trim_matches('/').to_string();
        if !prefix.is_empty() {
            check_key(&prefix).map_err(|reason| BucketError::Url(format!("{s}: {reason}")))?;
        }
        Ok(BucketUrl {
            bucket: bucket.to_string(),
            prefix,
        })
    }

    /// The prefix as an object path (`None` for the whole bucket).
    pub(crate) fn prefix_path(&self) -> Option<ObjectPath> {
        (!self.prefix.is_empty()).then(|| ObjectPath::from(self.prefix.as_str()))
    }

    /// The key of `relative` (a `/`-separated path) under the prefix.
    pub(crate) fn key(&self, relative: &str) -> ObjectPath {
        if self.prefix.is_empty() {
            ObjectPath::from(relative)
        } else {
            ObjectPath::from(format!("{}/{relative}", self.prefix))
        }
    }

    /// `key` relative to the prefix.
    pub(crate) fn relative<'a>(&self, key: &'a str) -> Option<&'a str> {
        if self.prefix.is_empty() {
            return Some(key);
        }
        key.strip_prefix(self.prefix.as_str())?.strip_prefix('/')
    }
}

impl std::fmt::Display for BucketUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "s3://{}/{}", self.bucket, self.prefix)
    }
}

/// Why a key cannot become a workspace path: `..` or `.` segments, empty segments (a leading,
/// doubled or trailing `/`), NUL.
pub(crate) fn check_key(key: &str) -> std::result::Result<(), String> {
    if key.contains('\0') {
        return Err("a key with a NUL byte".into());
    }
    for segment in key.split('/') {
        match segment {
            "" => {
                return Err(format!(
                    "key {key:?} has an empty segment (a leading or doubled '/')"
                ));
            }
            "." | ".." => return Err(format!("key {key:?} has a {segment:?} segment")),
            _ if segment.len() > 255 => {
                return Err(format!("key {key:?} has a segment over 255 bytes"));
            }
            _ => {}
        }
    }
    Ok(())
}
