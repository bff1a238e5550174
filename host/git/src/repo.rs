//! Finding a repository in the workspace and opening it for one operation.

use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use computer_vfs::{FileType, Vfs, VfsError};

use crate::error::{GitError, Result};
use crate::mirror::{self, SyncStats};

/// Git over one workspace. Cheap to keep; every operation opens the repository afresh, so
/// changes made meanwhile by the shell, the tools or a container's `git` are always seen.
#[derive(Debug)]
pub struct Git {
    pub(crate) vfs: Arc<Vfs>,
    cache: Cache,
    settings: Settings,
}

/// What the embedder decides about the outside world.
#[derive(Debug, Clone)]
struct Settings {
    host_paths: bool,
    /// The host's secrets: those bound to a remote's host go to it as headers.
    secrets: computer_net::Secrets,
    network_timeout: Duration,
    /// Certificates trusted beside the usual roots (`COMPUTER_CA_FILE`).
    extra_roots: Vec<reqwest::Certificate>,
    /// The workspace's network policy, met by every remote on the network; `None` for the
    /// host's own user (the CLI's `computer git`).
    egress: Option<computer_net::Egress>,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            host_paths: false,
            secrets: computer_net::Secrets::default(),
            network_timeout: DEFAULT_NETWORK_TIMEOUT,
            extra_roots: Vec::new(),
            egress: None,
        }
    }
}

/// The credentials callback of every connection: the host's secrets travel as headers
/// ([`computer_net::Secrets::git_headers`]), so a remote that still asks gets nothing. Without this callback gix
/// would run the repository's `credential.helper` or `core.askPass`, or prompt on a terminal.
pub(crate) fn no_credentials(
    action: gix::credentials::helper::Action,
) -> gix::Result<Option<gix::credentials::protocol::Outcome>> {
    let _ = action;
    Ok(None)
}

/// A network remote as the host connects to it ([`Git::connect_to`]).
pub(crate) struct Connect {
    /// The URL gix connects to.
    pub(crate) url: String,
    /// The HTTP options, for http(s).
    pub(crate) http: Option<gix::protocol::transport::client::blocking_io::http::Options>,
}

/// `url` (a `git://` URL) with `ip` as its host.
fn pinned_git_url(url: &str, ip: std::net::IpAddr) -> Result<String> {
    let mut parsed =
        url::Url::parse(url).map_err(|e| GitError::Failed(format!("bad URL '{url}': {e}")))?;
    parsed
        .set_ip_host(ip)
        .map_err(|()| GitError::Failed(format!("bad URL '{url}'")))?;
    Ok(parsed.to_string())
}

/// How long a clone or fetch may take before it is interrupted.
pub const DEFAULT_NETWORK_TIMEOUT: Duration = Duration::from_secs(600);

/// Where the host copies of `.git` directories live.
#[derive(Debug)]
enum Cache {
    Dir(PathBuf),
    /// Made on first use: most processes never run git (and a one-shot command's start
    /// should not pay for a directory made and removed).
    Temp(std::sync::OnceLock<tempfile::TempDir>),
}

impl Git {
    /// Git over `vfs`. The host copies of its repositories' `.git` directories are kept
    /// next to the workspace file (`<file>.git-cache/`), or in a temporary directory for an
    /// in-memory workspace.
    pub fn new(vfs: Arc<Vfs>) -> Result<Git> {
        let cache = match vfs.location() {
            Some(file) => {
                let mut name = file.as_os_str().to_owned();
                name.push(".git-cache");
                Cache::Dir(PathBuf::from(name))
            }
            None => Cache::Temp(std::sync::OnceLock::new()),
        };
        let settings = Settings {
            egress: Some(computer_net::Egress::new(Arc::clone(&vfs), "git")),
            ..Settings::default()
        };
        Ok(Git {
            vfs,
            cache,
            settings,
        })
    }

    /// Git over `vfs`, keeping the host copies of `.git` directories below `dir`.
    pub fn with_cache_dir(vfs: Arc<Vfs>, dir: impl Into<PathBuf>) -> Git {
        let settings = Settings {
            egress: Some(computer_net::Egress::new(Arc::clone(&vfs), "git")),
            ..Settings::default()
        };
        Git {
            vfs,
            cache: Cache::Dir(dir.into()),
            settings,
        }
    }

    /// The network check remotes meet: by default the workspace's policy
    /// (`computer_net`), which refuses every host until one is allowed. `None` lets git
    /// reach any remote, for the host's own user (the CLI does this for `computer git`).
    pub fn with_egress(mut self, egress: Option<computer_net::Egress>) -> Git {
        self.settings.egress = egress;
        self
    }

    /// Lets `clone`/`fetch` read repositories from host paths and `file://` URLs outside the
    /// workspace. Off by default: a guest must not read the host's files. The CLI turns it on
    /// for its user.
    pub fn with_host_paths(mut self, allowed: bool) -> Git {
        self.settings.host_paths = allowed;
        self
    }

    /// The host's secrets ([`computer_net::Secrets`]): each one bound to a remote's host is
    /// sent to it over https as a header (its own, or HTTP basic auth with the user
    /// `x-access-token`), and to no other. They are used by the host at the network boundary
    /// only: never written into the workspace.
    pub fn with_secrets(mut self, secrets: computer_net::Secrets) -> Git {
        self.settings.secrets = secrets;
        self
    }

    /// Trusts the certificates of the PEM file `path` for https remotes, beside the usual
    /// roots (a host setting: `COMPUTER_CA_FILE`; a TLS server on loopback in tests).
    pub fn with_ca_file(mut self, path: &Path) -> Result<Git> {
        let pem = std::fs::read(path)
            .map_err(|e| GitError::failed(format!("CA file {}", path.display()), e))?;
        let certs = reqwest::Certificate::from_pem_bundle(&pem)
            .map_err(|e| GitError::failed(format!("CA file {}", path.display()), e))?;
        if certs.is_empty() {
            return Err(GitError::Failed(format!(
                "CA file {}: no certificate in it",
                path.display()
            )));
        }
        self.settings.extra_roots = certs;
        Ok(self)
    }

    /// The time limit of one clone or fetch (default [`DEFAULT_NETWORK_TIMEOUT`]).
    pub fn with_network_timeout(mut self, limit: Duration) -> Git {
        self.settings.network_timeout = limit;
        self
    }

    pub(crate) fn host_paths_allowed(&self) -> bool {
        self.settings.host_paths
    }

    pub(crate) fn network_timeout(&self) -> Duration {
        self.settings.network_timeout
    }

    /// How the host connects to the network remote `url` for a `method` request (`GET` to
    /// fetch, `POST` to push): checked against the workspace's network policy, with the
    /// checked addresses pinned. A `git://` URL comes back with the checked address in place
    /// of its name (gix resolves it again otherwise); an http(s) one gets HTTP options whose
    /// client resolves only to those addresses and follows no redirect (the policy has not
    /// seen where it leads).
    pub(crate) fn connect_to(&self, url: &str, method: &str) -> Result<Connect> {
        let allowed = match &self.settings.egress {
            Some(egress) => Some(egress.check(method, url).map_err(|e| {
                GitError::Network(format!(
                    "unable to access '{}': {e}",
                    computer_net::redacted(url)
                ))
            })?),
            None => None,
        };
        if !crate::cmd_remote::is_http(url) {
            let url = match allowed.as_ref().and_then(|a| a.addrs.first()) {
                Some(addr) => pinned_git_url(url, addr.ip())?,
                None => url.to_string(),
            };
            return Ok(Connect { url, http: None });
        }
        Ok(Connect {
            url: url.to_string(),
            http: Some(self.http_options(url, allowed)),
        })
    }

    /// The HTTP options of a connection to `url`: the secrets as headers (where they may go),
    /// the extra trusted roots, the checked addresses. They replace what the repository's
    /// config would say (its proxies, headers and certificate files are the guest's, not the
    /// host's).
    fn http_options(
        &self,
        url: &str,
        allowed: Option<computer_net::Allowed>,
    ) -> gix::protocol::transport::client::blocking_io::http::Options {
        use gix::protocol::transport::client::blocking_io::http;
        let mut options = http::Options {
            extra_headers: self.settings.secrets.git_headers(url),
            ..Default::default()
        };
        if allowed.is_some() {
            options.follow_redirects = http::options::FollowRedirects::None;
        }
        let roots = self.settings.extra_roots.clone();
        let pinned = allowed.map(|a| std::sync::Arc::new(computer_net::PinnedResolver::new(a)));
        if !roots.is_empty() || pinned.is_some() {
            let backend = http::reqwest::Options {
                configure_client: Some(Box::new(move |mut builder| {
                    if !roots.is_empty() {
                        builder = builder.tls_certs_merge(roots.iter().cloned());
                    }
                    if let Some(pinned) = &pinned {
                        // Not through a proxy of the host's environment either: the
                        // connection goes to the checked address itself.
                        builder = builder
                            .no_proxy()
                            .dns_resolver(std::sync::Arc::clone(pinned));
                    }
                    Ok(builder)
                })),
                configure_request: None,
            };
            options.backend = Some(std::sync::Arc::new(std::sync::Mutex::new(backend)));
        }
        options
    }

    /// The workspace.
    pub fn vfs(&self) -> &Vfs {
        &self.vfs
    }

    fn cache_dir(&self) -> Result<&Path> {
        match &self.cache {
            Cache::Dir(dir) => Ok(dir),
            Cache::Temp(dir) => {
                if let Some(dir) = dir.get() {
                    return Ok(dir.path());
                }
                let made = tempfile::Builder::new().prefix("computer-git-").tempdir()?;
                // Two threads may race to make it: one is kept, the other removed.
                Ok(dir.get_or_init(|| made).path())
            }
        }
    }

    /// The repository containing `cwd` (a workspace path), like git's discovery.
    pub(crate) fn discover(
        &self,
        cwd: &Path,
        env: &HashMap<String, String>,
    ) -> Result<Session<'_>> {
        let mut dir = Some(cwd);
        while let Some(d) = dir {
            let candidate = d.join(".git");
            match self.vfs.stat(&candidate) {
                Ok(stat) if stat.kind == FileType::Dir => return self.open(d, env),
                Ok(_) => {
                    return Err(GitError::Unsupported(format!(
                        "{}: .git files (linked worktrees, submodules) are not supported",
                        candidate.display()
                    )));
                }
                Err(VfsError::NotFound | VfsError::NotDir) => dir = d.parent(),
                Err(e) => return Err(GitError::failed(candidate.display(), e)),
            }
        }
        Err(GitError::NotARepository(cwd.display().to_string()))
    }

    /// Opens the repository whose worktree is `worktree` (its `.git` may not exist yet: `init`
    /// and `clone` create it in the host copy and save it).
    pub(crate) fn open(
        &self,
        worktree: &Path,
        env: &HashMap<String, String>,
    ) -> Result<Session<'_>> {
        let git_dir = worktree.join(".git");
        let key = blake3::hash(git_dir.as_os_str().as_encoded_bytes()).to_hex();
        let cache = self.cache_dir()?;
        let host_root = cache.join(&key.as_str()[..16]);
        private_dir(&host_root)?;
        let lock = File::create(cache.join(format!("{}.lock", &key.as_str()[..16])))?;
        lock.lock()?;
        let host_git = host_root.join(".git");
        if self.vfs.exists(&git_dir)? {
            mirror::to_host(&self.vfs, &git_dir, &host_git)?;
        } else if host_git.exists() {
            std::fs::remove_dir_all(&host_git)?;
        }
        Ok(Session {
            git: self,
            vfs: &self.vfs,
            worktree: worktree.to_path_buf(),
            git_dir,
            host_git,
            env: env.clone(),
            lock,
        })
    }
}

/// One repository opened for one operation (holding its lock).
pub(crate) struct Session<'g> {
    pub git: &'g Git,
    pub vfs: &'g Vfs,
    /// The worktree's root in the workspace.
    pub worktree: PathBuf,
    /// Its `.git` in the workspace.
    pub git_dir: PathBuf,
    /// The host copy of `.git` that gix works on.
    pub host_git: PathBuf,
    /// The command's environment (identity and dates).
    pub env: HashMap<String, String>,
    lock: File,
}

impl Session<'_> {
    /// The repository, through gix (configuration from the repository only: nothing of the
    /// host's `~/.gitconfig` or environment leaks in).
    pub fn repo(&self) -> Result<gix::Repository> {
        if !self.host_git.exists() {
            return Err(GitError::NotARepository(
                self.worktree.display().to_string(),
            ));
        }
        open_repo(&self.host_git, &self.env)
    }

    /// A second handle on the repository's lock: the lock lasts until both are closed (for
    /// network work that may outlive the operation).
    pub fn hold_lock(&self) -> Result<File> {
        Ok(self.lock.try_clone()?)
    }

    /// Copies what the operation changed in the host `.git` back into the workspace.
    pub fn save(&self) -> Result<SyncStats> {
        mirror::to_vfs(&self.host_git, self.vfs, &self.git_dir)
    }

    /// The worktree path of a repository-relative path.
    pub fn path_of(&self, rel: &[u8]) -> PathBuf {
        use std::os::unix::ffi::OsStrExt;
        self.worktree.join(std::ffi::OsStr::from_bytes(rel))
    }

    /// The repository-relative form of `arg` (given relative to `cwd`), or an error when it
    /// lies outside the worktree.
    pub fn rel_path(&self, cwd: &Path, arg: &str) -> Result<String> {
        let abs = computer_vfs::path::normalize(&cwd.join(arg));
        match abs.strip_prefix(&self.worktree) {
            Ok(rel) => Ok(rel.to_string_lossy().into_owned()),
            Err(_) => Err(GitError::Failed(format!(
                "{arg}: '{}' is outside repository at '{}'",
                abs.display(),
                self.worktree.display()
            ))),
        }
    }
}

/// Opens the host copy of a repository with the committer of reflog entries taken from the
/// command's environment, else `user.*`, else a placeholder (git never fails a ref update for
/// want of an identity). Configuration comes from the repository only: nothing of the host's
/// `~/.gitconfig` or environment leaks in.
pub(crate) fn open_repo(host_git: &Path, env: &HashMap<String, String>) -> Result<gix::Repository> {
    let mut repo = gix::open_opts(host_git, gix::open::Options::isolated())?;
    // `git -c` settings (and `GIT_CONFIG_PARAMETERS` of the command's environment): the
    // guest's, so only those the repository's own config could set here; the rest (a pager,
    // colours, helpers, programs) means nothing to this git or must not run, and is left out.
    let given: Vec<String> = env
        .get(crate::cli::CONFIG_PARAMETERS)
        .and_then(|text| crate::global::parameters(text))
        .unwrap_or_default()
        .into_iter()
        .filter(|s| {
            s.split_once('=')
                .is_some_and(|(name, _)| crate::config_filter::allows(name))
        })
        .collect();
    if !given.is_empty() {
        let mut config = repo.config_snapshot_mut();
        config.append_config(given.iter().map(String::as_str), gix::config::Source::Cli)?;
        config.commit()?;
    }
    let has_name = repo.config_snapshot().string("user.name").is_some();
    let has_email = repo.config_snapshot().string("user.email").is_some();
    let var = |k: &str| env.get(k).filter(|v| !v.is_empty()).cloned();
    let mut values = Vec::new();
    match var("GIT_COMMITTER_NAME") {
        Some(name) => values.push(format!("committer.name={name}")),
        None if !has_name => values.push("committer.name=computer".into()),
        None => {}
    }
    match var("GIT_COMMITTER_EMAIL") {
        Some(email) => values.push(format!("committer.email={email}")),
        None if !has_email => values.push("committer.email=computer@localhost".into()),
        None => {}
    }
    if let Some(date) = var("GIT_COMMITTER_DATE") {
        values.push(format!("gitoxide.commit.committerDate={date}"));
    }
    if !values.is_empty() {
        let mut config = repo.config_snapshot_mut();
        config.append_config(values.iter().map(String::as_str), gix::config::Source::Api)?;
        config.commit()?;
    }
    Ok(repo)
}

/// Creates `dir` (and its missing parents) readable by the host's user only.
pub(crate) fn private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
}
