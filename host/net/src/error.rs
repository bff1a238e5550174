//! What can go wrong on the way out.

/// An error of the egress layer. Every refusal says why, in words a guest's user can act on.
#[derive(Debug, thiserror::Error)]
pub enum NetError {
    /// A rule that does not parse.
    #[error("network policy: {0}")]
    BadRule(String),
    /// A URL that does not parse, or of a scheme the policy does not know.
    #[error("network: bad URL '{url}': {why}")]
    BadUrl {
        /// The URL, as the audit log shows it.
        url: String,
        /// What is wrong.
        why: String,
    },
    /// The policy refuses the request.
    #[error("network: {method} {url} refused: {why}")]
    Refused {
        /// The method.
        method: String,
        /// The URL, as the audit log shows it.
        url: String,
        /// Which rule or range refused it.
        why: String,
    },
    /// The host's name did not resolve.
    #[error("network: could not resolve host {host}: {why}")]
    Resolve {
        /// The name.
        host: String,
        /// The resolver's error.
        why: String,
    },
    /// A secret, or the secret store, is not right.
    #[error("{0}")]
    Secrets(String),
    /// The egress proxy of a container could not do its part.
    #[error("network proxy: {0}")]
    Proxy(String),
    /// The workspace could not be read or written.
    #[error("network policy: {0}")]
    Store(#[from] computer_vfs::VfsError),
}
