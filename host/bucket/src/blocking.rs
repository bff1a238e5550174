//! The transfers for callers without an async runtime (the CLI, the language bindings): each
//! parses its `s3://` address, opens the store and runs on a runtime started for the call.

use std::future::Future;
use std::path::Path;

use computer::Workspace;

use crate::{BucketConfig, BucketError, BucketStats, BucketUrl, ProgressFn, PushStats, Result};

/// Runs `future` on a runtime of its own.
fn block_on<T>(future: impl Future<Output = Result<T>>) -> Result<T> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| BucketError::Refused(format!("start the async runtime: {e}")))?
        .block_on(future)
}

/// The store for `url`: `config`, with the host secret store's credentials when `config`
/// names none.
fn store(
    url: &BucketUrl,
    config: &BucketConfig,
) -> Result<std::sync::Arc<dyn object_store::ObjectStore>> {
    let config = if config.access_key_id.is_some() || config.secret_access_key.is_some() {
        config.clone()
    } else {
        config
            .clone()
            .with_secrets(url, &computer::host_secrets())?
    };
    crate::open_store_with(url, &config)
}

/// [`crate::import`] of the objects under `url` into `dest`.
pub fn import_blocking(
    ws: &Workspace,
    url: &str,
    dest: &Path,
    config: &BucketConfig,
    progress: &mut ProgressFn<'_>,
) -> Result<BucketStats> {
    let url = BucketUrl::parse(url)?;
    let store = store(&url, config)?;
    block_on(crate::import(store, &url, ws, dest, progress))
}

/// [`crate::export`] of `src` to `url`; with `delete`, objects `src` does not hold go.
pub fn export_blocking(
    ws: &Workspace,
    src: &Path,
    url: &str,
    delete: bool,
    config: &BucketConfig,
    progress: &mut ProgressFn<'_>,
) -> Result<BucketStats> {
    let url = BucketUrl::parse(url)?;
    let store = store(&url, config)?;
    block_on(crate::export(store, &url, ws, src, delete, progress))
}

/// [`crate::push`] of snapshot `name` to `url`.
pub fn push_blocking(
    ws: &Workspace,
    name: &str,
    url: &str,
    config: &BucketConfig,
) -> Result<PushStats> {
    let url = BucketUrl::parse(url)?;
    let store = store(&url, config)?;
    block_on(crate::push(store, &url, ws, name))
}

/// [`crate::pull`] of snapshot `name` from `url` into the new workspace file `path`.
pub fn pull_blocking(
    name: &str,
    url: &str,
    path: &Path,
    config: &BucketConfig,
) -> Result<Workspace> {
    let url = BucketUrl::parse(url)?;
    let store = store(&url, config)?;
    block_on(crate::pull(store, &url, name, path))
}
