//! `git push`: to a repository in the workspace (or a host path the caller allows) by
//! copying the missing objects and moving the ref; over `git://` and smart `http(s)://` by
//! git's receive-pack protocol (gix's transport for the connection, the pack written here:
//! whole objects, no deltas). Non-fast-forward updates are refused unless forced; git's
//! report format.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::io::{BufRead, Write};

use gix::ObjectId;
use gix::objs::Write as _;
use gix::protocol::transport::client::blocking_io::Transport;
use gix::protocol::transport::client::{MessageKind, TransportWithoutIO, WriteMode};

use crate::cli::{Args, Invocation, Output};
use crate::cmd_remote::{abandoned, network_error};
use crate::error::{GitError, Result};
use crate::refs;
use crate::repo::Session;

/// One ref to update on the remote.
struct Update {
    /// What we push (a local commit).
    new: ObjectId,
    /// The remote ref (`refs/heads/main`).
    dst: String,
    /// The short name shown in the report (`main`).
    shown_src: String,
    force: bool,
}

/// How one update went.
enum Outcome {
    New,
    FastForward(ObjectId),
    Forced(ObjectId),
    UpToDate,
    Rejected(&'static str),
}

pub(crate) fn push(
    session: &Session<'_>,
    args: Vec<String>,
    inv: &Invocation<'_>,
) -> Result<Output> {
    let args = Args::parse(args, &[])?;
    args.only(
        "push",
        &["-f", "--force", "-u", "--set-upstream", "-q", "--quiet"],
    )?;
    let repo = session.repo()?;
    let head = refs::head(&repo)?;
    let force_all = args.has(&["-f", "--force"]);
    let (remote, specs) = match args.operands.split_first() {
        Some((remote, rest)) => (remote.clone(), rest.to_vec()),
        None => {
            let remote = head
                .branch()
                .and_then(|b| refs::upstream(&repo, b))
                .and_then(|(shown, _)| shown.split('/').next().map(str::to_string))
                .unwrap_or_else(|| "origin".into());
            (remote, Vec::new())
        }
    };
    let specs = if specs.is_empty() {
        let Some(branch) = head.branch().map(str::to_string) else {
            return Err(GitError::Failed(
                "You are not currently on a branch.".into(),
            ));
        };
        let tracked = refs::upstream(&repo, &branch)
            .is_some_and(|(_, full)| full == format!("refs/remotes/{remote}/{branch}"));
        if !tracked && !args.has(&["-u", "--set-upstream"]) {
            return Err(GitError::Failed(format!(
                "The current branch {branch} has no upstream branch.\nTo push the current branch and set the remote as upstream, use\n\n    git push --set-upstream {remote} {branch}\n"
            )));
        }
        vec![branch]
    } else {
        specs
    };
    let mut updates = Vec::new();
    for spec in &specs {
        let (force, spec) = match spec.strip_prefix('+') {
            Some(rest) => (true, rest),
            None => (force_all, spec.as_str()),
        };
        let (src, dst) = spec.split_once(':').unwrap_or((spec, spec));
        let new = refs::commit_of(&repo, src)
            .map_err(|_| GitError::Failed(format!("src refspec {src} does not match any")))?;
        let dst = if dst.starts_with("refs/") {
            dst.to_string()
        } else {
            format!("refs/heads/{}", dst.strip_prefix("heads/").unwrap_or(dst))
        };
        updates.push(Update {
            new,
            shown_src: src.to_string(),
            dst,
            force,
        });
    }
    let config = repo.config_snapshot();
    let url = config
        .string(format!("remote.{remote}.pushurl").as_str())
        .or_else(|| config.string(format!("remote.{remote}.url").as_str()))
        .map(|u| u.to_string())
        .unwrap_or_else(|| remote.clone());
    let lower = url.to_ascii_lowercase();
    let results = if lower.starts_with("http://")
        || lower.starts_with("https://")
        || lower.starts_with("git://")
    {
        network_push(session, &repo, &url, &updates, inv)?
    } else {
        local_push(session, &repo, &url, &updates, inv)?
    };
    // Report as git does, and move our remote-tracking refs.
    let mut report = format!("To {url}\n");
    let mut failed = false;
    let mut any = false;
    for (update, outcome) in updates.iter().zip(&results) {
        let short_dst = update
            .dst
            .strip_prefix("refs/heads/")
            .unwrap_or(&update.dst);
        let names = format!("{} -> {short_dst}", update.shown_src);
        match outcome {
            Outcome::UpToDate => continue,
            Outcome::New => {
                let _ = writeln!(report, " * [new branch]      {names}");
            }
            Outcome::FastForward(old) => {
                let _ = writeln!(
                    report,
                    "   {}..{}  {names}",
                    refs::short(old),
                    refs::short(&update.new)
                );
            }
            Outcome::Forced(old) => {
                let _ = writeln!(
                    report,
                    " + {}...{} {names} (forced update)",
                    refs::short(old),
                    refs::short(&update.new)
                );
            }
            Outcome::Rejected(why) => {
                failed = true;
                let _ = writeln!(report, " ! [rejected]        {names} ({why})");
                continue;
            }
        }
        any = true;
        if let Some(branch) = update.dst.strip_prefix("refs/heads/")
            && repo.find_remote(remote.as_str()).is_ok()
        {
            refs::set_ref(
                &repo,
                &format!("refs/remotes/{remote}/{branch}"),
                update.new,
                "update by push",
            )?;
            if args.has(&["-u", "--set-upstream"]) {
                crate::cmd_branch::set_upstream(session, &update.shown_src, &remote)?;
                let _ = writeln!(
                    report,
                    "branch '{}' set up to track '{remote}/{branch}'.",
                    update.shown_src
                );
            }
        }
    }
    if !any && !failed {
        report = "Everything up-to-date\n".into();
    }
    let mut out = Output::ok(Vec::new());
    if failed {
        let _ = write!(
            report,
            "error: failed to push some refs to '{url}'\nhint: Updates were rejected because the tip of your current branch is behind\nhint: its remote counterpart. Integrate the remote changes (e.g.\nhint: 'git pull ...') before pushing again.\n"
        );
        out.status = 1;
    }
    if !args.has(&["-q", "--quiet"]) || failed {
        out.stderr = report.into_bytes();
    }
    Ok(out)
}

/// Decides each update against the remote's current refs (fast-forward unless forced).
fn decide(
    repo: &gix::Repository,
    updates: &[Update],
    remote_refs: &HashMap<String, ObjectId>,
) -> Result<Vec<Outcome>> {
    updates
        .iter()
        .map(|u| {
            Ok(match remote_refs.get(&u.dst) {
                None => Outcome::New,
                Some(old) if *old == u.new => Outcome::UpToDate,
                Some(old) if u.force => Outcome::Forced(*old),
                Some(old) if !repo.has_object(old) => Outcome::Rejected("fetch first"),
                Some(old) => {
                    if refs::ahead_behind(repo, u.new, *old)?.1 == 0 {
                        Outcome::FastForward(*old)
                    } else {
                        Outcome::Rejected("non-fast-forward")
                    }
                }
            })
        })
        .collect()
}

/// The objects the remote needs for `tips`, given the commits it has (`haves`).
fn objects_to_send(
    repo: &gix::Repository,
    tips: Vec<ObjectId>,
    haves: Vec<ObjectId>,
) -> Result<Vec<ObjectId>> {
    let haves: Vec<ObjectId> = haves.into_iter().filter(|h| repo.has_object(h)).collect();
    // Trees and blobs the remote has: those of its tips.
    let mut known = HashSet::new();
    for have in &haves {
        if let Ok(commit) = repo.find_commit(*have) {
            collect_tree(
                repo,
                commit.tree_id()?.detach(),
                &mut known,
                &mut Vec::new(),
            )?;
        }
    }
    let mut out = Vec::new();
    for info in repo.rev_walk(tips).with_hidden(haves).all()? {
        let id = info.map_err(|e| GitError::failed("walking history", e))?.id;
        out.push(id);
        let tree = repo.find_commit(id)?.tree_id()?.detach();
        collect_tree(repo, tree, &mut known, &mut out)?;
    }
    Ok(out)
}

/// Adds tree `id` and everything below it that is not in `seen` to `out`. With a stack of its
/// own, not by recursion: the guest writes the objects, and a chain of trees can be deeper
/// than any thread's stack.
fn collect_tree(
    repo: &gix::Repository,
    id: ObjectId,
    seen: &mut HashSet<ObjectId>,
    out: &mut Vec<ObjectId>,
) -> Result<()> {
    let mut trees = vec![id];
    while let Some(id) = trees.pop() {
        if !seen.insert(id) {
            continue;
        }
        out.push(id);
        let tree = repo.find_tree(id)?;
        for e in tree.decode()?.entries {
            let oid = e.oid.to_owned();
            if e.mode.is_tree() {
                trees.push(oid);
            } else if !e.mode.is_commit() && seen.insert(oid) {
                out.push(oid);
            }
        }
    }
    Ok(())
}

/// Pushes into a repository in the workspace (or on the host, when allowed).
fn local_push(
    session: &Session<'_>,
    repo: &gix::Repository,
    url: &str,
    updates: &[Update],
    inv: &Invocation<'_>,
) -> Result<Vec<Outcome>> {
    let path = url.strip_prefix("file://").unwrap_or(url);
    let in_workspace = inv.resolve(path);
    let (target_session, target) = if let Some(worktree) =
        session.git.workspace_repository(url, inv)
    {
        let s = session.git.open(&worktree, &session.env)?;
        let r = s.repo()?;
        (Some(s), r)
    } else if session.vfs.stat(&in_workspace).is_ok_and(|s| s.is_dir())
        && session
            .vfs
            .exists(in_workspace.join("HEAD"))
            .unwrap_or(false)
    {
        return Err(GitError::Unsupported("pushing into a bare repository in the workspace is not supported; use a non-bare one or the container's git".into()));
    } else if session.git.host_paths_allowed() && std::path::Path::new(path).exists() {
        (None, gix::open_opts(path, gix::open::Options::isolated())?)
    } else {
        return Err(GitError::NotFound(format!(
            "'{url}' does not appear to be a git repository"
        )));
    };
    let mut remote_refs = HashMap::new();
    for u in updates {
        if let Some(mut r) = target.try_find_reference(u.dst.as_str())? {
            remote_refs.insert(u.dst.clone(), r.peel_to_id()?.detach());
        }
    }
    let outcomes = decide(repo, updates, &remote_refs)?;
    // Git refuses to move the branch checked out in a non-bare remote.
    let checked_out = (!target.is_bare())
        .then(|| target.head_name().ok().flatten().map(|n| n.to_string()))
        .flatten();
    let mut results = Vec::new();
    for (u, outcome) in updates.iter().zip(outcomes) {
        if matches!(outcome, Outcome::Rejected(_) | Outcome::UpToDate) {
            results.push(outcome);
            continue;
        }
        if checked_out.as_deref() == Some(u.dst.as_str()) {
            results.push(Outcome::Rejected("branch is currently checked out"));
            continue;
        }
        let haves: Vec<ObjectId> = remote_refs.values().copied().collect();
        for id in objects_to_send(repo, vec![u.new], haves)? {
            if !target.has_object(id) {
                let object = repo.find_object(id)?;
                target
                    .objects
                    .write_buf(object.kind, &object.data)
                    .map_err(|e| GitError::failed("writing to the remote", e))?;
            }
        }
        refs::set_ref(&target, &u.dst, u.new, "push")?;
        results.push(outcome);
    }
    if let Some(s) = target_session {
        s.save()?;
    }
    Ok(results)
}

/// Pushes over `git://` or smart HTTP with git's receive-pack protocol (v0/v1).
fn network_push(
    session: &Session<'_>,
    repo: &gix::Repository,
    url: &str,
    updates: &[Update],
    inv: &Invocation<'_>,
) -> Result<Vec<Outcome>> {
    let limit = session.git.network_timeout();
    let connect = session.git.connect_to(url, "POST")?;
    let (connect_url, http) = (connect.url, connect.http);
    let host_git = repo.path().to_path_buf();
    let env = session.env.clone();
    let url_owned = url.to_string();
    let plan: Vec<(ObjectId, String, bool)> = updates
        .iter()
        .map(|u| (u.new, u.dst.clone(), u.force))
        .collect();
    let shown: Vec<String> = updates.iter().map(|u| u.shown_src.clone()).collect();
    let work = move |_item: gix::progress::tree::Item,
                     _interrupt: &std::sync::atomic::AtomicBool|
          -> Result<Vec<Outcome>> {
        let repo = crate::repo::open_repo(&host_git, &env)?;
        let updates: Vec<Update> = plan
            .into_iter()
            .zip(shown)
            .map(|((new, dst, force), shown_src)| Update {
                new,
                dst,
                force,
                shown_src,
            })
            .collect();
        let fail = |e: &dyn std::error::Error| network_error(&url_owned, e);
        let mut transport = gix::protocol::transport::client::blocking_io::connect::connect(
            connect_url.as_str(),
            gix::protocol::transport::client::blocking_io::connect::Options {
                version: gix::protocol::transport::Protocol::V1,
                ..Default::default()
            },
        )
        .map_err(|e| fail(&e))?;
        if let Some(options) = http {
            transport.configure(&options).map_err(|e| fail(&e))?;
        }
        let remote_refs = {
            let response = transport
                .handshake(gix::protocol::transport::Service::ReceivePack, &[])
                .map_err(|e| fail(&e))?;
            let mut refs = HashMap::new();
            if let Some(mut lines) = response.refs {
                let mut line = String::new();
                loop {
                    line.clear();
                    match lines.readline_str(&mut line) {
                        Ok(0) | Err(_) => break,
                        Ok(_) => {}
                    }
                    let text = line.trim_end().split('\0').next().unwrap_or_default();
                    if let Some((id, name)) = text.split_once(' ')
                        && let Ok(id) = ObjectId::from_hex(id.as_bytes())
                        && !id.is_null()
                        && !name.ends_with("^{}")
                    {
                        refs.insert(name.to_string(), id);
                    }
                }
            }
            refs
        };
        let outcomes = decide(&repo, &updates, &remote_refs)?;
        let sending: Vec<&Update> = updates
            .iter()
            .zip(&outcomes)
            .filter(|(_, o)| !matches!(o, Outcome::Rejected(_) | Outcome::UpToDate))
            .map(|(u, _)| u)
            .collect();
        if sending.is_empty() {
            return Ok(outcomes);
        }
        let haves: Vec<ObjectId> = remote_refs.values().copied().collect();
        let objects = objects_to_send(&repo, sending.iter().map(|u| u.new).collect(), haves)?;
        let pack = write_pack(&repo, &objects)?;
        let mut writer = transport
            .request(
                WriteMode::OneLfTerminatedLinePerWriteCall,
                MessageKind::Flush,
                false,
            )
            .map_err(|e| fail(&e))?;
        let null = ObjectId::null(gix::hash::Kind::Sha1);
        for (i, u) in sending.iter().enumerate() {
            let old = remote_refs.get(&u.dst).copied().unwrap_or(null);
            let caps = if i == 0 { "\0report-status" } else { "" };
            writer.write_all(format!("{old} {} {}{caps}", u.new, u.dst).as_bytes())?;
        }
        writer.write_message(MessageKind::Flush)?;
        let (mut raw, mut reader) = writer.into_parts();
        raw.write_all(&pack)?;
        raw.flush()?;
        drop(raw);
        // report-status: `unpack ok`, then `ok REF` or `ng REF REASON` per command.
        let mut status = HashMap::new();
        let mut unpack = None;
        let mut line = String::new();
        loop {
            line.clear();
            match reader.read_line(&mut line) {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            let text = line.trim_end();
            if let Some(rest) = text.strip_prefix("unpack ") {
                unpack = Some(rest.to_string());
            } else if let Some(name) = text.strip_prefix("ok ") {
                status.insert(name.to_string(), None);
            } else if let Some(rest) = text.strip_prefix("ng ") {
                let (name, why) = rest.split_once(' ').unwrap_or((rest, "rejected"));
                status.insert(name.to_string(), Some(why.to_string()));
            }
        }
        match unpack.as_deref() {
            Some("ok") => {}
            Some(err) => {
                return Err(GitError::Network(format!(
                    "the remote failed to unpack: {err}"
                )));
            }
            None => {
                return Err(GitError::Network(format!(
                    "'{url_owned}' sent no report of the push"
                )));
            }
        }
        Ok(updates
            .iter()
            .zip(outcomes)
            .map(|(u, o)| match (&o, status.get(&u.dst)) {
                (Outcome::Rejected(_) | Outcome::UpToDate, _) => o,
                (_, Some(None)) => o,
                _ => Outcome::Rejected("remote rejected"),
            })
            .collect())
    };
    crate::progress::run(inv, limit, session.hold_lock()?, work)
        .unwrap_or_else(|why| Err(abandoned(url, limit, why)))
}

/// A pack of whole objects (no deltas): header, entries, SHA-1 trailer.
fn write_pack(repo: &gix::Repository, ids: &[ObjectId]) -> Result<Vec<u8>> {
    let mut pack = Vec::new();
    pack.extend_from_slice(b"PACK");
    pack.extend_from_slice(&2u32.to_be_bytes());
    pack.extend_from_slice(&(ids.len() as u32).to_be_bytes());
    for id in ids {
        let object = repo.find_object(*id)?;
        let kind: u8 = match object.kind {
            gix::objs::Kind::Commit => 1,
            gix::objs::Kind::Tree => 2,
            gix::objs::Kind::Blob => 3,
            gix::objs::Kind::Tag => 4,
        };
        let mut size = object.data.len();
        let mut byte = (kind << 4) | (size & 0x0f) as u8;
        size >>= 4;
        while size > 0 {
            pack.push(byte | 0x80);
            byte = (size & 0x7f) as u8;
            size >>= 7;
        }
        pack.push(byte);
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
        z.write_all(&object.data)?;
        pack.extend(z.finish()?);
    }
    let mut hasher = gix::hash::hasher(gix::hash::Kind::Sha1);
    hasher.update(&pack);
    let digest = hasher
        .try_finalize()
        .map_err(|e| GitError::failed("hashing the pack", e))?;
    pack.extend_from_slice(digest.as_bytes());
    Ok(pack)
}
