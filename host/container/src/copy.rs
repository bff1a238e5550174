//! Copy mode, for an engine our FUSE mount cannot reach (another machine, or a host where
//! FUSE cannot be mounted). The container's `/workspace` is a volume of its own. Before each
//! command, what changed in the workspace since the last sync is uploaded into it and what
//! was removed is removed there; after the command, what the command changed comes back into
//! the workspace. Both ways go through the engine's archive API.
//!
//! Changes in the container are found by listing `/workspace` (`find` and `stat`, which
//! busybox and coreutils both have) after each sync and after the command: an entry whose
//! type, mode, inode, size, mtime or ctime (to the nanosecond) differs was changed. An image
//! without those tools (or a tree the listing cannot read) falls back to downloading the whole
//! tree and comparing it with the workspace. Where the workspace and the command both changed
//! a path while the command ran, the command's version wins; what only the workspace changed
//! is kept, and uploaded before the next command.

use std::collections::{HashMap, HashSet};
use std::io::{Read, Seek, Write};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use bollard::query_parameters::{DownloadFromContainerOptions, UploadToContainerOptions};
use bytes::Bytes;
use computer_vfs::{Batch, FileType, Stat, Vfs, VfsError};
use futures_util::StreamExt;

use crate::error::{ContainerError, Result, docker, io};
use crate::sandbox::{Command, Sandbox};

/// The workspace's directory, in the VFS and in the container alike.
const ROOT: &str = "/workspace";

/// Up to this many changed files are downloaded one by one; more come in one archive of the
/// whole tree.
const ONE_BY_ONE: usize = 16;

/// Bytes of listing kept (about 80 bytes an entry: millions of entries).
const LIST_CAP: usize = 512 << 20;

/// Lists `/workspace`: per entry its type and mode (hex), inode, size, mtime (seconds), mtime
/// and ctime (with nanoseconds, as `stat` prints them), then its path (last: it may hold `|`).
const LIST: &str = "cd /workspace && exec find . -exec stat -c '%f|%i|%s|%Y|%y|%z|%n' {} +";

/// What copy mode knows about the container's `/workspace`.
#[derive(Default)]
pub(crate) struct CopyState {
    /// The workspace entries as they were at the last sync, by path under `/workspace`.
    synced: HashMap<PathBuf, Mark>,
    /// The workspace's revision when `synced` was read (`None` after a pull wrote into it):
    /// while it stays, there is nothing to push and no need to walk the workspace.
    synced_rev: Option<u64>,
    /// The container's listing at the last sync (`None`: no listing could be made).
    listing: Option<HashMap<PathBuf, Listed>>,
    /// The container's tree is unknown (an upload failed half way): it is emptied and
    /// filled again at the next push.
    unknown: bool,
    /// The last command's changes could not be brought into the workspace: they stay in the
    /// container and are tried again before anything else.
    pull_pending: bool,
}

/// A workspace entry as far as syncing cares: any change to it changes its ctime or inode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Mark {
    ino: u64,
    kind: FileType,
    perm: u32,
    size: u64,
    mtime: i64,
    ctime: i64,
}

impl From<&Stat> for Mark {
    fn from(st: &Stat) -> Mark {
        Mark {
            ino: st.ino,
            kind: st.kind,
            perm: st.perm,
            size: st.size,
            mtime: st.mtime,
            ctime: st.ctime,
        }
    }
}

/// One entry of the container's listing.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Listed {
    mode: u32,
    ino: u64,
    size: u64,
    mtime_secs: i64,
    /// `stat`'s `%y|%z`: mtime and ctime to the nanosecond.
    stamps: String,
}

impl Listed {
    fn kind(&self) -> Option<FileType> {
        FileType::from_mode(self.mode)
    }
}

/// What the container has at a path, to be put in the workspace.
#[derive(Debug)]
enum Content {
    Dir,
    File(Vec<u8>),
    Symlink(PathBuf),
}

#[derive(Debug)]
struct Incoming {
    rel: PathBuf,
    content: Content,
    perm: u32,
    mtime_secs: i64,
}

fn in_workspace(rel: &Path) -> PathBuf {
    Path::new(ROOT).join(rel)
}

fn vfs_error(what: impl std::fmt::Display) -> impl FnOnce(VfsError) -> ContainerError {
    move |e| ContainerError::Copy(format!("{what}: {e}"))
}

/// The workspace's entries below `/workspace`, parents before children.
fn workspace_entries(vfs: &Vfs) -> Result<Vec<(PathBuf, Stat)>> {
    let entries = match vfs.walk(ROOT) {
        Ok(entries) => entries,
        Err(VfsError::NotFound) => return Ok(Vec::new()),
        Err(e) => return Err(vfs_error("read the workspace")(e)),
    };
    Ok(entries
        .into_iter()
        .filter(|e| e.depth > 0)
        // FIFOs, sockets and device nodes stay in the workspace: a copy has no pipe, listener
        // or device behind them, and a device node is never made on the host.
        .filter(|e| !e.stat.kind.is_special())
        .filter_map(|e| {
            let rel = e.path.strip_prefix(ROOT).ok()?.to_path_buf();
            Some((rel, e.stat))
        })
        .collect())
}

/// Keeps only paths none of whose ancestors is in the list (removing those removes the rest).
fn topmost(mut paths: Vec<PathBuf>) -> Vec<PathBuf> {
    paths.sort();
    let mut kept: Vec<PathBuf> = Vec::new();
    for path in paths {
        if !kept.last().is_some_and(|top| path.starts_with(top)) {
            kept.push(path);
        }
    }
    kept
}

/// Parses the output of [`LIST`]; `None` when a line is not what it should be (a name with a
/// newline, a `stat` that prints something else).
fn parse_listing(text: &[u8]) -> Option<HashMap<PathBuf, Listed>> {
    let mut entries = HashMap::new();
    for line in text.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let mut fields = line.splitn(7, |&b| b == b'|');
        let mut next = || std::str::from_utf8(fields.next()?).ok();
        let mode = u32::from_str_radix(next()?, 16).ok()?;
        let ino = next()?.parse().ok()?;
        let size = next()?.parse().ok()?;
        let mtime_secs = next()?.parse().ok()?;
        let stamps = format!("{}|{}", next()?, next()?);
        let name = fields.next()?;
        let rel = Path::new(std::ffi::OsStr::from_bytes(name.strip_prefix(b".")?));
        let rel = rel.strip_prefix("/").unwrap_or(rel);
        if rel.as_os_str().is_empty() {
            continue;
        }
        let listed = Listed {
            mode,
            ino,
            size,
            mtime_secs,
            stamps,
        };
        entries.insert(rel.to_path_buf(), listed);
    }
    Some(entries)
}

/// Writes what it is given into a channel in pieces, for a streamed request body.
struct ChannelWriter {
    tx: tokio::sync::mpsc::Sender<Bytes>,
    buf: Vec<u8>,
}

const PIECE: usize = 256 << 10;

impl Write for ChannelWriter {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.buf.extend_from_slice(data);
        if self.buf.len() >= PIECE {
            self.flush()?;
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let piece = Bytes::from(std::mem::take(&mut self.buf));
        self.tx
            .blocking_send(piece)
            .map_err(|_| std::io::Error::other("the engine stopped reading the upload"))
    }
}

/// What a read of `path` gave; `None` if it was removed since the walk (the next sync sees
/// that).
fn still_there<T>(read: computer_vfs::Result<T>, path: &Path) -> Result<Option<T>> {
    match read {
        Ok(value) => Ok(Some(value)),
        Err(VfsError::NotFound) => Ok(None),
        Err(e) => Err(vfs_error(format!("read {}", path.display()))(e)),
    }
}

/// Writes the tar of `entries` (paths under `/workspace`) into `out`: directories, files with
/// their content, symlinks; modes and mtimes kept, owned by `owner`.
fn write_tar(
    vfs: &Vfs,
    entries: &[(PathBuf, Stat)],
    owner: (u64, u64),
    out: impl Write,
) -> Result<()> {
    let mut tar = tar::Builder::new(out);
    let failed = |what: &Path| {
        let what = what.display().to_string();
        move |e: std::io::Error| ContainerError::Copy(format!("upload {what}: {e}"))
    };
    for (rel, st) in entries {
        let mut header = tar::Header::new_gnu();
        header.set_mode(st.perm);
        header.set_uid(owner.0);
        header.set_gid(owner.1);
        header.set_mtime(u64::try_from(st.mtime.div_euclid(1_000_000_000)).unwrap_or(0));
        let path = in_workspace(rel);
        match st.kind {
            FileType::Dir => {
                header.set_entry_type(tar::EntryType::Directory);
                header.set_size(0);
                tar.append_data(&mut header, rel, std::io::empty())
                    .map_err(failed(rel))?;
            }
            FileType::File => {
                let Some(data) = still_there(vfs.read_file(&path), &path)? else {
                    continue;
                };
                header.set_entry_type(tar::EntryType::Regular);
                header.set_size(data.len() as u64);
                tar.append_data(&mut header, rel, data.as_slice())
                    .map_err(failed(rel))?;
            }
            FileType::Symlink => {
                let Some(target) = still_there(vfs.read_link(&path), &path)? else {
                    continue;
                };
                header.set_entry_type(tar::EntryType::Symlink);
                header.set_size(0);
                tar.append_link(&mut header, rel, &target)
                    .map_err(failed(rel))?;
            }
            // Left out by `workspace_entries`.
            FileType::Fifo | FileType::Socket | FileType::CharDevice | FileType::BlockDevice => {}
        }
    }
    let mut out = tar.into_inner().map_err(failed(Path::new(ROOT)))?;
    out.flush().map_err(failed(Path::new(ROOT)))
}

/// What a downloaded archive holds.
struct Archive {
    items: Vec<Incoming>,
    /// Hard links whose first name was not kept (not wanted): each is fetched by itself.
    links: Vec<PathBuf>,
}

/// Reads a downloaded archive. `base` is what its entry names are relative to, under
/// `/workspace` (the archive of one path names its entry by the last component; the archive
/// of `/workspace` names everything under `workspace/`). `wanted` (if given) picks entries.
fn read_archive(
    file: std::fs::File,
    base: &Path,
    strip_first: bool,
    wanted: Option<&HashSet<PathBuf>>,
) -> Result<Archive> {
    let bad = |e: std::io::Error| ContainerError::Copy(format!("read a downloaded archive: {e}"));
    let mut archive = tar::Archive::new(std::io::BufReader::new(file));
    let mut incoming = Vec::new();
    let mut links = Vec::new();
    for entry in archive.entries().map_err(bad)? {
        let mut entry = entry.map_err(bad)?;
        let rel = archive_path(base, &entry.path().map_err(bad)?, strip_first);
        if rel.as_os_str().is_empty() || wanted.is_some_and(|w| !w.contains(&rel)) {
            continue;
        }
        let header = entry.header();
        let perm = header.mode().map_err(bad)? & 0o7777;
        let mtime_secs = i64::try_from(header.mtime().map_err(bad)?).unwrap_or(0);
        let content = match header.entry_type() {
            tar::EntryType::Directory => Content::Dir,
            tar::EntryType::Regular | tar::EntryType::Continuous => {
                // The header's size is the container's word: it reserves no more than a
                // piece, and the read ends where the (size-capped) download does.
                let mut data = Vec::with_capacity(entry.size().min(PIECE as u64) as usize);
                entry.read_to_end(&mut data).map_err(bad)?;
                Content::File(data)
            }
            tar::EntryType::Symlink => match entry.link_name().map_err(bad)? {
                Some(target) => Content::Symlink(target.into_owned()),
                None => continue,
            },
            // Hard links come as plain files in Docker's archives of single paths; in the
            // archive of the tree, the first name carries the content: copy it.
            tar::EntryType::Link => match entry.link_name().map_err(bad)? {
                Some(target) => {
                    let target = archive_path(base, &target, strip_first);
                    match incoming.iter().find(|i: &&Incoming| i.rel == target) {
                        Some(Incoming {
                            content: Content::File(data),
                            ..
                        }) => Content::File(data.clone()),
                        _ => {
                            links.push(rel);
                            continue;
                        }
                    }
                }
                None => continue,
            },
            // Devices, FIFOs and sockets: the workspace holds none.
            _ => continue,
        };
        incoming.push(Incoming {
            rel,
            content,
            perm,
            mtime_secs,
        });
    }
    Ok(Archive {
        items: incoming,
        links,
    })
}

/// The path under `/workspace` of an archive entry named `name`: `base` joined with its
/// normal components (the first dropped when `strip_first`: `workspace/`).
fn archive_path(base: &Path, name: &Path, strip_first: bool) -> PathBuf {
    let parts = name
        .components()
        .filter(|c| matches!(c, Component::Normal(_)))
        .skip(usize::from(strip_first));
    let mut path = base.to_path_buf();
    path.extend(parts);
    path
}

/// Whether the workspace entry at `rel` already is what `incoming` says.
fn same_as_workspace(vfs: &Vfs, incoming: &Incoming, current: Option<&Stat>) -> bool {
    let Some(st) = current else { return false };
    let path = in_workspace(&incoming.rel);
    match &incoming.content {
        Content::Dir => st.kind == FileType::Dir && st.perm == incoming.perm,
        Content::File(data) => {
            st.kind == FileType::File
                && st.perm == incoming.perm
                && st.size == data.len() as u64
                && vfs.read_file(&path).is_ok_and(|d| &d == data)
        }
        Content::Symlink(target) => {
            st.kind == FileType::Symlink && vfs.read_link(&path).is_ok_and(|t| &t == target)
        }
    }
}

/// Removes `removed` from the workspace and puts `incoming` there, in one transaction.
fn apply(vfs: &Vfs, incoming: &[Incoming], removed: &[PathBuf]) -> Result<()> {
    vfs.batch(|b: &mut Batch<'_, '_>| {
        for rel in removed {
            match b.remove_all(in_workspace(rel)) {
                Ok(()) | Err(VfsError::NotFound) => {}
                Err(e) => return Err(e),
            }
        }
        for item in incoming {
            let path = in_workspace(&item.rel);
            let existing = match b.lstat(&path) {
                Ok(st) => Some(st.kind),
                Err(VfsError::NotFound) => None,
                Err(e) => return Err(e),
            };
            let wanted = match item.content {
                Content::Dir => FileType::Dir,
                Content::File(_) => FileType::File,
                Content::Symlink(_) => FileType::Symlink,
            };
            // A symlink is replaced, never written through.
            if existing.is_some_and(|k| k != wanted || k == FileType::Symlink) {
                b.remove_all(&path)?;
            }
            if let Some(parent) = path.parent() {
                b.create_dir_all(parent)?;
            }
            match &item.content {
                Content::Dir => {
                    b.create_dir_all(&path)?;
                }
                Content::File(data) => {
                    b.write_file(&path, data, item.perm)?;
                }
                Content::Symlink(target) => {
                    b.symlink(target, &path)?;
                }
            }
        }
        // Modes and mtimes last, deepest first: writing into a directory changes its mtime.
        for item in incoming.iter().rev() {
            if matches!(item.content, Content::Symlink(_)) {
                continue;
            }
            let mtime = item.mtime_secs.saturating_mul(1_000_000_000);
            b.set_metadata(in_workspace(&item.rel), Some(item.perm), None, Some(mtime))?;
        }
        Ok(())
    })
    .map_err(vfs_error("write the command's changes into the workspace"))
}

impl Sandbox {
    /// Before a command: makes the container's `/workspace` what the workspace is.
    pub(crate) async fn push(&self, vfs: &Arc<Vfs>, state: &mut CopyState) -> Result<()> {
        if state.pull_pending {
            self.pull(vfs, state).await.map_err(|e| {
                ContainerError::Copy(format!(
                    "an earlier command's changes are still in the container, not in the workspace \
                     (they come in once the workspace can take them, and are dropped if the \
                     container stops first): {e}"
                ))
            })?;
        }
        let result = self.push_changes(vfs, state).await;
        if result.is_err() {
            // Half done: start over next time.
            *state = CopyState {
                unknown: true,
                ..CopyState::default()
            };
        }
        result
    }

    async fn push_changes(&self, vfs: &Arc<Vfs>, state: &mut CopyState) -> Result<()> {
        if state.unknown {
            let wipe = Command {
                source: Some(format!("rm -rf {ROOT}/* {ROOT}/.[!.]* {ROOT}/..?*")),
                ..Command::default()
            };
            self.must_run(wipe, "empty the container's /workspace")
                .await?;
            state.unknown = false;
            state.synced.clear();
        }
        let rev = vfs.revision().map_err(vfs_error("read the workspace"))?;
        if state.listing.is_some() && state.synced_rev == Some(rev) {
            return Ok(());
        }
        let entries = workspace_entries(vfs)?;
        let now: HashMap<&Path, Mark> = entries
            .iter()
            .map(|(rel, st)| (rel.as_path(), Mark::from(st)))
            .collect();
        let gone = topmost(
            state
                .synced
                .iter()
                .filter(|(rel, mark)| now.get(rel.as_path()).is_none_or(|m| m.kind != mark.kind))
                .map(|(rel, _)| rel.clone())
                .collect(),
        );
        let send: Vec<(PathBuf, Stat)> = entries
            .iter()
            .filter(|(rel, st)| state.synced.get(rel) != Some(&Mark::from(st)))
            .cloned()
            .collect();
        if !gone.is_empty() {
            self.remove_in_container(&gone).await?;
        }
        let sending = !send.is_empty();
        if sending {
            self.upload(vfs, send).await?;
        }
        // The listing the command's changes are found against.
        if !gone.is_empty() || sending || state.listing.is_none() {
            state.listing = self.list().await?;
        }
        state.synced = entries
            .into_iter()
            .map(|(rel, st)| (rel, Mark::from(&st)))
            .collect();
        state.synced_rev = Some(rev);
        Ok(())
    }

    /// After a command: brings what it changed in the container's `/workspace` into the
    /// workspace.
    /// The workspace is changed in one transaction, so a failure leaves it and the state
    /// as they were: the changes stay in the container and are tried again.
    pub(crate) async fn pull(&self, vfs: &Arc<Vfs>, state: &mut CopyState) -> Result<()> {
        let result = self.pull_changes(vfs, state).await;
        state.pull_pending = result.is_err();
        result
    }

    async fn pull_changes(&self, vfs: &Arc<Vfs>, state: &mut CopyState) -> Result<()> {
        let after = self.list().await?;
        // Only the paths the comparison names are looked at in the workspace, not its tree.
        let current = |rel: &Path| vfs_lstat(vfs, rel).ok();
        // The workspace side of a path is untouched since the push: what the container has
        // may replace it.
        let untouched =
            |rel: &Path| current(rel).as_ref().map(Mark::from) == state.synced.get(rel).copied();
        let (incoming, removed) = match (&state.listing, &after) {
            (Some(before), Some(after)) => {
                let removed = topmost(
                    before
                        .keys()
                        .filter(|rel| !after.contains_key(*rel))
                        .filter(|rel| untouched(rel))
                        .cloned()
                        .collect(),
                );
                let mut changed: Vec<(&PathBuf, &Listed)> = after
                    .iter()
                    .filter(|(rel, listed)| before.get(*rel) != Some(listed))
                    .filter(|(_, listed)| listed.kind().is_some())
                    .collect();
                changed.sort_by(|a, b| a.0.cmp(b.0));
                let mut incoming = Vec::new();
                let mut wanted = Vec::new();
                for (rel, listed) in changed {
                    if listed.kind() == Some(FileType::Dir) {
                        incoming.push(Incoming {
                            rel: rel.clone(),
                            content: Content::Dir,
                            perm: listed.mode & 0o7777,
                            mtime_secs: listed.mtime_secs,
                        });
                    } else {
                        wanted.push(rel.clone());
                    }
                }
                if wanted.len() <= ONE_BY_ONE {
                    for rel in &wanted {
                        incoming.extend(self.fetch_one(rel).await?);
                    }
                } else {
                    let wanted: HashSet<PathBuf> = wanted.into_iter().collect();
                    incoming.extend(self.fetch_tree(Some(&wanted)).await?);
                }
                incoming.sort_by(|a, b| a.rel.cmp(&b.rel));
                (incoming, removed)
            }
            // No listing to compare: the whole tree, compared with the workspace.
            _ => {
                let tree = self.fetch_tree(None).await?;
                let present: HashSet<PathBuf> = tree.iter().map(|i| i.rel.clone()).collect();
                let incoming: Vec<Incoming> = tree
                    .into_iter()
                    .filter(|item| untouched(&item.rel))
                    .filter(|item| !same_as_workspace(vfs, item, current(&item.rel).as_ref()))
                    .collect();
                // What was synced, is still as it was, and the container no longer has.
                let removed = topmost(
                    state
                        .synced
                        .keys()
                        .filter(|rel| !present.contains(*rel) && untouched(rel))
                        .cloned()
                        .collect(),
                );
                (incoming, removed)
            }
        };
        if !incoming.is_empty() || !removed.is_empty() {
            let writer = Arc::clone(vfs);
            let changed: Vec<PathBuf> = incoming.iter().map(|i| i.rel.clone()).collect();
            let removed_now = removed.clone();
            tokio::task::spawn_blocking(move || apply(&writer, &incoming, &removed_now))
                .await
                .map_err(|e| ContainerError::Copy(format!("apply the command's changes: {e}")))??;
            state.synced_rev = None;
            for rel in &removed {
                state.synced.retain(|p, _| !p.starts_with(rel));
            }
            for rel in changed {
                if let Ok(st) = vfs_lstat(vfs, &rel) {
                    state.synced.insert(rel, Mark::from(&st));
                }
            }
        }
        state.listing = after;
        Ok(())
    }

    /// A command of the backend's own (a listing, a removal): no time limit of the caller's,
    /// output kept up to `cap`.
    async fn internal(&self, cmd: Command, cap: usize) -> Result<crate::Output> {
        let cmd = Command {
            timeout: Some(std::time::Duration::from_secs(600)),
            ..cmd
        };
        self.run_capped(&cmd, cap, true, &|_, _| {}, &|| false)
            .await
    }

    /// Lists the container's `/workspace` ([`LIST`]); `None` if the image cannot.
    async fn list(&self) -> Result<Option<HashMap<PathBuf, Listed>>> {
        let out = self
            .internal(
                Command {
                    source: Some(LIST.into()),
                    cwd: "/".into(),
                    ..Command::default()
                },
                LIST_CAP,
            )
            .await?;
        if out.status != 0 || out.dropped > 0 {
            return Ok(None);
        }
        Ok(parse_listing(&out.stdout))
    }

    /// Removes `paths` (under `/workspace`) in the container.
    async fn remove_in_container(&self, paths: &[PathBuf]) -> Result<()> {
        // In batches that stay far below the kernel's limit on arguments.
        let mut batch: Vec<String> = Vec::new();
        let mut bytes = 0;
        for (i, rel) in paths.iter().enumerate() {
            let path = in_workspace(rel).to_string_lossy().into_owned();
            bytes += path.len() + 1;
            batch.push(path);
            if bytes < 64 << 10 && i + 1 < paths.len() {
                continue;
            }
            let mut argv: Vec<String> = ["rm", "-rf", "--"].map(String::from).to_vec();
            argv.append(&mut batch);
            bytes = 0;
            let remove = Command {
                argv,
                ..Command::default()
            };
            self.must_run(remove, "remove what the workspace removed")
                .await?;
        }
        Ok(())
    }

    /// Runs a command of the backend's own in `/` that must succeed; its error output says
    /// why it did not.
    async fn must_run(&self, cmd: Command, what: &str) -> Result<()> {
        let cmd = Command {
            cwd: "/".into(),
            ..cmd
        };
        let out = self.internal(cmd, 1 << 20).await?;
        if out.status == 0 {
            return Ok(());
        }
        Err(ContainerError::Copy(format!(
            "{what}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )))
    }

    /// Uploads `entries` into the container's `/workspace`, the archive streamed as it is
    /// written.
    async fn upload(&self, vfs: &Arc<Vfs>, entries: Vec<(PathBuf, Stat)>) -> Result<()> {
        let (tx, rx) = tokio::sync::mpsc::channel::<Bytes>(8);
        let vfs = Arc::clone(vfs);
        let owner = self.owner();
        let writer = std::thread::Builder::new()
            .name("computer-copy-upload".into())
            .spawn(move || {
                let out = ChannelWriter {
                    tx,
                    buf: Vec::with_capacity(PIECE),
                };
                write_tar(&vfs, &entries, owner, out)
            })
            .map_err(io("start the upload"))?;
        let body = futures_util::stream::unfold(rx, |mut rx| async move {
            rx.recv().await.map(|piece| (piece, rx))
        });
        let options = UploadToContainerOptions {
            path: ROOT.into(),
            ..Default::default()
        };
        let sent = self
            .engine
            .docker
            .upload_to_container(&self.id, Some(options), bollard::body_stream(body))
            .await;
        let written = tokio::task::spawn_blocking(move || writer.join())
            .await
            .ok()
            .and_then(|joined| joined.ok())
            .unwrap_or_else(|| Err(ContainerError::Copy("the upload's writer failed".into())));
        // The writer's error says more than the engine's "unexpected EOF".
        written?;
        sent.map_err(docker("upload the workspace into the container"))
    }

    /// What the container has at `rel` (nothing if it is gone since the listing: a command
    /// still running may have removed it; the next pull sees that).
    async fn fetch_one(&self, rel: &Path) -> Result<Vec<Incoming>> {
        let Some(archive) = self.download(&in_workspace(rel)).await? else {
            return Ok(Vec::new());
        };
        let base = rel.parent().unwrap_or(Path::new(""));
        Ok(read_archive(archive, base, false, None)?.items)
    }

    /// The container's `/workspace` in one archive (only `wanted` paths, if given).
    async fn fetch_tree(&self, wanted: Option<&HashSet<PathBuf>>) -> Result<Vec<Incoming>> {
        let Some(archive) = self.download(Path::new(ROOT)).await? else {
            return Err(ContainerError::Copy(
                "the container has no /workspace".into(),
            ));
        };
        let tree = read_archive(archive, Path::new(""), true, wanted)?;
        let mut items = tree.items;
        for rel in &tree.links {
            items.extend(self.fetch_one(rel).await?);
        }
        items.sort_by(|a, b| a.rel.cmp(&b.rel));
        Ok(items)
    }

    /// Downloads the archive of `path` (in the container) into a temporary file; `None` if
    /// there is nothing there.
    async fn download(&self, path: &Path) -> Result<Option<std::fs::File>> {
        let options = DownloadFromContainerOptions {
            path: path.to_string_lossy().into_owned(),
        };
        let mut stream = self
            .engine
            .docker
            .download_from_container(&self.id, Some(options));
        let mut file = tempfile::tempfile().map_err(io("make a temporary file"))?;
        let limit = self.config.limits.copy_back_bytes;
        let mut received: u64 = 0;
        while let Some(piece) = stream.next().await {
            let piece = match piece {
                Ok(piece) => piece,
                Err(bollard::errors::Error::DockerResponseServerError {
                    status_code: 404, ..
                }) => return Ok(None),
                Err(e) => return Err(docker(format!("download {}", path.display()))(e)),
            };
            received = received.saturating_add(piece.len() as u64);
            if received > limit {
                return Err(ContainerError::Copy(format!(
                    "the archive of {} from the container is over the copy-back limit of {limit} \
                     bytes (Limits::copy_back_bytes); its changes stay in the container",
                    path.display()
                )));
            }
            file.write_all(&piece).map_err(io("spool a download"))?;
        }
        file.rewind().map_err(io("spool a download"))?;
        Ok(Some(file))
    }
}

impl Sandbox {
    /// Who owns what is uploaded: the user commands run as (numeric `uid[:gid]`), else root.
    fn owner(&self) -> (u64, u64) {
        let Some(user) = &self.config.user else {
            return (0, 0);
        };
        let mut parts = user.split(':');
        let uid = parts.next().and_then(|u| u.parse().ok()).unwrap_or(0);
        let gid = parts.next().and_then(|g| g.parse().ok()).unwrap_or(uid);
        (uid, gid)
    }
}

fn vfs_lstat(vfs: &Vfs, rel: &Path) -> computer_vfs::Result<Stat> {
    vfs.lstat(in_workspace(rel))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listings_parse_and_odd_lines_refuse() {
        let text =
            b"41ed|12|4096|1796017210|2026-11-30 05:40:10.1 +0000|2026-11-30 05:40:10.1 +0000|.\n\
81a4|13|5|1796017211|2026-11-30 05:40:11.2 +0000|2026-11-30 05:40:11.3 +0000|./a b|c.txt\n\
a1ff|14|3|1796017212|x|y|./dir/link\n";
        let listing = parse_listing(text).unwrap();
        assert_eq!(listing.len(), 2, "the root is not an entry: {listing:?}");
        let file = &listing[Path::new("a b|c.txt")];
        assert_eq!(file.kind(), Some(FileType::File));
        assert_eq!((file.ino, file.size, file.mtime_secs), (13, 5, 1796017211));
        assert_eq!(
            file.stamps,
            "2026-11-30 05:40:11.2 +0000|2026-11-30 05:40:11.3 +0000"
        );
        assert_eq!(
            listing[Path::new("dir/link")].kind(),
            Some(FileType::Symlink)
        );
        // A name with a newline leaves a line that is not an entry: no listing at all.
        assert!(parse_listing(b"81a4|13|5|1|a|b|./x\ny\n").is_none());
    }

    #[test]
    fn hard_links_take_their_first_names_content_or_are_fetched_alone() {
        let mut tar = tar::Builder::new(Vec::new());
        let mut header = tar::Header::new_gnu();
        header.set_mode(0o644);
        header.set_size(3);
        tar.append_data(&mut header, "workspace/a", &b"abc"[..])
            .unwrap();
        let mut link = tar::Header::new_gnu();
        link.set_entry_type(tar::EntryType::Link);
        link.set_mode(0o644);
        link.set_size(0);
        tar.append_link(&mut link, "workspace/b", "workspace/a")
            .unwrap();
        let bytes = tar.into_inner().unwrap();
        let file = |bytes: &[u8]| {
            let mut f = tempfile::tempfile().unwrap();
            f.write_all(bytes).unwrap();
            f.rewind().unwrap();
            f
        };
        let all = read_archive(file(&bytes), Path::new(""), true, None).unwrap();
        assert!(all.links.is_empty());
        let b = all.items.iter().find(|i| i.rel == Path::new("b")).unwrap();
        assert!(matches!(&b.content, Content::File(d) if d == b"abc"));
        // Only the link wanted: its content was not kept, so it is named to fetch alone.
        let wanted = HashSet::from([PathBuf::from("b")]);
        let some = read_archive(file(&bytes), Path::new(""), true, Some(&wanted)).unwrap();
        assert!(some.items.is_empty());
        assert_eq!(some.links, [PathBuf::from("b")]);
    }

    #[test]
    fn only_the_topmost_of_nested_paths_is_kept() {
        let paths = ["a/b/c", "a", "ab", "a/b", "c/d"]
            .map(PathBuf::from)
            .to_vec();
        assert_eq!(
            topmost(paths),
            ["a", "ab", "c/d"].map(PathBuf::from).to_vec()
        );
    }

    #[test]
    fn archive_names_map_under_the_workspace() {
        assert_eq!(
            archive_path(Path::new(""), Path::new("workspace/a/b"), true),
            PathBuf::from("a/b")
        );
        assert_eq!(
            archive_path(Path::new("d"), Path::new("./f.txt"), false),
            PathBuf::from("d/f.txt")
        );
        assert_eq!(
            archive_path(Path::new(""), Path::new("workspace/"), true),
            PathBuf::new()
        );
    }
}
