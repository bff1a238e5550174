//! Network egress of a workspace: the policy a guest's requests meet on the host.
//!
//! A policy ([`Policy`]) is stored in the workspace file (a fork takes it along; a workspace
//! made from a bucket or a folder starts with none): nothing allowed (the default), a list of
//! allow rules (`https://docs.example.com`, `https://*.example.com:8443/api GET,POST`), or
//! everything public. Deny rules narrow it. Loopback, private, link-local and the other
//! non-public ranges ([`restricted_range`]) are refused whatever the policy says, unless an
//! allow rule names the host itself; the cloud metadata addresses ([`is_metadata_class`])
//! only to a rule naming the address (a name's owner can point it anywhere).
//!
//! [`Egress::check`] decides one request: it resolves the host's name on the host, checks
//! every address, and gives the addresses to connect to (a [`PinnedResolver`] keeps an HTTP
//! client to them), so a name that resolves differently the second time (DNS rebinding)
//! reaches nothing new. Every decision is a row of the workspace's audit log (`tool` = `net`),
//! with the URL's credentials and query values left out.
//!
//! [`Egress::send`] sends a guest's HTTP request through that check: every redirect is
//! checked again, the body is read under a size limit, and each hop is an audit row with its
//! status and size.
//!
//! [`Secrets`] (kept by the host in a [`SecretStore`], never in a workspace) are added on
//! the way out: a guest holds only placeholders (`computer-secret:NAME`), which the host
//! replaces in the headers of https requests to the hosts a secret is bound to, and refuses
//! anywhere else. Values are redacted from audit rows and errors.
//!
//! A container reaches the network through a [`Proxy`] the host serves inside the
//! container's network namespace: plain requests and the requests inside TLS it ends (for
//! hosts with a secret bound, or with rules on paths or methods, with a certificate of the
//! container's own [`ProxyCa`]) are checked by [`Egress::prepare`] and sent with their bodies
//! streamed both ways ([`Prepared::send`]); other `CONNECT`s are decided by
//! [`Egress::connect`] and tunnelled to the checked addresses.

mod address;
mod ca;
mod client;
mod egress;
mod error;
mod http1;
mod policy;
mod proxy;
mod resolve;
mod secret_store;
mod secrets;
mod tls;

pub use address::{is_metadata_class, restricted_range};
pub use ca::{MAX_PROXY_HOSTS, ProxyCa};
pub use client::{
    DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_REQUEST_TIMEOUT, Head, Incoming, MAX_REQUEST_BYTES,
    MAX_REQUEST_HEADERS, Prepared, Request, Response, SendError, StreamBody,
};
pub use egress::{
    Allowed, ConnectPlan, Egress, POLICY_SETTING, PinnedResolver, load_policy, redacted,
    save_policy,
};
pub use error::NetError;
pub use http1::PROXY_MAX_HEAD_BYTES;
pub use policy::{
    HostPattern, MAX_RULES, Policy, PortRule, Rule, SCHEMES, Target, TargetHost, default_port,
};
pub use proxy::{
    EgressSlot, PROXY_IDLE_TIMEOUT, PROXY_MAX_BODY_BYTES, PROXY_MAX_CONNECTIONS,
    PROXY_REQUEST_TIMEOUT, Proxy, ProxyServer,
};
pub use resolve::{Resolver, StaticResolver, SystemResolver};
pub use secret_store::SecretStore;
pub use secrets::{
    MAX_SECRET_BYTES, MAX_SECRET_HOSTS, MAX_SECRET_NAME, MAX_SECRETS, MIN_SECRET_BYTES,
    PLACEHOLDER_PREFIX, Secret, Secrets,
};
