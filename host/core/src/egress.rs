//! The workspace's network egress policy ([`computer_net`]): read, changed, checked.

use std::sync::Arc;

use computer_net::{Allowed, Egress, Policy, Rule, StaticResolver, SystemResolver};

use crate::error::Result;
use crate::workspace::Workspace;

impl Workspace {
    /// The network policy a guest's requests meet (its curl, wget and git). The default
    /// allows nothing; it is kept in the workspace file, and a fork takes it along.
    pub fn net_policy(&self) -> Result<Policy> {
        Ok(computer_net::load_policy(&self.vfs())?)
    }

    /// Replaces the network policy. Applies from the next request.
    pub fn set_net_policy(&self, policy: &Policy) -> Result<()> {
        Ok(computer_net::save_policy(&self.vfs(), policy)?)
    }

    /// Allows `rule` (`SCHEME://HOST[:PORT][/PATH]`, or `all` for every public address)
    /// for `methods` (all when empty); the policy after the change.
    pub fn net_allow(&self, rule: &str, methods: &[String]) -> Result<Policy> {
        let mut policy = self.net_policy()?;
        if rule == "all" {
            policy.all = true;
        } else {
            policy.allow(Rule::parse(rule, methods)?)?;
        }
        self.set_net_policy(&policy)?;
        Ok(policy)
    }

    /// Refuses `rule` even where an allow rule covers it (`all`: back to nothing allowed);
    /// the policy after the change.
    pub fn net_deny(&self, rule: &str, methods: &[String]) -> Result<Policy> {
        let mut policy = self.net_policy()?;
        if rule == "all" {
            policy = Policy::default();
        } else {
            policy.deny(Rule::parse(rule, methods)?)?;
        }
        self.set_net_policy(&policy)?;
        Ok(policy)
    }

    /// The egress of this workspace's guests (give it to
    /// [`computer_isolate::RunRequest::network`] when running components yourself): its
    /// policy, the system's resolver (with the test names of `COMPUTER_NET_HOSTS`, which map
    /// to loopback addresses only), the host's CA file (`COMPUTER_CA_FILE`, as git's) beside
    /// the system's roots, and the workspace's secrets ([`Workspace::secrets`]); audit rows
    /// name `origin`.
    pub fn egress(&self, origin: &str) -> Result<Egress> {
        let mut egress = Egress::new(self.vfs(), origin);
        // Test names (`COMPUTER_NET_HOSTS=docs.test=127.0.0.2`), loopback only; the rest
        // resolve as usual.
        if let Some(hosts) = std::env::var("COMPUTER_NET_HOSTS")
            .ok()
            .filter(|h| !h.is_empty())
        {
            let table =
                StaticResolver::from_hosts_setting(&hosts).map_err(crate::Error::Invalid)?;
            egress = egress.with_resolver(Arc::new(table.with_fallback(Arc::new(SystemResolver))));
        }
        if let Some(file) = std::env::var_os("COMPUTER_CA_FILE").filter(|f| !f.is_empty()) {
            egress = egress.with_ca_file(file);
        }
        Ok(egress.with_secrets(self.secrets()))
    }

    /// Checks a `method` request to `url` against the policy as a guest's would be (resolving
    /// the host's name here), without sending it; the audit log gets a row naming `origin`.
    pub fn net_check(&self, method: &str, url: &str, origin: &str) -> Result<Allowed> {
        Ok(self.egress(origin)?.check(method, url)?)
    }
}
