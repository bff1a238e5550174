//! `computer.Workspace`: open one, and everything hangs off it (fs, exec, sessions, jobs,
//! git, the network policy, snapshots and forks, the agent tools).

use std::sync::Arc;

use computer::Workspace as CoreWorkspace;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::buckets::{self, BucketStats};
use crate::errors::py_err;
use crate::exec::{ExecOptions, ExecResult, ExecStream, Target, aio, exec, request};
use crate::fs::{BytesOrText, Fs};
use crate::jobs::{Cancel, Job};
use crate::remote::{Git, Net};
use crate::tools::Tools;

/// A workspace: a persistent filesystem in one SQLite file, and the backends that run
/// commands on it.
#[pyclass(module = "computer", frozen)]
pub struct Workspace {
    ws: CoreWorkspace,
    fs: Py<Fs>,
}

impl Workspace {
    fn wrap(py: Python<'_>, ws: CoreWorkspace) -> PyResult<Workspace> {
        let fs = Py::new(py, Fs { ws: ws.clone() })?;
        Ok(Workspace { ws, fs })
    }
}

/// A snapshot: a named, read-only state of the workspace.
#[pyclass(module = "computer", frozen, get_all)]
pub struct Snapshot {
    /// Its name.
    pub name: String,
    /// When it was taken, in seconds since the Unix epoch.
    pub created: f64,
    /// Files, directories and links in it.
    pub inodes: u64,
    /// Bytes of its files.
    pub bytes: u64,
}

#[pymethods]
impl Snapshot {
    fn __repr__(&self) -> String {
        format!(
            "Snapshot({:?}, inodes={}, bytes={})",
            self.name, self.inodes, self.bytes
        )
    }
}

impl From<computer::vfs::SnapshotInfo> for Snapshot {
    fn from(s: computer::vfs::SnapshotInfo) -> Snapshot {
        Snapshot {
            name: s.name,
            created: s.created as f64 / 1e9,
            inodes: s.inodes,
            bytes: s.bytes,
        }
    }
}

/// A shell whose state (variables, functions, cwd...) lasts from one exec to the next.
#[pyclass(module = "computer", frozen)]
pub struct Session(Arc<computer::Session>);

/// `#[pymethods] impl $ty` with the exec methods (shared by `Workspace` and `Session`, whose
/// execs differ only in where they run) and the type's own methods.
macro_rules! with_exec_methods {
    (impl $ty:ident as $target:expr; $($own:tt)*) => {
        #[pymethods]
        impl $ty {
        /// Runs `command` (bash source, or a list of arguments) and collects its output.
        /// `backend` is `"auto"` (the isolate, the container for what it cannot run),
        /// `"isolate"` or `"container"`; `timeout` in seconds (default 60). Raises
        /// `LimitExceeded` when a limit stops it, `KeyboardInterrupt` after Ctrl-C.
        #[pyo3(signature = (command, *, cwd = None, env = None, stdin = None, backend = "auto", timeout = None, cancel = None))]
        #[allow(clippy::too_many_arguments)]
        fn exec(
            &self,
            py: Python<'_>,
            command: &Bound<'_, PyAny>,
            cwd: Option<String>,
            env: Option<Vec<(String, String)>>,
            stdin: Option<BytesOrText>,
            backend: &str,
            timeout: Option<f64>,
            cancel: Option<Cancel>,
        ) -> PyResult<ExecResult> {
            let mut req = request(command, ExecOptions { cwd, env, stdin, backend, timeout })?;
            if let Some(cancel) = cancel {
                req.cancel = cancel.0;
            }
            exec(py, ($target)(self), req, None)
        }

        /// As `exec`, yielding `Event`s as the command writes: `stdout`/`stderr` chunks,
        /// then `exit`.
        #[pyo3(signature = (command, *, cwd = None, env = None, stdin = None, backend = "auto", timeout = None))]
        #[allow(clippy::too_many_arguments)]
        fn exec_stream(
            &self,
            command: &Bound<'_, PyAny>,
            cwd: Option<String>,
            env: Option<Vec<(String, String)>>,
            stdin: Option<BytesOrText>,
            backend: &str,
            timeout: Option<f64>,
        ) -> PyResult<ExecStream> {
            let req = request(command, ExecOptions { cwd, env, stdin, backend, timeout })?;
            ExecStream::start(($target)(self), req)
        }

        /// As `exec`, to await: runs in the loop's executor; cancelling the task cancels
        /// the command.
        #[pyo3(signature = (command, **kwargs))]
        fn exec_async<'py>(
            slf: &Bound<'py, Self>,
            command: Bound<'py, PyAny>,
            kwargs: Option<&Bound<'py, PyDict>>,
        ) -> PyResult<Bound<'py, PyAny>> {
            aio(slf.py(), "in_thread", (slf.getattr("exec")?, command), kwargs)
        }

        /// As `exec_stream`, as an async iterator (`async for event in ...`).
        #[pyo3(signature = (command, **kwargs))]
        fn exec_stream_async<'py>(
            slf: &Bound<'py, Self>,
            command: Bound<'py, PyAny>,
            kwargs: Option<&Bound<'py, PyDict>>,
        ) -> PyResult<Bound<'py, PyAny>> {
            let stream = slf.getattr("exec_stream")?.call((command,), kwargs)?;
            aio(slf.py(), "stream", (stream,), None)
        }

        $($own)*
        }
    };
}

with_exec_methods! {
    impl Session as |s: &Session| Target::Session(Arc::clone(&s.0));

    /// The directory the last exec ended in (`None` before the first).
    #[getter]
    fn cwd(&self) -> Option<String> {
        self.0.cwd()
    }
}

with_exec_methods! {
    impl Workspace as |w: &Workspace| Target::Workspace(w.ws.clone());

    /// Opens the workspace file at `path`, creating it if missing.
    #[staticmethod]
    fn open(py: Python<'_>, path: std::path::PathBuf) -> PyResult<Workspace> {
        let ws = py.detach(|| CoreWorkspace::open(&path)).map_err(py_err)?;
        Workspace::wrap(py, ws)
    }

    /// A throwaway workspace in memory.
    #[staticmethod]
    fn memory(py: Python<'_>) -> PyResult<Workspace> {
        Workspace::wrap(py, CoreWorkspace::in_memory().map_err(py_err)?)
    }

    /// The workspace's files.
    #[getter]
    fn fs(&self, py: Python<'_>) -> Py<Fs> {
        self.fs.clone_ref(py)
    }

    /// Git on the workspace's repositories.
    #[getter]
    fn git(&self) -> Git {
        Git(self.ws.clone())
    }

    /// The network policy the workspace's guests meet (nothing reachable by default).
    #[getter]
    fn net(&self) -> Net {
        Net(self.ws.clone())
    }

    /// A session: execs that keep the shell's state between them.
    fn session(&self) -> Session {
        Session(Arc::new(self.ws.session()))
    }

    /// Starts `command` in the background: a `Job` to read, wait for or kill.
    #[pyo3(signature = (command, *, cwd = None, env = None, backend = "auto", timeout = None))]
    fn spawn(
        &self,
        command: &Bound<'_, PyAny>,
        cwd: Option<String>,
        env: Option<Vec<(String, String)>>,
        backend: &str,
        timeout: Option<f64>,
    ) -> PyResult<Job> {
        let options = ExecOptions { cwd, env, stdin: None, backend, timeout };
        let job = self.ws.spawn(request(command, options)?).map_err(py_err)?;
        Ok(Job(job))
    }

    /// The background jobs: running ones and the latest ended ones.
    fn jobs(&self) -> Vec<Job> {
        self.ws.jobs().into_iter().map(Job).collect()
    }

    /// Takes a snapshot named `name`.
    fn snapshot(&self, py: Python<'_>, name: &str) -> PyResult<Snapshot> {
        Ok(py.detach(|| self.ws.snapshot(name)).map_err(py_err)?.into())
    }

    /// The snapshots, oldest first.
    fn snapshots(&self, py: Python<'_>) -> PyResult<Vec<Snapshot>> {
        let all = py.detach(|| self.ws.snapshots()).map_err(py_err)?;
        Ok(all.into_iter().map(Snapshot::from).collect())
    }

    /// Puts the workspace back as it was at snapshot `name`.
    fn restore(&self, py: Python<'_>, name: &str) -> PyResult<()> {
        py.detach(|| self.ws.restore(name)).map_err(py_err)
    }

    /// Deletes snapshot `name`.
    fn delete_snapshot(&self, py: Python<'_>, name: &str) -> PyResult<()> {
        py.detach(|| self.ws.delete_snapshot(name)).map_err(py_err)
    }

    /// A new workspace file at `path` holding snapshot `name`: an independent copy.
    fn fork(&self, py: Python<'_>, name: &str, path: std::path::PathBuf) -> PyResult<Workspace> {
        let ws = py.detach(|| self.ws.fork(name, &path)).map_err(py_err)?;
        Workspace::wrap(py, ws)
    }

    /// Copies a host folder or `.tar`/`.tar.gz` into the workspace at `dest`.
    #[pyo3(signature = (src, dest = "/workspace"))]
    fn import_path(&self, py: Python<'_>, src: std::path::PathBuf, dest: &str) -> PyResult<u64> {
        let stats = py
            .detach(|| self.ws.import(&src, dest.as_ref(), &mut |_| {}))
            .map_err(py_err)?;
        Ok(stats.items())
    }

    /// Copies the tree at `src` out to a host folder, or an archive when `dest` ends with
    /// `.tar`, `.tar.gz` or `.tgz`.
    fn export_path(&self, py: Python<'_>, src: &str, dest: std::path::PathBuf) -> PyResult<u64> {
        let stats = py
            .detach(|| self.ws.export(src.as_ref(), &dest, &mut |_| {}))
            .map_err(py_err)?;
        Ok(stats.items())
    }

    /// Copies the objects under `url` (`s3://bucket/prefix`) into the folder `dest`, all or
    /// nothing. `store`: `endpoint`, `region`, `access_key_id`, `secret_access_key`,
    /// `allow_http`; unset, the host's AWS variables and secret store.
    #[pyo3(signature = (url, dest = "/workspace", **store))]
    fn import_bucket(
        &self,
        py: Python<'_>,
        url: &str,
        dest: &str,
        store: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<BucketStats> {
        let config = buckets::config(store)?;
        let dest = self.ws.resolve(dest);
        py.detach(|| computer_bucket::import_blocking(&self.ws, url, &dest, &config, &mut |_| {}))
            .map(BucketStats::from)
            .map_err(buckets::bucket_err)
    }

    /// Copies the folder `src` to `url` (`s3://bucket/prefix`), uploading only what changed;
    /// with `delete=True`, objects under the prefix that `src` does not hold are removed.
    #[pyo3(signature = (src, url, *, delete = false, **store))]
    fn export_bucket(
        &self,
        py: Python<'_>,
        src: &str,
        url: &str,
        delete: bool,
        store: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<BucketStats> {
        let config = buckets::config(store)?;
        let src = self.ws.resolve(src);
        py.detach(|| {
            computer_bucket::export_blocking(&self.ws, &src, url, delete, &config, &mut |_| {})
        })
        .map(BucketStats::from)
        .map_err(buckets::bucket_err)
    }

    /// Uploads snapshot `name` (taken now if there is none) to `url` as content-addressed
    /// chunks, sending only those the bucket lacks: a dict of counts.
    #[pyo3(signature = (name, url, **store))]
    fn push_snapshot<'py>(
        &self,
        py: Python<'py>,
        name: &str,
        url: &str,
        store: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let config = buckets::config(store)?;
        let stats = py
            .detach(|| computer_bucket::push_blocking(&self.ws, name, url, &config))
            .map_err(buckets::bucket_err)?;
        buckets::push_stats(py, &stats)
    }

    /// A new workspace file at `path` rebuilt from snapshot `name` in `url` (every chunk's
    /// hash checked).
    #[staticmethod]
    #[pyo3(signature = (name, url, path, **store))]
    fn pull_snapshot(
        py: Python<'_>,
        name: &str,
        url: &str,
        path: std::path::PathBuf,
        store: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Workspace> {
        let config = buckets::config(store)?;
        let ws = py
            .detach(|| computer_bucket::pull_blocking(name, url, &path, &config))
            .map_err(buckets::bucket_err)?;
        Workspace::wrap(py, ws)
    }

    /// The agent tools over this workspace (only the reading ones with `read_only=True`).
    #[pyo3(signature = (read_only = false))]
    fn tools(&self, read_only: bool) -> Tools {
        let kit = computer_tools::Toolkit::new(self.ws.clone()).with_origin("python");
        Tools(Arc::new(if read_only { kit.read_only() } else { kit }))
    }

    /// The workspace file's path (`None` in memory).
    #[getter]
    fn path(&self) -> Option<String> {
        let path = self.ws.fs().location()?;
        Some(path.to_string_lossy().into_owned())
    }

    fn __repr__(&self) -> String {
        match self.ws.fs().location() {
            Some(p) => format!("Workspace({:?})", p.display().to_string()),
            None => "Workspace(memory)".into(),
        }
    }
}
