//! The MCP sessions of a cluster's nodes, kept in its bucket (rmcp's [`SessionStore`]): what
//! a client's session began with (its `initialize`), so that the node serving its workspace
//! after a move goes on with the session instead of refusing it.

use computer_bucket::cluster::ClusterStore;
use rmcp::transport::streamable_http_server::session::store::{
    SessionState, SessionStore, SessionStoreError,
};

/// Sessions under `sessions/ID` in the cluster's bucket.
#[derive(Debug)]
pub(crate) struct BucketSessions(pub(crate) ClusterStore);

/// Session ids name objects: only ids of the shape rmcp makes (a UUID) are looked up.
fn valid(id: &str) -> bool {
    !id.is_empty() && id.len() <= 64 && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

#[async_trait::async_trait]
impl SessionStore for BucketSessions {
    async fn load(&self, id: &str) -> Result<Option<SessionState>, SessionStoreError> {
        if !valid(id) {
            return Ok(None);
        }
        Ok(self.0.session(id).await?)
    }

    async fn store(&self, id: &str, state: &SessionState) -> Result<(), SessionStoreError> {
        if !valid(id) {
            return Err(format!("invalid session id {id:?}").into());
        }
        Ok(self.0.put_session(id, state).await?)
    }

    async fn delete(&self, id: &str) -> Result<(), SessionStoreError> {
        if !valid(id) {
            return Ok(());
        }
        Ok(self.0.delete_session(id).await?)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn only_ids_of_rmcps_shape_name_objects() {
        assert!(super::valid("3f2b1c9e-8d7a-4b6c-9e1f-0a2b3c4d5e6f"));
        for bad in ["", "../x", "a/b", "a b", "a.b", &"a".repeat(65)] {
            assert!(!super::valid(bad), "{bad:?}");
        }
    }
}
