//! `git stash`: push, list, apply, pop, drop, with git's commit structure (a WIP commit on
//! HEAD and the index commit), so the container's git reads these stashes and ours read its.
//! Applying onto a HEAD that moved works when the commits since do not touch the stashed
//! files (no three-way merge here).

use std::collections::BTreeSet;
use std::fmt::Write as _;

use gix::ObjectId;
use gix::bstr::{BString, ByteSlice};

use crate::cli::{Args, Invocation, Output};
use crate::error::{GitError, Result};
use crate::refs;
use crate::repo::Session;
use crate::status;
use crate::worktree::{self, FileMap};

/// `git stash [push [-m MSG]] | list | apply [N] | pop [N] | drop [N]`.
pub(crate) fn stash(
    session: &Session<'_>,
    args: Vec<String>,
    inv: &Invocation<'_>,
) -> Result<Output> {
    let (sub, rest) = match args.split_first() {
        Some((sub, rest)) if !sub.starts_with('-') => (sub.as_str(), rest.to_vec()),
        _ => ("push", args.clone()),
    };
    match sub {
        "push" | "save" => push(session, rest, inv),
        "list" => list(session),
        "apply" => apply(session, rest, inv, false),
        "pop" => apply(session, rest, inv, true),
        "drop" => drop_entry(session, rest),
        other => Err(GitError::Usage(format!(
            "error: unknown subcommand: `{other}' (the isolate's git has stash push, list, apply, pop, drop)"
        ))),
    }
}

/// The stash reflog: (new id, message), newest first.
fn entries(session: &Session<'_>) -> Vec<(ObjectId, String)> {
    let mut out = refs::reflog(&session.host_git, "refs/stash");
    out.reverse();
    out
}

/// `stash@{N}`, `N` or nothing (0).
fn index_of(args: &[String]) -> Result<usize> {
    match args.first() {
        None => Ok(0),
        Some(arg) => {
            let n = arg
                .strip_prefix("stash@{")
                .and_then(|r| r.strip_suffix('}'))
                .unwrap_or(arg);
            n.parse()
                .map_err(|_| GitError::Failed(format!("'{arg}' is not a stash-like commit")))
        }
    }
}

fn push(session: &Session<'_>, args: Vec<String>, inv: &Invocation<'_>) -> Result<Output> {
    let args = Args::parse(args, &["-m", "--message"])?;
    args.only("stash push", &["-m", "--message", "-q", "--quiet"])?;
    if !args.operands.is_empty() || !args.paths.is_empty() {
        return Err(GitError::Unsupported(
            "stash push with paths is not supported by the isolate's git".into(),
        ));
    }
    let repo = session.repo()?;
    let head = refs::head(&repo)?;
    let Some(base) = head.id() else {
        return Err(GitError::Failed(
            "You do not have the initial commit yet".into(),
        ));
    };
    let st = status::compute(session, &repo)?;
    if st.staged.is_empty() && st.unstaged.is_empty() {
        return Ok(Output::ok("No local changes to save\n"));
    }
    let branch = head.branch().unwrap_or("(no branch)").to_string();
    let subject = repo.find_commit(base)?.message()?.summary().to_string();
    let what = format!("{branch}: {} {subject}", refs::short(&base));
    // Git needs an identity for a stash too; the reflog's placeholder does when none is set.
    let author = match crate::cmd_history::identity(&repo, inv, "AUTHOR", None) {
        Ok(sig) => sig,
        Err(_) => fallback_identity(&repo)?,
    };
    let committer = crate::cmd_history::identity(&repo, inv, "COMMITTER", None)
        .unwrap_or_else(|_| author.clone());
    let index = worktree::load_index(session)?;
    let index_files = worktree::index_map(&index);
    // The worktree's version of every tracked file (deleted ones left out).
    let mut work_files = FileMap::new();
    for path in index_files.keys() {
        if let Some((id, data, stat)) = status::worktree_blob(session, path.as_bstr())?
            && let Some(mode) = worktree::entry_mode(&stat)
        {
            repo.write_blob(&data)?;
            work_files.insert(path.clone(), (mode, id));
        }
    }
    let commit = |tree: ObjectId, parents: Vec<ObjectId>, message: String| -> Result<ObjectId> {
        let object = gix::objs::Commit {
            tree,
            parents: parents.into(),
            author: author.clone(),
            committer: committer.clone(),
            encoding: None,
            message: message.into(),
            extra_headers: Vec::new(),
        };
        Ok(repo.write_object(&object)?.detach())
    };
    let index_commit = commit(
        worktree::write_tree(&repo, &index_files)?,
        vec![base],
        format!("index on {what}\n"),
    )?;
    let title = match args.value(&["-m", "--message"]) {
        Some(m) => format!("On {branch}: {m}"),
        None => format!("WIP on {what}"),
    };
    let stash_commit = commit(
        worktree::write_tree(&repo, &work_files)?,
        vec![base, index_commit],
        // Git writes the index commit's message with a newline and this one without.
        title.clone(),
    )?;
    refs::set_ref_logged(&repo, "refs/stash", stash_commit, &title)?;
    // Back to HEAD, as `reset --hard`.
    let head_files = worktree::tree_map(&repo, head.tree(&repo)?)?;
    let mut index = index;
    crate::cmd_branch::reset_hard(session, &repo, &mut index, &st, &head_files)?;
    if args.has(&["-q", "--quiet"]) {
        return Ok(Output::ok(Vec::new()));
    }
    Ok(Output::ok(format!(
        "Saved working directory and index state {title}\n"
    )))
}

/// The committer the repository is configured with (or the placeholder set when opening it).
fn fallback_identity(repo: &gix::Repository) -> Result<gix::actor::Signature> {
    match repo.committer() {
        Some(Ok(sig)) => sig.to_owned().map_err(|e| GitError::failed("identity", e)),
        Some(Err(e)) => Err(e.into()),
        None => Err(GitError::Failed("no identity for the stash commit".into())),
    }
}

fn list(session: &Session<'_>) -> Result<Output> {
    let mut out = String::new();
    for (i, (_, message)) in entries(session).iter().enumerate() {
        let _ = writeln!(out, "stash@{{{i}}}: {message}");
    }
    Ok(Output::ok(out))
}

fn apply(
    session: &Session<'_>,
    args: Vec<String>,
    inv: &Invocation<'_>,
    pop: bool,
) -> Result<Output> {
    let args = Args::parse(args, &[])?;
    args.only("stash apply", &["-q", "--quiet", "--index"])?;
    let n = index_of(&args.operands)?;
    let list = entries(session);
    if list.is_empty() {
        return Ok(Output {
            status: 1,
            stdout: Vec::new(),
            stderr: b"No stash entries found.\n".to_vec(),
        });
    }
    let Some((stash_id, _)) = list.get(n).cloned() else {
        return Err(GitError::Failed(format!(
            "stash@{{{n}}} is not a valid reference"
        )));
    };
    let repo = session.repo()?;
    let stash = repo.find_commit(stash_id)?;
    let parents: Vec<ObjectId> = stash.parent_ids().map(|p| p.detach()).collect();
    let [base, index_commit] = parents[..] else {
        return Err(GitError::Failed(format!(
            "{stash_id} is not a stash-like commit"
        )));
    };
    let tree_of = |id: ObjectId| -> Result<FileMap> { worktree::commit_files(&repo, id) };
    let base_files = tree_of(base)?;
    let index_files = tree_of(index_commit)?;
    let work_files = worktree::tree_map(&repo, Some(stash.tree_id()?.detach()))?;
    let head = refs::head(&repo)?;
    let head_files = worktree::tree_map(&repo, head.tree(&repo)?)?;
    let touched: BTreeSet<BString> = base_files
        .keys()
        .chain(work_files.keys())
        .chain(index_files.keys())
        .filter(|p| {
            base_files.get(*p) != work_files.get(*p) || base_files.get(*p) != index_files.get(*p)
        })
        .cloned()
        .collect();
    // Without a merge, the stashed files must be as the stash left them in HEAD and the tree.
    let st = status::compute(session, &repo)?;
    let dirty: BTreeSet<&BString> = st
        .staged
        .iter()
        .map(|s| &s.path)
        .chain(st.unstaged.iter().map(|(p, _)| p))
        .collect();
    if let Some(p) = touched
        .iter()
        .find(|p| head_files.get(*p) != base_files.get(*p) || dirty.contains(p))
    {
        return Err(GitError::Conflict(format!(
            "cannot apply the stash: '{p}' changed since it was stashed (merging is not supported by the isolate's git; run it in the container)"
        )));
    }
    let mut index = worktree::load_index(session)?;
    for path in &touched {
        let abs = session.path_of(path);
        match work_files.get(path) {
            Some((mode, id)) => {
                let data = repo.find_blob(*id)?.detach().data;
                worktree::write_entry(session.vfs, &abs, *mode, &data)?;
            }
            None => {
                let _ = session.vfs.remove_file(&abs);
            }
        }
    }
    // Like git without --index: new files are added to the index, the rest stays unstaged.
    for path in touched
        .iter()
        .filter(|p| index_files.contains_key(*p) && !base_files.contains_key(*p))
    {
        let (mode, id) = index_files[path];
        worktree::stage(session, &mut index, path.as_bstr(), mode, id);
    }
    index.sort_entries();
    worktree::write_index(&mut index)?;
    let quiet = args.has(&["-q", "--quiet"]);
    let mut out = Output::ok(Vec::new());
    if !quiet {
        let st = status::compute(session, &repo)?;
        let cwd_rel = std::path::PathBuf::from(session.rel_path(inv.cwd, ".")?);
        out.stdout = status::long(&st, &repo, &cwd_rel)?.into_bytes();
    }
    if pop {
        let dropped = drop_at(session, &repo, n)?;
        if !quiet {
            out.stdout.extend(dropped.into_bytes());
        }
    }
    Ok(out)
}

fn drop_entry(session: &Session<'_>, args: Vec<String>) -> Result<Output> {
    let args = Args::parse(args, &[])?;
    args.only("stash drop", &["-q", "--quiet"])?;
    let repo = session.repo()?;
    let text = drop_at(session, &repo, index_of(&args.operands)?)?;
    Ok(Output::ok(if args.has(&["-q", "--quiet"]) {
        String::new()
    } else {
        text
    }))
}

/// Removes entry `n` from the stash reflog (and `refs/stash` with the last one).
fn drop_at(session: &Session<'_>, repo: &gix::Repository, n: usize) -> Result<String> {
    let path = session.host_git.join("logs/refs/stash");
    let log = std::fs::read_to_string(&path).unwrap_or_default();
    let mut lines: Vec<&str> = log.lines().collect();
    if n >= lines.len() {
        return Err(GitError::Failed(format!(
            "stash@{{{n}}} is not a valid reference"
        )));
    }
    let line = lines.remove(lines.len() - 1 - n);
    let id = line.split(' ').nth(1).unwrap_or_default().to_string();
    match lines.last() {
        None => {
            refs::delete_ref(repo, "refs/stash")?;
            let _ = std::fs::remove_file(&path);
        }
        Some(last) => {
            let mut text = lines.join("\n");
            text.push('\n');
            let newest = last.split(' ').nth(1).unwrap_or_default().to_string();
            crate::mirror::write_host(
                &session.host_git.join("refs/stash"),
                format!("{newest}\n").as_bytes(),
                0o644,
            )?;
            crate::mirror::write_host(&path, text.as_bytes(), 0o644)?;
        }
    }
    Ok(format!("Dropped refs/stash@{{{n}}} ({id})\n"))
}
