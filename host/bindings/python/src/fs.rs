//! `Workspace.fs`: the workspace's files by path. Relative paths start at `/workspace`;
//! every call releases the GIL while the store works.

use std::path::PathBuf;

use computer::Workspace;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes};

use crate::errors::py_err;

/// The workspace's filesystem.
#[pyclass(module = "computer", frozen)]
pub struct Fs {
    pub(crate) ws: Workspace,
}

/// What `stat` says of a path.
#[pyclass(module = "computer", frozen, get_all)]
pub struct Stat {
    /// `file`, `dir`, `symlink`, `fifo`, `socket`, `char-device` or `block-device`.
    pub kind: &'static str,
    /// Size in bytes.
    pub size: u64,
    /// The full `st_mode` (type and permission bits).
    pub mode: u32,
    /// Last modification, in seconds since the Unix epoch.
    pub mtime: f64,
    /// The inode number.
    pub ino: u64,
}

#[pymethods]
impl Stat {
    fn __repr__(&self) -> String {
        format!(
            "Stat(kind={:?}, size={}, mode=0o{:o})",
            self.kind, self.size, self.mode
        )
    }
}

/// One entry of a directory listing.
#[pyclass(module = "computer", frozen, get_all)]
pub struct Entry {
    /// Its name.
    pub name: String,
    /// Its absolute workspace path.
    pub path: String,
    /// `file`, `dir`, `symlink`...
    pub kind: &'static str,
}

#[pymethods]
impl Entry {
    fn __repr__(&self) -> String {
        format!("Entry({:?}, kind={:?})", self.path, self.kind)
    }
}

impl Fs {
    /// Runs a store call on `path` with the GIL released; errors name the path.
    fn call<T: Send>(
        &self,
        py: Python<'_>,
        path: &str,
        f: impl FnOnce(&computer::Vfs, &PathBuf) -> Result<T, computer::VfsError> + Send,
    ) -> PyResult<T> {
        let path = self.ws.resolve(path);
        py.detach(|| f(self.ws.fs(), &path))
            .map_err(|source| py_err(computer::Error::Fs { path, source }))
    }
}

#[pymethods]
impl Fs {
    /// The file's bytes.
    fn read_bytes<'py>(&self, py: Python<'py>, path: &str) -> PyResult<Bound<'py, PyBytes>> {
        let data = self.call(py, path, |fs, p| fs.read_file(p))?;
        Ok(PyBytes::new(py, &data))
    }

    /// The file's text (UTF-8 unless `encoding` says otherwise).
    #[pyo3(signature = (path, encoding = "utf-8"))]
    fn read_text(&self, py: Python<'_>, path: &str, encoding: &str) -> PyResult<Py<PyAny>> {
        let data = self.read_bytes(py, path)?;
        Ok(data.call_method1("decode", (encoding,))?.unbind())
    }

    /// Writes `data` as the whole file, making missing parent directories.
    fn write_bytes(&self, py: Python<'_>, path: &str, data: BytesOrText) -> PyResult<()> {
        self.call(py, path, |fs, p| fs.write_file(p, &data.0).map(drop))
    }

    /// Writes `text` (UTF-8) as the whole file, making missing parent directories.
    fn write_text(&self, py: Python<'_>, path: &str, text: &str) -> PyResult<()> {
        self.call(py, path, |fs, p| fs.write_file(p, text).map(drop))
    }

    /// Adds `data` (bytes or text) at the end of the file, creating it if missing.
    fn append(&self, py: Python<'_>, path: &str, data: BytesOrText) -> PyResult<()> {
        self.call(py, path, |fs, p| fs.append(p, data.0).map(drop))
    }

    /// What is at `path` (symlinks followed unless `follow_symlinks=False`).
    #[pyo3(signature = (path, follow_symlinks = true))]
    fn stat(&self, py: Python<'_>, path: &str, follow_symlinks: bool) -> PyResult<Stat> {
        let st = self.call(py, path, |fs, p| {
            if follow_symlinks {
                fs.stat(p)
            } else {
                fs.lstat(p)
            }
        })?;
        Ok(Stat {
            kind: st.kind.name(),
            size: st.size,
            mode: st.mode(),
            mtime: st.mtime as f64 / 1e9,
            ino: st.ino,
        })
    }

    /// Whether `path` exists.
    fn exists(&self, py: Python<'_>, path: &str) -> PyResult<bool> {
        self.call(py, path, |fs, p| fs.exists(p))
    }

    /// The entries of a directory, by name.
    fn list(&self, py: Python<'_>, path: &str) -> PyResult<Vec<Entry>> {
        let dir = self.ws.resolve(path);
        let entries = self.call(py, path, |fs, p| fs.read_dir(p))?;
        Ok(entries
            .into_iter()
            .map(|e| Entry {
                path: dir.join(&e.name).to_string_lossy().into_owned(),
                name: e.name.to_string_lossy().into_owned(),
                kind: e.kind.name(),
            })
            .collect())
    }

    /// Makes a directory (and its parents with `parents=True`).
    #[pyo3(signature = (path, parents = false))]
    fn mkdir(&self, py: Python<'_>, path: &str, parents: bool) -> PyResult<()> {
        self.call(py, path, |fs, p| {
            if parents {
                fs.create_dir_all(p)
            } else {
                fs.create_dir(p)
            }
            .map(drop)
        })
    }

    /// Removes a file or an empty directory; with `recursive=True`, a whole tree.
    #[pyo3(signature = (path, recursive = false))]
    fn remove(&self, py: Python<'_>, path: &str, recursive: bool) -> PyResult<()> {
        self.call(py, path, |fs, p| {
            if recursive {
                return fs.remove_all(p);
            }
            match fs.lstat(p)?.is_dir() {
                true => fs.remove_dir(p),
                false => fs.remove_file(p),
            }
        })
    }

    /// Renames `src` to `dst` (replacing a file there, as `rename(2)`).
    fn rename(&self, py: Python<'_>, src: &str, dst: &str) -> PyResult<()> {
        let dst = self.ws.resolve(dst);
        self.call(py, src, |fs, p| fs.rename(p, &dst))
    }
}

/// `bytes` or `str` (written as UTF-8).
pub struct BytesOrText(pub Vec<u8>);

impl<'py> FromPyObject<'_, 'py> for BytesOrText {
    type Error = PyErr;

    fn extract(ob: Borrowed<'_, 'py, PyAny>) -> PyResult<Self> {
        if let Ok(bytes) = ob.cast::<PyBytes>() {
            return Ok(BytesOrText(bytes.as_bytes().to_vec()));
        }
        if let Ok(array) = ob.cast::<PyByteArray>() {
            return Ok(BytesOrText(array.to_vec()));
        }
        Ok(BytesOrText(ob.extract::<String>()?.into_bytes()))
    }
}
