//! The worktree side of git, in the VFS: file modes and stat data for the index, content
//! hashing, the index file, trees from and to maps, and checking out a tree safely.

use std::collections::{BTreeMap, HashSet};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use computer_vfs::{FileType, Stat, Vfs, VfsError};
use gix::ObjectId;
use gix::bstr::{BStr, BString, ByteSlice};
use gix::index::entry::{Flags, Mode};
use gix::objs::tree::{EntryKind, EntryMode};

use crate::error::{AtPath, GitError, Result};
use crate::repo::Session;

/// A tree flattened to its files: repository-relative path → (mode, blob id).
pub(crate) type FileMap = BTreeMap<BString, (EntryMode, ObjectId)>;

/// The index stat data of a VFS file (what `git status` compares before hashing).
pub(crate) fn index_stat(stat: &Stat) -> gix::index::entry::Stat {
    let time = |ns: i64| gix::index::entry::stat::Time {
        secs: (ns.div_euclid(1_000_000_000)) as u32,
        nsecs: (ns.rem_euclid(1_000_000_000)) as u32,
    };
    gix::index::entry::Stat {
        mtime: time(stat.mtime),
        ctime: time(stat.ctime),
        dev: 0,
        ino: stat.ino as u32,
        uid: stat.uid,
        gid: stat.gid,
        size: stat.size as u32,
    }
}

/// The tree mode git records for a worktree entry, or `None` for what git does not track.
pub(crate) fn entry_mode(stat: &Stat) -> Option<EntryMode> {
    match stat.kind {
        FileType::File if stat.perm & 0o100 != 0 => Some(EntryKind::BlobExecutable.into()),
        FileType::File => Some(EntryKind::Blob.into()),
        FileType::Symlink => Some(EntryKind::Link.into()),
        _ => None,
    }
}

/// The index mode of a tree mode.
pub(crate) fn index_mode(mode: EntryMode) -> Mode {
    match mode.kind() {
        EntryKind::BlobExecutable => Mode::FILE_EXECUTABLE,
        EntryKind::Link => Mode::SYMLINK,
        EntryKind::Commit => Mode::COMMIT,
        EntryKind::Tree => Mode::DIR,
        EntryKind::Blob => Mode::FILE,
    }
}

/// The tree mode of an index mode.
pub(crate) fn tree_mode(mode: Mode) -> EntryMode {
    if mode == Mode::FILE_EXECUTABLE {
        EntryKind::BlobExecutable.into()
    } else if mode == Mode::SYMLINK {
        EntryKind::Link.into()
    } else if mode == Mode::COMMIT {
        EntryKind::Commit.into()
    } else {
        EntryKind::Blob.into()
    }
}

/// What git stores for a worktree entry: a file's bytes or a symlink's target.
pub(crate) fn content(vfs: &Vfs, path: &Path, stat: &Stat) -> Result<Vec<u8>> {
    if stat.kind == FileType::Symlink {
        Ok(vfs
            .read_link(path)
            .at(path)?
            .into_os_string()
            .into_encoded_bytes())
    } else {
        vfs.read_file(path).at(path)
    }
}

/// The blob id of `data`.
pub(crate) fn blob_id(data: &[u8]) -> Result<ObjectId> {
    gix::objs::compute_hash(gix::hash::Kind::Sha1, gix::objs::Kind::Blob, data)
        .map_err(|e| GitError::failed("hashing", e))
}

/// The repository's index (empty when there is none yet).
pub(crate) fn load_index(session: &Session<'_>) -> Result<gix::index::File> {
    let path = session.host_git.join("index");
    if path.exists() {
        Ok(gix::index::File::at(
            &path,
            gix::hash::Kind::Sha1,
            false,
            Default::default(),
        )?)
    } else {
        Ok(gix::index::File::from_state(
            gix::index::State::new(gix::hash::Kind::Sha1),
            path,
        ))
    }
}

/// Writes the index back without the extensions our edits would make stale (the tree cache:
/// git trusts it when building the next commit).
pub(crate) fn write_index(index: &mut gix::index::File) -> Result<()> {
    index.remove_tree();
    index.remove_resolve_undo();
    index.sort_entries();
    index.write(gix::index::write::Options {
        extensions: gix::index::write::Extensions::None,
        skip_hash: false,
    })?;
    Ok(())
}

/// The index's stage-0 entries as a map.
pub(crate) fn index_map(index: &gix::index::State) -> FileMap {
    index
        .entries()
        .iter()
        .filter(|e| e.stage_raw() == 0)
        .map(|e| (e.path(index).to_owned(), (tree_mode(e.mode), e.id)))
        .collect()
}

/// The files of tree `id` (recursively), or nothing for `None` (an unborn branch).
pub(crate) fn tree_map(repo: &gix::Repository, id: Option<ObjectId>) -> Result<FileMap> {
    let Some(id) = id else {
        return Ok(FileMap::new());
    };
    let tree = repo.find_tree(id)?;
    let mut recorder = gix::traverse::tree::Recorder::default();
    tree.traverse().breadthfirst(&mut recorder)?;
    Ok(recorder
        .records
        .into_iter()
        .filter(|e| !e.mode.is_tree())
        .map(|e| (e.filepath, (e.mode, e.oid)))
        .collect())
}

/// The files of commit `id`'s tree.
pub(crate) fn commit_files(repo: &gix::Repository, id: impl Into<ObjectId>) -> Result<FileMap> {
    tree_map(repo, Some(repo.find_commit(id.into())?.tree_id()?.detach()))
}

/// Writes the trees for `files` and returns the root tree's id.
pub(crate) fn write_tree(repo: &gix::Repository, files: &FileMap) -> Result<ObjectId> {
    #[derive(Default)]
    struct Dir {
        files: Vec<gix::objs::tree::Entry>,
        dirs: BTreeMap<BString, Dir>,
    }
    fn write(repo: &gix::Repository, dir: Dir) -> Result<ObjectId> {
        let mut entries = dir.files;
        for (name, sub) in dir.dirs {
            entries.push(gix::objs::tree::Entry {
                mode: EntryKind::Tree.into(),
                filename: name,
                oid: write(repo, sub)?,
            });
        }
        entries.sort();
        Ok(repo.write_object(&gix::objs::Tree { entries })?.detach())
    }
    let mut root = Dir::default();
    for (path, (mode, oid)) in files {
        let mut parts: Vec<&[u8]> = path.split_str("/").collect();
        let name = parts.pop().unwrap_or_default();
        let mut dir = &mut root;
        for part in parts {
            dir = dir.dirs.entry(part.into()).or_default();
        }
        dir.files.push(gix::objs::tree::Entry {
            mode: *mode,
            filename: name.into(),
            oid: *oid,
        });
    }
    write(repo, root)
}

/// Whether `path` is one git may write: relative, no empty, `.`, `..` or `.git` component.
pub(crate) fn is_safe_path(path: &BStr) -> bool {
    !path.is_empty()
        && !path.contains(&0)
        && path.split_str("/").all(|part| {
            !part.is_empty() && part != b"." && part != b".." && !part.eq_ignore_ascii_case(b".git")
        })
}

/// Updates the worktree (and `index`) from the files of `from` to those of `to`: writes what
/// is new or different (or missing from the worktree), removes what `to` lacks (and
/// directories left empty); index entries of paths that do not change stay as they are. Paths git would
/// refuse (`..`, `.git`, through a symlink) fail the checkout before anything is written.
pub(crate) fn checkout(
    session: &Session<'_>,
    repo: &gix::Repository,
    from: &FileMap,
    to: &FileMap,
    index: &mut gix::index::State,
) -> Result<()> {
    if let Some(bad) = to.keys().find(|p| !is_safe_path(p.as_ref())) {
        return Err(GitError::Failed(format!("invalid path '{bad}'")));
    }
    // A hostile tree may name both `a` and `a/b`: `a/b` would be written through whatever
    // `a` is (a symlink pointing anywhere).
    for path in to.keys() {
        let mut parent = path.as_bstr();
        while let Some(slash) = parent.rfind_byte(b'/') {
            parent = parent[..slash].as_bstr();
            if let Some((mode, _)) = to.get(parent) {
                return Err(GitError::Failed(if mode.is_link() {
                    format!("refusing to write '{path}' beyond a symbolic link")
                } else {
                    format!("invalid path '{path}': '{parent}' is a file")
                }));
            }
        }
    }
    let vfs = session.vfs;
    // Removals first, so a file can become a directory and back.
    let mut parents = HashSet::new();
    for path in from.keys().filter(|p| !to.contains_key(*p)) {
        let abs = session.path_of(path);
        match vfs.remove_file(&abs) {
            Ok(()) | Err(VfsError::NotFound) => {}
            Err(e) => return Err(GitError::failed(abs.display(), e)),
        }
        if let Some(parent) = abs.parent() {
            parents.insert(parent.to_path_buf());
        }
    }
    remove_empty_dirs(vfs, &session.worktree, parents);
    let mut checked_dirs = HashSet::new();
    let mut pending = Pending::default();
    for (path, (mode, oid)) in to {
        let abs = session.path_of(path);
        let unchanged = from.get(path) == Some(&(*mode, *oid))
            && vfs.lstat(&abs).is_ok_and(|s| entry_mode(&s) == Some(*mode));
        if !unchanged {
            ensure_real_dirs(session, &abs, &mut checked_dirs)?;
            let data = repo.find_blob(*oid)?.detach().data;
            pending.push(vfs, abs, *mode, data)?;
        }
    }
    pending.flush(vfs)?;
    // The index: what changed takes the target's entry with the worktree's stat data;
    // the rest (and whatever is staged there) stays.
    let changed: HashSet<&[u8]> = from
        .keys()
        .chain(to.keys())
        .filter(|p| from.get(*p) != to.get(*p))
        .map(|p| p.as_slice())
        .collect();
    index.remove_entries(|_, path, _| changed.contains(path.as_bytes()));
    for path in changed {
        if let Some((mode, oid)) = to.get(path.as_bstr()) {
            stage(session, index, path.as_bstr(), *mode, *oid);
        }
    }
    index.sort_entries();
    Ok(())
}

/// Adds `path` to the index as `mode`/`id` with the worktree's stat data (zeros when the
/// file is missing, so status hashes it). The caller sorts the entries afterwards.
pub(crate) fn stage(
    session: &Session<'_>,
    index: &mut gix::index::State,
    path: &BStr,
    mode: EntryMode,
    id: ObjectId,
) {
    let stat = session
        .vfs
        .lstat(session.path_of(path))
        .map(|s| index_stat(&s))
        .unwrap_or_default();
    index.dangerously_push_entry(stat, id, Flags::empty(), index_mode(mode), path);
}

/// Worktree writes gathered into batches: one transaction per few hundred files instead of
/// one per file (a checkout of thousands of files is dominated by commits otherwise).
#[derive(Default)]
struct Pending {
    entries: Vec<(PathBuf, EntryMode, Vec<u8>)>,
    bytes: usize,
}

impl Pending {
    const MAX_ENTRIES: usize = 512;
    const MAX_BYTES: usize = 16 << 20;

    fn push(&mut self, vfs: &Vfs, abs: PathBuf, mode: EntryMode, data: Vec<u8>) -> Result<()> {
        self.bytes += data.len();
        self.entries.push((abs, mode, data));
        if self.entries.len() >= Self::MAX_ENTRIES || self.bytes >= Self::MAX_BYTES {
            self.flush(vfs)?;
        }
        Ok(())
    }

    fn flush(&mut self, vfs: &Vfs) -> Result<()> {
        let entries = std::mem::take(&mut self.entries);
        self.bytes = 0;
        let mut failed_at: Option<&Path> = None;
        vfs.batch(|b| {
            for (abs, mode, data) in &entries {
                failed_at = Some(abs);
                match b.lstat(abs) {
                    Ok(stat) if stat.kind != FileType::File || mode.is_link() => {
                        b.remove_all(abs)?
                    }
                    _ => {}
                }
                if mode.is_link() {
                    b.symlink(std::ffi::OsStr::from_bytes(data), abs)?;
                } else {
                    let perm = if mode.is_executable() { 0o755 } else { 0o644 };
                    b.write_file(abs, data, perm)?;
                    b.set_metadata(abs, Some(perm), None, None)?;
                }
            }
            Ok(())
        })
        .map_err(|e| match failed_at {
            Some(path) => GitError::failed(path.display(), e),
            None => GitError::from(e),
        })
    }
}

/// Writes one file or symlink (replacing whatever is there).
pub(crate) fn write_entry(vfs: &Vfs, abs: &Path, mode: EntryMode, data: &[u8]) -> Result<()> {
    match vfs.lstat(abs) {
        Ok(stat) if stat.kind != FileType::File || mode.is_link() => vfs.remove_all(abs).at(abs)?,
        _ => {}
    }
    if mode.is_link() {
        let target = std::ffi::OsStr::from_bytes(data);
        vfs.symlink(target, abs).at(abs)?;
    } else {
        let perm = if mode.is_executable() { 0o755 } else { 0o644 };
        vfs.batch(|b| {
            b.write_file(abs, data, perm)?;
            b.set_metadata(abs, Some(perm), None, None)
        })
        .at(abs)?;
    }
    Ok(())
}

/// Creates the parent directories of `abs`, refusing to go through a symlink (a tree with
/// `link -> /elsewhere` and `link/file` must not write outside the worktree).
fn ensure_real_dirs(
    session: &Session<'_>,
    abs: &Path,
    checked: &mut HashSet<PathBuf>,
) -> Result<()> {
    let Some(parent) = abs.parent() else {
        return Ok(());
    };
    if checked.contains(parent) || parent == session.worktree {
        return Ok(());
    }
    let rel = parent.strip_prefix(&session.worktree).unwrap_or(parent);
    let mut dir = session.worktree.clone();
    for part in rel.components() {
        dir.push(part);
        if checked.contains(&dir) {
            continue;
        }
        match session.vfs.lstat(&dir) {
            Ok(stat) if stat.kind == FileType::Dir => {}
            Ok(stat) if stat.kind == FileType::Symlink => {
                return Err(GitError::Failed(format!(
                    "refusing to write '{}' beyond a symbolic link",
                    abs.strip_prefix(&session.worktree).unwrap_or(abs).display()
                )));
            }
            Ok(_) => {
                session.vfs.remove_file(&dir).at(&dir)?;
                session.vfs.create_dir(&dir).at(&dir)?;
            }
            Err(VfsError::NotFound) => {
                session.vfs.create_dir(&dir).at(&dir)?;
            }
            Err(e) => return Err(GitError::failed(dir.display(), e)),
        }
        checked.insert(dir.clone());
    }
    Ok(())
}

/// Removes the directories in `dirs` (and their parents, up to `root`) that became empty.
pub(crate) fn remove_empty_dirs(vfs: &Vfs, root: &Path, dirs: HashSet<PathBuf>) {
    let mut dirs: Vec<PathBuf> = dirs.into_iter().collect();
    // Deepest first.
    dirs.sort_by_key(|d| std::cmp::Reverse(d.components().count()));
    for dir in dirs {
        let mut dir = dir.as_path();
        while dir != root && dir.starts_with(root) {
            if vfs.remove_dir(dir).is_err() {
                break;
            }
            match dir.parent() {
                Some(parent) => dir = parent,
                None => break,
            }
        }
    }
}
