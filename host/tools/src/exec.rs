//! The `exec` tool: its arguments, how they become an [`ExecRequest`] (shared with the HTTP
//! API's exec), and the text a model reads back.

use crate::Content;
use crate::tool::{Tool, text};
use computer::{Backend, ExecOutput, ExecRequest, Workspace};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::{CallContext, ToolError, ToolLimits, Toolkit};

/// `exec`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExecArgs {
    /// Bash source to run.
    pub command: String,
    /// Where to run it: `auto` (the default: the isolate, and programs it lacks in the
    /// container), `isolate` (instant; built-in bash and coreutils, grep, sed, awk, jq, tar),
    /// or `container` (the whole command in a Linux container: python3, git, gcc, make).
    #[serde(default)]
    pub backend: Option<String>,
    /// Working directory (default `/workspace`).
    #[serde(default)]
    pub cwd: Option<String>,
    /// Environment variables.
    #[serde(default)]
    pub env: Option<std::collections::BTreeMap<String, String>>,
    /// Standard input.
    #[serde(default)]
    pub stdin: Option<String>,
    /// Seconds before the command is stopped (status 124).
    #[serde(default)]
    pub timeout: Option<f64>,
    /// Start it and return at once with a job number; follow it with the `job` tool (for
    /// servers, watchers, long builds).
    #[serde(default)]
    pub background: Option<bool>,
}

pub(crate) const DESCRIPTION: &str = "Run a bash command in the workspace (/workspace). \
By default (`auto`) it runs in an instant bash-compatible shell with coreutils, grep, sed, awk, \
find, jq, yq, tar, zip, diff, patch and bc built in, and any other program (python3, git, \
gcc, make, pip) runs by itself in a Linux container that sees the same files; pipelines can \
mix both. `backend: container` runs the whole command in the container (no network there). \
Output is capped; the result says when it was cut or which limit stopped the command. \
`background: true` starts it and returns a job number at once: follow it with the `job` tool.";

impl ExecArgs {
    /// The request these arguments ask for, on `ws` (a relative cwd resolves against
    /// `/workspace`).
    /// A `timeout` above `limits.max_exec_timeout` is refused.
    pub fn request(self, ws: &Workspace, limits: &ToolLimits) -> Result<ExecRequest, ToolError> {
        let invalid = |reason: String| ToolError::InvalidArgs {
            tool: "exec".into(),
            reason,
        };
        let backend: Backend = self
            .backend
            .as_deref()
            .unwrap_or("auto")
            .parse()
            .map_err(invalid)?;
        let mut req = ExecRequest::script(self.command).backend(backend);
        if let Some(cwd) = self.cwd {
            req = req.cwd(ws.resolve(cwd).to_string_lossy().into_owned());
        }
        for (k, v) in self.env.unwrap_or_default() {
            req = req.env(k, v);
        }
        if let Some(input) = self.stdin {
            req = req.stdin(input.into_bytes());
        }
        if let Some(t) = self.timeout {
            if !(t > 0.0 && t.is_finite()) {
                return Err(invalid(format!(
                    "timeout {t}: must be a positive number of seconds"
                )));
            }
            let max = limits.max_exec_timeout;
            if t > max.as_secs_f64() {
                return Err(ToolError::Limit(format!(
                    "timeout {t} s is over the limit of {} s (the server's max_exec_timeout)",
                    max.as_secs_f64()
                )));
            }
            let mut run_limits = req.limits;
            run_limits.timeout = std::time::Duration::from_secs_f64(t);
            req = req.limits(run_limits);
        }
        Ok(req)
    }
}

pub(crate) fn exec(
    kit: &Toolkit,
    args: ExecArgs,
    context: CallContext,
) -> Result<String, ToolError> {
    let background = args.background == Some(true);
    let mut req = args.request(&kit.ws, &kit.limits)?;
    if background {
        let job = kit.ws.spawn(req)?;
        return Ok(format!(
            "started job {}: follow it with the job tool ({{\"id\": {}}})\n",
            job.id(),
            job.id()
        ));
    }
    if let Some(cancel) = context.cancel {
        req.cancel = cancel;
    }
    let _slot = kit.exec_slots.as_ref().map(|s| s.acquire()).transpose()?;
    let out = kit.ws.exec_streaming(req, context.on_output)?;
    Ok(render(&out, kit.limits.exec_output))
}

/// The status and both streams, each cut at `cap` bytes with a marker that says so.
fn render(out: &ExecOutput, cap: usize) -> String {
    let mut text = format!("exit status {}\n", out.status);
    for (label, data) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
        if data.is_empty() {
            continue;
        }
        text.push_str(&format!("--- {label} ---\n"));
        let shown = &data[..data.len().min(cap)];
        text.push_str(&String::from_utf8_lossy(shown));
        if data.len() > cap {
            text.push_str(&format!(
                "\n[{label} cut: {} bytes, the tool returns the first {cap}]\n",
                data.len()
            ));
        } else if !text.ends_with('\n') {
            text.push('\n');
        }
    }
    text
}

impl Tool for ExecArgs {
    const NAME: &'static str = "exec";
    const DESCRIPTION: &'static str = DESCRIPTION;
    const WRITES: bool = true;

    fn call(self, kit: &Toolkit, context: CallContext) -> Result<Vec<Content>, ToolError> {
        text(exec(kit, self, context))
    }
}
