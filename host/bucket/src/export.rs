//! Workspace folder → bucket prefix, uploading only what differs; optionally deleting what the
//! folder does not hold.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use computer::Workspace;
use computer::vfs::FileType;
use futures::{StreamExt, TryStreamExt};
use md5::{Digest, Md5};
use object_store::path::Path as ObjectPath;
use object_store::{
    Attribute, Attributes, ObjectMeta, ObjectStore, ObjectStoreExt, PutMultipartOptions,
    PutOptions, PutPayload, WriteMultipart,
};

use crate::error::{Result, at, store};
use crate::url::BucketUrl;
use crate::{BucketProgress, BucketStats, CONCURRENCY, PART_SIZE, ProgressFn};

/// A file to upload.
struct Upload {
    path: PathBuf,
    key: ObjectPath,
    size: u64,
    mode: u32,
}

/// Copies the files under workspace folder `src` to `url`'s prefix (file `src/a/b` becomes
/// object `prefix/a/b`), skipping files whose object already has the same size and MD5.
/// With `delete`, objects under the prefix that `src` does not hold are deleted.
pub async fn export(
    store_: Arc<dyn ObjectStore>,
    url: &BucketUrl,
    ws: &Workspace,
    src: &Path,
    delete: bool,
    progress: &mut ProgressFn<'_>,
) -> Result<BucketStats> {
    let remote: HashMap<String, ObjectMeta> = store_
        .list(url.prefix_path().as_ref())
        .map_ok(|m| (m.location.as_ref().to_string(), m))
        .try_collect()
        .await
        .map_err(store(format!("list {url}")))?;
    let mut stats = BucketStats::default();
    let mut uploads = Vec::new();
    let mut keep = std::collections::HashSet::new();
    for entry in ws.fs().walk(src).map_err(at(src))? {
        let relative = match entry.path.strip_prefix(src) {
            Ok(r) if !r.as_os_str().is_empty() => r.to_string_lossy().into_owned(),
            _ => continue,
        };
        match entry.stat.kind {
            FileType::Dir => continue,
            // An object holds bytes: no link, pipe, socket or device.
            FileType::Symlink
            | FileType::Fifo
            | FileType::Socket
            | FileType::CharDevice
            | FileType::BlockDevice => {
                stats.skipped.push(entry.path.clone());
                continue;
            }
            FileType::File => {}
        }
        let key = url.key(&relative);
        keep.insert(key.as_ref().to_string());
        if let Some(object) = remote.get(key.as_ref())
            && object.size == entry.stat.size
            && object.e_tag.as_deref().map(|t| t.trim_matches('"'))
                == Some(md5_hex(ws, &entry.path)?.as_str())
        {
            stats.unchanged += 1;
            continue;
        }
        uploads.push(Upload {
            path: entry.path,
            key,
            size: entry.stat.size,
            mode: entry.stat.perm,
        });
    }
    let objects_total = uploads.len() as u64;
    let bytes_total = uploads.iter().map(|u| u.size).sum();
    let store_ref = &store_;
    let mut running = futures::stream::iter(uploads.iter())
        .map(|u| async move { upload(store_ref, ws, u).await.map(|()| u) })
        .buffer_unordered(CONCURRENCY);
    while let Some(done) = running.next().await {
        let u = done?;
        stats.transferred += 1;
        stats.bytes += u.size;
        progress(&BucketProgress {
            objects_done: stats.transferred,
            objects_total,
            bytes_done: stats.bytes,
            bytes_total,
            current: &u.path,
        });
    }
    drop(running);
    if delete {
        let stale: Vec<ObjectPath> = remote
            .values()
            .filter(|m| !keep.contains(m.location.as_ref()))
            .map(|m| m.location.clone())
            .collect();
        let mut deletes = futures::stream::iter(stale.iter())
            .map(|key| async move {
                store_ref
                    .delete(key)
                    .await
                    .map_err(store(format!("delete {key}")))
            })
            .buffer_unordered(CONCURRENCY);
        while let Some(done) = deletes.next().await {
            done?;
            stats.deleted += 1;
        }
    }
    Ok(stats)
}

/// The MD5 of a workspace file, as S3 reports it in the ETag of a simple upload.
fn md5_hex(ws: &Workspace, path: &Path) -> Result<String> {
    let mut hasher = Md5::new();
    let mut offset = 0u64;
    loop {
        let piece = ws
            .fs()
            .read_range(path, offset, PART_SIZE as u64)
            .map_err(at(path))?;
        if piece.is_empty() {
            break;
        }
        offset += piece.len() as u64;
        hasher.update(&piece);
    }
    Ok(hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

async fn upload(store_: &Arc<dyn ObjectStore>, ws: &Workspace, u: &Upload) -> Result<()> {
    let mut attributes = Attributes::new();
    attributes.insert(
        Attribute::Metadata("mode".into()),
        format!("{:o}", u.mode).into(),
    );
    let what = || format!("upload {} to {}", u.path.display(), u.key);
    if u.size <= PART_SIZE as u64 {
        let data = ws.fs().read_file(&u.path).map_err(at(&u.path))?;
        let options = PutOptions {
            attributes,
            ..Default::default()
        };
        store_
            .put_opts(&u.key, PutPayload::from(data), options)
            .await
            .map_err(store(what()))?;
        return Ok(());
    }
    let options = PutMultipartOptions {
        attributes,
        ..Default::default()
    };
    let multipart = store_
        .put_multipart_opts(&u.key, options)
        .await
        .map_err(store(what()))?;
    let mut writer = WriteMultipart::new_with_chunk_size(multipart, PART_SIZE);
    let mut offset = 0u64;
    while offset < u.size {
        writer.wait_for_capacity(4).await.map_err(store(what()))?;
        let piece = ws
            .fs()
            .read_range(&u.path, offset, PART_SIZE as u64)
            .map_err(at(&u.path))?;
        if piece.is_empty() {
            break;
        }
        offset += piece.len() as u64;
        writer.write(&piece);
    }
    writer.finish().await.map_err(store(what()))?;
    Ok(())
}
