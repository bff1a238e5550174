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

/// A fixed table of names, for tests: names it does not hold do not resolve, or go to a
/// fallback resolver.
#[derive(Debug, Default, Clone)]
pub struct StaticResolver {
    names: HashMap<String, Vec<IpAddr>>,
    fallback: Option<std::sync::Arc<dyn Resolver>>,
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
        StaticResolver {
            names,
            fallback: None,
        }
    }

    /// Resolves the names the table does not hold with `fallback`.
    pub fn with_fallback(mut self, fallback: std::sync::Arc<dyn Resolver>) -> StaticResolver {
        self.fallback = Some(fallback);
        self
    }

    /// The table of `COMPUTER_NET_HOSTS` (`NAME=ADDRESS,...`), a host setting for tests: the
    /// addresses must be loopback ones (127.0.0.0/8), so a test name can never lead a request
    /// anywhere but this machine.
    pub fn from_hosts_setting(text: &str) -> Result<StaticResolver, String> {
        let mut entries = Vec::new();
        for entry in text.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            let (name, addr) = entry
                .split_once('=')
                .ok_or_else(|| format!("COMPUTER_NET_HOSTS: '{entry}' is not NAME=ADDRESS"))?;
            let ip: IpAddr = addr
                .trim()
                .parse()
                .map_err(|_| format!("COMPUTER_NET_HOSTS: '{addr}' is not an address"))?;
            if !matches!(ip, IpAddr::V4(v4) if v4.is_loopback()) {
                return Err(format!(
                    "COMPUTER_NET_HOSTS: {name} maps to {ip}; test names map to 127.0.0.x only"
                ));
            }
            entries.push((name.trim().to_string(), ip));
        }
        Ok(StaticResolver::new(
            entries.iter().map(|(n, ip)| (n.as_str(), *ip)),
        ))
    }
}

impl Resolver for StaticResolver {
    fn lookup(&self, host: &str) -> io::Result<Vec<IpAddr>> {
        match (self.names.get(host), &self.fallback) {
            (Some(ips), _) => Ok(ips.clone()),
            (None, Some(fallback)) => fallback.lookup(host),
            (None, None) => Err(io::Error::new(
                io::ErrorKind::NotFound,
                "not in the test resolver's table",
            )),
        }
    }
}
