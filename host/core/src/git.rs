//! Git on the workspace's repositories (computer-git): the library entry point, and the
//! handler that serves the isolate's `git` (the shell's `git` command and any guest's
//! `computer:host/git` import).

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use computer_git::{Git, Invocation};
use computer_isolate::{GitHandler, GitOutput};

use crate::error::{Error, Result};
use crate::lock;
use crate::workspace::Workspace;

/// How the workspace's git reaches the outside world.
#[derive(Debug, Clone)]
pub struct GitOptions {
    /// Whether `clone`/`fetch` may read host paths and `file://` URLs outside the workspace.
    /// Off by default: agents must not read the host's files. The CLI turns it on.
    pub host_paths: bool,
    /// Whether remotes on the network meet the workspace's network policy (`computer net`,
    /// [`computer_net`]). On by default: a guest's git reaches only the hosts the policy
    /// allows. The CLI turns it off for its user's own `computer git`.
    pub network_policy: bool,
    /// The time limit of one clone or fetch.
    pub network_timeout: Duration,
    /// A PEM file of certificates trusted for https remotes beside the usual roots.
    /// Default: `COMPUTER_CA_FILE` of the host's environment.
    pub ca_file: Option<PathBuf>,
}

impl Default for GitOptions {
    fn default() -> GitOptions {
        GitOptions {
            host_paths: false,
            network_policy: true,
            network_timeout: computer_git::DEFAULT_NETWORK_TIMEOUT,
            ca_file: std::env::var_os("COMPUTER_CA_FILE")
                .filter(|f| !f.is_empty())
                .map(PathBuf::from),
        }
    }
}

/// The workspace's git, made on first use.
#[derive(Debug, Default)]
pub(crate) struct GitSlot {
    options: Mutex<Option<GitOptions>>,
    /// The handle, and the count of the process's secret changes it was made under.
    git: Mutex<Option<(Arc<Git>, u64)>>,
}

impl GitSlot {
    /// Whether a git handle is kept (it holds a reference to the filesystem).
    pub(crate) fn is_cached(&self) -> bool {
        lock(&self.git).is_some()
    }
}

impl Workspace {
    /// Sets how git reaches the outside world; applies from the next git operation.
    pub fn set_git_options(&self, options: GitOptions) {
        *lock(&self.git_slot().options) = Some(options);
        self.forget_git();
    }

    /// Drops the git handle kept for reuse: the next operation makes one with the current
    /// options and secrets.
    pub(crate) fn forget_git(&self) {
        *lock(&self.git_slot().git) = None;
    }

    /// Git on this workspace's repositories: `run` takes a git command line (as the git CLI
    /// does), `clone_repository` clones with progress.
    pub fn git(&self) -> Result<Arc<Git>> {
        let mut slot = lock(&self.git_slot().git);
        let changes = crate::secrets::host_changes();
        if let Some((git, made)) = slot.as_ref()
            && *made == changes
        {
            return Ok(Arc::clone(git));
        }
        let options = lock(&self.git_slot().options).clone().unwrap_or_default();
        let git = Git::new(self.vfs())
            .map_err(|e| Error::Invalid(format!("git: {e}")))?
            .with_host_paths(options.host_paths)
            .with_secrets(self.secrets())
            .with_network_timeout(options.network_timeout);
        // The guests' egress, with the host's test names and CA file, as curl's.
        let git = if options.network_policy {
            git.with_egress(Some(self.egress("git")?))
        } else {
            git.with_egress(None)
        };
        let git = match &options.ca_file {
            Some(file) => git
                .with_ca_file(file)
                .map_err(|e| Error::Invalid(format!("git: {e} (COMPUTER_CA_FILE)")))?,
            None => git,
        };
        let git = Arc::new(git);
        *slot = Some((Arc::clone(&git), changes));
        Ok(git)
    }

    /// Runs `git <args>` in `cwd` (relative to `/workspace`) with `env`.
    pub fn git_run(
        &self,
        args: &[String],
        cwd: &str,
        env: &[(String, String)],
    ) -> Result<computer_git::Output> {
        let git = self.git()?;
        let cwd = self.resolve(cwd);
        let env = env.iter().cloned().collect();
        Ok(git.run(
            args,
            &Invocation {
                cwd: &cwd,
                env: &env,
                progress: None,
                stop: None,
            },
        ))
    }

    /// The handler the isolate calls for `git` (`NoGit` when git cannot be set up): give it
    /// to [`computer_isolate::RunRequest::git`] when running components yourself. A line
    /// it does not run goes on to the caller's next backend.
    pub fn git_handler(&self) -> Arc<dyn GitHandler> {
        self.git_handler_with(true)
    }

    /// As [`Workspace::git_handler`]; without a next backend (`fallback` false), a line the
    /// host's git does not run is answered with an error that says where it would run.
    pub(crate) fn git_handler_with(&self, fallback: bool) -> Arc<dyn GitHandler> {
        match self.git() {
            Ok(git) => Arc::new(WorkspaceGit { git, fallback }),
            Err(_) => Arc::new(computer_isolate::NoGit),
        }
    }

    /// The host directory of this workspace's git cache (`<file>.git-cache`), if it has a file.
    pub(crate) fn git_cache_of(path: &std::path::Path) -> PathBuf {
        let mut name = path.as_os_str().to_owned();
        name.push(".git-cache");
        PathBuf::from(name)
    }
}

/// Serves the isolate's git from the workspace's [`Git`].
struct WorkspaceGit {
    git: Arc<Git>,
    /// Whether another backend (the container's real git) takes what this one does not.
    fallback: bool,
}

impl GitHandler for WorkspaceGit {
    fn run(&self, cwd: &str, args: &[String], env: &[(String, String)]) -> Option<GitOutput> {
        self.run_stoppable(cwd, args, env, &|| false)
    }

    fn run_stoppable(
        &self,
        cwd: &str,
        args: &[String],
        env: &[(String, String)],
        stop: &(dyn Fn() -> bool + Sync),
    ) -> Option<GitOutput> {
        if !computer_git::supports_line(args) {
            if self.fallback {
                return None;
            }
            return Some(GitOutput {
                status: 1,
                stdout: Vec::new(),
                stderr: computer_git::unsupported(args).into_bytes(),
            });
        }
        let env = env.iter().cloned().collect();
        let out = self.git.run(
            args,
            &Invocation {
                cwd: std::path::Path::new(cwd),
                env: &env,
                progress: None,
                stop: Some(stop),
            },
        );
        Some(GitOutput {
            status: out.status,
            stdout: out.stdout,
            stderr: out.stderr,
        })
    }
}
