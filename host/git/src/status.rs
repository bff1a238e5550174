//! `git status`: HEAD against the index, the index against the worktree, untracked files;
//! printed as porcelain v1 or in git's long form.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::path::Path;

use computer_vfs::{FileType, Stat, VfsError};
use gix::ObjectId;
use gix::bstr::{BStr, BString, ByteSlice};

use crate::error::{GitError, Result};
use crate::refs::{self, Head};
use crate::repo::Session;
use crate::worktree::{self, FileMap};

/// How a path differs, as git's one-letter codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Change {
    Added,
    Modified,
    Deleted,
    TypeChanged,
    Renamed,
}

impl Change {
    fn letter(self) -> char {
        match self {
            Change::Added => 'A',
            Change::Modified => 'M',
            Change::Deleted => 'D',
            Change::TypeChanged => 'T',
            Change::Renamed => 'R',
        }
    }

    fn label(self) -> &'static str {
        match self {
            Change::Added => "new file:",
            Change::Modified => "modified:",
            Change::Deleted => "deleted:",
            Change::TypeChanged => "typechange:",
            Change::Renamed => "renamed:",
        }
    }
}

/// A staged change (`from` is the old path of a rename).
#[derive(Debug, Clone)]
pub(crate) struct Staged {
    pub path: BString,
    pub change: Change,
    pub from: Option<BString>,
}

/// Everything `git status` reports.
pub(crate) struct Status {
    pub head: Head,
    pub staged: Vec<Staged>,
    pub unstaged: Vec<(BString, Change)>,
    /// Untracked files, and untracked directories with a trailing `/`.
    pub untracked: Vec<BString>,
}

/// HEAD's files, the index's and the worktree compared.
pub(crate) fn compute(session: &Session<'_>, repo: &gix::Repository) -> Result<Status> {
    let head = refs::head(repo)?;
    let head_files = worktree::tree_map(repo, head.tree(repo)?)?;
    let index = worktree::load_index(session)?;
    let index_files = worktree::index_map(&index);
    let staged = staged_changes(&head_files, &index_files);
    let walked = walk_worktree(session)?;
    let index_mtime = session
        .host_git
        .join("index")
        .metadata()
        .map(|m| crate::mirror::mtime_ns(&m))
        .unwrap_or(0);
    let mut unstaged = Vec::new();
    for entry in index.entries().iter().filter(|e| e.stage_raw() == 0) {
        let path = entry.path(&index);
        let change = match walked.get(path) {
            None => Some(Change::Deleted),
            Some(stat) => worktree_change(session, entry, path, stat, index_mtime)?,
        };
        if let Some(change) = change {
            unstaged.push((path.to_owned(), change));
        }
    }
    let untracked = untracked(session, &walked, &index_files)?;
    Ok(Status {
        head,
        staged,
        unstaged,
        untracked,
    })
}

/// HEAD against the index, with exact renames paired the way git pairs them.
pub(crate) fn staged_changes(head: &FileMap, index: &FileMap) -> Vec<Staged> {
    let mut out = Vec::new();
    let mut deleted: Vec<&BString> = Vec::new();
    let mut added: Vec<&BString> = Vec::new();
    for (path, (mode, id)) in index {
        match head.get(path) {
            None => added.push(path),
            Some((old_mode, old_id)) if old_id != id || old_mode != mode => {
                let change = if old_mode.is_link() != mode.is_link() {
                    Change::TypeChanged
                } else {
                    Change::Modified
                };
                out.push(Staged {
                    path: path.clone(),
                    change,
                    from: None,
                });
            }
            Some(_) => {}
        }
    }
    deleted.extend(head.keys().filter(|p| !index.contains_key(*p)));
    let mut renamed_from = HashSet::new();
    for path in added {
        let id = index[path].1;
        let source = deleted
            .iter()
            .find(|d| head[**d].1 == id && !renamed_from.contains(**d));
        match source {
            Some(from) => {
                renamed_from.insert((*from).clone());
                out.push(Staged {
                    path: path.clone(),
                    change: Change::Renamed,
                    from: Some((*from).clone()),
                });
            }
            None => out.push(Staged {
                path: path.clone(),
                change: Change::Added,
                from: None,
            }),
        }
    }
    for path in deleted.into_iter().filter(|d| !renamed_from.contains(*d)) {
        out.push(Staged {
            path: path.clone(),
            change: Change::Deleted,
            from: None,
        });
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// How the worktree entry differs from its index entry, if it does.
fn worktree_change(
    session: &Session<'_>,
    entry: &gix::index::Entry,
    path: &BStr,
    stat: &Stat,
    index_mtime: i64,
) -> Result<Option<Change>> {
    let Some(mode) = worktree::entry_mode(stat) else {
        return Ok(Some(Change::Deleted));
    };
    let indexed = worktree::tree_mode(entry.mode);
    if indexed.is_link() != mode.is_link() {
        return Ok(Some(Change::TypeChanged));
    }
    if indexed != mode {
        return Ok(Some(Change::Modified));
    }
    let now = worktree::index_stat(stat);
    let racy = stat.mtime >= index_mtime;
    if !racy && now.size == entry.stat.size && now.mtime == entry.stat.mtime {
        return Ok(None);
    }
    if u64::from(entry.stat.size) != stat.size && !mode.is_link() && entry.stat.size != 0 {
        return Ok(Some(Change::Modified));
    }
    let data = worktree::content(session.vfs, &session.path_of(path), stat)?;
    Ok((worktree::blob_id(&data)? != entry.id).then_some(Change::Modified))
}

/// Every worktree entry outside `.git`, by repository-relative path.
pub(crate) fn walk_worktree(session: &Session<'_>) -> Result<HashMap<BString, Stat>> {
    let entries = session
        .vfs
        .walk(&session.worktree)
        .map_err(|e| GitError::failed(session.worktree.display(), e))?;
    let mut out = HashMap::with_capacity(entries.len());
    for entry in entries {
        let Ok(rel) = entry.path.strip_prefix(&session.worktree) else {
            continue;
        };
        let rel = rel.as_os_str().as_encoded_bytes();
        if rel.is_empty() || rel == b".git" || rel.starts_with(b".git/") {
            continue;
        }
        out.insert(BString::from(rel), entry.stat);
    }
    Ok(out)
}

/// The ignore rules of `.git/info/exclude` and every `.gitignore` met while walking.
pub(crate) struct Ignores {
    search: gix::ignore::Search,
    loaded: HashSet<BString>,
}

impl Ignores {
    pub fn new(session: &Session<'_>) -> Ignores {
        let mut search = gix::ignore::Search::default();
        if let Ok(bytes) = std::fs::read(session.host_git.join("info/exclude")) {
            let _ = search.add_patterns_buffer(
                &bytes,
                session.host_git.join("info/exclude"),
                None,
                Default::default(),
            );
        }
        Ignores {
            search,
            loaded: HashSet::new(),
        }
    }

    /// Reads `dir/.gitignore` (once).
    pub fn load_dir(&mut self, session: &Session<'_>, dir: &BStr) {
        if !self.loaded.insert(dir.to_owned()) {
            return;
        }
        let file = session.path_of(dir).join(".gitignore");
        if let Ok(bytes) = session.vfs.read_file(&file) {
            let _ = self.search.add_patterns_buffer(
                &bytes,
                file,
                Some(&session.worktree),
                Default::default(),
            );
        }
    }

    pub fn is_ignored(&self, rel: &BStr, is_dir: bool) -> bool {
        self.search
            .pattern_matching_relative_path(rel, Some(is_dir), gix::glob::pattern::Case::Sensitive)
            .is_some_and(|m| !m.pattern.is_negative())
    }
}

/// Untracked files; a directory without tracked files shows as `dir/` when it holds anything
/// not ignored.
fn untracked(
    session: &Session<'_>,
    walked: &HashMap<BString, Stat>,
    index: &FileMap,
) -> Result<Vec<BString>> {
    let mut tracked_dirs = HashSet::new();
    for path in index.keys() {
        let mut p = path.as_bstr();
        while let Some(slash) = p.rfind_byte(b'/') {
            p = p[..slash].as_bstr();
            if !tracked_dirs.insert(p.to_owned()) {
                break;
            }
        }
    }
    let mut ignores = Ignores::new(session);
    let mut out = Vec::new();
    visit(
        session,
        walked,
        index,
        &tracked_dirs,
        &mut ignores,
        BStr::new(""),
        &mut out,
    )?;
    out.sort();
    Ok(out)
}

fn visit(
    session: &Session<'_>,
    walked: &HashMap<BString, Stat>,
    index: &FileMap,
    tracked_dirs: &HashSet<BString>,
    ignores: &mut Ignores,
    dir: &BStr,
    out: &mut Vec<BString>,
) -> Result<()> {
    ignores.load_dir(session, dir);
    for (rel, kind) in children(session, dir)? {
        if dir.is_empty() && rel == ".git" {
            continue;
        }
        let is_dir = kind == FileType::Dir;
        if index.contains_key(&rel) || ignores.is_ignored(rel.as_bstr(), is_dir) {
            continue;
        }
        if !is_dir {
            if walked.contains_key(&rel) {
                out.push(rel);
            }
        } else if tracked_dirs.contains(&rel) {
            visit(
                session,
                walked,
                index,
                tracked_dirs,
                ignores,
                rel.as_bstr(),
                out,
            )?;
        } else if has_untracked(session, ignores, rel.as_bstr())? {
            let mut shown = rel;
            shown.push(b'/');
            out.push(shown);
        }
    }
    Ok(())
}

/// Whether an untracked directory holds anything not ignored (a nested repository counts).
fn has_untracked(session: &Session<'_>, ignores: &mut Ignores, dir: &BStr) -> Result<bool> {
    ignores.load_dir(session, dir);
    for (rel, kind) in children(session, dir)? {
        let is_dir = kind == FileType::Dir;
        if ignores.is_ignored(rel.as_bstr(), is_dir) {
            continue;
        }
        if !is_dir || rel.ends_with(b"/.git") || has_untracked(session, ignores, rel.as_bstr())? {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The entries of a worktree directory as (relative path, type).
fn children(session: &Session<'_>, dir: &BStr) -> Result<Vec<(BString, FileType)>> {
    let abs = session.path_of(dir);
    let entries = match session.vfs.read_dir(&abs) {
        Ok(entries) => entries,
        Err(VfsError::NotFound | VfsError::NotDir) => return Ok(Vec::new()),
        Err(e) => return Err(GitError::failed(abs.display(), e)),
    };
    Ok(entries
        .into_iter()
        .map(|e| {
            let mut rel = BString::from(dir.to_vec());
            if !rel.is_empty() {
                rel.push(b'/');
            }
            rel.extend_from_slice(e.name.as_encoded_bytes());
            (rel, e.kind)
        })
        .collect())
}

/// `git status --porcelain` (v1).
pub(crate) fn porcelain(status: &Status) -> String {
    let mut lines: Vec<(BString, String)> = Vec::new();
    let unstaged: HashMap<&BString, Change> =
        status.unstaged.iter().map(|(p, c)| (p, *c)).collect();
    let mut done = HashSet::new();
    for s in &status.staged {
        let y = unstaged.get(&s.path).map_or(' ', |c| c.letter());
        done.insert(&s.path);
        let shown = match &s.from {
            Some(from) => format!("{} -> {}", quote(from.as_bstr()), quote(s.path.as_bstr())),
            None => quote(s.path.as_bstr()),
        };
        lines.push((
            s.path.clone(),
            format!("{}{} {shown}", s.change.letter(), y),
        ));
    }
    for (path, change) in &status.unstaged {
        if !done.contains(path) {
            lines.push((
                path.clone(),
                format!(" {} {}", change.letter(), quote(path.as_bstr())),
            ));
        }
    }
    lines.sort_by(|a, b| a.0.cmp(&b.0));
    let mut out = String::new();
    for (_, line) in lines {
        out.push_str(&line);
        out.push('\n');
    }
    for path in &status.untracked {
        let _ = writeln!(out, "?? {}", quote(path.as_bstr()));
    }
    out
}

/// `git status` in its long form; paths relative to `cwd_rel` (the current directory's
/// repository-relative path).
pub(crate) fn long(status: &Status, repo: &gix::Repository, cwd_rel: &Path) -> Result<String> {
    let mut out = String::new();
    match &status.head {
        Head::Branch { name, .. } | Head::Unborn { name } => {
            let _ = writeln!(out, "On branch {name}");
        }
        Head::Detached { id } => {
            let _ = writeln!(out, "{}", refs::detached_line(repo, *id).0);
        }
    }
    if let Head::Branch { name, id } = &status.head {
        let tracking = refs::tracking_summary(repo, name, *id)?;
        if !tracking.is_empty() {
            out.push_str(&tracking);
            out.push('\n');
        }
    }
    let unborn = matches!(status.head, Head::Unborn { .. });
    if unborn {
        out.push_str("\nNo commits yet\n\n");
    }
    let rel = |p: &BStr| relative_to(p, cwd_rel);
    if !status.staged.is_empty() {
        out.push_str("Changes to be committed:\n");
        if unborn {
            out.push_str("  (use \"git rm --cached <file>...\" to unstage)\n");
        } else {
            out.push_str("  (use \"git restore --staged <file>...\" to unstage)\n");
        }
        for s in &status.staged {
            let shown = match &s.from {
                Some(from) => format!("{} -> {}", rel(from.as_bstr()), rel(s.path.as_bstr())),
                None => rel(s.path.as_bstr()),
            };
            let _ = writeln!(out, "\t{:<12}{shown}", s.change.label());
        }
        out.push('\n');
    }
    if !status.unstaged.is_empty() {
        out.push_str("Changes not staged for commit:\n");
        if status.unstaged.iter().any(|(_, c)| *c == Change::Deleted) {
            out.push_str("  (use \"git add/rm <file>...\" to update what will be committed)\n");
        } else {
            out.push_str("  (use \"git add <file>...\" to update what will be committed)\n");
        }
        out.push_str("  (use \"git restore <file>...\" to discard changes in working directory)\n");
        for (path, change) in &status.unstaged {
            let _ = writeln!(out, "\t{:<12}{}", change.label(), rel(path.as_bstr()));
        }
        out.push('\n');
    }
    if !status.untracked.is_empty() {
        out.push_str("Untracked files:\n");
        out.push_str("  (use \"git add <file>...\" to include in what will be committed)\n");
        for path in &status.untracked {
            let _ = writeln!(out, "\t{}", rel(path.as_bstr()));
        }
        out.push('\n');
    }
    if status.staged.is_empty() {
        if !status.unstaged.is_empty() {
            out.push_str("no changes added to commit (use \"git add\" and/or \"git commit -a\")\n");
        } else if !status.untracked.is_empty() {
            out.push_str(
                "nothing added to commit but untracked files present (use \"git add\" to track)\n",
            );
        } else if unborn {
            out.push_str("nothing to commit (create/copy files and use \"git add\" to track)\n");
        } else {
            out.push_str("nothing to commit, working tree clean\n");
        }
    }
    Ok(out)
}

/// A repository-relative path as seen from the directory `cwd_rel`.
pub(crate) fn relative_to(path: &BStr, cwd_rel: &Path) -> String {
    let path = path.to_str_lossy();
    let base = cwd_rel.to_string_lossy();
    if base.is_empty() {
        return quote(path.as_bytes().as_bstr());
    }
    let base_parts: Vec<&str> = base.split('/').collect();
    let path_parts: Vec<&str> = path.split('/').collect();
    let common = base_parts
        .iter()
        .zip(&path_parts)
        .take_while(|(a, b)| a == b)
        .count();
    let mut parts: Vec<&str> = vec![".."; base_parts.len() - common];
    parts.extend(&path_parts[common..]);
    let mut shown = parts.join("/");
    if path.ends_with('/') && !shown.ends_with('/') {
        shown.push('/');
    }
    if shown.is_empty() {
        shown = "./".into();
    }
    quote(shown.as_bytes().as_bstr())
}

/// A path as git prints it: in double quotes with C escapes when it has control characters,
/// quotes, backslashes or bytes above 0x7f (`core.quotePath`).
pub(crate) fn quote(path: &BStr) -> String {
    let needs = path
        .iter()
        .any(|&b| b < 0x20 || b == b'"' || b == b'\\' || b >= 0x7f);
    if !needs {
        return path.to_str_lossy().into_owned();
    }
    let mut out = String::from("\"");
    for &b in path.iter() {
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\t' => out.push_str("\\t"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            0x07 => out.push_str("\\a"),
            0x08 => out.push_str("\\b"),
            0x0b => out.push_str("\\v"),
            0x0c => out.push_str("\\f"),
            b if !(0x20..0x7f).contains(&b) => {
                let _ = write!(out, "\\{b:03o}");
            }
            b => out.push(b as char),
        }
    }
    out.push('"');
    out
}

/// The id the worktree file would have as a blob (for `diff`).
pub(crate) fn worktree_blob(
    session: &Session<'_>,
    path: &BStr,
) -> Result<Option<(ObjectId, Vec<u8>, Stat)>> {
    let abs = session.path_of(path);
    match session.vfs.lstat(&abs) {
        Ok(stat) if worktree::entry_mode(&stat).is_some() => {
            let data = worktree::content(session.vfs, &abs, &stat)?;
            Ok(Some((worktree::blob_id(&data)?, data, stat)))
        }
        Ok(_) | Err(VfsError::NotFound | VfsError::NotDir) => Ok(None),
        Err(e) => Err(GitError::failed(abs.display(), e)),
    }
}
