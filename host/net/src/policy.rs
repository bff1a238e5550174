//! The policy: rules and what they allow. Its text form (one rule per line) is what the
//! workspace stores and what `computer net show` prints.

use std::fmt;
use std::net::IpAddr;

use crate::error::NetError;

/// The schemes a rule may name: the ones a guest's requests use.
pub const SCHEMES: &[&str] = &["http", "https", "git"];

/// The most rules a policy holds.
pub const MAX_RULES: usize = 1000;

/// A workspace's egress policy. The default refuses everything.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Policy {
    /// Every public address is allowed (private ranges still need a rule naming the host).
    pub all: bool,
    /// What is allowed.
    pub allow: Vec<Rule>,
    /// What is refused even when an allow rule or `all` covers it.
    pub deny: Vec<Rule>,
}

/// The host part of a rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostPattern {
    /// One host name (lower case, no trailing dot).
    Name(String),
    /// Every subdomain of a name, at any depth (`*.example.com`), not the name itself.
    Subdomains(String),
    /// One address.
    Ip(IpAddr),
}

/// One rule: `SCHEME://HOST[:PORT][/PATH]` and, optionally, the methods it allows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// `http`, `https` or `git`.
    pub scheme: String,
    /// The host or hosts.
    pub host: HostPattern,
    /// The port or ports.
    pub port: PortRule,
    /// A path prefix, matched at `/` boundaries (`/api` matches `/api` and `/api/x`, not
    /// `/apix`); `None` matches every path.
    pub path: Option<String>,
    /// Upper-case methods; empty: any.
    pub methods: Vec<String>,
}

/// Which ports a rule covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PortRule {
    /// The scheme's default port (a rule written without a port).
    Default,
    /// Any port (`:*`).
    Any,
    /// This port.
    Port(u16),
}

/// What a request is: the parts a rule is matched against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The scheme, lower case.
    pub scheme: String,
    /// The host as the URL names it (a lower-case name, or an address).
    pub host: TargetHost,
    /// The port (the scheme's default when the URL gives none).
    pub port: u16,
    /// The path, normalised by the URL parser (`..` resolved).
    pub path: String,
    /// The method, upper case.
    pub method: String,
}

/// The host of a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TargetHost {
    /// A name, to be resolved.
    Name(String),
    /// An address.
    Ip(IpAddr),
}

impl TargetHost {
    /// The host as text (an IPv6 address without brackets).
    pub fn text(&self) -> String {
        match self {
            TargetHost::Name(name) => name.clone(),
            TargetHost::Ip(ip) => ip.to_string(),
        }
    }
}

/// The default port of a scheme.
pub fn default_port(scheme: &str) -> Option<u16> {
    match scheme {
        "http" => Some(80),
        "https" => Some(443),
        "git" => Some(9418),
        _ => None,
    }
}

/// A host name as rules and requests compare it: lower case, without a trailing dot.
pub(crate) fn normal_name(name: &str) -> String {
    name.trim_end_matches('.').to_ascii_lowercase()
}

impl Rule {
    /// Parses `SCHEME://HOST[:PORT][/PATH]` (`HOST` may be `*.NAME` or an address, `PORT`
    /// may be `*`) and a list of methods (empty: any).
    pub fn parse(text: &str, methods: &[String]) -> Result<Rule, NetError> {
        let bad = |why: &str| NetError::BadRule(format!("'{text}': {why}"));
        let (scheme, rest) = text
            .split_once("://")
            .ok_or_else(|| bad("expected SCHEME://HOST[:PORT][/PATH]"))?;
        let scheme = scheme.to_ascii_lowercase();
        if !SCHEMES.contains(&scheme.as_str()) {
            return Err(bad(&format!(
                "the scheme must be one of {}",
                SCHEMES.join(", ")
            )));
        }
        if rest.contains(['?', '#', '@']) {
            return Err(bad("a rule has no user, query or fragment"));
        }
        let (authority, path) = match rest.find('/') {
            Some(at) => (&rest[..at], Some(&rest[at..])),
            None => (rest, None),
        };
        let (host, port) = split_port(authority).map_err(&bad)?;
        let port = match port {
            None => PortRule::Default,
            Some("*") => PortRule::Any,
            Some(p) => PortRule::Port(
                p.parse::<u16>()
                    .ok()
                    .filter(|p| *p != 0)
                    .ok_or_else(|| bad("the port must be 1-65535 or *"))?,
            ),
        };
        let host = if let Some(name) = host.strip_prefix("*.") {
            HostPattern::Subdomains(valid_name(name).map_err(&bad)?)
        } else if let Some(ip) = host
            .strip_prefix('[')
            .and_then(|h| h.strip_suffix(']'))
            .map(|h| h.parse::<IpAddr>())
        {
            HostPattern::Ip(ip.map_err(|_| bad("not an IPv6 address in [ ]"))?)
        } else if let Ok(ip) = host.parse::<std::net::Ipv4Addr>() {
            HostPattern::Ip(IpAddr::V4(ip))
        } else {
            HostPattern::Name(valid_name(host).map_err(&bad)?)
        };
        let path = match path {
            None | Some("/") => None,
            Some(p) => {
                // Compared with URLs as the URL parser normalises them.
                let parsed =
                    url::Url::parse(&format!("http://x{p}")).map_err(|_| bad("bad path"))?;
                Some(parsed.path().to_string())
            }
        };
        let mut list = Vec::new();
        for method in methods.iter().flat_map(|m| m.split(',')) {
            let method = method.trim().to_ascii_uppercase();
            if method.is_empty() {
                continue;
            }
            if !method.bytes().all(|b| b.is_ascii_alphabetic() || b == b'-') {
                return Err(bad(&format!("'{method}' is not a method")));
            }
            if !list.contains(&method) {
                list.push(method);
            }
        }
        Ok(Rule {
            scheme,
            host,
            port,
            path,
            methods: list,
        })
    }

    /// Whether the rule covers `target`.
    pub fn matches(&self, target: &Target) -> bool {
        if self.scheme != target.scheme {
            return false;
        }
        let host = match (&self.host, &target.host) {
            (HostPattern::Name(n), TargetHost::Name(t)) => n == t,
            (HostPattern::Subdomains(n), TargetHost::Name(t)) => t
                .strip_suffix(n.as_str())
                .is_some_and(|head| head.len() > 1 && head.ends_with('.')),
            (HostPattern::Ip(ip), TargetHost::Ip(t)) => same_ip(*ip, *t),
            _ => false,
        };
        let port = match self.port {
            PortRule::Default => default_port(&self.scheme) == Some(target.port),
            PortRule::Any => true,
            PortRule::Port(p) => p == target.port,
        };
        let path = match &self.path {
            None => true,
            Some(prefix) if prefix.ends_with('/') => target.path.starts_with(prefix.as_str()),
            Some(prefix) => target
                .path
                .strip_prefix(prefix.as_str())
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('/')),
        };
        let method = self.methods.is_empty() || self.methods.contains(&target.method);
        host && port && path && method
    }

    /// Whether the rule names one host exactly (a name or an address, not a wildcard): only
    /// such a rule opens private, loopback and link-local addresses.
    pub fn is_explicit(&self) -> bool {
        !matches!(self.host, HostPattern::Subdomains(_))
    }
}

/// Addresses compare as the same host also across IPv4 and IPv4-mapped IPv6.
fn same_ip(a: IpAddr, b: IpAddr) -> bool {
    a.to_canonical() == b.to_canonical()
}

fn split_port(authority: &str) -> Result<(&str, Option<&str>), &'static str> {
    if authority.starts_with('[') {
        let end = authority.find(']').ok_or("an IPv6 address needs its ]")?;
        let rest = &authority[end + 1..];
        return match rest.strip_prefix(':') {
            Some(port) => Ok((&authority[..=end], Some(port))),
            None if rest.is_empty() => Ok((authority, None)),
            None => Err("unexpected text after the address"),
        };
    }
    Ok(match authority.rsplit_once(':') {
        Some((host, port)) => (host, Some(port)),
        None => (authority, None),
    })
}

fn valid_name(name: &str) -> Result<String, &'static str> {
    let name = normal_name(name);
    let ok = !name.is_empty()
        && name.len() <= 253
        && name.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        });
    if ok {
        Ok(name)
    } else {
        Err(
            "not a host name (letters, digits, - and _ in dot-separated labels; *.NAME for subdomains)",
        )
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}://", self.scheme)?;
        match &self.host {
            HostPattern::Name(n) => write!(f, "{n}")?,
            HostPattern::Subdomains(n) => write!(f, "*.{n}")?,
            HostPattern::Ip(IpAddr::V6(ip)) => write!(f, "[{ip}]")?,
            HostPattern::Ip(ip) => write!(f, "{ip}")?,
        }
        match self.port {
            PortRule::Default => {}
            PortRule::Any => write!(f, ":*")?,
            PortRule::Port(p) => write!(f, ":{p}")?,
        }
        if let Some(path) = &self.path {
            write!(f, "{path}")?;
        }
        if !self.methods.is_empty() {
            write!(f, " {}", self.methods.join(","))?;
        }
        Ok(())
    }
}

impl Policy {
    /// The policy's text form: `all` on a line if set, then `allow RULE` and `deny RULE` lines.
    /// An empty text is the default policy (nothing allowed).
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        if self.all {
            out.push_str("all\n");
        }
        for rule in &self.allow {
            out.push_str(&format!("allow {rule}\n"));
        }
        for rule in &self.deny {
            out.push_str(&format!("deny {rule}\n"));
        }
        out
    }

    /// Reads the text form written by [`Policy::to_text`].
    pub fn from_text(text: &str) -> Result<Policy, NetError> {
        let mut policy = Policy::default();
        for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
            if line == "all" {
                policy.all = true;
                continue;
            }
            let (kind, rest) = line
                .split_once(' ')
                .ok_or_else(|| NetError::BadRule(format!("'{line}': expected allow or deny")))?;
            let (rule, methods) = match rest.trim().split_once(' ') {
                Some((rule, methods)) => (rule, vec![methods.to_string()]),
                None => (rest.trim(), Vec::new()),
            };
            let rule = Rule::parse(rule, &methods)?;
            policy.check_room()?;
            match kind {
                "allow" => policy.allow.push(rule),
                "deny" => policy.deny.push(rule),
                _ => {
                    return Err(NetError::BadRule(format!(
                        "'{line}': expected allow or deny"
                    )));
                }
            }
        }
        Ok(policy)
    }

    /// Whether nothing is allowed.
    pub fn is_none(&self) -> bool {
        !self.all && self.allow.is_empty()
    }

    /// Adds an allow rule (dropping the same rule from the deny list).
    pub fn allow(&mut self, rule: Rule) -> Result<(), NetError> {
        self.deny.retain(|r| r != &rule);
        if !self.allow.contains(&rule) {
            self.check_room()?;
            self.allow.push(rule);
        }
        Ok(())
    }

    /// Refuses a rule: drops it from the allow list if it is there, and otherwise adds it to
    /// the deny list (where it narrows `all` or a wider allow rule).
    pub fn deny(&mut self, rule: Rule) -> Result<(), NetError> {
        let before = self.allow.len();
        self.allow.retain(|r| r != &rule);
        if self.allow.len() == before && !self.deny.contains(&rule) {
            self.check_room()?;
            self.deny.push(rule);
        }
        Ok(())
    }

    fn check_room(&self) -> Result<(), NetError> {
        if self.allow.len() + self.deny.len() >= MAX_RULES {
            return Err(NetError::BadRule(format!(
                "a policy holds at most {MAX_RULES} rules (MAX_RULES)"
            )));
        }
        Ok(())
    }
}
