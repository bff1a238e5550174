//! The `Workspace` methods that reach past it: git on its repositories, the network policy
//! its guests meet, and S3-compatible buckets (folders to and from a prefix).

use computer_bucket::{BucketConfig, BucketError, BucketStats};
use napi_derive::napi;

use crate::reply::{Blocking, Call, Reply, errno_name};
use crate::workspace::Workspace;

/// A bucket error as a reply with a `code`.
fn bucket_error(e: BucketError) -> Reply {
    let text = e.to_string();
    match e {
        BucketError::Url(_) | BucketError::BadKeys(_) => Reply::fail("ERR_INVALID_ARG_VALUE", text),
        BucketError::Refused(_) => Reply::fail("EACCES", text),
        BucketError::TooLarge { .. } => Reply {
            limit: Some("file_size".into()),
            ..Reply::fail("ERR_COMPUTER_LIMIT", text)
        },
        BucketError::Core(e) => Reply::error(&e),
        BucketError::Workspace { source, .. } => Reply::fail(errno_name(source.errno()), text),
        _ => Reply::fail("ERR_COMPUTER", text),
    }
}

/// Where a bucket is and how to sign for it; unset: the host's AWS variables and secret
/// store.
#[napi(object)]
pub struct BucketOptions {
    /// The endpoint URL (`http://127.0.0.1:9000` for a local server).
    pub endpoint: Option<String>,
    /// The region.
    pub region: Option<String>,
    /// The access key id.
    pub access_key_id: Option<String>,
    /// The secret access key.
    pub secret_access_key: Option<String>,
    /// Allow a plain-HTTP endpoint.
    pub allow_http: Option<bool>,
}

fn config(o: Option<BucketOptions>) -> BucketConfig {
    let Some(o) = o else {
        return BucketConfig::default();
    };
    BucketConfig {
        endpoint: o.endpoint,
        region: o.region,
        access_key_id: o.access_key_id,
        secret_access_key: o.secret_access_key,
        allow_http: o.allow_http.unwrap_or(false),
        ..BucketConfig::default()
    }
}

/// A transfer's stats as JSON text, or its error with a `code`.
fn bucket_reply(out: computer_bucket::Result<BucketStats>) -> Reply {
    match out {
        Ok(s) => Reply {
            text: Some(
                serde_json::json!({
                    "transferred": s.transferred,
                    "bytes": s.bytes,
                    "unchanged": s.unchanged,
                    "deleted": s.deleted,
                    "skipped": s.skipped.iter().map(|p| p.to_string_lossy()).collect::<Vec<_>>(),
                })
                .to_string(),
            ),
            ..Reply::done()
        },
        Err(e) => bucket_error(e),
    }
}

/// A policy change's reply: the policy after it, as text.
fn policy_reply(out: computer::Result<computer::net::Policy>) -> Reply {
    match out {
        Ok(policy) => Reply {
            text: Some(policy.to_text()),
            ..Reply::done()
        },
        Err(e) => Reply::error(&e),
    }
}

#[napi]
impl Workspace {
    /// Runs `git ARGS` in `cwd` (a workspace directory): `status`, `stdout`, `stderr`.
    #[napi(ts_return_type = "Promise<Reply> | Reply")]
    pub fn git_run(
        &self,
        args: Vec<String>,
        cwd: Option<String>,
        env: Option<std::collections::HashMap<String, String>>,
        sync: Option<bool>,
    ) -> Call {
        let ws = self.ws.clone();
        let mut env: Vec<(String, String)> = env.unwrap_or_default().into_iter().collect();
        env.sort();
        let cwd = cwd.unwrap_or_else(|| "/workspace".into());
        Blocking::call(sync, move || match ws.git_run(&args, &cwd, &env) {
            Ok(out) => Reply {
                status: Some(out.status),
                stdout: Some(out.stdout.into()),
                stderr: Some(out.stderr.into()),
                ..Reply::done()
            },
            Err(e) => Reply::error(&e),
        })
    }

    /// Allows `rule` (`https://pypi.org`, `git://127.0.0.1:9418`, `all`...) for `methods`
    /// (all when none): the policy after, as text.
    #[napi]
    pub fn net_allow(&self, rule: String, methods: Option<Vec<String>>) -> Reply {
        policy_reply(self.ws.net_allow(&rule, &methods.unwrap_or_default()))
    }

    /// Refuses `rule` even where an allow rule covers it: the policy after, as text.
    #[napi]
    pub fn net_deny(&self, rule: String, methods: Option<Vec<String>>) -> Reply {
        policy_reply(self.ws.net_deny(&rule, &methods.unwrap_or_default()))
    }

    /// The policy as text: `all`, `allow RULE` and `deny RULE` lines (empty: nothing).
    #[napi]
    pub fn net_policy(&self) -> Reply {
        policy_reply(self.ws.net_policy())
    }

    /// Copies the objects under `url` (`s3://bucket/prefix`) into the folder `dest`, all or
    /// nothing: the stats as JSON.
    #[napi(ts_return_type = "Promise<Reply> | Reply")]
    pub fn import_bucket(
        &self,
        url: String,
        dest: String,
        store: Option<BucketOptions>,
        sync: Option<bool>,
    ) -> Call {
        let ws = self.ws.clone();
        let config = config(store);
        Blocking::call(sync, move || {
            let dest = ws.resolve(&dest);
            bucket_reply(computer_bucket::import_blocking(
                &ws,
                &url,
                &dest,
                &config,
                &mut |_| {},
            ))
        })
    }

    /// Uploads snapshot `name` (taken now if there is none) to `url` as content-addressed
    /// chunks, only those the bucket lacks: the counts as JSON.
    #[napi(ts_return_type = "Promise<Reply> | Reply")]
    pub fn push_snapshot(
        &self,
        name: String,
        url: String,
        store: Option<BucketOptions>,
        sync: Option<bool>,
    ) -> Call {
        let ws = self.ws.clone();
        let config = config(store);
        Blocking::call(sync, move || {
            match computer_bucket::push_blocking(&ws, &name, &url, &config) {
                Ok(s) => Reply {
                    text: Some(
                        serde_json::json!({
                            "entries": s.entries,
                            "chunks": s.chunks,
                            "chunksUploaded": s.chunks_uploaded,
                            "bytesUploaded": s.bytes_uploaded,
                        })
                        .to_string(),
                    ),
                    ..Reply::done()
                },
                Err(e) => bucket_error(e),
            }
        })
    }

    /// Writes a new workspace file at `path` rebuilt from snapshot `name` in `url` (index.js
    /// opens it).
    #[napi(ts_return_type = "Promise<Reply> | Reply")]
    pub fn pull_snapshot(
        name: String,
        url: String,
        path: String,
        store: Option<BucketOptions>,
        sync: Option<bool>,
    ) -> Call {
        let config = config(store);
        Blocking::call(sync, move || {
            match computer_bucket::pull_blocking(&name, &url, path.as_ref(), &config) {
                Ok(_) => Reply::done(),
                Err(e) => bucket_error(e),
            }
        })
    }

    /// Copies the folder `src` to `url`, uploading only what changed; with `delete`, objects
    /// under the prefix that `src` does not hold are removed: the stats as JSON.
    #[napi(ts_return_type = "Promise<Reply> | Reply")]
    pub fn export_bucket(
        &self,
        src: String,
        url: String,
        delete: Option<bool>,
        store: Option<BucketOptions>,
        sync: Option<bool>,
    ) -> Call {
        let ws = self.ws.clone();
        let config = config(store);
        Blocking::call(sync, move || {
            let src = ws.resolve(&src);
            bucket_reply(computer_bucket::export_blocking(
                &ws,
                &src,
                &url,
                delete.unwrap_or(false),
                &config,
                &mut |_| {},
            ))
        })
    }
}
