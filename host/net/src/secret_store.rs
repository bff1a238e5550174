//! The host's secret store: one JSON file outside every workspace (so snapshots, forks,
//! exports and bucket pushes never carry a value), readable by its owner only.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::NetError;
use crate::secrets::Secrets;

/// The secrets file at a path.
#[derive(Debug, Clone)]
pub struct SecretStore {
    path: PathBuf,
}

impl SecretStore {
    /// The store kept in `path` (made on the first `save`).
    pub fn new(path: impl Into<PathBuf>) -> SecretStore {
        SecretStore { path: path.into() }
    }

    /// Where it is kept.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Its secrets; none when the file does not exist yet.
    pub fn load(&self) -> Result<Secrets, NetError> {
        let shown = self.path.display();
        match std::fs::read_to_string(&self.path) {
            Ok(text) => {
                Secrets::from_json(&text).map_err(|e| NetError::Secrets(format!("{shown}: {e}")))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Secrets::default()),
            Err(e) => Err(NetError::Secrets(format!("{shown}: {e}"))),
        }
    }

    /// Replaces its secrets with `secrets`: written to a new file of mode 0600 (its folder
    /// made 0700 when missing) and renamed over the old one, so a crash leaves one or the
    /// other.
    pub fn save(&self, secrets: &Secrets) -> Result<(), NetError> {
        use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
        let shown = self.path.display();
        let fail = |e: std::io::Error| NetError::Secrets(format!("{shown}: {e}"));
        let dir = match self.path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&dir)
            .map_err(fail)?;
        let name = self
            .path
            .file_name()
            .ok_or_else(|| NetError::Secrets(format!("{shown}: not a file path")))?;
        let tmp = dir.join(format!(
            ".{}.{}.tmp",
            name.to_string_lossy(),
            std::process::id()
        ));
        let written = (|| {
            // A file left by a crash keeps its mode: start from none.
            let _ = std::fs::remove_file(&tmp);
            let mut file = std::fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true)
                .mode(0o600)
                .open(&tmp)?;
            file.write_all(secrets.to_json().as_bytes())?;
            file.sync_all()?;
            std::fs::rename(&tmp, &self.path)
        })();
        if let Err(e) = written {
            let _ = std::fs::remove_file(&tmp);
            return Err(fail(e));
        }
        Ok(())
    }
}
