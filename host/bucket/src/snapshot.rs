//! Snapshots in a bucket: content-addressed chunks under `PREFIX/chunks/BLAKE3` (uploaded only
//! when the bucket lacks them) and one manifest per snapshot, `PREFIX/snapshots/NAME.json`,
//! listing every entry of the tree. A pull rebuilds the tree in a new workspace file and
//! checks every chunk's hash, so a tampered bucket cannot slip other bytes in.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use computer::Workspace;
use computer::vfs::{FileType, TimeSet};
use futures::{StreamExt, TryStreamExt};
use object_store::path::Path as ObjectPath;
use object_store::{ObjectStore, ObjectStoreExt, PutPayload};
use serde::{Deserialize, Serialize};

use crate::CONCURRENCY;
use crate::error::{BucketError, Result, at, store};
use crate::url::BucketUrl;

/// Bytes per content chunk in a bucket snapshot.
pub const CHUNK: usize = 1 << 20;

/// The manifest format's version.
const FORMAT: u32 = 1;

#[derive(Debug, Serialize, Deserialize)]
struct Manifest {
    format: u32,
    name: String,
    entries: Vec<Entry>,
}

#[derive(Debug, Serialize, Deserialize)]
struct Entry {
    path: String,
    kind: String,
    mode: u32,
    mtime: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    target: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    chunks: Vec<String>,
    /// A device node's number (kinds `char` and `block`).
    #[serde(default, skip_serializing_if = "is_zero")]
    rdev: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// The manifest's names of the kinds that have no content.
const SPECIAL_KINDS: &[(FileType, &str)] = &[
    (FileType::Fifo, "fifo"),
    (FileType::Socket, "socket"),
    (FileType::CharDevice, "char"),
    (FileType::BlockDevice, "block"),
];

fn special_name(kind: FileType) -> Option<&'static str> {
    SPECIAL_KINDS
        .iter()
        .find(|(k, _)| *k == kind)
        .map(|(_, n)| *n)
}

fn special_kind(name: &str) -> Option<FileType> {
    SPECIAL_KINDS
        .iter()
        .find(|(_, n)| *n == name)
        .map(|(k, _)| *k)
}

/// What a push did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PushStats {
    /// Entries in the snapshot.
    pub entries: u64,
    /// Chunks the snapshot's files are made of.
    pub chunks: u64,
    /// Chunks uploaded (the bucket lacked them).
    pub chunks_uploaded: u64,
    /// Bytes uploaded, manifest included.
    pub bytes_uploaded: u64,
}

fn manifest_key(url: &BucketUrl, name: &str) -> ObjectPath {
    url.key(&format!("snapshots/{name}.json"))
}

fn chunk_key(url: &BucketUrl, hash: &str) -> ObjectPath {
    url.key(&format!("chunks/{hash}"))
}

/// Uploads workspace snapshot `name` (taken now if it does not exist) to `url`.
pub async fn push(
    store_: Arc<dyn ObjectStore>,
    url: &BucketUrl,
    ws: &Workspace,
    name: &str,
) -> Result<PushStats> {
    if !ws.snapshots()?.iter().any(|s| s.name == name) {
        ws.snapshot(name)?;
    }
    // The snapshot's exact tree, as its own workspace file (metadata rows and chunks copied).
    let fork_path =
        std::env::temp_dir().join(format!("computer-push-{}.db", crate::unique_suffix()));
    let fork = ws.fork(name, &fork_path)?;
    let result = push_tree(&store_, url, &fork, name).await;
    drop(fork);
    let _ = Workspace::delete_file(&fork_path);
    result
}

async fn push_tree(
    store_: &Arc<dyn ObjectStore>,
    url: &BucketUrl,
    tree: &Workspace,
    name: &str,
) -> Result<PushStats> {
    let present: HashSet<String> = store_
        .list(Some(&url.key("chunks")))
        .map_ok(|m| m.location.filename().unwrap_or_default().to_string())
        .try_collect()
        .await
        .map_err(store(format!("list {url}/chunks")))?;
    let mut stats = PushStats::default();
    let mut entries = Vec::new();
    let mut uploaded = HashSet::new();
    let root = Path::new("/");
    for item in tree.fs().walk(root).map_err(at(root))? {
        if item.depth == 0 {
            continue;
        }
        let path = item.path.to_string_lossy().into_owned();
        let mut entry = Entry {
            path: path.clone(),
            kind: String::new(),
            mode: item.stat.perm,
            mtime: item.stat.mtime,
            target: None,
            chunks: Vec::new(),
            rdev: item.stat.rdev,
        };
        match item.stat.kind {
            FileType::Dir => entry.kind = "dir".into(),
            FileType::Fifo | FileType::Socket | FileType::CharDevice | FileType::BlockDevice => {
                entry.kind = special_name(item.stat.kind).unwrap_or_default().into();
            }
            FileType::Symlink => {
                entry.kind = "symlink".into();
                let target = tree.fs().read_link(&item.path).map_err(at(&item.path))?;
                entry.target = Some(target.to_string_lossy().into_owned());
            }
            FileType::File => {
                entry.kind = "file".into();
                let mut offset = 0u64;
                let mut missing = Vec::new();
                while offset < item.stat.size {
                    let data = tree
                        .fs()
                        .read_range(&item.path, offset, CHUNK as u64)
                        .map_err(at(&item.path))?;
                    if data.is_empty() {
                        break;
                    }
                    offset += data.len() as u64;
                    let hash = blake3::hash(&data).to_hex().to_string();
                    stats.chunks += 1;
                    if !present.contains(&hash) && uploaded.insert(hash.clone()) {
                        missing.push((hash.clone(), data));
                    }
                    entry.chunks.push(hash);
                }
                let puts = missing.into_iter().map(|(hash, data)| {
                    let key = chunk_key(url, &hash);
                    let len = data.len() as u64;
                    async move {
                        store_
                            .put(&key, PutPayload::from(data))
                            .await
                            .map_err(store(format!("upload chunk {key}")))?;
                        Ok::<_, BucketError>(len)
                    }
                });
                let mut puts = futures::stream::iter(puts).buffer_unordered(CONCURRENCY);
                while let Some(len) = puts.next().await {
                    stats.chunks_uploaded += 1;
                    stats.bytes_uploaded += len?;
                }
            }
        }
        entries.push(entry);
    }
    stats.entries = entries.len() as u64;
    let manifest = Manifest {
        format: FORMAT,
        name: name.to_string(),
        entries,
    };
    let json = serde_json::to_vec(&manifest)
        .map_err(|e| BucketError::Snapshot(format!("manifest: {e}")))?;
    stats.bytes_uploaded += json.len() as u64;
    let key = manifest_key(url, name);
    store_
        .put(&key, PutPayload::from(json))
        .await
        .map_err(store(format!("upload manifest {key}")))?;
    Ok(stats)
}

/// Restores snapshot `name` from `url` into a new workspace file at `path` (which must not
/// exist). Every chunk's hash is checked; on failure the new file is removed.
pub async fn pull(
    store_: Arc<dyn ObjectStore>,
    url: &BucketUrl,
    name: &str,
    path: &Path,
) -> Result<Workspace> {
    if path.exists() {
        return Err(BucketError::Snapshot(format!(
            "{} exists: pull makes a new workspace file",
            path.display()
        )));
    }
    let key = manifest_key(url, name);
    let bytes = store_
        .get(&key)
        .await
        .map_err(store(format!("download manifest {key}")))?
        .bytes()
        .await
        .map_err(store(format!("download manifest {key}")))?;
    let manifest: Manifest = serde_json::from_slice(&bytes)
        .map_err(|e| BucketError::Snapshot(format!("{key} is not a snapshot manifest: {e}")))?;
    if manifest.format != FORMAT {
        return Err(BucketError::Snapshot(format!(
            "{key}: manifest format {} (this build reads {FORMAT})",
            manifest.format
        )));
    }
    let ws = Workspace::open(path)?;
    match restore(&store_, url, &ws, &manifest).await {
        Ok(()) => Ok(ws),
        Err(e) => {
            drop(ws);
            let _ = Workspace::delete_file(path);
            Err(e)
        }
    }
}

async fn restore(
    store_: &Arc<dyn ObjectStore>,
    url: &BucketUrl,
    ws: &Workspace,
    manifest: &Manifest,
) -> Result<()> {
    let fs = ws.fs();
    for entry in &manifest.entries {
        let path = PathBuf::from(&entry.path);
        if !path.is_absolute() || computer::vfs::path::inside(&path).is_none() {
            return Err(BucketError::Snapshot(format!(
                "manifest entry {:?} is not a plain absolute path",
                entry.path
            )));
        }
        match entry.kind.as_str() {
            "dir" => {
                fs.create_dir_all(&path).map_err(at(&path))?;
            }
            "symlink" => {
                let target = entry.target.as_deref().unwrap_or_default();
                let _ = fs.remove_file(&path);
                fs.symlink(target, &path).map_err(at(&path))?;
            }
            "file" => {
                let gets = entry.chunks.iter().map(|hash| async move {
                    let key = chunk_key(url, hash);
                    let data = store_
                        .get(&key)
                        .await
                        .map_err(store(format!("download chunk {key}")))?
                        .bytes()
                        .await
                        .map_err(store(format!("download chunk {key}")))?;
                    if blake3::hash(&data).to_hex().as_str() != hash {
                        return Err(BucketError::Snapshot(format!(
                            "chunk {key} does not match its hash"
                        )));
                    }
                    Ok(data)
                });
                let mut gets = futures::stream::iter(gets).buffered(CONCURRENCY);
                fs.write_file(&path, b"").map_err(at(&path))?;
                let mut offset = 0u64;
                while let Some(data) = gets.next().await {
                    let data = data?;
                    fs.write_at(&path, offset, &data).map_err(at(&path))?;
                    offset += data.len() as u64;
                }
            }
            other if let Some(kind) = special_kind(other) => {
                let _ = fs.remove_file(&path);
                fs.batch(|b| b.mknod(&path, kind, entry.mode & 0o7777, entry.rdev))
                    .map_err(at(&path))?;
            }
            other => {
                return Err(BucketError::Snapshot(format!(
                    "manifest entry {:?} has unknown kind {other:?}",
                    entry.path
                )));
            }
        }
        if entry.kind != "symlink" {
            fs.set_permissions(&path, entry.mode & 0o7777)
                .map_err(at(&path))?;
        }
    }
    // Times last, directories included (creating children changes a directory's mtime).
    for entry in &manifest.entries {
        let _ = fs.set_times(&entry.path, None, Some(TimeSet::At(entry.mtime)));
    }
    Ok(())
}
