//! Commands between the worktree and the index: status, add, rm, mv, restore, ls-files.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::PathBuf;

use computer_vfs::VfsError;
use gix::bstr::{BStr, BString, ByteSlice};
use gix::index::entry::Flags;

use crate::cli::{Args, Invocation, Output};
use crate::error::{GitError, Result};
use crate::pathspec::{self, Spec};
use crate::refs;
use crate::repo::Session;
use crate::status::{self, Ignores, Status};
use crate::worktree::{self, FileMap};

/// `git status [--porcelain[=v1]] [-s] [-b] [-uno]`.
pub(crate) fn status(
    session: &Session<'_>,
    args: Vec<String>,
    inv: &Invocation<'_>,
) -> Result<Output> {
    let args = Args::parse(args, &["-u", "--untracked-files"])?;
    args.only(
        "status",
        &[
            "--porcelain",
            "-s",
            "--short",
            "-b",
            "--branch",
            "-u",
            "--untracked-files",
            "--long",
        ],
    )?;
    if !args.operands.is_empty() || !args.paths.is_empty() {
        return Err(GitError::Unsupported(
            "status with paths is not supported by the isolate's git".into(),
        ));
    }
    let repo = session.repo()?;
    let mut st = status::compute(session, &repo)?;
    if matches!(args.value(&["-u", "--untracked-files"]), Some("no")) {
        st.untracked.clear();
    }
    let porcelain = args.has(&["--porcelain"]) || args.value(&["--porcelain"]).is_some();
    let cwd_rel = PathBuf::from(session.rel_path(inv.cwd, ".")?);
    if porcelain || args.has(&["-s", "--short"]) {
        let mut out = String::new();
        if args.has(&["-b", "--branch"]) {
            out.push_str(&branch_line(&repo, &st)?);
        }
        let body = status::porcelain(&st);
        if porcelain {
            out.push_str(&body);
        } else {
            // The short form shows paths relative to the current directory.
            for line in body.lines() {
                let (code, path) = line.split_at(3);
                let shown: Vec<String> = path
                    .split(" -> ")
                    .map(|p| status::relative_to(p.as_bytes().as_bstr(), &cwd_rel))
                    .collect();
                let _ = writeln!(out, "{code}{}", shown.join(" -> "));
            }
        }
        return Ok(Output::ok(out));
    }
    Ok(Output::ok(status::long(&st, &repo, &cwd_rel)?))
}

/// The `## branch...upstream [ahead N, behind M]` line of `status -b`.
fn branch_line(repo: &gix::Repository, st: &Status) -> Result<String> {
    Ok(match &st.head {
        refs::Head::Unborn { name } => format!("## No commits yet on {name}\n"),
        refs::Head::Detached { .. } => "## HEAD (no branch)\n".into(),
        refs::Head::Branch { name, id } => match refs::upstream(repo, name) {
            None => format!("## {name}\n"),
            Some((shown, full)) => match repo.try_find_reference(full.as_str())? {
                None => format!("## {name}...{shown} [gone]\n"),
                Some(mut r) => {
                    let theirs = r.peel_to_id()?.detach();
                    let counts = match refs::ahead_behind(repo, *id, theirs)? {
                        (0, 0) => String::new(),
                        (a, 0) => format!(" [ahead {a}]"),
                        (0, b) => format!(" [behind {b}]"),
                        (a, b) => format!(" [ahead {a}, behind {b}]"),
                    };
                    format!("## {name}...{shown}{counts}\n")
                }
            },
        },
    })
}

/// `git add [-A|-u] [-f] [--] PATHSPEC...`.
pub(crate) fn add(
    session: &Session<'_>,
    args: Vec<String>,
    inv: &Invocation<'_>,
) -> Result<Output> {
    let args = Args::parse(args, &[])?;
    args.only(
        "add",
        &[
            "-A",
            "--all",
            "-u",
            "--update",
            "-f",
            "--force",
            "-v",
            "--verbose",
            "-n",
            "--dry-run",
        ],
    )?;
    let mut paths = args.all_paths();
    if paths.is_empty() {
        if args.has(&["-A", "--all", "-u", "--update"]) {
            paths.push(session.worktree.display().to_string());
        } else {
            return Ok(Output {
                status: 0,
                stdout: Vec::new(),
                stderr: b"Nothing specified, nothing added.\nhint: Maybe you wanted to say 'git add .'?\n".to_vec(),
            });
        }
    }
    let specs = pathspec::parse(session, inv.cwd, &paths)?;
    let repo = session.repo()?;
    let mut index = worktree::load_index(session)?;
    let indexed = worktree::index_map(&index);
    let walked = status::walk_worktree(session)?;
    let force = args.has(&["-f", "--force"]);
    let tracked_only = args.has(&["-u", "--update"]);
    let mut ignores = Ignores::new(session);
    let mut matched: HashSet<usize> = HashSet::new();
    let mut ignored_named = Vec::new();
    let mut verbose = String::new();
    let mut candidates: Vec<(&BString, &computer_vfs::Stat)> = walked
        .iter()
        .filter(|(_, stat)| worktree::entry_mode(stat).is_some())
        .collect();
    candidates.sort_by(|a, b| a.0.cmp(b.0));
    let mut updates: Vec<(
        BString,
        gix::ObjectId,
        gix::objs::tree::EntryMode,
        computer_vfs::Stat,
    )> = Vec::new();
    for (path, stat) in candidates {
        let hits: Vec<usize> = specs
            .iter()
            .enumerate()
            .filter(|(_, s)| s.matches(path.as_bstr()))
            .map(|(i, _)| i)
            .collect();
        if hits.is_empty() {
            continue;
        }
        let tracked = indexed.contains_key(path);
        if tracked_only && !tracked {
            continue;
        }
        if !tracked && !force && is_ignored_path(session, &mut ignores, path.as_bstr()) {
            // Named exactly: git reports it; matched by a directory: skipped quietly.
            if specs.iter().any(|s| s.rel.as_bytes() == path.as_slice()) {
                ignored_named.push(path.to_string());
                matched.extend(hits);
            }
            continue;
        }
        matched.extend(hits);
        let Some(mode) = worktree::entry_mode(stat) else {
            continue;
        };
        let data = worktree::content(session.vfs, &session.path_of(path), stat)?;
        let id = worktree::blob_id(&data)?;
        if indexed.get(path) != Some(&(mode, id)) {
            repo.write_blob(&data)?;
            let _ = writeln!(verbose, "add '{path}'");
        }
        updates.push((path.clone(), id, mode, stat.clone()));
    }
    // Tracked files the pathspecs name that are gone from the worktree.
    let mut removed: HashSet<BString> = HashSet::new();
    for path in indexed.keys() {
        let hits: Vec<usize> = specs
            .iter()
            .enumerate()
            .filter(|(_, s)| s.matches(path.as_bstr()))
            .map(|(i, _)| i)
            .collect();
        if !hits.is_empty()
            && walked
                .get(path)
                .is_none_or(|s| worktree::entry_mode(s).is_none())
        {
            matched.extend(hits);
            removed.insert(path.clone());
            let _ = writeln!(verbose, "remove '{path}'");
        }
    }
    if let Some((_, spec)) = specs.iter().enumerate().find(|(i, _)| !matched.contains(i)) {
        return Err(GitError::Failed(format!(
            "pathspec '{}' did not match any files",
            spec.original
        )));
    }
    if args.has(&["-n", "--dry-run"]) {
        return Ok(Output::ok(verbose));
    }
    index.remove_entries(|_, path, _| removed.contains(path));
    for (path, id, mode, stat) in updates {
        let entry_stat = worktree::index_stat(&stat);
        match index.entry_index_by_path(path.as_bstr()) {
            Ok(i) => {
                let entry = &mut index.entries_mut()[i];
                entry.id = id;
                entry.mode = worktree::index_mode(mode);
                entry.stat = entry_stat;
            }
            Err(_) => {
                index.dangerously_push_entry(
                    entry_stat,
                    id,
                    Flags::empty(),
                    worktree::index_mode(mode),
                    path.as_bstr(),
                );
                index.sort_entries();
            }
        }
    }
    worktree::write_index(&mut index)?;
    let mut out = Output::ok(if args.has(&["-v", "--verbose"]) {
        verbose
    } else {
        String::new()
    });
    if !ignored_named.is_empty() {
        out.status = 1;
        let mut text =
            String::from("The following paths are ignored by one of your .gitignore files:\n");
        for p in ignored_named {
            text.push_str(&p);
            text.push('\n');
        }
        text.push_str("hint: Use -f if you really want to add them.\n");
        out.stderr = text.into_bytes();
    }
    Ok(out)
}

/// Whether `path` or one of its parent directories is ignored.
fn is_ignored_path(session: &Session<'_>, ignores: &mut Ignores, path: &BStr) -> bool {
    let parts: Vec<&[u8]> = path.split_str("/").collect();
    let mut prefix = BString::default();
    ignores.load_dir(session, BStr::new(""));
    for (i, part) in parts.iter().enumerate() {
        if !prefix.is_empty() {
            prefix.push(b'/');
        }
        prefix.extend_from_slice(part);
        let is_dir = i + 1 < parts.len();
        if ignores.is_ignored(prefix.as_bstr(), is_dir) {
            return true;
        }
        if is_dir {
            ignores.load_dir(session, prefix.as_bstr());
        }
    }
    false
}

/// `git rm [--cached] [-r] [-f] [-q] [--] PATHSPEC...`.
pub(crate) fn rm(session: &Session<'_>, args: Vec<String>, inv: &Invocation<'_>) -> Result<Output> {
    let args = Args::parse(args, &[])?;
    args.only("rm", &["--cached", "-r", "-f", "--force", "-q", "--quiet"])?;
    let paths = args.all_paths();
    if paths.is_empty() {
        return Err(GitError::Usage(
            "usage: git rm [<options>] [--] <file>...".into(),
        ));
    }
    let specs = pathspec::parse(session, inv.cwd, &paths)?;
    let mut index = worktree::load_index(session)?;
    let indexed = worktree::index_map(&index);
    let mut chosen = Vec::new();
    for spec in &specs {
        let hits: Vec<&BString> = indexed
            .keys()
            .filter(|p| spec.matches(p.as_bstr()))
            .collect();
        if hits.is_empty() {
            return Err(GitError::Failed(format!(
                "pathspec '{}' did not match any files",
                spec.original
            )));
        }
        if !args.has(&["-r"]) && hits.iter().any(|p| p.as_slice() != spec.rel.as_bytes()) {
            return Err(GitError::Failed(format!(
                "not removing '{}' recursively without -r",
                spec.original
            )));
        }
        chosen.extend(hits.into_iter().cloned());
    }
    let chosen: HashSet<BString> = chosen.into_iter().collect();
    let mut out = String::new();
    let mut sorted: Vec<&BString> = chosen.iter().collect();
    sorted.sort();
    let mut parents = HashSet::new();
    for path in &sorted {
        let _ = writeln!(out, "rm '{path}'");
        if !args.has(&["--cached"]) {
            let abs = session.path_of(path);
            match session.vfs.remove_file(&abs) {
                Ok(()) | Err(VfsError::NotFound) => {}
                Err(e) => return Err(GitError::failed(abs.display(), e)),
            }
            if let Some(parent) = abs.parent() {
                parents.insert(parent.to_path_buf());
            }
        }
    }
    worktree::remove_empty_dirs(session.vfs, &session.worktree, parents);
    index.remove_entries(|_, path, _| chosen.contains(path));
    worktree::write_index(&mut index)?;
    Ok(Output::ok(if args.has(&["-q", "--quiet"]) {
        String::new()
    } else {
        out
    }))
}

/// `git mv [-f] SOURCE... DEST`.
pub(crate) fn mv(session: &Session<'_>, args: Vec<String>, inv: &Invocation<'_>) -> Result<Output> {
    let args = Args::parse(args, &[])?;
    args.only("mv", &["-f", "--force", "-v"])?;
    let paths = args.all_paths();
    let Some((dest, sources)) = paths.split_last().filter(|(_, s)| !s.is_empty()) else {
        return Err(GitError::Usage(
            "usage: git mv [<options>] <source>... <destination>".into(),
        ));
    };
    let dest_rel = session.rel_path(inv.cwd, dest)?;
    let dest_abs = session.path_of(dest_rel.as_bytes());
    let dest_is_dir = session.vfs.stat(&dest_abs).is_ok_and(|s| s.is_dir());
    if sources.len() > 1 && !dest_is_dir {
        return Err(GitError::Failed(format!(
            "destination '{dest}' is not a directory"
        )));
    }
    let mut index = worktree::load_index(session)?;
    for source in sources {
        let src_rel = session.rel_path(inv.cwd, source)?;
        let name = src_rel.rsplit('/').next().unwrap_or(&src_rel).to_string();
        let to_rel = if dest_is_dir {
            if dest_rel.is_empty() {
                name
            } else {
                format!("{dest_rel}/{name}")
            }
        } else {
            dest_rel.clone()
        };
        let spec_prefix = format!("{src_rel}/");
        let moving: Vec<usize> = index
            .entries()
            .iter()
            .enumerate()
            .filter(|(_, e)| {
                let p = e.path(&index);
                p == src_rel.as_bytes() || p.starts_with(spec_prefix.as_bytes())
            })
            .map(|(i, _)| i)
            .collect();
        if moving.is_empty() {
            return Err(GitError::Failed(format!(
                "not under version control, source={source}, destination={dest}"
            )));
        }
        let to_abs = session.path_of(to_rel.as_bytes());
        if session.vfs.exists(&to_abs)? && !args.has(&["-f", "--force"]) {
            return Err(GitError::Failed(format!(
                "destination exists, source={source}, destination={dest}"
            )));
        }
        let from_abs = session.path_of(src_rel.as_bytes());
        session
            .vfs
            .rename(&from_abs, &to_abs)
            .map_err(|e| GitError::failed(format!("renaming '{source}' failed"), e))?;
        // Re-add the moved entries under their new paths.
        let moved: Vec<(BString, gix::index::Entry)> = moving
            .iter()
            .map(|&i| {
                let entry = index.entries()[i].clone();
                let old = entry.path(&index);
                let mut new = BString::from(to_rel.as_str());
                new.extend_from_slice(&old[src_rel.len()..]);
                (new, entry)
            })
            .collect();
        let gone: HashSet<usize> = moving.into_iter().collect();
        index.remove_entries(|i, _, _| gone.contains(&i));
        for (path, entry) in moved {
            let stat = session
                .vfs
                .lstat(session.path_of(&path))
                .map(|s| worktree::index_stat(&s))
                .unwrap_or(entry.stat);
            index.dangerously_push_entry(
                stat,
                entry.id,
                Flags::empty(),
                entry.mode,
                path.as_bstr(),
            );
        }
        index.sort_entries();
    }
    worktree::write_index(&mut index)?;
    Ok(Output::ok(Vec::new()))
}

/// `git restore [--staged] [--worktree] [--source=REV] [--] PATHSPEC...`.
pub(crate) fn restore(
    session: &Session<'_>,
    args: Vec<String>,
    inv: &Invocation<'_>,
) -> Result<Output> {
    let args = Args::parse(args, &["-s", "--source"])?;
    args.only(
        "restore",
        &["-S", "--staged", "-W", "--worktree", "-s", "--source"],
    )?;
    let paths = args.all_paths();
    if paths.is_empty() {
        return Err(GitError::Failed(
            "you must specify path(s) to restore".into(),
        ));
    }
    let specs = pathspec::parse(session, inv.cwd, &paths)?;
    let staged = args.has(&["-S", "--staged"]);
    let worktree_too = args.has(&["-W", "--worktree"]) || !staged;
    let repo = session.repo()?;
    let mut index = worktree::load_index(session)?;
    let source: FileMap = match args.value(&["-s", "--source"]) {
        Some(rev) => {
            let id = refs::commit_of(&repo, rev)?;
            worktree::commit_files(&repo, id)?
        }
        None if staged => worktree::tree_map(&repo, refs::head(&repo)?.tree(&repo)?)?,
        None => worktree::index_map(&index),
    };
    restore_paths(
        session,
        &repo,
        &mut index,
        &specs,
        &source,
        staged,
        worktree_too,
    )?;
    worktree::write_index(&mut index)?;
    Ok(Output::ok(Vec::new()))
}

/// Sets the index (`staged`) and/or the worktree to `source` for the paths `specs` name.
pub(crate) fn restore_paths(
    session: &Session<'_>,
    repo: &gix::Repository,
    index: &mut gix::index::File,
    specs: &[Spec],
    source: &FileMap,
    staged: bool,
    in_worktree: bool,
) -> Result<()> {
    let current = worktree::index_map(index);
    let named: Vec<&BString> = source
        .keys()
        .chain(current.keys())
        .filter(|p| pathspec::any(specs, p.as_bstr()))
        .collect();
    if let Some(spec) = specs
        .iter()
        .find(|s| !named.iter().any(|p| s.matches(p.as_bstr())))
    {
        return Err(GitError::Conflict(format!(
            "pathspec '{}' did not match any file(s) known to git",
            spec.original
        )));
    }
    let named: HashSet<BString> = named.into_iter().cloned().collect();
    if in_worktree {
        let from: FileMap = current
            .iter()
            .filter(|(p, _)| named.contains(*p))
            .map(|(p, v)| (p.clone(), *v))
            .collect();
        for path in named.iter() {
            let abs = session.path_of(path);
            match source.get(path) {
                Some((mode, id)) => {
                    let data = repo.find_blob(*id)?.detach().data;
                    worktree::write_entry(session.vfs, &abs, *mode, &data)?;
                }
                None if from.contains_key(path) && !staged => {}
                None => {
                    let _ = session.vfs.remove_file(&abs);
                }
            }
        }
    }
    if staged {
        index.remove_entries(|_, p, _| named.contains(p));
        for path in &named {
            if let Some((mode, id)) = source.get(path) {
                worktree::stage(session, index, path.as_bstr(), *mode, *id);
            }
        }
        index.sort_entries();
    } else if in_worktree {
        // Refresh the stat data of what was rewritten, so status does not rehash it.
        for (entry, path) in index.entries_mut_with_paths() {
            if named.contains(path)
                && let Ok(stat) = session.vfs.lstat(session.path_of(path))
            {
                entry.stat = worktree::index_stat(&stat);
            }
        }
    }
    Ok(())
}

/// `git ls-files [-s] [--] [PATHSPEC...]`: index paths relative to the current directory.
pub(crate) fn ls_files(
    session: &Session<'_>,
    args: Vec<String>,
    inv: &Invocation<'_>,
) -> Result<Output> {
    let args = Args::parse(args, &[])?;
    args.only("ls-files", &["-s", "--stage", "-c", "--cached", "-z"])?;
    let index = worktree::load_index(session)?;
    let cwd_rel = session.rel_path(inv.cwd, ".")?;
    let mut specs = pathspec::parse(session, inv.cwd, &args.all_paths())?;
    if specs.is_empty() {
        specs = pathspec::parse(session, inv.cwd, &[".".into()])?;
    }
    let end = if args.has(&["-z"]) { '\0' } else { '\n' };
    let mut out = String::new();
    for entry in index.entries() {
        let path = entry.path(&index);
        if !pathspec::any(&specs, path) {
            continue;
        }
        let shown = status::relative_to(path, std::path::Path::new(&cwd_rel));
        if args.has(&["-s", "--stage"]) {
            let _ = write!(
                out,
                "{:06o} {} {}\t{shown}{end}",
                entry.mode.bits(),
                entry.id,
                entry.stage_raw()
            );
        } else {
            let _ = write!(out, "{shown}{end}");
        }
    }
    Ok(Output::ok(out))
}
