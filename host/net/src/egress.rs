//! The check every request of a guest passes before it leaves the host: the workspace's
//! policy, the resolution of the host's name, the restricted ranges, and a row in the audit
//! log whatever the answer.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use computer_vfs::{AuditEntry, Vfs};

use crate::address::{is_metadata_class, restricted_range};
use crate::error::NetError;
use crate::policy::{Policy, Target, TargetHost, default_port, normal_name};
use crate::resolve::{Resolver, SystemResolver};
use crate::secrets::Secrets;

/// The workspace setting that holds the policy's text.
pub const POLICY_SETTING: &str = "net.policy";

/// The workspace's policy (the default, refusing everything, when none was set).
pub fn load_policy(vfs: &Vfs) -> Result<Policy, NetError> {
    match vfs.setting(POLICY_SETTING)? {
        Some(text) => Policy::from_text(&text),
        None => Ok(Policy::default()),
    }
}

/// Stores `policy` as the workspace's.
pub fn save_policy(vfs: &Vfs, policy: &Policy) -> Result<(), NetError> {
    let text = policy.to_text();
    vfs.set_setting(POLICY_SETTING, (!text.is_empty()).then_some(text.as_str()))?;
    Ok(())
}

/// A request the policy allowed: where to connect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Allowed {
    /// The host as the URL names it (lower case; an address without brackets).
    pub host: String,
    /// The checked addresses, with the request's port: connect to these only.
    pub addrs: Vec<SocketAddr>,
}

impl Allowed {
    /// The addresses, as an audit row lists them.
    fn addresses(&self) -> String {
        self.addrs
            .iter()
            .map(SocketAddr::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// What a proxy does with a `CONNECT` the policy allows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConnectPlan {
    /// Pass the bytes through, untouched, to these addresses.
    Tunnel(Allowed),
    /// End TLS at the proxy and send each request inside through [`Egress::send`]: a secret
    /// is bound to the host, or a rule limits its paths or methods (which only the requests
    /// themselves show).
    Intercept,
}

/// The egress check of one workspace. It holds the workspace weakly (a git handle or a run
/// that keeps one must not keep the workspace open): once the workspace is dropped, it
/// refuses everything.
#[derive(Debug, Clone)]
pub struct Egress {
    vfs: std::sync::Weak<Vfs>,
    resolver: Arc<dyn Resolver>,
    origin: String,
    /// A PEM file of extra trusted roots, read at the first https request (not at every
    /// command's start), shared by the clones.
    ca_file: Option<Arc<CaFile>>,
    /// What the host adds to requests on the way out.
    secrets: Secrets,
}

/// `COMPUTER_CA_FILE` and, once read, its certificates or why they could not be read.
#[derive(Debug)]
struct CaFile {
    path: std::path::PathBuf,
    roots: std::sync::OnceLock<Result<Vec<rustls::pki_types::CertificateDer<'static>>, String>>,
}

impl Egress {
    /// The check of `vfs`'s policy, resolving names with the system's resolver; audit rows
    /// name `origin` (`git`, `isolate`, ...) as the requester.
    pub fn new(vfs: Arc<Vfs>, origin: &str) -> Egress {
        Egress {
            vfs: Arc::downgrade(&vfs),
            resolver: Arc::new(SystemResolver),
            origin: origin.to_string(),
            ca_file: None,
            secrets: Secrets::default(),
        }
    }

    /// Adds `secrets` to the requests it sends ([`Egress::send`]) where they are bound, and
    /// redacts their values from its audit rows and errors.
    pub fn with_secrets(mut self, secrets: Secrets) -> Egress {
        self.secrets = secrets;
        self
    }

    /// The secrets it adds.
    pub fn secrets(&self) -> &Secrets {
        &self.secrets
    }

    /// Resolves names with `resolver` instead (tests map their host names to 127.0.0.x).
    pub fn with_resolver(mut self, resolver: Arc<dyn Resolver>) -> Egress {
        self.resolver = resolver;
        self
    }

    /// Trusts the certificates of the PEM file `path` for https beside the system's roots (a
    /// host setting: `COMPUTER_CA_FILE`, shared with git; a TLS server on loopback in tests).
    /// The file is read at the first https request; one that cannot be read fails every
    /// https request with a message naming it.
    pub fn with_ca_file(mut self, path: impl Into<std::path::PathBuf>) -> Egress {
        self.ca_file = Some(Arc::new(CaFile {
            path: path.into(),
            roots: std::sync::OnceLock::new(),
        }));
        self
    }

    /// The extra trusted roots, read on first use.
    pub(crate) fn extra_roots(
        &self,
    ) -> Result<&[rustls::pki_types::CertificateDer<'static>], String> {
        use rustls::pki_types::CertificateDer;
        use rustls::pki_types::pem::PemObject;
        let Some(ca) = &self.ca_file else {
            return Ok(&[]);
        };
        let read = ca.roots.get_or_init(|| {
            let shown = ca.path.display();
            let pem = std::fs::read(&ca.path).map_err(|e| format!("CA file {shown}: {e}"))?;
            let certs = CertificateDer::pem_slice_iter(&pem)
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| format!("CA file {shown}: {e}"))?;
            if certs.is_empty() {
                return Err(format!("CA file {shown}: no certificate in it"));
            }
            Ok(certs)
        });
        read.as_deref()
            .map_err(|e| format!("network: {e} (COMPUTER_CA_FILE)"))
    }

    /// Checks a `method` request to `url`: allowed, it gives the addresses to connect to;
    /// refused, why. Either way the audit log gets a row.
    pub fn check(&self, method: &str, url: &str) -> Result<Allowed, NetError> {
        let started = Instant::now();
        let decision = self.decide_method_url(method, url);
        let (summary, error) = match &decision {
            Ok(allowed) => (format!("allowed: {}", allowed.addresses()), None),
            Err(e) => ("refused".to_string(), Some(e.to_string())),
        };
        self.audit(method, url, started, summary, error);
        decision
    }

    /// Decides a proxy's `CONNECT host:port` (TLS to come): refused, tunnelled to checked
    /// addresses, or ended at the proxy ([`ConnectPlan`]). The audit log gets a row.
    pub fn connect(&self, host: &str, port: u16) -> Result<ConnectPlan, NetError> {
        let started = Instant::now();
        let shown_host = match host.parse::<IpAddr>() {
            Ok(IpAddr::V6(ip)) => format!("[{ip}]"),
            _ => host.to_string(),
        };
        let url = format!("https://{shown_host}:{port}/");
        let decision = self.plan_connect(&url);
        let (summary, error) = match &decision {
            Ok(ConnectPlan::Intercept) => ("intercepted: TLS ended at the proxy".to_string(), None),
            Ok(ConnectPlan::Tunnel(allowed)) => {
                (format!("tunnelled: {}", allowed.addresses()), None)
            }
            Err(e) => ("refused".to_string(), Some(e.to_string())),
        };
        self.audit("CONNECT", &url, started, summary, error);
        decision
    }

    fn plan_connect(&self, url: &str) -> Result<ConnectPlan, NetError> {
        let target = target("GET", url, url)?;
        let vfs = self
            .vfs
            .upgrade()
            .ok_or(computer_vfs::VfsError::Invalid("the workspace was closed"))?;
        let policy = load_policy(&vfs)?;
        // Whether a rule is about this host and port, whatever the path and method.
        let about = |rule: &crate::policy::Rule| {
            let mut any = rule.clone();
            any.path = None;
            any.methods.clear();
            any.matches(&target)
        };
        let narrow = |rule: &crate::policy::Rule| rule.path.is_some() || !rule.methods.is_empty();
        let limited = policy
            .allow
            .iter()
            .chain(&policy.deny)
            .any(|r| about(r) && narrow(r));
        if limited || self.secrets.any_bound(url) {
            if !policy.all && !policy.allow.iter().any(about) {
                // Refused as a request to the host would be.
                self.decide("GET", url, url)?;
            }
            return Ok(ConnectPlan::Intercept);
        }
        // No rule looks past the host: any request there is decided as this one.
        Ok(ConnectPlan::Tunnel(self.decide("CONNECT", url, url)?))
    }

    /// The policy's decision on a request, without its audit row.
    pub(crate) fn decide_method_url(&self, method: &str, url: &str) -> Result<Allowed, NetError> {
        let method = method.to_ascii_uppercase();
        self.decide(&method, url, &redacted(url))
    }

    /// Appends a row for a request to the audit log.
    pub(crate) fn audit(
        &self,
        method: &str,
        url: &str,
        started: Instant,
        summary: String,
        error: Option<String>,
    ) {
        let elapsed = started.elapsed();
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.saturating_sub(elapsed).as_nanos());
        let nanos = |n: u128| i64::try_from(n).unwrap_or(i64::MAX);
        // A read-only workspace keeps no log; the decision stands without its row.
        let Some(vfs) = self.vfs.upgrade() else {
            return;
        };
        let _ = vfs.record_audit(&AuditEntry {
            id: 0,
            started: nanos(now),
            duration: nanos(elapsed.as_nanos()),
            origin: self.origin.clone(),
            tool: "net".to_string(),
            args:
                serde_json::json!({ "method": method.to_ascii_uppercase(), "url": redacted(url) })
                    .to_string(),
            summary: self.secrets.redact(&summary),
            error: error.map(|e| self.secrets.redact(&e)),
        });
    }

    fn decide(&self, method: &str, url: &str, shown: &str) -> Result<Allowed, NetError> {
        let refused = |why: String| NetError::Refused {
            method: method.to_string(),
            url: shown.to_string(),
            why,
        };
        let target = target(method, url, shown)?;
        let vfs = self
            .vfs
            .upgrade()
            .ok_or(computer_vfs::VfsError::Invalid("the workspace was closed"))?;
        let policy = load_policy(&vfs)?;
        if let Some(rule) = policy.deny.iter().find(|r| r.matches(&target)) {
            return Err(refused(format!(
                "the workspace's network policy denies {rule}"
            )));
        }
        let matching = policy.allow.iter().filter(|r| r.matches(&target));
        let explicit = matching.clone().any(|r| r.is_explicit());
        let by_address = matching
            .clone()
            .any(|r| matches!(r.host, crate::policy::HostPattern::Ip(_)));
        if matching.count() == 0 && !policy.all {
            return Err(refused(if policy.is_none() {
                "the workspace's network policy allows nothing (`computer net allow URL` opens a host)".to_string()
            } else {
                "no rule of the workspace's network policy allows it (`computer net show` lists them)".to_string()
            }));
        }
        let host = target.host.text();
        let ips: Vec<IpAddr> = match &target.host {
            TargetHost::Ip(ip) => vec![*ip],
            TargetHost::Name(name) => {
                let ips = self.resolver.lookup(name).map_err(|e| NetError::Resolve {
                    host: name.clone(),
                    why: e.to_string(),
                })?;
                if ips.is_empty() {
                    return Err(NetError::Resolve {
                        host: name.clone(),
                        why: "no address".into(),
                    });
                }
                ips
            }
        };
        if explicit && !by_address {
            // A name's owner decides where it points: a rule naming it opens private and
            // loopback addresses, but the metadata services only to a rule naming the address.
            if let Some(ip) = ips.iter().find(|ip| is_metadata_class(**ip)) {
                return Err(refused(format!(
                    "{host} is {ip}, a cloud metadata address, which only a rule naming {ip} itself opens"
                )));
            }
        }
        if !explicit {
            // One restricted address refuses the name: the connection could pick any of them.
            if let Some((ip, range)) = ips
                .iter()
                .find_map(|ip| restricted_range(*ip).map(|r| (ip, r)))
            {
                return Err(refused(format!(
                    "{host} is {ip}, in {range}, which only a rule naming {host} itself opens"
                )));
            }
        }
        Ok(Allowed {
            host,
            addrs: ips
                .into_iter()
                .map(|ip| SocketAddr::new(ip, target.port))
                .collect(),
        })
    }
}

/// The parts of `url` a rule looks at, any method; `None` when it is not a URL the policy
/// knows.
pub(crate) fn target_of(url: &str) -> Option<Target> {
    target("GET", url, url).ok()
}

/// The parts of `url` a rule looks at.
fn target(method: &str, url: &str, shown: &str) -> Result<Target, NetError> {
    let bad = |why: &str| NetError::BadUrl {
        url: shown.to_string(),
        why: why.to_string(),
    };
    if !method.bytes().all(|b| b.is_ascii_alphabetic() || b == b'-') || method.is_empty() {
        return Err(bad("not a method"));
    }
    let parsed = url::Url::parse(url).map_err(|e| bad(&e.to_string()))?;
    let scheme = parsed.scheme().to_string();
    let port = default_port(&scheme)
        .map(|default| parsed.port().unwrap_or(default))
        .ok_or_else(|| bad("only http, https and git URLs reach the network"))?;
    let host = match parsed.host() {
        Some(url::Host::Domain(name)) => {
            // A git:// URL's host is not parsed as an address by the URL parser.
            match name.parse::<IpAddr>() {
                Ok(ip) => TargetHost::Ip(ip),
                Err(_) => TargetHost::Name(normal_name(name)),
            }
        }
        Some(url::Host::Ipv4(ip)) => TargetHost::Ip(IpAddr::V4(ip)),
        Some(url::Host::Ipv6(ip)) => TargetHost::Ip(IpAddr::V6(ip)),
        None => return Err(bad("no host")),
    };
    Ok(Target {
        scheme,
        host,
        port,
        path: parsed.path().to_string(),
        method: method.to_string(),
    })
}

/// `url` as logs and messages show it: no user or password, and the query's values hidden.
pub fn redacted(url: &str) -> String {
    let Ok(mut parsed) = url::Url::parse(url) else {
        // Not a URL: cut at the first character that could start credentials or a query.
        let cut = url.find(['@', '?', '#']).unwrap_or(url.len());
        return format!("{}{}", &url[..cut], if cut < url.len() { "…" } else { "" });
    };
    let _ = parsed.set_username("");
    let _ = parsed.set_password(None);
    if parsed.query().is_some() {
        let keys: Vec<String> = parsed.query_pairs().map(|(k, _)| k.into_owned()).collect();
        let mut hidden = parsed.query_pairs_mut();
        hidden.clear();
        for key in keys {
            hidden.append_pair(&key, "…");
        }
        drop(hidden);
    }
    parsed.set_fragment(None);
    parsed.to_string()
}

/// A reqwest resolver that answers only for the checked host, with the checked addresses: a
/// client built with it cannot be led to another address by a second lookup.
#[derive(Debug, Clone)]
pub struct PinnedResolver {
    allowed: Allowed,
}

impl PinnedResolver {
    /// Pins `allowed.host` to `allowed.addrs`.
    pub fn new(allowed: Allowed) -> PinnedResolver {
        PinnedResolver { allowed }
    }
}

impl reqwest::dns::Resolve for PinnedResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let result = if normal_name(name.as_str()) == self.allowed.host {
            let addrs: reqwest::dns::Addrs = Box::new(self.allowed.addrs.clone().into_iter());
            Ok(addrs)
        } else {
            Err(format!(
                "network: {} was not checked by the workspace's network policy",
                name.as_str()
            )
            .into())
        };
        Box::pin(std::future::ready(result))
    }
}
