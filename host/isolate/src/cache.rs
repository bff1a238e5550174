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
///
/// The file is mapped, not read: only the pages a run touches are read in, and they stay in
/// the page cache for the next process. A mapped file that shrinks kills the process with
/// SIGBUS, so artifacts are never changed in place: [`store`] writes a new file whole and
/// renames it over the old one, and a mapping of the old one keeps its inode. Before mapping,
/// the ELF header must say the file ends where it does (a file cut short by a crash is
/// rebuilt, not mapped).
#[allow(unsafe_code)]
pub(crate) fn load(engine: &Engine, path: &Path) -> Option<Component> {
    use std::io::Read;
    let mut file = std::fs::File::open(path).ok()?;
    let len = file.metadata().ok()?.len();
    let mut header = [0u8; 64];
    file.read_exact(&mut header).ok()?;
    if elf_end(&header) != Some(len) {
        return None;
    }
    // SAFETY: deserializing trusts the bytes to be wasmtime's own output. We only read files we
    // wrote into the cache directory, which is private to this user (0700); anyone who can
    // write there can already run code as this user. Damaged files fail wasmtime's header and
    // version checks and are rebuilt.
    drop(file);
    unsafe { Component::deserialize_file(engine, path) }.ok()
}

/// Where a 64-bit little-endian ELF file whose header is `h` ends: its section header table
/// comes last in wasmtime's artifacts.
fn elf_end(h: &[u8; 64]) -> Option<u64> {
    if &h[..6] != b"\x7fELF\x02\x01" {
        return None;
    }
    let u64_at = |at: usize| u64::from_le_bytes(h[at..at + 8].try_into().unwrap_or_default());
    let u16_at = |at: usize| u64::from(u16::from_le_bytes([h[at], h[at + 1]]));
    let (shoff, shentsize, shnum) = (u64_at(0x28), u16_at(0x3a), u16_at(0x3c));
    shoff.checked_add(shentsize * shnum)
}

/// Makes `dir` and its missing parents, new ones private to this user (0700).
fn make_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
}

/// Whether `dir` exists or could be made (private to this user) and can be written.
pub(crate) fn usable_dir(dir: &Path) -> bool {
    make_dir(dir).is_ok() && nix::unistd::access(dir, nix::unistd::AccessFlags::W_OK).is_ok()
}

/// Makes `dir` (not its parents) private to this user, or checks that it is: a directory,
/// not a symlink, owned by this user, reachable by no one else. In a shared place like
/// `/tmp`, anyone could have made it first.
pub(crate) fn private_dir(dir: &Path) -> bool {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt};
    let _ = std::fs::DirBuilder::new().mode(0o700).create(dir);
    let Ok(meta) = std::fs::symlink_metadata(dir) else {
        return false;
    };
    meta.is_dir()
        && meta.uid() == nix::unistd::Uid::effective().as_raw()
        && meta.mode() & 0o077 == 0
}

/// Writes an artifact atomically (a reader never sees half a file, and one that has it mapped
/// keeps the old file).
pub(crate) fn store(dir: &Path, path: &Path, component: &Component) -> std::io::Result<()> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    make_dir(dir)?;
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
        // On disk before the rename, so that a crash never leaves a short file in its name.
        f.sync_data()?;
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
    fn an_artifact_cut_short_is_not_mapped() {
        let dir = tempfile::tempdir().unwrap();
        let engine = wasmtime::Engine::default();
        // The empty component: magic, version 0x0d, layer 1.
        let component = wasmtime::component::Component::new(&engine, b"\0asm\x0d\0\x01\0").unwrap();
        let path = super::artifact_path(dir.path(), &engine, &[7; 32]);
        super::store(dir.path(), &path, &component).unwrap();
        assert!(super::load(&engine, &path).is_some());
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
        assert!(super::load(&engine, &path).is_none());
        std::fs::write(&path, [&bytes[..], b"x"].concat()).unwrap();
        assert!(super::load(&engine, &path).is_none());
        std::fs::write(&path, b"short").unwrap();
        assert!(super::load(&engine, &path).is_none());
    }

    #[test]
    fn a_temp_dir_someone_else_can_reach_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let base = tempfile::tempdir().unwrap();
        let dir = base.path().join("computer-x");
        assert!(super::private_dir(&dir));
        assert!(super::private_dir(&dir), "made once, accepted again");
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert!(!super::private_dir(&dir));
        let link = base.path().join("link");
        std::os::unix::fs::symlink(base.path(), &link).unwrap();
        assert!(!super::private_dir(&link));
    }

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
