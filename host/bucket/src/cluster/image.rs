//! Images: a workspace's SQLite file in content-addressed pieces. A push uploads only the
//! pieces the previous image lacks (a copy of the file keeps its pages in place, so a change
//! rewrites only the pieces holding its pages); a hydration downloads only the pieces a local
//! copy does not already hold, and checks every piece's hash.

use std::collections::HashSet;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;

use futures::StreamExt;
use object_store::{ObjectStoreExt, PutPayload};

use super::{ClusterStore, FORMAT};
use crate::CONCURRENCY;
use crate::error::{BucketError, Result, store};

/// Bytes per piece of a workspace file (64 SQLite pages).
pub const PIECE: u64 = 256 << 10;

/// Largest workspace file an image may describe (1 TiB): a bad image must not make a node
/// write without end.
pub const MAX_SIZE: u64 = 1 << 40;

/// Largest piece an image may name (64 MiB): each is held in memory whole.
pub const MAX_PIECE: u64 = 64 << 20;

/// One image of a workspace file.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Image {
    /// [`FORMAT`].
    pub format: u32,
    /// The file's size in bytes.
    pub size: u64,
    /// Bytes per piece (the last may be shorter).
    pub piece: u64,
    /// Each piece's BLAKE3 hash (hex), in order.
    pub pieces: Vec<String>,
}

/// What a push did.
#[derive(Debug, Clone)]
pub struct ImagePush {
    /// The image's key under the workspace (`images/GEN-SEQ.json`), for its head.
    pub key: String,
    /// The image.
    pub image: Image,
    /// Pieces uploaded (the previous image lacked them).
    pub pieces_uploaded: u64,
    /// Bytes uploaded, the image's own included.
    pub bytes_uploaded: u64,
}

/// What a hydration did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HydrateStats {
    /// Pieces downloaded.
    pub pieces_downloaded: u64,
    /// Pieces taken from the local copy.
    pub pieces_reused: u64,
    /// Bytes downloaded.
    pub bytes_downloaded: u64,
}

fn hash_hex(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex().to_string()
}

/// Reads piece `index` of `file` (shorter at the end; empty past it).
fn read_piece(file: &File, size: u64, piece: u64, index: usize) -> std::io::Result<Vec<u8>> {
    let offset = index as u64 * piece;
    let len = piece.min(size.saturating_sub(offset));
    let mut buf = vec![0; len as usize];
    file.read_exact_at(&mut buf, offset)?;
    Ok(buf)
}

fn io(what: String) -> impl Fn(std::io::Error) -> BucketError {
    move |e| BucketError::Snapshot(format!("{what}: {e}"))
}

impl Image {
    /// Refuses an image this build cannot trust: another format, a size or piece count out of
    /// range, a hash that is not 64 hex digits (it names an object).
    fn check(&self, what: &str) -> Result<()> {
        let bad = |why: String| Err(BucketError::Snapshot(format!("{what}: {why}")));
        if self.format != FORMAT {
            return bad(format!(
                "format {} (this build reads {FORMAT})",
                self.format
            ));
        }
        if self.size > MAX_SIZE {
            return bad(format!(
                "a file of {} bytes, above the limit of {MAX_SIZE} (MAX_SIZE)",
                self.size
            ));
        }
        if self.piece == 0 || self.piece > MAX_PIECE {
            return bad(format!(
                "pieces of {} bytes (the limit is {MAX_PIECE}, MAX_PIECE)",
                self.piece
            ));
        }
        if self.pieces.len() as u64 != self.size.div_ceil(self.piece) {
            return bad(format!(
                "{} pieces for {} bytes",
                self.pieces.len(),
                self.size
            ));
        }
        if let Some(h) = self
            .pieces
            .iter()
            .find(|h| h.len() != 64 || !h.bytes().all(|b| b.is_ascii_hexdigit()))
        {
            return bad(format!("a piece named {h:?}"));
        }
        Ok(())
    }
}

impl ClusterStore {
    fn chunk(&self, hash: &str) -> object_store::path::Path {
        self.key(&format!("chunks/{hash}"))
    }

    /// Uploads `file` (a copy of workspace `id`'s database no one writes) as image
    /// `images/GENERATION-SEQ.json`: only the pieces `previous` lacks, then the image. The
    /// head still names the old image until [`ClusterStore::put_head`].
    pub async fn push_image(
        &self,
        id: &str,
        file: &Path,
        (generation, seq): (u64, u64),
        previous: Option<&Image>,
    ) -> Result<ImagePush> {
        let path = file.to_path_buf();
        let image = tokio::task::spawn_blocking(move || -> Result<Image> {
            let what = format!("read {}", path.display());
            let file = File::open(&path).map_err(io(what.clone()))?;
            let size = file.metadata().map_err(io(what.clone()))?.len();
            let count = size.div_ceil(PIECE) as usize;
            let mut pieces = Vec::with_capacity(count);
            for index in 0..count {
                let bytes = read_piece(&file, size, PIECE, index).map_err(io(what.clone()))?;
                pieces.push(hash_hex(&bytes));
            }
            Ok(Image {
                format: FORMAT,
                size,
                piece: PIECE,
                pieces,
            })
        })
        .await
        .map_err(|e| BucketError::Snapshot(format!("hash {}: {e}", file.display())))??;
        let known: HashSet<&str> = previous
            .map(|p| p.pieces.iter().map(String::as_str).collect())
            .unwrap_or_default();
        let mut sent = HashSet::new();
        let missing: Vec<(usize, String)> = image
            .pieces
            .iter()
            .enumerate()
            .filter(|(_, h)| !known.contains(h.as_str()) && sent.insert(h.as_str()))
            .map(|(index, h)| (index, h.clone()))
            .collect();
        // The missing pieces are read again to upload (from the page cache): holding them
        // from the hashing pass would hold a whole new workspace in memory.
        let handle =
            std::sync::Arc::new(File::open(file).map_err(io(format!("read {}", file.display())))?);
        let size = image.size;
        // The stream holds only owned values, nothing borrowed from `self`: axum needs the
        // handlers' futures `Send` for any lifetime.
        let jobs: Vec<_> = missing
            .into_iter()
            .map(|(index, hash)| (index, self.chunk(&hash)))
            .collect();
        let objects = std::sync::Arc::clone(&self.store);
        let puts = jobs.into_iter().map(move |(index, key)| {
            let handle = std::sync::Arc::clone(&handle);
            let objects = std::sync::Arc::clone(&objects);
            async move {
                let bytes =
                    tokio::task::spawn_blocking(move || read_piece(&handle, size, PIECE, index))
                        .await
                        .map_err(|e| BucketError::Snapshot(format!("read piece {index}: {e}")))?
                        .map_err(io(format!("read piece {index}")))?;
                let len = bytes.len() as u64;
                objects
                    .put(&key, PutPayload::from(bytes))
                    .await
                    .map_err(store(format!("upload {key}")))?;
                Ok::<_, BucketError>(len)
            }
        });
        let mut puts = futures::stream::iter(puts).buffer_unordered(CONCURRENCY);
        let (mut pieces_uploaded, mut bytes_uploaded) = (0, 0);
        while let Some(len) = puts.next().await {
            pieces_uploaded += 1;
            bytes_uploaded += len?;
        }
        let key = format!("images/{generation}-{seq}.json");
        let json =
            serde_json::to_vec(&image).map_err(|e| BucketError::Snapshot(format!("image: {e}")))?;
        bytes_uploaded += json.len() as u64;
        let object = self.workspace_key(id, &key);
        self.store
            .put(&object, PutPayload::from(json))
            .await
            .map_err(store(format!("upload {object}")))?;
        Ok(ImagePush {
            key,
            image,
            pieces_uploaded,
            bytes_uploaded,
        })
    }

    /// Image `key` (from a head) of workspace `id`.
    pub async fn image(&self, id: &str, key: &str) -> Result<Image> {
        let object = self.workspace_key(id, key);
        let image: Image = self
            .get_json(&object)
            .await?
            .ok_or_else(|| BucketError::Snapshot(format!("{object} is missing")))?
            .value;
        image.check(object.as_ref())?;
        Ok(image)
    }

    /// Writes `image` to `dest` (replaced; synced to disk), downloading only the pieces that
    /// `local` (an older copy of the same workspace, if any) lacks at the same place. Every
    /// piece, downloaded or reused, is checked against its hash.
    pub async fn hydrate(
        &self,
        image: &Image,
        dest: &Path,
        local: Option<&Path>,
    ) -> Result<HydrateStats> {
        image.check("image")?;
        let what = format!("write {}", dest.display());
        let out = std::sync::Arc::new(File::create(dest).map_err(io(what.clone()))?);
        let local = local.and_then(|p| File::open(p).ok()).and_then(|f| {
            let len = f.metadata().ok()?.len();
            Some((std::sync::Arc::new(f), len))
        });
        let piece = image.piece;
        let size = image.size;
        let jobs: Vec<_> = image
            .pieces
            .iter()
            .enumerate()
            .map(|(index, hash)| (index, hash.clone(), self.chunk(hash)))
            .collect();
        let objects = std::sync::Arc::clone(&self.store);
        let writer = std::sync::Arc::clone(&out);
        let steps = jobs.into_iter().map(move |(index, hash, key)| {
            let local = local.clone();
            let out = std::sync::Arc::clone(&writer);
            let objects = std::sync::Arc::clone(&objects);
            let expected = piece.min(size - index as u64 * piece);
            async move {
                let reused = match local {
                    Some((file, len)) => tokio::task::spawn_blocking(move || {
                        read_piece(&file, len.min(size), piece, index).ok()
                    })
                    .await
                    .ok()
                    .flatten()
                    .filter(|bytes| bytes.len() as u64 == expected && hash_hex(bytes) == hash),
                    None => None,
                };
                let (bytes, downloaded) = match reused {
                    Some(bytes) => (bytes, false),
                    None => {
                        let bytes = objects
                            .get(&key)
                            .await
                            .map_err(store(format!("download {key}")))?
                            .bytes()
                            .await
                            .map_err(store(format!("download {key}")))?;
                        if bytes.len() as u64 != expected || hash_hex(&bytes) != hash {
                            return Err(BucketError::Snapshot(format!(
                                "{key} does not match its hash"
                            )));
                        }
                        (bytes.to_vec(), true)
                    }
                };
                let len = bytes.len() as u64;
                tokio::task::spawn_blocking(move || out.write_all_at(&bytes, index as u64 * piece))
                    .await
                    .map_err(|e| BucketError::Snapshot(format!("write piece {index}: {e}")))?
                    .map_err(io(format!("write piece {index}")))?;
                Ok::<_, BucketError>((downloaded, len))
            }
        });
        let mut steps = futures::stream::iter(steps).buffer_unordered(CONCURRENCY);
        let mut stats = HydrateStats::default();
        while let Some(step) = steps.next().await {
            match step? {
                (true, len) => {
                    stats.pieces_downloaded += 1;
                    stats.bytes_downloaded += len;
                }
                (false, _) => stats.pieces_reused += 1,
            }
        }
        out.set_len(size).map_err(io(what.clone()))?;
        out.sync_all().map_err(io(what))?;
        Ok(stats)
    }
}
