//! Compiled components cached on disk in wasmtime's serialized form, keyed by the wasm's
//! BLAKE3 hash (fast enough to key a 2.5 MB component in about a millisecond) and the engine's
//! compatibility hash (so a changed engine configuration or wasmtime
//! version never loads a stale artifact).

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

use wasmtime::Engine;
use wasmtime::component::Component;

/// The content hash of a wasm binary.
pub(crate) fn wasm_hash(wasm: &[u8]) -> [u8; 32] {
    blake3::hash(wasm).into()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Where the artifact of `hash` for `engine` lives in `dir`.
pub(crate) fn artifact_path(dir: &Path, engine: &Engine, hash: &[u8; 32]) -> PathBuf {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    engine.precompile_compatibility_hash().hash(&mut h);
    dir.join(format!("{}-{:016x}.cwasm", hex(hash), h.finish()))
}

/// Loads an artifact written by [`store`]; `None` if absent or unusable (it is then rebuilt).
#[allow(unsafe_code)]
pub(crate) fn load(engine: &Engine, path: &Path) -> Option<Component> {
    // Read into memory rather than mmap the file: a mapped file truncated by someone else
    // would kill this process with SIGBUS.
    let bytes = std::fs::read(path).ok()?;
    // SAFETY: deserializing trusts the bytes to be wasmtime's own output. We only read files we
    // wrote into the cache directory, which we create private to this user (0700); anyone who
    // can write there can already run code as this user. Damaged files fail wasmtime's header
    // and version checks and are rebuilt.
    unsafe { Component::deserialize(engine, &bytes) }.ok()
}

/// Writes an artifact atomically (a reader never sees half a file).
pub(crate) fn store(dir: &Path, path: &Path, component: &Component) -> std::io::Result<()> {
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)?;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
    let bytes = component
        .serialize()
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&tmp)?;
        f.write_all(&bytes)?;
    }
    std::fs::rename(&tmp, path)
}

/// Bytes of compiled artifacts the disk cache keeps; past it, the least recently written go.
pub const MAX_CACHE_BYTES: u64 = 2 << 30;

/// Removes the oldest artifacts of `dir` until what is left is at most three quarters of
/// `max` (when it holds more than `max`).
pub(crate) fn trim(dir: &Path, max: u64) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut files: Vec<(std::time::SystemTime, u64, PathBuf)> = entries
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "cwasm"))
        .filter_map(|e| {
            let meta = e.metadata().ok()?;
            Some((meta.modified().ok()?, meta.len(), e.path()))
        })
        .collect();
    let mut total: u64 = files.iter().map(|f| f.1).sum();
    if total <= max {
        return;
    }
    files.sort();
    for (_, len, path) in files {
        if total <= max / 4 * 3 {
            break;
        }
        if std::fs::remove_file(&path).is_ok() {
            total -= len;
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_disk_cache_is_trimmed_oldest_first() {
        let dir = tempfile::tempdir().unwrap();
        for n in 0..8 {
            let path = dir.path().join(format!("{n}.cwasm"));
            std::fs::write(&path, vec![0u8; 1000]).unwrap();
            let when = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(n * 100);
            std::fs::File::options()
                .write(true)
                .open(&path)
                .unwrap()
                .set_modified(when)
                .unwrap();
        }
        std::fs::write(dir.path().join("other.txt"), vec![0u8; 100_000]).unwrap();
        super::trim(dir.path(), 4000);
        let mut left: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, ["5.cwasm", "6.cwasm", "7.cwasm", "other.txt"]);
    }
}
