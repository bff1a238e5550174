//! Name resolution on the host: the system's, or a fixed table the tests give.

use std::collections::HashMap;
use std::io;
use std::net::{IpAddr, ToSocketAddrs};

/// Resolves host names to addresses. Every address it returns is checked against the policy,
/// and the connection goes to one of those checked addresses, never to a second lookup's.
pub trait Resolver: Send + Sync + std::fmt::Debug {
    /// The addresses of `host`.
    fn lookup(&self, host: &str) -> io::Result<Vec<IpAddr>>;
}

/// The host's own resolver (`getaddrinfo`).
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemResolver;

impl Resolver for SystemResolver {
    fn lookup(&self, host: &str) -> io::Result<Vec<IpAddr>> {
        Ok((host, 0).to_socket_addrs()?.map(|a| a.ip()).collect())
    }
}

/// A fixed table of names, for tests: names it does not hold do not resolve.
#[derive(Debug, Default, Clone)]
pub struct StaticResolver {
    names: HashMap<String, Vec<IpAddr>>,
}

impl StaticResolver {
    /// A table of `(name, address)` pairs; a name given twice has both addresses.
    pub fn new<'a>(entries: impl IntoIterator<Item = (&'a str, IpAddr)>) -> StaticResolver {
        let mut names: HashMap<String, Vec<IpAddr>> = HashMap::new();
        for (name, ip) in entries {
            names
                .entry(crate::policy::normal_name(name))
                .or_default()
                .push(ip);
        }
        StaticResolver { names }
    }
}

impl Resolver for StaticResolver {
    fn lookup(&self, host: &str) -> io::Result<Vec<IpAddr>> {
        self.names.get(host).cloned().ok_or_else(|| {
            io::Error::new(io::ErrorKind::NotFound, "not in the test resolver's table")
        })
    }
}
