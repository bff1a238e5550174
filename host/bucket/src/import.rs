//! Bucket prefix → workspace folder, all-or-nothing through a staging folder.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use computer::Workspace;
use futures::{StreamExt, TryStreamExt};
use object_store::{Attribute, GetOptions, GetRange, ObjectMeta, ObjectStore};

use crate::error::{BucketError, Result, at, store};
use crate::url::{BucketUrl, check_key};
use crate::{BucketProgress, BucketStats, CONCURRENCY, PART_SIZE, ProgressFn};

/// Attempts per object when its body breaks off midway (each resumes where the last stopped).
const ATTEMPTS: usize = 4;

/// Copies every object under `url`'s prefix into the workspace folder `dest` (object
/// `prefix/a/b` becomes `dest/a/b`; existing files of the same names are replaced).
pub async fn import(
    store_: Arc<dyn ObjectStore>,
    url: &BucketUrl,
    ws: &Workspace,
    dest: &Path,
    progress: &mut ProgressFn<'_>,
) -> Result<BucketStats> {
    let objects: Vec<ObjectMeta> = store_
        .list(url.prefix_path().as_ref())
        .try_collect()
        .await
        .map_err(store(format!("list {url}")))?;
    // Check everything before downloading anything.
    let limit = ws.fs().max_file_size().map_err(at(dest))?;
    let mut bad = Vec::new();
    let mut planned = Vec::new();
    for meta in objects {
        let key = meta.location.as_ref().to_string();
        let Some(relative) = url.relative(&key) else {
            continue;
        };
        if let Err(reason) = check_key(relative) {
            bad.push(reason);
            continue;
        }
        if meta.size > limit {
            return Err(BucketError::TooLarge {
                key,
                size: meta.size,
                limit,
            });
        }
        planned.push((relative.to_string(), meta));
    }
    if !bad.is_empty() {
        return Err(BucketError::BadKeys(bad.join("; ")));
    }
    let staging = PathBuf::from(format!("/tmp/.computer-import-{}", crate::unique_suffix()));
    ws.fs().create_dir_all(&staging).map_err(at(&staging))?;
    let result = download_all(&store_, &planned, ws, &staging, progress).await;
    let result = match result {
        Ok(stats) => move_into_place(ws, &planned, &staging, dest).map(|()| stats),
        Err(e) => Err(e),
    };
    // Whatever happened, the staging folder goes (after a success it is empty).
    let _ = ws.fs().remove_all(&staging);
    result
}

async fn download_all(
    store_: &Arc<dyn ObjectStore>,
    planned: &[(String, ObjectMeta)],
    ws: &Workspace,
    staging: &Path,
    progress: &mut ProgressFn<'_>,
) -> Result<BucketStats> {
    let bytes_total = planned.iter().map(|(_, m)| m.size).sum();
    let objects_total = planned.len() as u64;
    let mut stats = BucketStats::default();
    let mut downloads = futures::stream::iter(planned.iter().enumerate())
        .map(|(n, (relative, meta))| {
            let staged = staging.join(n.to_string());
            async move {
                download(store_, meta, ws, &staged).await?;
                Ok::<_, BucketError>((relative, meta.size))
            }
        })
        .buffer_unordered(CONCURRENCY);
    while let Some(done) = downloads.next().await {
        let (relative, size) = done?;
        stats.transferred += 1;
        stats.bytes += size;
        progress(&BucketProgress {
            objects_done: stats.transferred,
            objects_total,
            bytes_done: stats.bytes,
            bytes_total,
            current: Path::new(relative),
        });
    }
    Ok(stats)
}

/// Downloads one object into the workspace file `staged`, in pieces, resuming after a break.
async fn download(
    store_: &Arc<dyn ObjectStore>,
    meta: &ObjectMeta,
    ws: &Workspace,
    staged: &Path,
) -> Result<()> {
    let key = meta.location.as_ref();
    ws.fs().write_file(staged, b"").map_err(at(staged))?;
    let mut offset = 0u64;
    let mut mode = None;
    let mut attempt = 0;
    loop {
        // Every piece must be of the version listed: an object replaced between two
        // requests would otherwise be stitched from two versions.
        let options = GetOptions {
            range: (offset > 0).then_some(GetRange::Offset(offset)),
            if_match: meta.e_tag.clone(),
            ..Default::default()
        };
        // object_store itself retries a failed request with backoff.
        let got = store_
            .get_opts(&meta.location, options)
            .await
            .map_err(store(format!("download {key}")))?;
        if mode.is_none() {
            mode = got
                .attributes
                .get(&Attribute::Metadata("mode".into()))
                .and_then(|v| u32::from_str_radix(v.as_ref(), 8).ok());
        }
        let mut body = got.into_stream();
        let mut piece = Vec::with_capacity(PART_SIZE.min(meta.size as usize));
        let mut broke = None;
        while let Some(chunk) = body.next().await {
            match chunk {
                Ok(bytes) => {
                    piece.extend_from_slice(&bytes);
                    if piece.len() >= PART_SIZE {
                        ws.fs()
                            .write_at(staged, offset, &piece)
                            .map_err(at(staged))?;
                        offset += piece.len() as u64;
                        piece.clear();
                    }
                }
                Err(e) => {
                    broke = Some(e);
                    break;
                }
            }
        }
        if !piece.is_empty() {
            ws.fs()
                .write_at(staged, offset, &piece)
                .map_err(at(staged))?;
            offset += piece.len() as u64;
        }
        if offset > meta.size {
            return Err(BucketError::Store {
                what: format!("download {key}"),
                error: object_store::Error::Generic {
                    store: "S3",
                    source: format!("got {offset} bytes of an object listed as {}", meta.size)
                        .into(),
                },
            });
        }
        match broke {
            None if offset == meta.size => break,
            None => {
                // The server ended the body early without an error: resume too.
                if attempt + 1 >= ATTEMPTS {
                    return Err(BucketError::Store {
                        what: format!("download {key}"),
                        error: object_store::Error::Generic {
                            store: "S3",
                            source: format!("got {offset} of {} bytes", meta.size).into(),
                        },
                    });
                }
            }
            Some(e) if attempt + 1 >= ATTEMPTS => {
                return Err(store(format!("download {key} (after {offset} bytes)"))(e));
            }
            Some(_) => {}
        }
        attempt += 1;
    }
    if let Some(mode) = mode {
        ws.fs()
            .set_permissions(staged, mode & 0o7777)
            .map_err(at(staged))?;
    }
    Ok(())
}

/// Every object has arrived: move the staged files to their names under `dest`.
fn move_into_place(
    ws: &Workspace,
    planned: &[(String, ObjectMeta)],
    staging: &Path,
    dest: &Path,
) -> Result<()> {
    ws.fs().create_dir_all(dest).map_err(at(dest))?;
    for (n, (relative, _)) in planned.iter().enumerate() {
        let target = dest.join(relative);
        if let Some(parent) = target.parent() {
            ws.fs().create_dir_all(parent).map_err(at(parent))?;
        }
        ws.fs()
            .rename(staging.join(n.to_string()), &target)
            .map_err(at(&target))?;
    }
    Ok(())
}
