//! `computer-bucket`: workspaces to and from S3-compatible object storage, on `object_store`.
//!
//! - [`import`] copies the objects under a bucket prefix into a workspace folder. It is
//!   all-or-nothing: objects are downloaded into a staging folder in the workspace's `/tmp`
//!   and moved into place only when every one has arrived; on any failure the staging folder
//!   is removed and the destination is untouched. Keys that could leave the destination (`..`,
//!   empty segments) and objects above the workspace's file size limit are refused before
//!   anything is downloaded.
//! - [`export`] copies a workspace folder to a prefix, uploading only files whose size or MD5
//!   (the S3 ETag of a simple upload) differ from the object there; with `delete`, objects
//!   under the prefix that the folder does not hold are removed (sync).
//! - File modes travel as the object metadata `mode` (octal), as S3 stores user metadata.
//! - [`push`] stores a workspace snapshot as content-addressed chunks (`PREFIX/chunks/HASH`,
//!   uploaded only when missing) and a manifest (`PREFIX/snapshots/NAME.json`); [`pull`]
//!   rebuilds it in a new workspace file on any machine, checking every chunk's hash.
//! - [`cluster`] holds a cluster's system of record (`computer serve --store`): leases taken
//!   and renewed with conditional writes, each workspace's head, and its SQLite file as
//!   images of content-addressed pieces.
//!
//! Endpoint, region and credentials come from the host's standard AWS variables
//! (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_REGION`, `AWS_ENDPOINT_URL`,
//! `AWS_ALLOW_HTTP`), or the credentials from the host's secret store
//! ([`BucketConfig::with_secrets`]); they never reach guests. A transfer a workspace's user
//! asks for (the server's routes) is held to the workspace's network policy
//! ([`BucketConfig::held_by`]). Requests use path-style addressing (what
//! self-hosted servers expect) and object_store's retries with backoff on transient errors;
//! a download cut midway resumes from the last byte received.

mod blocking;
pub mod cluster;
mod egress;
mod error;
mod export;
mod import;
mod snapshot;
mod url;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use object_store::ObjectStore;
use object_store::aws::{AmazonS3Builder, AmazonS3ConfigKey};

pub use blocking::{export_blocking, import_blocking, pull_blocking, push_blocking};
pub use egress::{ACCESS_KEY_SECRET, SECRET_KEY_SECRET};
pub use error::{BucketError, Result};
pub use export::export;
pub use import::import;
/// The `object_store` these functions take, for callers that match on its errors.
pub use object_store;
pub use snapshot::{CHUNK, PushStats, pull, push};
pub use url::BucketUrl;

/// Objects moved at once.
pub const CONCURRENCY: usize = 16;

/// Files above this size are uploaded in parts of this size.
pub const PART_SIZE: usize = 8 << 20;

/// A progress report.
#[derive(Debug, Clone)]
pub struct BucketProgress<'a> {
    /// Objects done.
    pub objects_done: u64,
    /// Objects in all.
    pub objects_total: u64,
    /// Bytes moved so far.
    pub bytes_done: u64,
    /// Bytes in all.
    pub bytes_total: u64,
    /// The object or file just finished.
    pub current: &'a Path,
}

/// What an import or export did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BucketStats {
    /// Objects downloaded or uploaded.
    pub transferred: u64,
    /// Bytes downloaded or uploaded.
    pub bytes: u64,
    /// Files already identical in the bucket (export).
    pub unchanged: u64,
    /// Objects deleted from the bucket (export with `delete`).
    pub deleted: u64,
    /// Entries left out on export: symbolic links, FIFOs, sockets and device nodes.
    pub skipped: Vec<std::path::PathBuf>,
}

/// Settings that override the host's AWS environment variables (for embedders and tests).
#[derive(Debug, Clone, Default)]
pub struct BucketConfig {
    /// The endpoint URL (`http://127.0.0.1:9000` for a local server).
    pub endpoint: Option<String>,
    /// The region.
    pub region: Option<String>,
    /// The access key id.
    pub access_key_id: Option<String>,
    /// The secret access key.
    pub secret_access_key: Option<String>,
    /// Allow a plain-HTTP endpoint.
    pub allow_http: bool,
    /// How the store resolves names (`None`: the system's resolver); set by
    /// [`BucketConfig::held_by`].
    pub resolver: Option<Arc<dyn object_store::client::DnsResolver>>,
}

/// The store for `url`'s bucket, configured from the host's AWS environment variables, with
/// the credentials of the host's secret store when it keeps them
/// ([`BucketConfig::with_secrets`] of [`computer::host_secrets`]).
pub fn open_store(url: &BucketUrl) -> Result<Arc<dyn ObjectStore>> {
    let config = BucketConfig::default().with_secrets(url, &computer::host_secrets())?;
    open_store_with(url, &config)
}

/// The store for `url`'s bucket: the host's AWS environment variables, overridden by `config`.
pub fn open_store_with(url: &BucketUrl, config: &BucketConfig) -> Result<Arc<dyn ObjectStore>> {
    let retry = object_store::RetryConfig {
        max_retries: 5,
        retry_timeout: Duration::from_secs(60),
        ..Default::default()
    };
    let store = builder(url, config)
        .with_retry(retry)
        .build()
        .map_err(error::store(format!("configure access to {url}")))?;
    Ok(Arc::new(store))
}

/// The configuration of `url`'s store, before it is built.
fn builder(url: &BucketUrl, config: &BucketConfig) -> AmazonS3Builder {
    let mut builder = AmazonS3Builder::from_env();
    if let Some(resolver) = &config.resolver {
        // Client options replace the environment's whole: take its client settings
        // (`AWS_ALLOW_HTTP`, proxies, ...) along.
        let mut options = object_store::ClientOptions::new();
        for (key, value) in std::env::vars() {
            if let Some(rest) = key.strip_prefix("AWS_")
                && let Ok(AmazonS3ConfigKey::Client(key)) =
                    format!("aws_{}", rest.to_ascii_lowercase()).parse()
            {
                options = options.with_config(key, value);
            }
        }
        builder = builder.with_client_options(options.with_dns_resolver(Arc::clone(resolver)));
    }
    if let Some(endpoint) = &config.endpoint {
        builder = builder.with_endpoint(endpoint);
    }
    if let Some(region) = &config.region {
        builder = builder.with_region(region);
    }
    if let Some(key) = &config.access_key_id {
        builder = builder.with_access_key_id(key);
    }
    if let Some(secret) = &config.secret_access_key {
        builder = builder.with_secret_access_key(secret);
    }
    if config.allow_http {
        builder = builder.with_allow_http(true);
    }
    builder
        .with_bucket_name(&url.bucket)
        .with_virtual_hosted_style_request(false)
}

/// `PID-NANOS`: names for temporary files and folders that no other transfer uses.
fn unique_suffix() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("{}-{nanos}", std::process::id())
}

/// A progress callback shared by concurrent transfers.
pub type ProgressFn<'a> = dyn FnMut(&BucketProgress<'_>) + Send + 'a;
