//! Commands that talk to other repositories: clone, fetch, pull, remote.

use std::fmt::Write as _;
use std::num::NonZeroU32;
use std::path::PathBuf;

use crate::cli::{Args, Invocation, Output};
use crate::error::{GitError, Result, chain};
use crate::refs::{self, Head};
use crate::repo::{Git, Session};
use crate::worktree::{self, FileMap};

/// `git clone [--depth N] [-b BRANCH] [-q] [--no-checkout] URL [DIR]`.
pub(crate) fn clone(git: &Git, args: Vec<String>, inv: &Invocation<'_>) -> Result<Output> {
    let args = Args::parse(args, &["--depth", "-b", "--branch", "-o", "--origin"])?;
    args.only(
        "clone",
        &[
            "--depth",
            "-b",
            "--branch",
            "-q",
            "--quiet",
            "--no-checkout",
            "-n",
            "--single-branch",
            "--progress",
            "-o",
            "--origin",
        ],
    )?;
    let (url, dir) = match args.operands.as_slice() {
        [url] => (url.clone(), None),
        [url, dir] => (url.clone(), Some(dir.clone())),
        _ => {
            return Err(GitError::Usage(
                "usage: git clone [<options>] [--] <repo> [<dir>]".into(),
            ));
        }
    };
    let depth = match args.value(&["--depth"]) {
        Some(d) => Some(
            d.parse::<u32>()
                .ok()
                .and_then(NonZeroU32::new)
                .ok_or_else(|| GitError::Failed(format!("depth {d} is not a positive number")))?,
        ),
        None => None,
    };
    let options = CloneOptions {
        url,
        dir: dir.unwrap_or_default(),
        branch: args.value(&["-b", "--branch"]).map(str::to_string),
        depth,
        checkout: !args.has(&["--no-checkout", "-n"]),
    };
    let dest = clone_dir(&options)?;
    let dest = inv.resolve(&dest);
    let mut out = Output::ok(Vec::new());
    if !args.has(&["-q", "--quiet"]) {
        out = out.note(&format!(
            "Cloning into '{}'...",
            options_dir_shown(&options, &dest)
        ));
    }
    git.clone_into(&options, &dest, inv)?;
    Ok(out)
}

fn options_dir_shown(options: &CloneOptions, dest: &std::path::Path) -> String {
    if options.dir.is_empty() {
        dest.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    } else {
        options.dir.clone()
    }
}

/// What to clone and where.
#[derive(Debug, Clone, Default)]
pub struct CloneOptions {
    /// `file://`, `git://`, `http(s)://`, or a path (a repository in the workspace, or on
    /// the host when the caller allows host paths).
    pub url: String,
    /// The directory to create (relative to the current directory); empty: named after the URL.
    pub dir: String,
    /// A branch or tag to check out instead of the remote's HEAD.
    pub branch: Option<String>,
    /// Fetch only this many commits of history.
    pub depth: Option<NonZeroU32>,
    /// Check out the worktree (else only `.git`).
    pub checkout: bool,
}

/// The directory git would clone into: the last URL component without `.git`.
fn clone_dir(options: &CloneOptions) -> Result<String> {
    if !options.dir.is_empty() {
        return Ok(options.dir.clone());
    }
    let trimmed = options.url.trim_end_matches('/');
    let last = trimmed.rsplit(['/', ':']).next().unwrap_or_default();
    let name = last.strip_suffix(".git").unwrap_or(last);
    if name.is_empty() || name == "." || name == ".." {
        return Err(GitError::Failed(format!(
            "cannot guess a directory name from '{}'",
            options.url
        )));
    }
    Ok(name.to_string())
}

impl Git {
    /// Clones a repository into the workspace: `options.dir` relative to `inv.cwd` (or named
    /// after the URL). Returns the new worktree's path.
    pub fn clone_repository(
        &self,
        options: &CloneOptions,
        inv: &Invocation<'_>,
    ) -> Result<PathBuf> {
        let dest = inv.resolve(&clone_dir(options)?);
        self.clone_into(options, &dest, inv)?;
        Ok(dest)
    }

    /// Clones `options.url` into the workspace directory `dest`: `.git` with the fetched
    /// pack, and the worktree written into the VFS with modes, symlinks and the exec bit.
    pub(crate) fn clone_into(
        &self,
        options: &CloneOptions,
        dest: &std::path::Path,
        inv: &Invocation<'_>,
    ) -> Result<()> {
        match self.vfs().read_dir(dest) {
            Ok(entries) if !entries.is_empty() => {
                return Err(GitError::Failed(format!(
                    "destination path '{}' already exists and is not an empty directory.",
                    dest.display()
                )));
            }
            Ok(_) => {}
            Err(computer_vfs::VfsError::NotFound) => {}
            Err(e) => return Err(GitError::failed(dest.display(), e)),
        }
        let source = self.remote_url(&options.url, inv)?;
        // What `remote.origin.url` records: a workspace repository by its workspace path (not
        // the host cache it is fetched from), anything else as fetched.
        let origin = match self.workspace_repository(&options.url, inv) {
            Some(path) => path.display().to_string(),
            None => source.clone(),
        };
        self.vfs()
            .create_dir_all(dest)
            .map_err(|e| GitError::failed(dest.display(), e))?;
        let session = self.open(dest, inv.env)?;
        let result = self.fetch_clone(&session, options, &source, &origin, inv);
        if let Err(err) = result {
            // Nothing half-made stays behind.
            let _ = self.vfs().remove_all(dest);
            return Err(err);
        }
        Ok(())
    }

    fn fetch_clone(
        &self,
        session: &Session<'_>,
        options: &CloneOptions,
        source: &str,
        origin: &str,
        inv: &Invocation<'_>,
    ) -> Result<()> {
        let root = session
            .host_git
            .parent()
            .ok_or_else(|| GitError::Failed("bad cache directory".into()))?
            .to_path_buf();
        if root.exists() {
            std::fs::remove_dir_all(&root)?;
        }
        crate::repo::private_dir(&root)?;
        let (source, http) = if is_network(source) {
            let connect = self.connect_to(source, "GET")?;
            (connect.url, connect.http)
        } else {
            (source.to_string(), None)
        };
        let url = options.url.clone();
        let (depth, branch) = (options.depth, options.branch.clone());
        let limit = self.network_timeout();
        let work = move |item: gix::progress::tree::Item,
                         interrupt: &std::sync::atomic::AtomicBool|
              -> Result<()> {
            // Isolated: nothing of the host's git configuration applies.
            let mut prepare = gix::clone::PrepareFetch::new(
                source.as_str(),
                &root,
                gix::create::Kind::WithWorktree,
                Default::default(),
                gix::open::Options::isolated(),
            )
            .map_err(|e| {
                GitError::Failed(format!("repository '{url}' is not valid: {}", chain(&e)))
            })?
            .configure_connection(move |connection| {
                connection.set_credentials(crate::repo::no_credentials);
                if let Some(http) = &http {
                    connection.set_transport_options(Box::new(http.clone()));
                }
                Ok(())
            });
            if let Some(depth) = depth {
                prepare = prepare.with_shallow(gix::remote::fetch::Shallow::DepthAtRemote(depth));
            }
            if let Some(branch) = &branch {
                prepare = prepare.with_ref_name(Some(branch.as_str())).map_err(|e| {
                    GitError::Failed(format!("invalid branch name '{branch}': {}", chain(&e)))
                })?;
            }
            prepare
                .fetch_only(item, interrupt)
                .map_err(|e| network_error(&url, &e))?;
            Ok(())
        };
        crate::progress::run(inv, limit, session.hold_lock()?, work)
            .unwrap_or_else(|why| Err(abandoned(&options.url, limit, why)))?;
        let repo = session.repo()?;
        // The shallow file and refs are in place; now the worktree, in the VFS.
        let head = refs::head(&repo)?;
        let files: FileMap = if options.checkout {
            worktree::tree_map(&repo, head.tree(&repo)?)?
        } else {
            FileMap::new()
        };
        let mut index = worktree::load_index(session)?;
        worktree::checkout(session, &repo, &FileMap::new(), &files, &mut index)?;
        if options.checkout {
            worktree::write_index(&mut index)?;
        }
        crate::cmd_setup::set_config(&session.host_git, &[("remote.origin.url", origin)])?;
        session.save()?;
        inv.progress(&format!("checked out {} files", files.len()));
        Ok(())
    }

    /// The worktree of the workspace repository `url` names (a path or `file://` URL), if any.
    pub(crate) fn workspace_repository(&self, url: &str, inv: &Invocation<'_>) -> Option<PathBuf> {
        let path = url.strip_prefix("file://").unwrap_or(url);
        if path.contains("://") {
            return None;
        }
        let in_workspace = inv.resolve(path);
        self.vfs()
            .exists(in_workspace.join(".git"))
            .unwrap_or(false)
            .then_some(in_workspace)
    }

    /// The URL gix fetches from: network URLs as they are; paths and `file://` URLs name a
    /// repository in the workspace (its host copy is fetched from), or on the host only when
    /// the caller allowed host paths.
    fn remote_url(&self, url: &str, inv: &Invocation<'_>) -> Result<String> {
        let lower = url.to_ascii_lowercase();
        if lower.starts_with("http://")
            || lower.starts_with("https://")
            || lower.starts_with("git://")
        {
            return Ok(url.to_string());
        }
        if lower.starts_with("ssh://")
            || (url.contains(':') && !url.starts_with('/') && !lower.starts_with("file://"))
        {
            return Err(GitError::Unsupported(format!(
                "'{url}': ssh remotes are not supported (no ssh keys in the isolate); use https:// with a token"
            )));
        }
        let path = url.strip_prefix("file://").unwrap_or(url);
        if let Some(in_workspace) = self.workspace_repository(url, inv) {
            let source = self.open(&in_workspace, inv.env)?;
            return Ok(source.host_git.display().to_string());
        }
        if self.host_paths_allowed() {
            let host = PathBuf::from(path);
            if host.exists() {
                return Ok(format!("file://{}", host.display()));
            }
        }
        Err(GitError::NotFound(format!(
            "repository '{url}' does not exist"
        )))
    }
}

/// Whether `url` names a remote on the network (where the workspace's network policy applies).
pub(crate) fn is_network(url: &str) -> bool {
    is_http(url) || url.to_ascii_lowercase().starts_with("git://")
}

/// Whether `url` is fetched over HTTP(S) (where the host's HTTP options apply).
pub(crate) fn is_http(url: &str) -> bool {
    let lower = url.to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://")
}

/// A fetch or push failure as git reports it.
pub(crate) fn network_error(url: &str, err: &dyn std::error::Error) -> GitError {
    GitError::Network(format!("unable to access '{url}': {}", chain(err)))
}

/// A fetch or push that outlasted the network time limit, or the caller's command.
pub(crate) fn abandoned(
    url: &str,
    limit: std::time::Duration,
    why: crate::progress::Abandoned,
) -> GitError {
    match why {
        crate::progress::Abandoned::TimeLimit => GitError::Network(format!(
            "unable to access '{url}': gave up after {} s (the network time limit)",
            limit.as_secs()
        )),
        crate::progress::Abandoned::Stopped => GitError::Network(format!(
            "unable to access '{url}': stopped (the command's time limit, or it was cancelled)"
        )),
    }
}

/// `git fetch [REMOTE]`.
pub(crate) fn fetch(
    session: &Session<'_>,
    args: Vec<String>,
    inv: &Invocation<'_>,
) -> Result<Output> {
    let args = Args::parse(args, &["--depth"])?;
    args.only(
        "fetch",
        &[
            "-q", "--quiet", "--prune", "-p", "--tags", "--all", "--depth",
        ],
    )?;
    let repo = session.repo()?;
    let name = args
        .operands
        .first()
        .cloned()
        .unwrap_or_else(|| "origin".into());
    let report = fetch_remote(
        session.git,
        session.hold_lock()?,
        &repo,
        &session.env,
        &name,
        inv,
    )?;
    Ok(Output::ok(Vec::new()).note(report.trim_end()))
}

/// Fetches `name` into the host copy; returns git's report (`From URL` and updated refs).
fn fetch_remote(
    git: &Git,
    hold: std::fs::File,
    repo: &gix::Repository,
    session_env: &std::collections::HashMap<String, String>,
    name: &str,
    inv: &Invocation<'_>,
) -> Result<String> {
    let remote = repo.find_remote(name).map_err(|_| {
        GitError::NotFound(format!("'{name}' does not appear to be a git repository"))
    })?;
    let url = remote
        .url(gix::remote::Direction::Fetch)
        .map(|u| u.to_bstring().to_string())
        .unwrap_or_default();
    // A remote in the workspace (or a host path) is fetched from its current state.
    let effective = git.remote_url(&url, inv)?;
    let name = name.to_string();
    let limit = git.network_timeout();
    let (host_git, env, shown) = (repo.path().to_path_buf(), session_env.clone(), url.clone());
    let (effective, http) = if is_network(&effective) {
        let connect = git.connect_to(&effective, "GET")?;
        (connect.url, connect.http)
    } else {
        (effective, None)
    };
    let work = move |item: gix::progress::tree::Item,
                     interrupt: &std::sync::atomic::AtomicBool|
          -> Result<Vec<String>> {
        let repo = crate::repo::open_repo(&host_git, &env)?;
        let remote = if effective != url {
            let remote = repo.find_remote(name.as_str())?;
            let refspecs: Vec<String> = remote
                .refspecs(gix::remote::Direction::Fetch)
                .iter()
                .map(|s| s.to_ref().to_bstring().to_string())
                .collect();
            repo.remote_at(effective.as_str())?.with_refspecs(
                refspecs.iter().map(String::as_str),
                gix::remote::Direction::Fetch,
            )?
        } else {
            repo.find_remote(name.as_str())?
        };
        let fetch = || -> gix::Result<_> {
            let mut connection = remote
                .connect(gix::remote::Direction::Fetch)?
                .with_credentials(crate::repo::no_credentials);
            if let Some(http) = http {
                connection.set_transport_options(Box::new(http));
            }
            let prepared = connection.prepare_fetch(gix::progress::Discard, Default::default())?;
            prepared.receive(item, interrupt)
        };
        let outcome = fetch().map_err(|e| network_error(&url, &e))?;
        let edits = match &outcome.status {
            gix::remote::fetch::Status::Change { update_refs, .. }
            | gix::remote::fetch::Status::NoPackReceived { update_refs, .. } => &update_refs.edits,
        };
        Ok(edits.iter().map(|e| e.name.shorten().to_string()).collect())
    };
    let updated = crate::progress::run(inv, limit, hold, work)
        .unwrap_or_else(|why| Err(abandoned(&shown, limit, why)))?;
    let mut report = format!("From {shown}\n");
    for name in updated {
        let _ = writeln!(report, " * {name}");
    }
    Ok(report)
}

/// `git pull [REMOTE [BRANCH]]`: fetch, then fast-forward (merges are not supported).
pub(crate) fn pull(
    session: &Session<'_>,
    args: Vec<String>,
    inv: &Invocation<'_>,
) -> Result<Output> {
    let args = Args::parse(args, &[])?;
    args.only("pull", &["-q", "--quiet", "--ff-only", "--ff"])?;
    let repo = session.repo()?;
    let head = refs::head(&repo)?;
    let Some(branch) = head.branch().map(str::to_string) else {
        return Err(GitError::Failed(
            "You are not currently on a branch.".into(),
        ));
    };
    let (remote, upstream) = match args.operands.as_slice() {
        [remote, b] => (remote.clone(), format!("refs/remotes/{remote}/{b}")),
        [remote] => (remote.clone(), format!("refs/remotes/{remote}/{branch}")),
        _ => match refs::upstream(&repo, &branch) {
            Some((shown, full)) => (
                shown.split('/').next().unwrap_or("origin").to_string(),
                full,
            ),
            None => {
                return Err(GitError::Failed(format!(
                    "There is no tracking information for the current branch '{branch}'."
                )));
            }
        },
    };
    let report = fetch_remote(
        session.git,
        session.hold_lock()?,
        &repo,
        &session.env,
        &remote,
        inv,
    )?;
    let repo = session.repo()?;
    let theirs = refs::commit_of(&repo, &upstream)?;
    let mut out = Output::ok(Vec::new()).note(report.trim_end());
    let ours = head.id();
    if ours == Some(theirs) {
        out.stdout = b"Already up to date.\n".to_vec();
        return Ok(out);
    }
    if let Some(ours) = ours {
        let (ahead, _) = refs::ahead_behind(&repo, ours, theirs)?;
        if ahead > 0 {
            return Err(GitError::Failed(
                "Not possible to fast-forward, aborting. (merging is not supported by the isolate's git; run it in the container)".into(),
            ));
        }
    }
    let from = match &head {
        Head::Branch { id, .. } => worktree::commit_files(&repo, *id)?,
        _ => FileMap::new(),
    };
    let to = worktree::commit_files(&repo, theirs)?;
    let mut index = worktree::load_index(session)?;
    worktree::checkout(session, &repo, &from, &to, &mut index)?;
    worktree::write_index(&mut index)?;
    refs::set_ref(&repo, &branch, theirs, "pull: Fast-forward")?;
    out.stdout = format!(
        "Updating {}..{}\nFast-forward\n",
        ours.map(|o| refs::short(&o)).unwrap_or_default(),
        refs::short(&theirs)
    )
    .into_bytes();
    Ok(out)
}

/// `git remote [-v] | add NAME URL | remove NAME | get-url NAME | set-url NAME URL`.
pub(crate) fn remote(session: &Session<'_>, args: Vec<String>) -> Result<Output> {
    let args = Args::parse(args, &[])?;
    args.only("remote", &["-v", "--verbose"])?;
    let path = session.host_git.join("config");
    let mut file = crate::cmd_setup::load_config(&path, gix::config::Source::Local)?;
    let names = || -> Vec<String> {
        let mut names: Vec<String> = file
            .sections_by_name("remote")
            .into_iter()
            .flatten()
            .filter_map(|s| s.header().subsection_name().map(|n| n.to_string()))
            .collect();
        names.dedup();
        names
    };
    match args.operands.first().map(String::as_str) {
        None => {
            let mut out = String::new();
            for name in names() {
                if args.has(&["-v", "--verbose"]) {
                    let url = file
                        .raw_value(format!("remote.{name}.url").as_str())
                        .map(|u| u.to_string())
                        .unwrap_or_default();
                    let _ = writeln!(out, "{name}\t{url} (fetch)\n{name}\t{url} (push)");
                } else {
                    let _ = writeln!(out, "{name}");
                }
            }
            Ok(Output::ok(out))
        }
        Some("add") => {
            let [_, name, url] = args.operands.as_slice() else {
                return Err(GitError::Usage("usage: git remote add <name> <url>".into()));
            };
            if names().contains(name) {
                return Err(GitError::Failed(format!("remote {name} already exists.")));
            }
            file.set_raw_value(format!("remote.{name}.url").as_str(), url.as_str())
                .map_err(|e| GitError::failed("config", e))?;
            file.set_raw_value(
                format!("remote.{name}.fetch").as_str(),
                format!("+refs/heads/*:refs/remotes/{name}/*").as_str(),
            )
            .map_err(|e| GitError::failed("config", e))?;
            crate::mirror::write_host(&path, &file.to_bstring(), 0o600)?;
            Ok(Output::ok(Vec::new()))
        }
        Some("remove" | "rm") => {
            let [_, name] = args.operands.as_slice() else {
                return Err(GitError::Usage("usage: git remote remove <name>".into()));
            };
            if file
                .remove_section("remote", Some(name.as_str().into()))
                .is_none()
            {
                return Err(GitError::Failed(format!("No such remote: '{name}'")));
            }
            crate::mirror::write_host(&path, &file.to_bstring(), 0o600)?;
            Ok(Output::ok(Vec::new()))
        }
        Some("get-url") => {
            let [_, name] = args.operands.as_slice() else {
                return Err(GitError::Usage("usage: git remote get-url <name>".into()));
            };
            match file.raw_value(format!("remote.{name}.url").as_str()) {
                Ok(url) => Ok(Output::ok(format!("{url}\n"))),
                Err(_) => Err(GitError::Failed(format!("No such remote '{name}'"))),
            }
        }
        Some("set-url") => {
            let [_, name, url] = args.operands.as_slice() else {
                return Err(GitError::Usage(
                    "usage: git remote set-url <name> <url>".into(),
                ));
            };
            if !names().contains(name) {
                return Err(GitError::Failed(format!("No such remote '{name}'")));
            }
            file.set_raw_value(format!("remote.{name}.url").as_str(), url.as_str())
                .map_err(|e| GitError::failed("config", e))?;
            crate::mirror::write_host(&path, &file.to_bstring(), 0o600)?;
            Ok(Output::ok(Vec::new()))
        }
        Some(other) => Err(GitError::Usage(format!(
            "error: unknown subcommand: `{other}'"
        ))),
    }
}
