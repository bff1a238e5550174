//! The workspace's network egress policy ([`computer_net`]): read, changed, checked.

use computer_net::{Allowed, Egress, Policy};

use crate::error::Result;
use crate::workspace::Workspace;

impl Workspace {
    /// The network policy a guest's requests meet (today those of its git). The default
    /// allows nothing; it is kept in the workspace file, and a fork takes it along.
    pub fn net_policy(&self) -> Result<Policy> {
        Ok(computer_net::load_policy(&self.vfs())?)
    }

    /// Replaces the network policy. Applies from the next request.
    pub fn set_net_policy(&self, policy: &Policy) -> Result<()> {
        Ok(computer_net::save_policy(&self.vfs(), policy)?)
    }

    /// The egress of this workspace's guests (give it to
    /// [`computer_isolate::RunRequest::network`] when running components yourself): its
    /// policy, the system's resolver, the host's CA file (`COMPUTER_CA_FILE`, as git's) beside
    /// the system's roots; audit rows name `origin`.
    pub fn egress(&self, origin: &str) -> Result<Egress> {
        let egress = Egress::new(self.vfs(), origin);
        match std::env::var_os("COMPUTER_CA_FILE").filter(|f| !f.is_empty()) {
            Some(file) => {
                let pem = std::fs::read(&file).map_err(|source| crate::Error::Host {
                    path: file.into(),
                    source,
                })?;
                Ok(egress.with_ca_pem(&pem)?)
            }
            None => Ok(egress),
        }
    }

    /// Checks a `method` request to `url` against the policy as a guest's would be (resolving
    /// the host's name here), without sending it; the audit log gets a row naming `origin`.
    pub fn net_check(&self, method: &str, url: &str, origin: &str) -> Result<Allowed> {
        Ok(Egress::new(self.vfs(), origin).check(method, url)?)
    }
}
