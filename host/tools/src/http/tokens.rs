//! Tokens scoped to some workspaces, read-only or read-write, beside the server's own (admin)
//! token. They are kept in `DATA_DIR/tokens.json` (mode 0600) as BLAKE3 hashes: the file
//! never holds a token, and a token is shown once, when it is made. `computer token` and the
//! admin's `/v1/tokens` routes edit the file; a running server rereads it when it changes.
//! A node of a cluster keeps them in the cluster's bucket instead (`tokens.json` there,
//! changed with `If-Match`, read again after [`SHARED_TTL`]), so that every node checks the
//! same tokens.
//!
//! A token reads `cpt_ID_SECRET`: `ID` names it in listings and revocations, `SECRET` is 128
//! random bits.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime};

use computer_bucket::cluster::{ClusterStore, Lost};
use computer_bucket::object_store::UpdateVersion;

use serde::{Deserialize, Serialize};

/// What a scoped token may do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Scope {
    /// The workspace ids it reaches (`*`: every workspace).
    pub workspaces: Vec<String>,
    /// Only reads: GET routes, and the read-only tools over the tool routes and MCP.
    pub read_only: bool,
}

impl Scope {
    /// Whether workspace `id` is in the scope.
    pub fn reaches(&self, id: &str) -> bool {
        self.workspaces.iter().any(|w| w == "*" || w == id)
    }
}

/// A token as listed (never the token itself).
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TokenInfo {
    /// Its id (the part after `cpt_`).
    pub id: String,
    /// What it may do.
    #[serde(flatten)]
    pub scope: Scope,
    /// When it was made, in seconds since the Unix epoch.
    pub created: u64,
    /// BLAKE3 of the token, hex.
    #[serde(skip_serializing_if = "String::is_empty", default)]
    #[schemars(skip)]
    pub hash: String,
}

/// The file's (mtime, length) when it was read, and its tokens.
type Cached = (Option<(SystemTime, u64)>, Vec<TokenInfo>);

/// How long a cluster node trusts the tokens it last read from the bucket: a token revoked
/// on one node is refused by the others at most this much later.
pub const SHARED_TTL: Duration = Duration::from_secs(2);

/// The tokens file of a data directory, cached by modification time; or a cluster's.
#[derive(Debug)]
pub struct TokenStore {
    path: PathBuf,
    cache: Mutex<Cached>,
    shared: Option<SharedTokens>,
}

/// A cluster's tokens, in its bucket.
#[derive(Debug)]
struct SharedTokens {
    store: ClusterStore,
    /// The server's runtime: the store's calls are async, the token calls blocking.
    handle: tokio::runtime::Handle,
    read: Mutex<Option<SharedRead>>,
}

/// When the cluster's tokens were read, their version, the tokens.
type SharedRead = (Instant, Option<UpdateVersion>, Vec<TokenInfo>);

impl SharedTokens {
    fn fetch(&self, fresh: bool) -> std::io::Result<(Option<UpdateVersion>, Vec<TokenInfo>)> {
        let mut read = self.read.lock().unwrap_or_else(|e| e.into_inner());
        if !fresh
            && let Some((at, version, tokens)) = read.as_ref()
            && at.elapsed() < SHARED_TTL
        {
            return Ok((version.clone(), tokens.clone()));
        }
        let got = self
            .handle
            .block_on(self.store.tokens::<Vec<TokenInfo>>())
            .map_err(|e| std::io::Error::other(format!("the cluster's tokens: {e}")))?;
        let (version, tokens) = match got {
            Some(v) => (Some(v.version), v.value),
            None => (None, Vec::new()),
        };
        *read = Some((Instant::now(), version.clone(), tokens.clone()));
        Ok((version, tokens))
    }

    /// Applies `change` to the newest tokens and writes them over that version, again if
    /// another node wrote first. `change` says whether it changed anything.
    fn modify(&self, mut change: impl FnMut(&mut Vec<TokenInfo>) -> bool) -> std::io::Result<bool> {
        for _ in 0..8 {
            let (version, mut tokens) = self.fetch(true)?;
            if !change(&mut tokens) {
                return Ok(false);
            }
            let put = self
                .handle
                .block_on(self.store.put_tokens(&tokens, version.as_ref()))
                .map_err(|e| std::io::Error::other(format!("the cluster's tokens: {e}")))?;
            match put {
                Ok(version) => {
                    let mut read = self.read.lock().unwrap_or_else(|e| e.into_inner());
                    *read = Some((Instant::now(), Some(version), tokens));
                    return Ok(true);
                }
                Err(Lost) => continue,
            }
        }
        Err(std::io::Error::other(
            "the cluster's tokens kept changing under this change; try again",
        ))
    }
}

impl TokenStore {
    /// The tokens of `data_dir` (none while the file does not exist).
    pub fn new(data_dir: &Path) -> TokenStore {
        TokenStore {
            path: data_dir.join("tokens.json"),
            cache: Mutex::new((None, Vec::new())),
            shared: None,
        }
    }

    /// The tokens of the cluster `store` instead of the data directory's; `handle` runs the
    /// store's calls (the token calls must come from blocking threads).
    pub fn in_cluster(mut self, store: ClusterStore, handle: tokio::runtime::Handle) -> TokenStore {
        self.shared = Some(SharedTokens {
            store,
            handle,
            read: Mutex::new(None),
        });
        self
    }

    /// The scope of `token`, if it is one of these.
    pub fn check(&self, token: &str) -> Option<Scope> {
        let hash = hash(token);
        let tokens = self.load().ok()?;
        tokens
            .into_iter()
            .find(|t| crate::http::same_secret(t.hash.as_bytes(), hash.as_bytes()))
            .map(|t| t.scope)
    }

    /// Every token, without its hash.
    pub fn list(&self) -> std::io::Result<Vec<TokenInfo>> {
        Ok(self
            .load()?
            .into_iter()
            .map(|t| TokenInfo {
                hash: String::new(),
                ..t
            })
            .collect())
    }

    /// Makes a token with `scope`; returns it (shown this once) and its listing.
    pub fn create(&self, scope: Scope) -> std::io::Result<(String, TokenInfo)> {
        if scope.workspaces.is_empty() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "a token needs at least one workspace (or *)",
            ));
        }
        for w in &scope.workspaces {
            if w != "*" && crate::http::check_id(w).is_err() {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    format!("invalid workspace id {w:?}"),
                ));
            }
        }
        let id = uuid::Uuid::new_v4().simple().to_string()[..12].to_string();
        let token = format!("cpt_{id}_{}", uuid::Uuid::new_v4().simple());
        let info = TokenInfo {
            id,
            scope,
            created: SystemTime::now()
                .duration_since(SystemTime::UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0),
            hash: hash(&token),
        };
        self.modify(|tokens| {
            tokens.push(info.clone());
            true
        })?;
        Ok((
            token,
            TokenInfo {
                hash: String::new(),
                ..info
            },
        ))
    }

    /// Revokes token `id`; false if there is none.
    pub fn revoke(&self, id: &str) -> std::io::Result<bool> {
        self.modify(|tokens| {
            let before = tokens.len();
            tokens.retain(|t| t.id != id);
            tokens.len() != before
        })
    }

    /// Applies `change` to the tokens and keeps them if it says it changed them.
    fn modify(&self, mut change: impl FnMut(&mut Vec<TokenInfo>) -> bool) -> std::io::Result<bool> {
        if let Some(shared) = &self.shared {
            return shared.modify(change);
        }
        let mut tokens = self.load()?;
        if !change(&mut tokens) {
            return Ok(false);
        }
        self.save(&tokens)?;
        Ok(true)
    }

    fn load(&self) -> std::io::Result<Vec<TokenInfo>> {
        if let Some(shared) = &self.shared {
            return Ok(shared.fetch(false)?.1);
        }
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        let modified = match std::fs::metadata(&self.path) {
            Ok(m) => Some((m.modified()?, m.len())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(e),
        };
        if modified.is_none() {
            *cache = (None, Vec::new());
        } else if cache.0 != modified {
            let text = std::fs::read_to_string(&self.path)?;
            let tokens: Vec<TokenInfo> = serde_json::from_str(&text).map_err(|e| {
                std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!("{}: {e}", self.path.display()),
                )
            })?;
            *cache = (modified, tokens);
        }
        Ok(cache.1.clone())
    }

    /// Writes the file anew (0600, to a new name then renamed over, never through a link).
    fn save(&self, tokens: &[TokenInfo]) -> std::io::Result<()> {
        let mut text = serde_json::to_string_pretty(tokens).map_err(std::io::Error::other)?;
        text.push('\n');
        super::private::write(&self.path, text.as_bytes())?;
        // The cache is stale now whatever the clock's resolution.
        self.cache.lock().unwrap_or_else(|e| e.into_inner()).0 = None;
        Ok(())
    }
}

fn hash(token: &str) -> String {
    blake3::hash(token.as_bytes()).to_hex().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_kept_hashed_and_checked_by_scope() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let store = TokenStore::new(dir.path());
        let scope = Scope {
            workspaces: vec!["a".into()],
            read_only: true,
        };
        let (token, info) = store.create(scope.clone()).unwrap();
        assert!(token.starts_with(&format!("cpt_{}_", info.id)));
        assert_eq!(store.check(&token), Some(scope));
        assert_eq!(store.check("cpt_nope"), None);
        let text = std::fs::read_to_string(dir.path().join("tokens.json")).unwrap();
        assert!(!text.contains(&token), "the file holds the token itself");
        let mode = std::fs::metadata(dir.path().join("tokens.json"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        // Another store on the same file (another process) sees the change.
        let other = TokenStore::new(dir.path());
        assert!(other.revoke(&info.id).unwrap());
        assert_eq!(store.check(&token), None);
        assert!(
            store
                .create(Scope {
                    workspaces: vec!["../x".into()],
                    read_only: false
                })
                .is_err()
        );
    }
}
