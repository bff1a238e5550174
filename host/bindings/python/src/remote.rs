//! `Workspace.git` and `Workspace.net`: git on the workspace's repositories, and the
//! network policy that git, curl and the containers' programs meet.

use computer::Workspace;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::errors::{ComputerError, py_err};

/// Git on the workspace's repositories (run by the host, over the same files every backend
/// sees). Remotes on the network meet the workspace's policy (`ws.net.allow(...)`), as a
/// guest's git does.
#[pyclass(module = "computer", frozen)]
pub struct Git(pub Workspace);

/// What a git command printed, and its status.
#[pyclass(module = "computer", frozen, get_all)]
pub struct GitResult {
    /// Git's exit status.
    pub status: i32,
    /// What it printed on stdout.
    pub stdout: Py<PyBytes>,
    /// What it printed on stderr.
    pub stderr: Py<PyBytes>,
}

#[pymethods]
impl GitResult {
    /// Standard output as text.
    #[getter]
    fn text(&self, py: Python<'_>) -> String {
        String::from_utf8_lossy(self.stdout.as_bytes(py)).into_owned()
    }
}

#[pymethods]
impl Git {
    /// Runs `git ARGS` in `cwd` (a workspace directory) and returns what it printed.
    #[pyo3(signature = (args, *, cwd = "/workspace", env = None))]
    fn run(
        &self,
        py: Python<'_>,
        args: Vec<String>,
        cwd: &str,
        env: Option<Vec<(String, String)>>,
    ) -> PyResult<GitResult> {
        let env = env.unwrap_or_default();
        let out = py
            .detach(|| self.0.git_run(&args, cwd, &env))
            .map_err(py_err)?;
        Ok(GitResult {
            status: out.status,
            stdout: PyBytes::new(py, &out.stdout).unbind(),
            stderr: PyBytes::new(py, &out.stderr).unbind(),
        })
    }

    /// Clones `url` into the workspace directory `dest`; raises `ComputerError` with git's
    /// message when it fails.
    fn clone(&self, py: Python<'_>, url: String, dest: String) -> PyResult<()> {
        let out = self.run(py, vec!["clone".into(), url, dest], "/workspace", None)?;
        match out.status {
            0 => Ok(()),
            _ => Err(ComputerError::new_err(
                String::from_utf8_lossy(out.stderr.as_bytes(py))
                    .trim()
                    .to_string(),
            )),
        }
    }
}

/// The workspace's network egress policy: nothing is reachable until a rule allows it.
#[pyclass(module = "computer", frozen)]
pub struct Net(pub Workspace);

#[pymethods]
impl Net {
    /// Allows `rule` (`https://pypi.org`, `git://127.0.0.1:9418`, `all`...) for `methods`
    /// (all when none); the policy after the change, as text.
    #[pyo3(signature = (rule, methods = None))]
    fn allow(&self, rule: &str, methods: Option<Vec<String>>) -> PyResult<String> {
        let policy = self
            .0
            .net_allow(rule, &methods.unwrap_or_default())
            .map_err(py_err)?;
        Ok(policy.to_text())
    }

    /// Refuses `rule` even where an allow rule covers it (`all`: nothing allowed again).
    #[pyo3(signature = (rule, methods = None))]
    fn deny(&self, rule: &str, methods: Option<Vec<String>>) -> PyResult<String> {
        let policy = self
            .0
            .net_deny(rule, &methods.unwrap_or_default())
            .map_err(py_err)?;
        Ok(policy.to_text())
    }

    /// The policy as text: `all`, `allow RULE` and `deny RULE` lines (empty: nothing).
    fn policy(&self) -> PyResult<String> {
        Ok(self.0.net_policy().map_err(py_err)?.to_text())
    }
}
