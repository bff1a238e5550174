//! A bucket's requests under a workspace's network policy, and its credentials from the
//! host's secret store.
//!
//! Requests use path-style addressing, so every object of `s3://BUCKET/PREFIX` is a URL
//! under `ENDPOINT/BUCKET/PREFIX/`: that URL is what the policy decides (a rule such as
//! `allow https://s3.example.com/my-bucket`). The endpoint's name is resolved and checked on
//! the host, and the store connects to the checked addresses only.

use std::net::IpAddr;
use std::sync::Arc;

use computer::Workspace;
use computer::net::{NetError, Secrets};
use object_store::aws::AmazonS3ConfigKey;
use object_store::client::{DnsFuture, DnsResolver};
use percent_encoding::{AsciiSet, CONTROLS, utf8_percent_encode};

use crate::error::{BucketError, Result};
use crate::{BucketConfig, BucketUrl};

/// What a key's segment has encoded in the URL a rule is matched against: what would end
/// the path (`?`, `#`), split it (`\`, which a URL parser takes for `/`) or be read as an
/// escape (`%`), and what the URL parser encodes itself (so a rule written with the same
/// characters reads the same).
const SEGMENT: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'[')
    .add(b'\\')
    .add(b']')
    .add(b'^')
    .add(b'`')
    .add(b'{')
    .add(b'|')
    .add(b'}');

/// The secret names a bucket's credentials are kept under (`computer secret set
/// AWS_SECRET_ACCESS_KEY --host s3.example.com`).
pub const ACCESS_KEY_SECRET: &str = "AWS_ACCESS_KEY_ID";
/// See [`ACCESS_KEY_SECRET`].
pub const SECRET_KEY_SECRET: &str = "AWS_SECRET_ACCESS_KEY";

impl BucketConfig {
    /// The URL the store's requests for `url`'s prefix fall under: `ENDPOINT/BUCKET/PREFIX/`
    /// (the endpoint of this config, else of the host's AWS variables, else AWS's own for the
    /// region).
    pub fn request_url(&self, url: &BucketUrl) -> String {
        let builder = crate::builder(url, self);
        let endpoint = builder
            .get_config_value(&AmazonS3ConfigKey::S3Endpoint)
            .or_else(|| builder.get_config_value(&AmazonS3ConfigKey::Endpoint))
            .unwrap_or_else(|| {
                let region = builder
                    .get_config_value(&AmazonS3ConfigKey::Region)
                    .unwrap_or_else(|| "us-east-1".to_string());
                format!("https://s3.{region}.amazonaws.com")
            });
        // Each segment encoded whole: a `#`, `?` or `%` in a key is part of its segment, as
        // in the store's own requests, never a fragment or query that a rule would not see.
        let prefix: String = url
            .prefix
            .split('/')
            .filter(|s| !s.is_empty())
            .map(|s| format!("{}/", utf8_percent_encode(s, SEGMENT)))
            .collect();
        format!("{}/{}/{prefix}", endpoint.trim_end_matches('/'), url.bucket)
    }

    /// Takes the bucket's credentials from `secrets` when they hold both
    /// `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY`, bound to the endpoint's host (they
    /// sign the requests, so an http endpoint gets them too: the key itself never travels).
    /// Without them, the host's AWS variables stay in use. Refused when they are kept but
    /// bound elsewhere.
    pub fn with_secrets(mut self, url: &BucketUrl, secrets: &Secrets) -> Result<BucketConfig> {
        let known = |name: &str| secrets.list().iter().any(|s| s.name() == name);
        if !known(ACCESS_KEY_SECRET) && !known(SECRET_KEY_SECRET) {
            return Ok(self);
        }
        let target = self.request_url(url);
        let value = |name: &str| {
            secrets.signing_value(name, &target).ok_or_else(|| {
                BucketError::Refused(format!(
                    "{url}: the secret store's {name} is {} (`computer secret set {name} --host \
                     HOST` binds it)",
                    if known(name) {
                        format!("not bound to the bucket's endpoint ({target})")
                    } else {
                        "missing, beside the other key".to_string()
                    }
                ))
            })
        };
        self.access_key_id = Some(value(ACCESS_KEY_SECRET)?.to_string());
        self.secret_access_key = Some(value(SECRET_KEY_SECRET)?.to_string());
        Ok(self)
    }

    /// Holds the store's requests for `url` to `workspace`'s network policy: each of
    /// `methods` on [`BucketConfig::request_url`] is checked (an audit row of origin
    /// `bucket`), and the endpoint's name then resolves to the checked addresses only.
    /// Refused, nothing is sent.
    pub fn held_by(
        mut self,
        url: &BucketUrl,
        workspace: &Workspace,
        methods: &[&str],
    ) -> Result<BucketConfig> {
        let target = self.request_url(url);
        let mut allowed = None;
        for method in methods {
            let checked = workspace
                .net_check(method, &target, "bucket")
                .map_err(|e| match e {
                    computer::Error::Net(NetError::Refused { .. } | NetError::BadUrl { .. }) => {
                        BucketError::Refused(e.to_string())
                    }
                    other => BucketError::Core(other),
                })?;
            allowed = Some(checked);
        }
        let Some(allowed) = allowed else {
            return Err(BucketError::Refused(format!("{url}: no method to check")));
        };
        self.resolver = Some(Arc::new(Pinned {
            host: allowed.host,
            ips: allowed.addrs.iter().map(|a| a.ip()).collect(),
        }));
        Ok(self)
    }
}

/// Answers the checked endpoint's name with the checked addresses; any other name (the
/// host's own credential services, never a caller's choice) as the system does.
#[derive(Debug)]
struct Pinned {
    host: String,
    ips: Vec<IpAddr>,
}

impl DnsResolver for Pinned {
    fn resolve(&self, host: &str) -> DnsFuture {
        if host.trim_end_matches('.').eq_ignore_ascii_case(&self.host) {
            let ips = self.ips.clone();
            return Box::pin(async move { Ok(ips) });
        }
        let host = host.to_string();
        Box::pin(async move {
            let found = tokio::task::spawn_blocking(move || {
                use std::net::ToSocketAddrs;
                (host.as_str(), 0)
                    .to_socket_addrs()
                    .map(|addrs| addrs.map(|a| a.ip()).collect::<Vec<_>>())
            })
            .await??;
            Ok(found)
        })
    }
}
