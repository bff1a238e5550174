//! Commands that move HEAD or branches: branch, checkout, switch, reset.

use std::collections::HashSet;
use std::fmt::Write as _;

use gix::ObjectId;
use gix::bstr::{BString, ByteSlice};

use crate::cli::{Args, Invocation, Output};
use crate::error::{GitError, Result};
use crate::pathspec;
use crate::refs::{self, Head};
use crate::repo::Session;
use crate::status;
use crate::worktree::{self, FileMap};

/// `git branch [--list] | NAME [START] | -d|-D NAME | -m [OLD] NEW | --show-current`.
pub(crate) fn branch(session: &Session<'_>, args: Vec<String>) -> Result<Output> {
    let args = Args::parse(args, &[])?;
    args.only(
        "branch",
        &[
            "--list",
            "-l",
            "-d",
            "-D",
            "--delete",
            "-m",
            "-M",
            "--move",
            "--show-current",
            "-f",
            "--force",
            "-a",
            "--all",
            "-r",
            "--remotes",
        ],
    )?;
    let repo = session.repo()?;
    let head = refs::head(&repo)?;
    if args.has(&["--show-current"]) {
        return Ok(Output::ok(
            head.branch().map(|b| format!("{b}\n")).unwrap_or_default(),
        ));
    }
    if args.has(&["-d", "-D", "--delete"]) {
        let mut out = String::new();
        for name in &args.operands {
            if head.branch() == Some(name.as_str()) {
                return Err(GitError::Conflict(format!(
                    "Cannot delete branch '{name}' checked out at '{}'",
                    session.worktree.display()
                )));
            }
            let full = format!("refs/heads/{name}");
            let Some(mut r) = repo.try_find_reference(full.as_str())? else {
                return Err(GitError::Conflict(format!("branch '{name}' not found.")));
            };
            let id = r.peel_to_id()?.detach();
            if !args.has(&["-D"]) && !args.has(&["-f", "--force"]) {
                let merged = match head.id() {
                    Some(h) => refs::ahead_behind(&repo, id, h)?.0 == 0,
                    None => false,
                };
                if !merged {
                    return Err(GitError::Conflict(format!(
                        "The branch '{name}' is not fully merged.\nIf you are sure you want to delete it, run 'git branch -D {name}'."
                    )));
                }
            }
            refs::delete_ref(&repo, &full)?;
            let _ = writeln!(out, "Deleted branch {name} (was {}).", refs::short(&id));
        }
        return Ok(Output::ok(out));
    }
    if args.has(&["-m", "-M", "--move"]) {
        let (old, new) = match args.operands.as_slice() {
            [new] => (
                head.branch()
                    .map(str::to_string)
                    .ok_or_else(|| GitError::Failed("not on a branch".into()))?,
                new.clone(),
            ),
            [old, new] => (old.clone(), new.clone()),
            _ => return Err(GitError::Usage("usage: git branch -m [<old>] <new>".into())),
        };
        if !refs::valid_branch_name(&new) {
            return Err(GitError::Failed(format!(
                "'{new}' is not a valid branch name"
            )));
        }
        if refs::branch_exists(&repo, &new)? && !args.has(&["-M", "-f", "--force"]) {
            return Err(GitError::Failed(format!(
                "a branch named '{new}' already exists"
            )));
        }
        let on_it = head.branch() == Some(old.as_str());
        match repo.try_find_reference(format!("refs/heads/{old}").as_str())? {
            Some(mut r) => {
                let id = r.peel_to_id()?.detach();
                refs::set_ref(
                    &repo,
                    &new,
                    id,
                    &format!("Branch: renamed refs/heads/{old} to refs/heads/{new}"),
                )?;
                refs::delete_ref(&repo, &format!("refs/heads/{old}"))?;
            }
            None if on_it => {}
            None => return Err(GitError::Failed(format!("no branch named '{old}'"))),
        }
        if on_it {
            refs::set_head(
                &repo,
                Some(&new),
                None,
                &format!("Branch: renamed refs/heads/{old} to refs/heads/{new}"),
            )?;
        }
        return Ok(Output::ok(Vec::new()));
    }
    if args.operands.is_empty() || args.has(&["--list", "-l"]) {
        let mut out = String::new();
        if let Head::Detached { id } = &head {
            let _ = writeln!(out, "* {}", refs::detached_line(&repo, *id).1);
        }
        if !args.has(&["-r", "--remotes"]) {
            for (name, _) in refs::branches(&repo)? {
                let mark = if head.branch() == Some(name.as_str()) {
                    '*'
                } else {
                    ' '
                };
                let _ = writeln!(out, "{mark} {name}");
            }
        }
        if args.has(&["-a", "--all", "-r", "--remotes"]) {
            let prefix = if args.has(&["-a", "--all"]) {
                "remotes/"
            } else {
                ""
            };
            let mut names = Vec::new();
            for r in repo.references()?.remote_branches()? {
                let r = r.map_err(|e| GitError::failed("reading branches", e))?;
                names.push(r.name().shorten().to_string());
            }
            names.sort();
            for name in names {
                let _ = writeln!(out, "  {prefix}{name}");
            }
        }
        return Ok(Output::ok(out));
    }
    let name = &args.operands[0];
    if !refs::valid_branch_name(name) {
        return Err(GitError::Failed(format!(
            "'{name}' is not a valid branch name"
        )));
    }
    if refs::branch_exists(&repo, name)? && !args.has(&["-f", "--force"]) {
        return Err(GitError::Failed(format!(
            "a branch named '{name}' already exists"
        )));
    }
    let start = match args.operands.get(1) {
        Some(rev) => refs::commit_of(&repo, rev)?,
        None => head.id().ok_or_else(|| {
            GitError::Failed(format!(
                "not a valid object name: '{}'",
                head.branch().unwrap_or("HEAD")
            ))
        })?,
    };
    refs::set_ref(&repo, name, start, "branch: Created from HEAD")?;
    Ok(Output::ok(Vec::new()))
}

/// `git checkout BRANCH | -b NEW [START] | REV | [REV] -- PATH...`.
pub(crate) fn checkout(
    session: &Session<'_>,
    args: Vec<String>,
    inv: &Invocation<'_>,
) -> Result<Output> {
    let args = Args::parse(args, &["-b", "-B"])?;
    args.only(
        "checkout",
        &["-b", "-B", "-q", "--quiet", "-f", "--force", "--detach"],
    )?;
    let repo = session.repo()?;
    if let Some(new) = args.value(&["-b", "-B"]) {
        let force = args.values.contains_key("-B");
        return create_and_switch(
            session,
            &repo,
            new,
            args.operands.first().map(String::as_str),
            force,
        );
    }
    let (target, paths) = if args.dashdash {
        (args.operands.first().cloned(), args.paths.clone())
    } else {
        match args.operands.split_first() {
            Some((first, rest)) if !rest.is_empty() => (Some(first.clone()), rest.to_vec()),
            Some((first, _)) => {
                if repo.rev_parse_single(first.as_str()).is_ok()
                    || remote_branch(&repo, first)?.is_some()
                {
                    (Some(first.clone()), Vec::new())
                } else {
                    (None, vec![first.clone()])
                }
            }
            None => {
                return Err(GitError::Usage(
                    "usage: git checkout <branch> | -b <new> | -- <paths>".into(),
                ));
            }
        }
    };
    if !paths.is_empty() {
        // Restore files: from the index, or from a revision into the index and worktree.
        let specs = pathspec::parse(session, inv.cwd, &paths)?;
        let mut index = worktree::load_index(session)?;
        let (source, staged) = match &target {
            Some(rev) => {
                let id = refs::commit_of(&repo, rev)?;
                (worktree::commit_files(&repo, id)?, true)
            }
            None => (worktree::index_map(&index), false),
        };
        crate::cmd_worktree::restore_paths(
            session, &repo, &mut index, &specs, &source, staged, true,
        )?;
        worktree::write_index(&mut index)?;
        return Ok(Output::ok(Vec::new()));
    }
    let target = target.unwrap_or_default();
    let force = args.has(&["-f", "--force"]);
    if !args.has(&["--detach"]) {
        if refs::branch_exists(&repo, &target)? {
            return switch_branch(session, &repo, &target, force);
        }
        if let Some(remote_ref) = remote_branch(&repo, &target)? {
            let mut out = create_and_switch(session, &repo, &target, Some(&remote_ref), false)?;
            let remote = remote_ref.split('/').next().unwrap_or("origin");
            set_upstream(session, &target, remote)?;
            let mut note =
                format!("branch '{target}' set up to track '{remote_ref}'.\n").into_bytes();
            note.extend(out.stderr);
            out.stderr = note;
            return Ok(out);
        }
    }
    let id = refs::commit_of(&repo, &target)?;
    detach(session, &repo, id, &target, force)
}

/// `git switch BRANCH | -c NEW [START] | --detach REV`.
pub(crate) fn switch(session: &Session<'_>, args: Vec<String>) -> Result<Output> {
    let args = Args::parse(args, &["-c", "-C", "--create"])?;
    args.only(
        "switch",
        &[
            "-c",
            "-C",
            "--create",
            "--detach",
            "-f",
            "--force",
            "--discard-changes",
            "-q",
        ],
    )?;
    let repo = session.repo()?;
    if let Some(new) = args.value(&["-c", "-C", "--create"]) {
        let force = args.values.contains_key("-C");
        return create_and_switch(
            session,
            &repo,
            new,
            args.operands.first().map(String::as_str),
            force,
        );
    }
    let Some(target) = args.operands.first() else {
        return Err(GitError::Usage(
            "usage: git switch <branch> | -c <new> | --detach <rev>".into(),
        ));
    };
    let force = args.has(&["-f", "--force", "--discard-changes"]);
    if args.has(&["--detach"]) {
        let id = refs::commit_of(&repo, target)?;
        return detach(session, &repo, id, target, force);
    }
    if refs::branch_exists(&repo, target)? {
        return switch_branch(session, &repo, target, force);
    }
    if let Some(remote_ref) = remote_branch(&repo, target)? {
        let out = create_and_switch(session, &repo, target, Some(&remote_ref), false)?;
        set_upstream(
            session,
            target,
            remote_ref.split('/').next().unwrap_or("origin"),
        )?;
        return Ok(out);
    }
    Err(GitError::Failed(format!("invalid reference: {target}")))
}

/// `<remote>/<name>` for the one remote-tracking branch called `name`, if exactly one.
fn remote_branch(repo: &gix::Repository, name: &str) -> Result<Option<String>> {
    let mut found = Vec::new();
    for r in repo.references()?.remote_branches()? {
        let r = r.map_err(|e| GitError::failed("reading branches", e))?;
        let short = r.name().shorten().to_string();
        if short.split_once('/').is_some_and(|(_, b)| b == name) {
            found.push(short);
        }
    }
    Ok(if found.len() == 1 { found.pop() } else { None })
}

/// Records `remote`'s branch of the same name as the upstream of `branch`.
pub(crate) fn set_upstream(session: &Session<'_>, branch: &str, remote: &str) -> Result<()> {
    crate::cmd_setup::set_config(
        &session.host_git,
        &[
            (&format!("branch.{branch}.remote"), remote),
            (
                &format!("branch.{branch}.merge"),
                &format!("refs/heads/{branch}"),
            ),
        ],
    )
}

fn create_and_switch(
    session: &Session<'_>,
    repo: &gix::Repository,
    name: &str,
    start: Option<&str>,
    force: bool,
) -> Result<Output> {
    if !refs::valid_branch_name(name) {
        return Err(GitError::Failed(format!(
            "'{name}' is not a valid branch name"
        )));
    }
    if refs::branch_exists(repo, name)? && !force {
        return Err(GitError::Failed(format!(
            "a branch named '{name}' already exists"
        )));
    }
    let head = refs::head(repo)?;
    let target = match start {
        Some(rev) => Some(refs::commit_of(repo, rev)?),
        None => head.id(),
    };
    // Without a commit (`checkout -b` on an unborn branch) only HEAD moves.
    if let Some(id) = target {
        move_worktree(session, repo, &head, id, false)?;
        refs::set_ref(
            repo,
            name,
            id,
            &format!("branch: Created from {}", start.unwrap_or("HEAD")),
        )?;
    }
    refs::set_head(
        repo,
        Some(name),
        None,
        &format!("checkout: moving from {} to {name}", from_name(&head)),
    )?;
    Ok(Output::ok(local_changes(session, repo)?)
        .note(&format!("Switched to a new branch '{name}'")))
}

fn switch_branch(
    session: &Session<'_>,
    repo: &gix::Repository,
    name: &str,
    force: bool,
) -> Result<Output> {
    let head = refs::head(repo)?;
    if head.branch() == Some(name) {
        return Ok(Output::ok(Vec::new()).note(&format!("Already on '{name}'")));
    }
    let id = refs::commit_of(repo, &format!("refs/heads/{name}"))?;
    move_worktree(session, repo, &head, id, force)?;
    refs::set_head(
        repo,
        Some(name),
        None,
        &format!("checkout: moving from {} to {name}", from_name(&head)),
    )?;
    let mut out =
        Output::ok(local_changes(session, repo)?).note(&format!("Switched to branch '{name}'"));
    let summary = refs::tracking_summary(repo, name, id)?;
    out.stdout.extend(summary.into_bytes());
    Ok(out)
}

fn detach(
    session: &Session<'_>,
    repo: &gix::Repository,
    id: ObjectId,
    target: &str,
    force: bool,
) -> Result<Output> {
    let head = refs::head(repo)?;
    move_worktree(session, repo, &head, id, force)?;
    refs::set_head(
        repo,
        None,
        Some(id),
        &format!("checkout: moving from {} to {target}", from_name(&head)),
    )?;
    let summary = repo.find_commit(id)?.message()?.summary().to_string();
    Ok(Output::ok(local_changes(session, repo)?)
        .note(&format!("HEAD is now at {} {summary}", refs::short(&id))))
}

/// The local changes a switch carried along, as git lists them (`M\tpath`).
fn local_changes(session: &Session<'_>, repo: &gix::Repository) -> Result<String> {
    let st = status::compute(session, repo)?;
    let mut lines: std::collections::BTreeMap<BString, char> = std::collections::BTreeMap::new();
    for s in &st.staged {
        let letter = match s.change {
            status::Change::Added | status::Change::Renamed => 'A',
            status::Change::Deleted => 'D',
            status::Change::TypeChanged => 'T',
            status::Change::Modified => 'M',
        };
        lines.insert(s.path.clone(), letter);
        if let Some(from) = &s.from {
            lines.insert(from.clone(), 'D');
        }
    }
    for (p, c) in &st.unstaged {
        let letter = match c {
            status::Change::Deleted => 'D',
            status::Change::TypeChanged => 'T',
            _ => 'M',
        };
        lines.entry(p.clone()).or_insert(letter);
    }
    let mut out = String::new();
    for (p, c) in lines {
        let _ = writeln!(out, "{c}\t{p}");
    }
    Ok(out)
}

fn from_name(head: &Head) -> String {
    match head {
        Head::Branch { name, .. } | Head::Unborn { name } => name.clone(),
        Head::Detached { id } => id.to_string(),
    }
}

/// Moves the worktree and index from HEAD's tree to commit `to`'s, refusing (unless
/// `force`) when that would overwrite local changes or untracked files.
fn move_worktree(
    session: &Session<'_>,
    repo: &gix::Repository,
    head: &Head,
    to: ObjectId,
    force: bool,
) -> Result<()> {
    let from_files = worktree::tree_map(repo, head.tree(repo)?)?;
    let to_files = worktree::commit_files(repo, to)?;
    let mut index = worktree::load_index(session)?;
    let st = status::compute(session, repo)?;
    let mut from_effective = from_files.clone();
    if force {
        // Whatever differs locally is rewritten.
        for s in &st.staged {
            from_effective.remove(&s.path);
        }
        for (p, _) in &st.unstaged {
            from_effective.remove(p);
        }
    } else {
        let index_files = worktree::index_map(&index);
        check_local_changes(session, &st, &index_files, &from_files, &to_files)?;
    }
    worktree::checkout(session, repo, &from_effective, &to_files, &mut index)?;
    worktree::write_index(&mut index)?;
    Ok(())
}

/// Fails when switching from `from` to `to` would lose local changes or untracked files.
fn check_local_changes(
    session: &Session<'_>,
    st: &status::Status,
    index: &FileMap,
    from: &FileMap,
    to: &FileMap,
) -> Result<()> {
    let changing: HashSet<&BString> = from
        .keys()
        .chain(to.keys())
        .filter(|p| from.get(*p) != to.get(*p))
        .collect();
    let mut overwritten: Vec<String> = Vec::new();
    for s in &st.staged {
        if changing.contains(&s.path) && index.get(&s.path) != to.get(&s.path) {
            overwritten.push(s.path.to_string());
        }
    }
    for (p, _) in &st.unstaged {
        if changing.contains(p) {
            overwritten.push(p.to_string());
        }
    }
    if !overwritten.is_empty() {
        overwritten.sort();
        overwritten.dedup();
        let mut text = String::from(
            "Your local changes to the following files would be overwritten by checkout:\n",
        );
        for p in overwritten {
            let _ = writeln!(text, "\t{p}");
        }
        text.push_str(
            "Please commit your changes or stash them before you switch branches.\nAborting",
        );
        return Err(GitError::Conflict(text));
    }
    let mut in_the_way: Vec<String> = Vec::new();
    for path in to
        .keys()
        .filter(|p| !from.contains_key(*p) && !index.contains_key(*p))
    {
        if session.vfs.lstat(session.path_of(path)).is_ok() {
            in_the_way.push(path.to_string());
        }
    }
    if !in_the_way.is_empty() {
        let mut text = String::from(
            "The following untracked working tree files would be overwritten by checkout:\n",
        );
        for p in in_the_way {
            let _ = writeln!(text, "\t{p}");
        }
        text.push_str("Please move or remove them before you switch branches.\nAborting");
        return Err(GitError::Conflict(text));
    }
    Ok(())
}

/// The worktree and index become `target`'s files (local changes to tracked files are
/// discarded, untracked files stay), as `reset --hard` does.
pub(crate) fn reset_hard(
    session: &Session<'_>,
    repo: &gix::Repository,
    index: &mut gix::index::File,
    st: &status::Status,
    target: &FileMap,
) -> Result<()> {
    let mut from = worktree::index_map(index);
    for (p, _) in &st.unstaged {
        from.remove(p);
    }
    worktree::checkout(session, repo, &from, target, index)?;
    worktree::write_index(index)
}

/// `git reset [--soft|--mixed|--hard] [REV]`, `git reset [REV] -- PATH...`.
pub(crate) fn reset(
    session: &Session<'_>,
    args: Vec<String>,
    inv: &Invocation<'_>,
) -> Result<Output> {
    let args = Args::parse(args, &[])?;
    args.only("reset", &["--soft", "--mixed", "--hard", "-q", "--quiet"])?;
    let repo = session.repo()?;
    let head = refs::head(&repo)?;
    // `reset PATH` (not a revision) unstages paths.
    let (rev, paths) = if args.dashdash {
        (args.operands.first().cloned(), args.paths.clone())
    } else {
        match args.operands.split_first() {
            Some((first, rest)) if repo.rev_parse_single(first.as_str()).is_ok() => {
                (Some(first.clone()), rest.to_vec())
            }
            Some(_) => (None, args.operands.clone()),
            None => (None, Vec::new()),
        }
    };
    let target = match &rev {
        Some(r) => Some(refs::commit_of(&repo, r)?),
        None => head.id(),
    };
    let target_files = match target {
        Some(id) => worktree::commit_files(&repo, id)?,
        None => FileMap::new(),
    };
    let mut index = worktree::load_index(session)?;
    if !paths.is_empty() {
        if args.has(&["--soft", "--hard"]) {
            return Err(GitError::Failed(
                "Cannot do soft or hard reset with paths.".into(),
            ));
        }
        let specs = pathspec::parse(session, inv.cwd, &paths)?;
        crate::cmd_worktree::restore_paths(
            session,
            &repo,
            &mut index,
            &specs,
            &target_files,
            true,
            false,
        )?;
        worktree::write_index(&mut index)?;
        return Ok(Output::ok(Vec::new()));
    }
    let Some(target) = target else {
        // Unborn: a mixed reset empties the index.
        index.remove_entries(|_, _, _| true);
        worktree::write_index(&mut index)?;
        return Ok(Output::ok(Vec::new()));
    };
    let message = format!("reset: moving to {}", rev.as_deref().unwrap_or("HEAD"));
    if args.has(&["--hard"]) {
        let st = status::compute(session, &repo)?;
        reset_hard(session, &repo, &mut index, &st, &target_files)?;
    } else if !args.has(&["--soft"]) {
        let current = worktree::index_map(&index);
        let changed: HashSet<BString> = current
            .keys()
            .chain(target_files.keys())
            .filter(|p| current.get(*p) != target_files.get(*p))
            .cloned()
            .collect();
        index.remove_entries(|_, p, _| changed.contains(p));
        for p in &changed {
            if let Some((mode, id)) = target_files.get(p) {
                index.dangerously_push_entry(
                    Default::default(),
                    *id,
                    gix::index::entry::Flags::empty(),
                    worktree::index_mode(*mode),
                    p.as_bstr(),
                );
            }
        }
        index.sort_entries();
        worktree::write_index(&mut index)?;
    }
    match &head {
        Head::Detached { .. } => refs::set_head(&repo, None, Some(target), &message)?,
        Head::Branch { name, .. } | Head::Unborn { name } => {
            refs::set_ref(&repo, name, target, &message)?
        }
    }
    if args.has(&["-q", "--quiet"]) {
        return Ok(Output::ok(Vec::new()));
    }
    if args.has(&["--hard"]) {
        let summary = repo.find_commit(target)?.message()?.summary().to_string();
        return Ok(Output::ok(format!(
            "HEAD is now at {} {summary}\n",
            refs::short(&target)
        )));
    }
    if args.has(&["--soft"]) {
        return Ok(Output::ok(Vec::new()));
    }
    let st = status::compute(session, &repo)?;
    if st.unstaged.is_empty() {
        return Ok(Output::ok(Vec::new()));
    }
    let mut out = String::from("Unstaged changes after reset:\n");
    for (p, c) in &st.unstaged {
        let letter = if *c == status::Change::Deleted {
            'D'
        } else {
            'M'
        };
        let _ = writeln!(out, "{letter}\t{p}");
    }
    Ok(Output::ok(out))
}
