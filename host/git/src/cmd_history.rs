//! Commands on history: commit, log, show, diff, rev-parse.

use std::collections::HashSet;
use std::fmt::Write as _;

use gix::ObjectId;
use gix::bstr::{BStr, BString, ByteSlice};

use crate::cli::{Args, Invocation, Output};
use crate::diff::{self, Side};
use crate::error::{GitError, Result};
use crate::pathspec::{self, Spec};
use crate::refs::{self, Head};
use crate::repo::Session;
use crate::status;
use crate::worktree::{self, FileMap};

/// `git commit -m MSG [-a] [--allow-empty] [-q] [-F FILE]`.
pub(crate) fn commit(
    session: &Session<'_>,
    args: Vec<String>,
    inv: &Invocation<'_>,
) -> Result<Output> {
    let args = Args::parse(args, &["-m", "--message", "-F", "--file", "--author"])?;
    args.only(
        "commit",
        &[
            "-m",
            "--message",
            "-F",
            "--file",
            "-a",
            "--all",
            "--allow-empty",
            "-q",
            "--quiet",
            "--author",
        ],
    )?;
    if !args.operands.is_empty() || !args.paths.is_empty() {
        return Err(GitError::Unsupported(
            "commit with paths is not supported by the isolate's git: `git add` them, then `git commit`".into(),
        ));
    }
    if args.has(&["-a", "--all"]) {
        crate::cmd_worktree::add(session, vec!["-u".into()], inv)?;
    }
    let raw = match (
        args.value(&["-m", "--message"]),
        args.value(&["-F", "--file"]),
    ) {
        (Some(m), _) => m.to_string(),
        (None, Some(file)) => {
            let path = inv.resolve(file);
            String::from_utf8_lossy(
                &session
                    .vfs
                    .read_file(&path)
                    .map_err(|e| GitError::failed(file, e))?,
            )
            .into_owned()
        }
        (None, None) => {
            return Err(GitError::Unsupported(
                "no editor here: give the message with -m or -F".into(),
            ));
        }
    };
    let message = cleanup_message(&raw);
    if message.is_empty() {
        return Ok(Output {
            status: 1,
            stdout: Vec::new(),
            stderr: b"Aborting commit due to empty commit message.\n".to_vec(),
        });
    }
    let repo = session.repo()?;
    let head = refs::head(&repo)?;
    let index = worktree::load_index(session)?;
    if index.entries().iter().any(|e| e.stage_raw() != 0) {
        return Err(GitError::Conflict(
            "Committing is not possible because you have unmerged files.".into(),
        ));
    }
    let files = worktree::index_map(&index);
    let parent_files = worktree::tree_map(&repo, head.tree(&repo)?)?;
    if files == parent_files && head.id().is_some() && !args.has(&["--allow-empty"]) {
        let st = status::compute(session, &repo)?;
        let cwd_rel = std::path::PathBuf::from(session.rel_path(inv.cwd, ".")?);
        return Ok(Output {
            status: 1,
            stdout: status::long(&st, &repo, &cwd_rel)?.into_bytes(),
            stderr: Vec::new(),
        });
    }
    let tree = worktree::write_tree(&repo, &files)?;
    let author = identity(&repo, inv, "AUTHOR", args.value(&["--author"]))?;
    let committer = identity(&repo, inv, "COMMITTER", None)?;
    let (mut ab, mut cb) = (
        gix::date::parse::TimeBuf::default(),
        gix::date::parse::TimeBuf::default(),
    );
    let id = repo
        .commit_as(
            committer.to_ref(&mut cb),
            author.to_ref(&mut ab),
            "HEAD",
            &message,
            tree,
            head.id(),
        )?
        .detach();
    if args.has(&["-q", "--quiet"]) {
        return Ok(Output::ok(Vec::new()));
    }
    let branch = match &head {
        Head::Branch { name, .. } => name.clone(),
        Head::Unborn { name } => format!("{name} (root-commit)"),
        Head::Detached { .. } => "detached HEAD".into(),
    };
    let summary = message.lines().next().unwrap_or_default();
    let mut out = format!("[{branch} {}] {summary}\n", refs::short(&id));
    out.push_str(&change_summary(&repo, &parent_files, &files)?);
    Ok(Output::ok(out))
}

/// Git's default message cleanup for `-m` (`whitespace`): trailing blanks and surrounding
/// empty lines removed, runs of empty lines collapsed, one final newline.
fn cleanup_message(raw: &str) -> String {
    let mut out = String::new();
    let mut blank_run = false;
    for line in raw.lines().map(str::trim_end) {
        if line.is_empty() {
            blank_run = !out.is_empty();
            continue;
        }
        if blank_run {
            out.push('\n');
            blank_run = false;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// Who (and when) from `GIT_<ROLE>_NAME/EMAIL/DATE`, else `user.name`/`user.email` of the
/// repository's configuration.
pub(crate) fn identity(
    repo: &gix::Repository,
    inv: &Invocation<'_>,
    role: &str,
    explicit: Option<&str>,
) -> Result<gix::actor::Signature> {
    let config = repo.config_snapshot();
    let from_config = |key: &str| config.string(key).map(|v| v.to_string());
    let (mut name, mut email) = (
        inv.var(&format!("GIT_{role}_NAME"))
            .map(str::to_string)
            .or_else(|| from_config("user.name")),
        inv.var(&format!("GIT_{role}_EMAIL"))
            .map(str::to_string)
            .or_else(|| from_config("user.email")),
    );
    if let Some(text) = explicit
        && let Some((n, e)) = text.split_once('<')
    {
        name = Some(n.trim().to_string());
        email = Some(e.trim_end_matches('>').trim().to_string());
    }
    let (Some(name), Some(email)) = (name, email) else {
        return Err(GitError::Failed(format!(
            "{} identity unknown: set user.name and user.email (git config user.name \"Your Name\") or GIT_{role}_NAME and GIT_{role}_EMAIL",
            if role == "AUTHOR" {
                "Author"
            } else {
                "Committer"
            }
        )));
    };
    let time = match inv.var(&format!("GIT_{role}_DATE")) {
        Some(text) => gix::date::parse(text, None)
            .map_err(|e| GitError::failed(format!("invalid date format: {text}"), e))?,
        None => gix::date::Time::now_local_or_utc(),
    };
    Ok(gix::actor::Signature {
        name: name.into(),
        email: email.into(),
        time,
    })
}

/// The lines after `[branch id] summary`: counts and created/deleted modes.
fn change_summary(repo: &gix::Repository, old: &FileMap, new: &FileMap) -> Result<String> {
    let mut files = 0;
    let (mut plus, mut minus) = (0usize, 0usize);
    let mut modes = Vec::new();
    let paths: std::collections::BTreeSet<&BString> = old.keys().chain(new.keys()).collect();
    for path in paths {
        let (a, b) = (old.get(path), new.get(path));
        if a == b {
            continue;
        }
        files += 1;
        let data = |e: Option<&(gix::objs::tree::EntryMode, ObjectId)>| -> Result<Vec<u8>> {
            match e {
                Some((_, id)) => Ok(repo.find_blob(*id)?.detach().data),
                None => Ok(Vec::new()),
            }
        };
        let (x, y) = (data(a)?, data(b)?);
        let (p, m) = diff::line_counts(&x, &y);
        plus += p;
        minus += m;
        match (a, b) {
            (None, Some((mode, _))) => {
                modes.push(format!(" create mode {:06o} {path}\n", mode.value()))
            }
            (Some((mode, _)), None) => {
                modes.push(format!(" delete mode {:06o} {path}\n", mode.value()))
            }
            (Some((m1, _)), Some((m2, _))) if m1 != m2 => modes.push(format!(
                " mode change {:06o} => {:06o} {path}\n",
                m1.value(),
                m2.value()
            )),
            _ => {}
        }
    }
    let plural = |n: usize, one: &str, many: &str| {
        if n == 1 {
            one.to_string()
        } else {
            many.to_string()
        }
    };
    let mut out = format!(" {files} {} changed", plural(files, "file", "files"));
    if plus > 0 || (plus == 0 && minus == 0) {
        let _ = write!(
            out,
            ", {plus} {}(+)",
            plural(plus, "insertion", "insertions")
        );
    }
    if minus > 0 {
        let _ = write!(
            out,
            ", {minus} {}(-)",
            plural(minus, "deletion", "deletions")
        );
    }
    out.push('\n');
    for m in modes {
        out.push_str(&m);
    }
    Ok(out)
}

/// How `log` and `show` print a commit.
enum Format {
    Medium,
    Oneline,
    /// A `--format` template; `terminator` for `tformat:` (and bare templates).
    Template {
        template: String,
        terminator: bool,
    },
}

impl Format {
    /// The format `raw` (the command's arguments) asks for: of `--oneline` and
    /// `--format`/`--pretty`, the later one, as git takes them.
    fn from_args(args: &Args, raw: &[String]) -> Result<Format> {
        let options = raw.iter().take_while(|a| *a != "--");
        let (mut oneline, mut format) = (None, None);
        for (i, a) in options.enumerate() {
            if a == "--oneline" {
                oneline = Some(i);
            } else if a.starts_with("--format") || a.starts_with("--pretty") {
                format = Some(i);
            }
        }
        if oneline.is_some() && oneline > format {
            return Ok(Format::Oneline);
        }
        let Some(spec) = args.value(&["--format", "--pretty"]) else {
            return Ok(Format::Medium);
        };
        Ok(match spec {
            "medium" => Format::Medium,
            "oneline" => Format::Template {
                template: "%H %s".into(),
                terminator: true,
            },
            "short" | "full" | "fuller" | "raw" | "email" | "reference" => {
                return Err(GitError::Unsupported(format!(
                    "--format={spec} is not supported; use format:<template>"
                )));
            }
            other => match other.strip_prefix("format:") {
                Some(t) => Format::Template {
                    template: t.into(),
                    terminator: false,
                },
                None => Format::Template {
                    template: other.strip_prefix("tformat:").unwrap_or(other).into(),
                    terminator: true,
                },
            },
        })
    }
}

/// One commit as `log` shows it.
fn format_commit(repo: &gix::Repository, id: ObjectId, format: &Format) -> Result<String> {
    let commit = repo.find_commit(id)?;
    let decoded = commit.decode()?;
    let message = decoded.message.to_str_lossy().into_owned();
    let summary = decoded.message_summary().to_string();
    let author = decoded.author()?;
    let committer = decoded.committer()?;
    let author_time = author.time().unwrap_or_default();
    let committer_time = committer.time().unwrap_or_default();
    let date = |t: &gix::date::Time| t.format_or_unix(gix::date::time::format::DEFAULT);
    let parents: Vec<ObjectId> = decoded.parents().collect();
    Ok(match format {
        Format::Oneline => format!("{} {summary}\n", refs::short(&id)),
        Format::Medium => {
            let mut out = format!("commit {id}\n");
            if parents.len() > 1 {
                let shorts: Vec<String> = parents.iter().map(refs::short).collect();
                let _ = writeln!(out, "Merge: {}", shorts.join(" "));
            }
            let _ = writeln!(out, "Author: {} <{}>", author.name, author.email);
            let _ = writeln!(out, "Date:   {}\n", date(&author_time));
            for line in message.trim_end_matches('\n').lines() {
                let _ = writeln!(out, "    {line}");
            }
            out
        }
        Format::Template { template, .. } => {
            let body = message
                .split_once("\n\n")
                .map(|(_, b)| b.to_string())
                .unwrap_or_default();
            let mut out = String::new();
            let mut chars = template.chars().peekable();
            while let Some(c) = chars.next() {
                if c != '%' {
                    out.push(c);
                    continue;
                }
                let mut take =
                    |n: usize| -> String { (0..n).filter_map(|_| chars.next()).collect() };
                let first = take(1);
                let code = if first == "a" || first == "c" {
                    format!("{first}{}", take(1))
                } else {
                    first
                };
                match code.as_str() {
                    "H" => out.push_str(&id.to_string()),
                    "h" => out.push_str(&refs::short(&id)),
                    "T" => out.push_str(&decoded.tree().to_string()),
                    "t" => out.push_str(&refs::short(&decoded.tree())),
                    "P" => out.push_str(
                        &parents
                            .iter()
                            .map(|p| p.to_string())
                            .collect::<Vec<_>>()
                            .join(" "),
                    ),
                    "p" => out.push_str(
                        &parents
                            .iter()
                            .map(refs::short)
                            .collect::<Vec<_>>()
                            .join(" "),
                    ),
                    "an" => out.push_str(&author.name.to_str_lossy()),
                    "ae" => out.push_str(&author.email.to_str_lossy()),
                    "ad" => out.push_str(&date(&author_time)),
                    "at" => out.push_str(&author_time.seconds.to_string()),
                    "aI" => out.push_str(
                        &author_time.format_or_unix(gix::date::time::format::ISO8601_STRICT),
                    ),
                    "cn" => out.push_str(&committer.name.to_str_lossy()),
                    "ce" => out.push_str(&committer.email.to_str_lossy()),
                    "cd" => out.push_str(&date(&committer_time)),
                    "ct" => out.push_str(&committer_time.seconds.to_string()),
                    "cI" => out.push_str(
                        &committer_time.format_or_unix(gix::date::time::format::ISO8601_STRICT),
                    ),
                    "s" => out.push_str(&summary),
                    "b" => out.push_str(&body),
                    "B" => out.push_str(&message),
                    "n" => out.push('\n'),
                    "%" => out.push('%'),
                    "d" | "D" => {}
                    other => {
                        out.push('%');
                        out.push_str(other);
                    }
                }
            }
            out
        }
    })
}

/// The commits `log` walks: from `tips`, newest first.
fn walk(
    repo: &gix::Repository,
    tips: Vec<ObjectId>,
    hidden: Vec<ObjectId>,
) -> Result<Vec<ObjectId>> {
    let platform = repo
        .rev_walk(tips)
        .sorting(gix::revision::walk::Sorting::ByCommitTime(
            Default::default(),
        ))
        .with_hidden(hidden);
    let mut out = Vec::new();
    for info in platform.all()? {
        out.push(info.map_err(|e| GitError::failed("walking history", e))?.id);
    }
    Ok(out)
}

/// `git log [--oneline] [-n N] [--format=F] [--stat] [REV | A..B] [-- PATH...]`.
pub(crate) fn log(
    session: &Session<'_>,
    args: Vec<String>,
    inv: &Invocation<'_>,
) -> Result<Output> {
    let raw = args.clone();
    let args = Args::parse(args, &["-n", "--max-count", "--format", "--pretty"])?;
    args.only(
        "log",
        &[
            "--stat",
            "--oneline",
            "-n",
            "--max-count",
            "--format",
            "--pretty",
            "--reverse",
            "--no-decorate",
        ],
    )?;
    let repo = session.repo()?;
    let format = Format::from_args(&args, &raw)?;
    let limit: Option<usize> = match args.value(&["-n", "--max-count"]) {
        Some(n) => Some(
            n.parse()
                .map_err(|_| GitError::Usage(format!("error: '{n}': not an integer")))?,
        ),
        None => None,
    };
    let (tips, hidden) = match args.operands.first() {
        Some(range) if refs::split_range(range).is_some() => {
            let (a, b) = refs::split_range(range).unwrap_or_default();
            (
                vec![refs::commit_of(&repo, b)?],
                vec![refs::commit_of(&repo, a)?],
            )
        }
        Some(rev) => (vec![refs::commit_of(&repo, rev)?], Vec::new()),
        None => match refs::head(&repo)? {
            Head::Unborn { name } => {
                return Err(GitError::Failed(format!(
                    "your current branch '{name}' does not have any commits yet"
                )));
            }
            head => (head.id().into_iter().collect(), Vec::new()),
        },
    };
    let specs = pathspec::parse(session, inv.cwd, &args.paths)?;
    let mut ids = walk(&repo, tips, hidden)?;
    if !specs.is_empty() {
        ids.retain(|id| touches(&repo, *id, &specs).unwrap_or(false));
    }
    if let Some(limit) = limit {
        ids.truncate(limit);
    }
    if args.has(&["--reverse"]) {
        ids.reverse();
    }
    let mut out = String::new();
    for (i, id) in ids.iter().enumerate() {
        let text = format_commit(&repo, *id, &format)?;
        match &format {
            Format::Medium if i > 0 => out.push('\n'),
            Format::Template {
                terminator: false, ..
            } if i > 0 => out.push('\n'),
            _ => {}
        }
        out.push_str(&text);
        if let Format::Template {
            terminator: true, ..
        } = format
        {
            out.push('\n');
        }
        if args.has(&["--stat"]) {
            push_stat(&mut out, &repo, *id, &format)?;
        }
    }
    Ok(Output::ok(out))
}

/// `--stat` after a commit's text, set apart as git does for each format (merges get none).
fn push_stat(
    out: &mut String,
    repo: &gix::Repository,
    id: ObjectId,
    format: &Format,
) -> Result<()> {
    let commit = repo.find_commit(id)?;
    if commit.parent_ids().count() > 1 {
        return Ok(());
    }
    let new = worktree::tree_map(repo, Some(commit.tree_id()?.detach()))?;
    let old = match commit.parent_ids().next() {
        Some(p) => worktree::commit_files(repo, p)?,
        None => FileMap::new(),
    };
    let mut changed = Vec::new();
    collect_changes(&old, &new, &[], &mut changed);
    let mut counts = Vec::new();
    tree_diff(repo, &old, &new, &[], &mut Vec::new(), &mut counts)?;
    let stat = stat_of(&changed, counts);
    if stat.is_empty() {
        return Ok(());
    }
    if !matches!(format, Format::Oneline) {
        out.push('\n');
    }
    out.push_str(&stat);
    Ok(())
}

/// Whether commit `id` changes a path the specs name (against its first parent).
fn touches(repo: &gix::Repository, id: ObjectId, specs: &[Spec]) -> Result<bool> {
    let commit = repo.find_commit(id)?;
    let tree = worktree::tree_map(repo, Some(commit.tree_id()?.detach()))?;
    let parent = match commit.parent_ids().next() {
        Some(p) => worktree::commit_files(repo, p)?,
        None => FileMap::new(),
    };
    let paths: HashSet<&BString> = tree.keys().chain(parent.keys()).collect();
    Ok(paths
        .into_iter()
        .any(|p| pathspec::any(specs, p.as_bstr()) && tree.get(p) != parent.get(p)))
}

/// `git show [--stat] [REV | REV:PATH]`.
pub(crate) fn show(session: &Session<'_>, args: Vec<String>) -> Result<Output> {
    let raw = args.clone();
    let args = Args::parse(args, &["--format", "--pretty"])?;
    args.only(
        "show",
        &[
            "--oneline",
            "--format",
            "--pretty",
            "-s",
            "--no-patch",
            "--stat",
        ],
    )?;
    let repo = session.repo()?;
    let spec = args.operands.first().map_or("HEAD", String::as_str);
    if let Some((rev, path)) = spec.split_once(':') {
        let rev = if rev.is_empty() { "HEAD" } else { rev };
        let id = refs::commit_of(&repo, rev)?;
        let files = worktree::commit_files(&repo, id)?;
        let Some((_, blob)) = files.get(path.as_bytes().as_bstr()) else {
            return Err(GitError::NotFound(format!(
                "path '{path}' does not exist in '{rev}'"
            )));
        };
        return Ok(Output::ok(repo.find_blob(*blob)?.detach().data));
    }
    let id = refs::commit_of(&repo, spec)?;
    let format = Format::from_args(&args, &raw)?;
    let mut out = format_commit(&repo, id, &format)?;
    if let Format::Template {
        terminator: true, ..
    } = format
    {
        out.push('\n');
    }
    if args.has(&["-s", "--no-patch"]) {
        return Ok(Output::ok(out));
    }
    if args.has(&["--stat"]) {
        push_stat(&mut out, &repo, id, &format)?;
        return Ok(Output::ok(out));
    }
    let mut out = out.into_bytes();
    let commit = repo.find_commit(id)?;
    let new = worktree::tree_map(&repo, Some(commit.tree_id()?.detach()))?;
    let old = match commit.parent_ids().next() {
        Some(p) => worktree::commit_files(&repo, p)?,
        None => FileMap::new(),
    };
    let mut patch = Vec::new();
    tree_diff(&repo, &old, &new, &[], &mut patch, &mut Vec::new())?;
    if !patch.is_empty() && !matches!(format, Format::Oneline) {
        out.push(b'\n');
    }
    out.extend(patch);
    Ok(Output::ok(out))
}

/// Appends the diff between two file maps (blobs from the repository).
fn tree_diff(
    repo: &gix::Repository,
    old: &FileMap,
    new: &FileMap,
    specs: &[Spec],
    out: &mut Vec<u8>,
    counts: &mut Vec<diff::Counts>,
) -> Result<()> {
    let paths: std::collections::BTreeSet<&BString> = old.keys().chain(new.keys()).collect();
    for path in paths {
        if !specs.is_empty() && !pathspec::any(specs, path.as_bstr()) {
            continue;
        }
        let (a, b) = (old.get(path), new.get(path));
        if a == b {
            continue;
        }
        let a_data = match a {
            Some((_, id)) => repo.find_blob(*id)?.detach().data,
            None => Vec::new(),
        };
        let b_data = match b {
            Some((_, id)) => repo.find_blob(*id)?.detach().data,
            None => Vec::new(),
        };
        counts.push(diff::file_diff(
            out,
            path.as_bstr(),
            a.map(|(mode, id)| Side {
                id: *id,
                mode: *mode,
                data: &a_data,
            }),
            b.map(|(mode, id)| Side {
                id: *id,
                mode: *mode,
                data: &b_data,
            }),
        ));
    }
    Ok(())
}

/// `git diff [--cached [REV]] [REV [REV]] [--stat|--name-only|--name-status|--quiet|--exit-code] [-- PATH...]`.
pub(crate) fn diff(
    session: &Session<'_>,
    args: Vec<String>,
    inv: &Invocation<'_>,
) -> Result<Output> {
    let args = Args::parse(args, &[])?;
    args.only(
        "diff",
        &[
            "--cached",
            "--staged",
            "--name-only",
            "--name-status",
            "--quiet",
            "--exit-code",
            "--no-color",
            "--no-ext-diff",
            "--stat",
        ],
    )?;
    let repo = session.repo()?;
    // Without `--`, operands that are no revision but name a file are paths, as git takes them.
    let mut operands = args.operands.clone();
    let mut paths = args.paths.clone();
    if !args.dashdash {
        let first_path = operands.iter().position(|o| {
            repo.rev_parse_single(o.as_str()).is_err()
                && !o.contains("..")
                && session.vfs.lstat(inv.resolve(o)).is_ok()
        });
        if let Some(i) = first_path {
            paths = operands.split_off(i);
        }
    }
    let specs = pathspec::parse(session, inv.cwd, &paths)?;
    let index = worktree::load_index(session)?;
    let index_files = worktree::index_map(&index);
    let revs: Vec<String> = match operands.as_slice() {
        [range] => match refs::split_range(range) {
            Some((a, b)) => vec![a.to_string(), b.to_string()],
            None => vec![range.clone()],
        },
        other => other.to_vec(),
    };
    let tree_of = |rev: &str| worktree::commit_files(&repo, refs::commit_of(&repo, rev)?);
    let cached = args.has(&["--cached", "--staged"]);
    let mut patch = Vec::new();
    let mut changed: Vec<(BString, char)> = Vec::new();
    // What each file's diff counted, in the order of `changed`.
    let mut counts = Vec::new();
    match (cached, revs.as_slice()) {
        (_, [a, b]) => {
            let (old, new) = (tree_of(a)?, tree_of(b)?);
            collect_changes(&old, &new, &specs, &mut changed);
            tree_diff(&repo, &old, &new, &specs, &mut patch, &mut counts)?;
        }
        (true, revs) => {
            let old = match revs.first() {
                Some(rev) => tree_of(rev)?,
                None => worktree::tree_map(&repo, refs::head(&repo)?.tree(&repo)?)?,
            };
            collect_changes(&old, &index_files, &specs, &mut changed);
            tree_diff(&repo, &old, &index_files, &specs, &mut patch, &mut counts)?;
        }
        (false, revs) => {
            // Against the worktree: from the index, or from a commit for tracked paths.
            let old = match revs.first() {
                Some(rev) => tree_of(rev)?,
                None => index_files.clone(),
            };
            let mut paths: Vec<&BString> = old.keys().chain(index_files.keys()).collect();
            paths.sort();
            paths.dedup();
            for path in paths {
                if !specs.is_empty() && !pathspec::any(&specs, path.as_bstr()) {
                    continue;
                }
                let before = old.get(path);
                let now = if index_files.contains_key(path) {
                    status::worktree_blob(session, path.as_bstr())?
                } else {
                    None
                };
                let after = now
                    .as_ref()
                    .and_then(|(id, _, stat)| worktree::entry_mode(stat).map(|m| (m, *id)));
                if before.copied() == after {
                    continue;
                }
                changed.push((path.clone(), letter(before.is_some(), after.is_some())));
                let before_data = match before {
                    Some((_, id)) => repo.find_blob(*id)?.detach().data,
                    None => Vec::new(),
                };
                let after_data: &[u8] = now.as_ref().map_or(&[], |(_, d, _)| d.as_slice());
                counts.push(diff::file_diff(
                    &mut patch,
                    path.as_bstr(),
                    before.map(|(mode, id)| Side {
                        id: *id,
                        mode: *mode,
                        data: &before_data,
                    }),
                    after.map(|(mode, id)| Side {
                        id,
                        mode,
                        data: after_data,
                    }),
                ));
            }
        }
    }
    let status = i32::from(args.has(&["--quiet", "--exit-code"]) && !changed.is_empty());
    if args.has(&["--quiet"]) {
        return Ok(Output {
            status,
            ..Output::default()
        });
    }
    let cwd_rel = std::path::PathBuf::from(session.rel_path(inv.cwd, ".")?);
    let stdout = if args.has(&["--name-only"]) {
        changed
            .iter()
            .map(|(p, _)| format!("{}\n", status::relative_to(p.as_bstr(), &cwd_rel)))
            .collect::<String>()
            .into_bytes()
    } else if args.has(&["--stat"]) {
        stat_of(&changed, counts).into_bytes()
    } else if args.has(&["--name-status"]) {
        changed
            .iter()
            .map(|(p, c)| format!("{c}\t{}\n", status::relative_to(p.as_bstr(), &cwd_rel)))
            .collect::<String>()
            .into_bytes()
    } else {
        patch
    };
    Ok(Output {
        status,
        stdout,
        stderr: Vec::new(),
    })
}

/// `--stat` of the changed paths, with what each one's diff counted (in the same order).
fn stat_of(changed: &[(BString, char)], counts: Vec<diff::Counts>) -> String {
    let files: Vec<(String, diff::Counts)> = changed
        .iter()
        .map(|(p, _)| status::quote(p.as_bstr()))
        .zip(counts)
        .collect();
    diff::stat(&files)
}

fn letter(before: bool, after: bool) -> char {
    match (before, after) {
        (false, true) => 'A',
        (true, false) => 'D',
        _ => 'M',
    }
}

fn collect_changes(old: &FileMap, new: &FileMap, specs: &[Spec], out: &mut Vec<(BString, char)>) {
    let paths: std::collections::BTreeSet<&BString> = old.keys().chain(new.keys()).collect();
    for path in paths {
        if (!specs.is_empty() && !pathspec::any(specs, path.as_bstr()))
            || old.get(path) == new.get(path)
        {
            continue;
        }
        out.push((
            path.clone(),
            letter(old.contains_key(path), new.contains_key(path)),
        ));
    }
}

/// `git rev-parse`: revisions to ids, and the repository questions scripts ask.
pub(crate) fn rev_parse(
    session: &Session<'_>,
    args: Vec<String>,
    inv: &Invocation<'_>,
) -> Result<Output> {
    let mut out = String::new();
    let repo = session.repo()?;
    let mut abbrev_ref = false;
    let mut short: Option<usize> = None;
    let mut verify = false;
    let mut quiet = false;
    for arg in &args {
        match arg.as_str() {
            "--show-toplevel" => {
                let _ = writeln!(out, "{}", session.worktree.display());
            }
            "--git-dir" => {
                if inv.cwd == session.worktree {
                    out.push_str(".git\n");
                } else {
                    let _ = writeln!(out, "{}", session.git_dir.display());
                }
            }
            "--is-inside-work-tree" => out.push_str("true\n"),
            "--is-inside-git-dir" | "--is-bare-repository" => out.push_str("false\n"),
            "--show-prefix" => {
                let rel = session.rel_path(inv.cwd, ".")?;
                let _ = writeln!(
                    out,
                    "{}",
                    if rel.is_empty() {
                        String::new()
                    } else {
                        format!("{rel}/")
                    }
                );
            }
            "--show-cdup" => {
                let rel = session.rel_path(inv.cwd, ".")?;
                let depth = if rel.is_empty() {
                    0
                } else {
                    rel.split('/').count()
                };
                let _ = writeln!(out, "{}", "../".repeat(depth));
            }
            "--abbrev-ref" => abbrev_ref = true,
            "--short" => short = Some(7),
            "--verify" => verify = true,
            "-q" | "--quiet" => quiet = true,
            "--symbolic-full-name" => {}
            other if other.starts_with("--short=") => {
                short = other[8..].parse().ok();
            }
            other if other.starts_with('-') => {
                return Err(GitError::Usage(format!(
                    "error: unknown option `{other}' for 'git rev-parse' in the isolate's git"
                )));
            }
            spec => {
                if abbrev_ref {
                    let name = if spec == "HEAD" {
                        refs::head(&repo)?
                            .branch()
                            .map_or("HEAD".to_string(), str::to_string)
                    } else {
                        spec.to_string()
                    };
                    let _ = writeln!(out, "{name}");
                    continue;
                }
                let id = match resolve_any(&repo, spec) {
                    Ok(id) => id,
                    Err(_) if verify && quiet => {
                        return Ok(Output {
                            status: 1,
                            ..Output::default()
                        });
                    }
                    Err(_) if verify => {
                        return Err(GitError::NotFound("Needed a single revision".into()));
                    }
                    Err(e) => return Err(e),
                };
                match short {
                    Some(n) => {
                        let _ = writeln!(out, "{}", id.to_hex_with_len(n.clamp(4, 40)));
                    }
                    None => {
                        let _ = writeln!(out, "{id}");
                    }
                }
            }
        }
    }
    Ok(Output::ok(out))
}

/// Any revision (commits, trees, `HEAD:path`) to its id.
fn resolve_any(repo: &gix::Repository, spec: &str) -> Result<ObjectId> {
    repo.rev_parse_single(BStr::new(spec))
        .map(|id| id.detach())
        .map_err(|_| {
            GitError::NotFound(format!(
                "ambiguous argument '{spec}': unknown revision or path not in the working tree."
            ))
        })
}
