//! HEAD, branches and revisions: what they point to and how they move.

use std::collections::HashSet;

use gix::ObjectId;
use gix::refs::Target;
use gix::refs::transaction::{Change, LogChange, PreviousValue, RefEdit, RefLog};

use crate::error::{GitError, Result};

/// Where HEAD points.
#[derive(Debug, Clone)]
pub(crate) enum Head {
    /// On a branch that has commits.
    Branch { name: String, id: ObjectId },
    /// On a branch without commits yet.
    Unborn { name: String },
    /// At a commit, not on a branch.
    Detached { id: ObjectId },
}

impl Head {
    /// The commit HEAD points to.
    pub fn id(&self) -> Option<ObjectId> {
        match self {
            Head::Branch { id, .. } | Head::Detached { id } => Some(*id),
            Head::Unborn { .. } => None,
        }
    }

    /// The tree of HEAD's commit.
    pub fn tree(&self, repo: &gix::Repository) -> Result<Option<ObjectId>> {
        match self.id() {
            Some(id) => Ok(Some(repo.find_commit(id)?.tree_id()?.detach())),
            None => Ok(None),
        }
    }

    /// The branch name, if on one.
    pub fn branch(&self) -> Option<&str> {
        match self {
            Head::Branch { name, .. } | Head::Unborn { name } => Some(name),
            Head::Detached { .. } => None,
        }
    }
}

/// Reads HEAD.
pub(crate) fn head(repo: &gix::Repository) -> Result<Head> {
    let head = repo.head()?;
    let short = |name: &gix::refs::FullNameRef| name.shorten().to_string();
    Ok(match &head.kind {
        gix::head::Kind::Symbolic(r) => {
            let name = short(r.name.as_ref());
            let id = repo.head_id()?.detach();
            Head::Branch { name, id }
        }
        gix::head::Kind::Unborn(name) => Head::Unborn {
            name: short(name.as_ref()),
        },
        gix::head::Kind::Detached { target, .. } => Head::Detached { id: *target },
    })
}

/// An id as git abbreviates it by default.
pub(crate) fn short(id: &ObjectId) -> String {
    id.to_hex_with_len(7).to_string()
}

/// Resolves a revision (`HEAD~2`, a branch, a tag, an abbreviated id) to a commit.
pub(crate) fn commit_of(repo: &gix::Repository, spec: &str) -> Result<ObjectId> {
    let id = repo.rev_parse_single(spec).map_err(|_| {
        GitError::NotFound(format!(
            "ambiguous argument '{spec}': unknown revision or path not in the working tree."
        ))
    })?;
    let object = id.object()?;
    match object.peel_to_commit() {
        Ok(commit) => Ok(commit.id),
        Err(_) => Err(GitError::Failed(format!("'{spec}' is not a commit"))),
    }
}

/// `A..B` as its two ends (an empty end means `HEAD`), or `None` for a single revision.
pub(crate) fn split_range(spec: &str) -> Option<(&str, &str)> {
    let (a, b) = spec.split_once("..")?;
    Some((
        if a.is_empty() { "HEAD" } else { a },
        if b.is_empty() { "HEAD" } else { b },
    ))
}

/// Whether a local branch exists.
pub(crate) fn branch_exists(repo: &gix::Repository, name: &str) -> Result<bool> {
    if !valid_branch_name(name) {
        return Ok(false);
    }
    Ok(repo
        .try_find_reference(format!("refs/heads/{name}").as_str())?
        .is_some())
}

/// The local branches, sorted.
pub(crate) fn branches(repo: &gix::Repository) -> Result<Vec<(String, ObjectId)>> {
    let mut out = Vec::new();
    for r in repo.references()?.local_branches()? {
        let mut r = r.map_err(|e| GitError::failed("reading branches", e))?;
        let id = r.peel_to_id()?.detach();
        out.push((r.name().shorten().to_string(), id));
    }
    out.sort();
    Ok(out)
}

/// Points `refs/heads/<name>` (or any full ref name) at `id`, with a reflog entry.
pub(crate) fn set_ref(
    repo: &gix::Repository,
    name: &str,
    id: ObjectId,
    message: &str,
) -> Result<()> {
    update_ref(repo, name, id, message, false)
}

/// Like [`set_ref`], creating the reflog even where git would not by default (`refs/stash`,
/// whose reflog is the list of stashes).
pub(crate) fn set_ref_logged(
    repo: &gix::Repository,
    name: &str,
    id: ObjectId,
    message: &str,
) -> Result<()> {
    update_ref(repo, name, id, message, true)
}

fn update_ref(
    repo: &gix::Repository,
    name: &str,
    id: ObjectId,
    message: &str,
    force_create_reflog: bool,
) -> Result<()> {
    let full = if name.starts_with("refs/") || name == "HEAD" {
        name.to_string()
    } else {
        format!("refs/heads/{name}")
    };
    repo.edit_reference(RefEdit {
        change: Change::Update {
            log: LogChange {
                mode: RefLog::AndReference,
                force_create_reflog,
                message: message.into(),
            },
            expected: PreviousValue::Any,
            new: Target::Object(id),
        },
        name: full
            .try_into()
            .map_err(|_| GitError::Failed(format!("'{name}' is not a valid branch name")))?,
        deref: false,
    })?;
    Ok(())
}

/// Points HEAD at a branch (`Some`) or detaches it at `id`.
pub(crate) fn set_head(
    repo: &gix::Repository,
    branch: Option<&str>,
    id: Option<ObjectId>,
    message: &str,
) -> Result<()> {
    let new = match branch {
        Some(name) => Target::Symbolic(
            format!("refs/heads/{name}")
                .try_into()
                .map_err(|_| GitError::Failed(format!("'{name}' is not a valid branch name")))?,
        ),
        None => {
            Target::Object(id.ok_or_else(|| GitError::Failed("no commit to detach at".into()))?)
        }
    };
    repo.edit_reference(RefEdit {
        change: Change::Update {
            log: LogChange {
                mode: RefLog::AndReference,
                force_create_reflog: false,
                message: message.into(),
            },
            expected: PreviousValue::Any,
            new,
        },
        name: "HEAD"
            .try_into()
            .map_err(|_| GitError::Failed("HEAD".into()))?,
        deref: false,
    })?;
    Ok(())
}

/// Deletes a reference.
pub(crate) fn delete_ref(repo: &gix::Repository, full: &str) -> Result<()> {
    repo.edit_reference(RefEdit {
        change: Change::Delete {
            expected: PreviousValue::Any,
            log: RefLog::AndReference,
        },
        name: full
            .try_into()
            .map_err(|_| GitError::Failed(format!("'{full}' is not a valid ref name")))?,
        deref: false,
    })?;
    Ok(())
}

/// Whether `name` is a name git accepts for a branch.
pub(crate) fn valid_branch_name(name: &str) -> bool {
    !name.starts_with('-')
        && gix::validate::reference::name_partial(name.into()).is_ok()
        && name != "HEAD"
}

/// All ancestors of `tip` (itself included).
fn ancestors(repo: &gix::Repository, tip: ObjectId) -> Result<HashSet<ObjectId>> {
    let mut out = HashSet::new();
    for info in repo.rev_walk([tip]).all()? {
        let info = info.map_err(|e| GitError::failed("walking history", e))?;
        out.insert(info.id);
    }
    Ok(out)
}

/// Commits in `a` not in `b`, and in `b` not in `a`.
pub(crate) fn ahead_behind(
    repo: &gix::Repository,
    a: ObjectId,
    b: ObjectId,
) -> Result<(usize, usize)> {
    if a == b {
        return Ok((0, 0));
    }
    let ours = ancestors(repo, a)?;
    let theirs = ancestors(repo, b)?;
    Ok((
        ours.difference(&theirs).count(),
        theirs.difference(&ours).count(),
    ))
}

/// The upstream of a branch as (display name, full ref), from `branch.<name>.remote/merge`.
pub(crate) fn upstream(repo: &gix::Repository, branch: &str) -> Option<(String, String)> {
    let config = repo.config_snapshot();
    let remote = config.string(format!("branch.{branch}.remote").as_str())?;
    let merge = config.string(format!("branch.{branch}.merge").as_str())?;
    let merge = merge.to_string();
    let short = merge
        .strip_prefix("refs/heads/")
        .unwrap_or(&merge)
        .to_string();
    if remote.as_slice() == b"." {
        return Some((short.clone(), format!("refs/heads/{short}")));
    }
    Some((
        format!("{remote}/{short}"),
        format!("refs/remotes/{remote}/{short}"),
    ))
}

/// The "Your branch is ..." lines of `git status`.
pub(crate) fn tracking_summary(
    repo: &gix::Repository,
    branch: &str,
    id: ObjectId,
) -> Result<String> {
    let Some((shown, full)) = upstream(repo, branch) else {
        return Ok(String::new());
    };
    let Some(mut upstream) = repo.try_find_reference(full.as_str())? else {
        return Ok(format!(
            "Your branch is based on '{shown}', but the upstream is gone.\n  (use \"git branch --unset-upstream\" to fixup)\n"
        ));
    };
    let theirs = upstream.peel_to_id()?.detach();
    let plural = |n: usize| if n == 1 { "commit" } else { "commits" };
    Ok(match ahead_behind(repo, id, theirs)? {
        (0, 0) => format!("Your branch is up to date with '{shown}'.\n"),
        (ahead, 0) => format!(
            "Your branch is ahead of '{shown}' by {ahead} {}.\n  (use \"git push\" to publish your local commits)\n",
            plural(ahead)
        ),
        (0, behind) => format!(
            "Your branch is behind '{shown}' by {behind} {}, and can be fast-forwarded.\n  (use \"git pull\" to update your local branch)\n",
            plural(behind)
        ),
        (ahead, behind) => format!(
            "Your branch and '{shown}' have diverged,\nand have {ahead} and {behind} different commits each, respectively.\n  (use \"git pull\" to merge the remote branch into yours)\n"
        ),
    })
}

/// The entries of the reflog of `name` in the git directory `git_dir`, as (new id, message),
/// oldest first (none when there is no reflog).
pub(crate) fn reflog(git_dir: &std::path::Path, name: &str) -> Vec<(ObjectId, String)> {
    let log = std::fs::read_to_string(git_dir.join("logs").join(name)).unwrap_or_default();
    log.lines()
        .filter_map(|line| {
            let (fields, message) = line.split_once('\t')?;
            let new = ObjectId::from_hex(fields.split(' ').nth(1)?.as_bytes()).ok()?;
            Some((new, message.to_string()))
        })
        .collect()
}

/// How git describes a detached HEAD, from the last `checkout: moving from A to B` entry of
/// HEAD's reflog: `Some((true, name))` "detached at", `Some((false, name))` "detached from",
/// `None` when no checkout is recorded ("Not currently on any branch.").
pub(crate) fn detached_from(repo: &gix::Repository, head: ObjectId) -> Option<(bool, String)> {
    let (new, to) = reflog(repo.path(), "HEAD")
        .into_iter()
        .rev()
        .find_map(|(new, message)| {
            let rest = message.strip_prefix("checkout: moving from ")?;
            Some((new, rest.rsplit_once(" to ")?.1.to_string()))
        })?;
    let candidates = [
        to.clone(),
        format!("refs/{to}"),
        format!("refs/tags/{to}"),
        format!("refs/heads/{to}"),
        format!("refs/remotes/{to}"),
        format!("refs/remotes/{to}/HEAD"),
    ];
    let named = candidates.iter().find_map(|name| {
        if !name.starts_with("refs/") {
            return None;
        }
        let mut r = repo.try_find_reference(name.as_str()).ok()??;
        let id = r.peel_to_id().ok()?.detach();
        let shown = name
            .strip_prefix("refs/tags/")
            .or_else(|| name.strip_prefix("refs/remotes/"))
            .or_else(|| name.strip_prefix("refs/heads/"))
            .unwrap_or(name);
        (id == new).then(|| shown.to_string())
    });
    Some((head == new, named.unwrap_or_else(|| short(&new))))
}

/// The first line of `git status` for a detached HEAD, and `git branch`'s entry for it.
pub(crate) fn detached_line(repo: &gix::Repository, head: ObjectId) -> (String, String) {
    match detached_from(repo, head) {
        Some((true, name)) => (
            format!("HEAD detached at {name}"),
            format!("(HEAD detached at {name})"),
        ),
        Some((false, name)) => (
            format!("HEAD detached from {name}"),
            format!("(HEAD detached from {name})"),
        ),
        None => ("Not currently on any branch.".into(), "(no branch)".into()),
    }
}
