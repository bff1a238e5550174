//! The `job` tool: background commands started by `exec` with `background: true`. Each call
//! on a job returns its status and the output written since the previous call on it (the
//! job keeps that read position, so it holds across the HTTP server's requests); it can
//! wait for the job or kill it.

use crate::tool::{Tool, text};
use crate::{CallContext, Content};
use std::time::Duration;

use computer::isolate::RunStatus;
use computer::{Job, JobStatus};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::{ToolError, Toolkit};

/// Longest wait one call may ask for, in seconds.
pub const MAX_WAIT_SECS: f64 = 600.0;

/// `job`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct JobArgs {
    /// The job's number (from `exec` with `background: true`); without it, every job is
    /// listed.
    #[serde(default)]
    pub id: Option<u64>,
    /// Seconds to wait for the job to end before answering (default 0; at most 600).
    #[serde(default)]
    pub wait: Option<f64>,
    /// Stop the job and every process it started.
    #[serde(default)]
    pub kill: Option<bool>,
}

pub(crate) const DESCRIPTION: &str = "Follow a background command started by `exec` with \
`background: true`: its status and the output it wrote since your previous `job` call on it. \
`wait` (seconds) waits for it to end first; `kill: true` stops it. Without `id`, lists every \
job. Jobs live as long as the server that runs them (in a cluster, a job whose node stopped \
serving the workspace is listed as lost).";

fn status_line(job: &Job) -> String {
    let status = match job.status() {
        JobStatus::Running => "running".to_string(),
        JobStatus::Ended { status, ended } => match ended {
            RunStatus::Exited(_) => format!("exit status {status}"),
            RunStatus::Cancelled => format!("killed (status {status})"),
            RunStatus::Limit(limit) => format!("stopped by a limit: {limit} (status {status})"),
            RunStatus::Trapped(why) => format!("crashed: {why} (status {status})"),
        },
        JobStatus::Failed(why) => format!("could not run: {why}"),
        JobStatus::Lost(why) => format!("lost: {why}"),
    };
    format!("job {}: {status}: {}", job.id(), job.command())
}

pub(crate) fn job(kit: &Toolkit, args: JobArgs) -> Result<String, ToolError> {
    let invalid = |reason: String| ToolError::InvalidArgs {
        tool: "job".into(),
        reason,
    };
    let Some(id) = args.id else {
        if args.wait.is_some() || args.kill.is_some() {
            return Err(invalid("`wait` and `kill` need an `id`".into()));
        }
        let jobs = kit.ws.jobs();
        if jobs.is_empty() {
            return Ok("no jobs\n".into());
        }
        return Ok(jobs.iter().map(|j| status_line(j) + "\n").collect());
    };
    let job = kit
        .ws
        .job(id)
        .ok_or_else(|| ToolError::NotFound(format!("job {id}: no such job")))?;
    if args.kill == Some(true) {
        job.kill();
        job.wait(Duration::from_secs(10));
    }
    if let Some(wait) = args.wait {
        if !(wait >= 0.0 && wait.is_finite()) {
            return Err(invalid(format!(
                "wait {wait}: must be a number of seconds, 0 or more"
            )));
        }
        job.wait(Duration::from_secs_f64(wait.min(MAX_WAIT_SECS)));
    }
    // The status first: output read after it is complete when it says the job ended.
    let mut text = status_line(&job) + "\n";
    let logs = job.read_new(kit.limits.exec_output);
    if logs.skipped > 0 {
        text.push_str(&format!(
            "[{} bytes not kept: a job keeps the latest {} of each stream]\n",
            logs.skipped,
            computer::JOB_LOG_BYTES
        ));
    }
    for (label, data) in [("stdout", &logs.stdout), ("stderr", &logs.stderr)] {
        if data.is_empty() {
            continue;
        }
        text.push_str(&format!("--- {label} ---\n"));
        text.push_str(&String::from_utf8_lossy(data));
        if !text.ends_with('\n') {
            text.push('\n');
        }
    }
    if logs.remaining > 0 {
        text.push_str(&format!(
            "[{} more bytes of output: call again for them]\n",
            logs.remaining
        ));
    }
    Ok(text)
}

impl Tool for JobArgs {
    const NAME: &'static str = "job";
    const DESCRIPTION: &'static str = DESCRIPTION;
    const WRITES: bool = true;

    fn call(self, kit: &Toolkit, _: CallContext) -> Result<Vec<Content>, ToolError> {
        text(job(kit, self))
    }
}
