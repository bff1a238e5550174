//! Background commands ([`Workspace::spawn`]): an exec started and left running on any
//! backend, its output kept as it is written (the latest [`JOB_LOG_BYTES`] of each stream)
//! and read from any offset, waited for with a time limit, killed. A job lives as long as
//! the process that started it (a server, an embedder); its limits are its request's (a
//! container command's time limit is at most an hour).

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant, SystemTime};

use computer_isolate::{CancelToken, RunStatus, Stream};

use crate::error::{Error, Result};
use crate::exec::{ExecRequest, Program};
use crate::lock;
use crate::workspace::Workspace;

/// Jobs of one workspace running at once, at most.
pub const MAX_RUNNING_JOBS: usize = 16;
/// Bytes of each stream a job keeps: the latest, older bytes are dropped (and counted).
pub const JOB_LOG_BYTES: usize = 1 << 20;
/// Ended jobs remembered (the oldest are forgotten first).
const ENDED_KEPT: usize = 64;

/// Where a job stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JobStatus {
    /// Still running.
    Running,
    /// Ended: the status a shell would report, and why it ended.
    Ended {
        /// Exit status (124 after its time limit, 130 when killed).
        status: i32,
        /// Exited, a limit, cancelled (killed), a crash.
        ended: RunStatus,
    },
    /// Could not run at all (no container engine, a bad request).
    Failed(String),
    /// Ran on another host that stopped serving the workspace before the job ended (a
    /// cluster's node that shut down, died or lost its lease): how it ended is not known.
    Lost(String),
}

/// Positions in a job's two output streams (bytes written since it started).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LogCursor {
    /// Offset in standard output.
    pub stdout: u64,
    /// Offset in standard error.
    pub stderr: u64,
}

/// Output read from a job.
#[derive(Debug, Clone, Default)]
pub struct JobLogs {
    /// Standard output from the cursor on.
    pub stdout: Vec<u8>,
    /// Standard error from the cursor on.
    pub stderr: Vec<u8>,
    /// Where the next read starts.
    pub next: LogCursor,
    /// Bytes between the cursor and what is still kept (dropped by the log limit).
    pub skipped: u64,
    /// Bytes written after what was returned, left for the next read ([`Job::read_new`]).
    pub remaining: u64,
}

/// One stream's latest bytes and the offset of the first one kept.
#[derive(Default)]
struct Log {
    kept: VecDeque<u8>,
    start: u64,
}

impl Log {
    fn push(&mut self, data: &[u8]) {
        self.kept.extend(data);
        let over = self.kept.len().saturating_sub(JOB_LOG_BYTES);
        self.kept.drain(..over);
        self.start += over as u64;
    }

    /// Bytes from `from` on, where the next read starts, and how many were no longer kept.
    fn read(&self, from: u64) -> (Vec<u8>, u64, u64) {
        let end = self.start + self.kept.len() as u64;
        let from = from.min(end);
        let skipped = self.start.saturating_sub(from);
        let skip = usize::try_from(from.saturating_sub(self.start)).unwrap_or(usize::MAX);
        (self.kept.iter().skip(skip).copied().collect(), end, skipped)
    }
}

#[derive(Default)]
struct JobState {
    stdout: Log,
    stderr: Log,
    status: Option<JobStatus>,
}

struct JobInner {
    id: u64,
    command: String,
    started: SystemTime,
    cancel: CancelToken,
    state: Mutex<JobState>,
    ended: Condvar,
    /// The read position of [`Job::read_new`].
    followed: Mutex<LogCursor>,
}

/// A handle on a background command; clones share it.
#[derive(Clone)]
pub struct Job(Arc<JobInner>);

impl std::fmt::Debug for Job {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Job")
            .field("id", &self.0.id)
            .field("command", &self.0.command)
            .field("status", &self.status())
            .finish()
    }
}

impl Job {
    /// Its number in the workspace (from 1).
    pub fn id(&self) -> u64 {
        self.0.id
    }

    /// The command line it runs, as given.
    pub fn command(&self) -> &str {
        &self.0.command
    }

    /// When it started.
    pub fn started(&self) -> SystemTime {
        self.0.started
    }

    /// Where it stands.
    pub fn status(&self) -> JobStatus {
        lock(&self.0.state)
            .status
            .clone()
            .unwrap_or(JobStatus::Running)
    }

    /// Its output from `from` on.
    pub fn logs(&self, from: LogCursor) -> JobLogs {
        let state = lock(&self.0.state);
        let (stdout, out_next, out_skipped) = state.stdout.read(from.stdout);
        let (stderr, err_next, err_skipped) = state.stderr.read(from.stderr);
        JobLogs {
            stdout,
            stderr,
            next: LogCursor {
                stdout: out_next,
                stderr: err_next,
            },
            skipped: out_skipped + err_skipped,
            remaining: 0,
        }
    }

    /// The output written since the previous call, at most `max` bytes of each stream (the
    /// rest comes with the next call). The job keeps this read position, shared by every
    /// handle: it serves one follower, such as an agent's `job` tool across requests.
    pub fn read_new(&self, max: usize) -> JobLogs {
        let mut followed = lock(&self.0.followed);
        let mut logs = self.logs(*followed);
        for (data, next) in [
            (&mut logs.stdout, &mut logs.next.stdout),
            (&mut logs.stderr, &mut logs.next.stderr),
        ] {
            let left = data.len().saturating_sub(max);
            data.truncate(max);
            *next -= left as u64;
            logs.remaining += left as u64;
        }
        *followed = logs.next;
        logs
    }

    /// Waits up to `timeout` for it to end; its status then (`Running` if it still is).
    /// A timeout past what the clock holds (`Duration::MAX`) waits for the end.
    pub fn wait(&self, timeout: Duration) -> JobStatus {
        let deadline = Instant::now().checked_add(timeout);
        let mut state = lock(&self.0.state);
        loop {
            if let Some(status) = &state.status {
                return status.clone();
            }
            let Some(deadline) = deadline else {
                state = self.0.ended.wait(state).unwrap_or_else(|e| e.into_inner());
                continue;
            };
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return JobStatus::Running;
            }
            state = self
                .0
                .ended
                .wait_timeout(state, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }

    /// Stops it (every process of it, in a container); [`Job::wait`] sees it end.
    pub fn kill(&self) {
        self.0.cancel.cancel();
    }

    fn write(&self, stream: Stream, data: &[u8]) {
        let mut state = lock(&self.0.state);
        match stream {
            Stream::Stdout => state.stdout.push(data),
            Stream::Stderr => state.stderr.push(data),
        }
    }

    fn end(&self, status: JobStatus) {
        lock(&self.0.state).status = Some(status);
        self.0.ended.notify_all();
    }
}

/// The jobs of one workspace.
#[derive(Default)]
pub(crate) struct Jobs {
    next: Mutex<u64>,
    all: Mutex<BTreeMap<u64, Job>>,
}

impl std::fmt::Debug for Jobs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Jobs").finish_non_exhaustive()
    }
}

fn describe(program: &Program) -> String {
    match program {
        Program::Script(s) => s.clone(),
        Program::Argv(argv) | Program::Shell(argv) => argv.join(" "),
    }
}

impl Workspace {
    /// Starts `req` in the background and returns at once. Its output is kept as it comes
    /// ([`Job::logs`]); [`Job::wait`] waits for it to end, [`Job::kill`] ends it. At most
    /// [`MAX_RUNNING_JOBS`] run at once.
    pub fn spawn(&self, mut req: ExecRequest) -> Result<Job> {
        let jobs = self.jobs_registry();
        let mut all = lock(&jobs.all);
        let running = all
            .values()
            .filter(|j| j.status() == JobStatus::Running)
            .count();
        if running >= MAX_RUNNING_JOBS {
            return Err(Error::Limit {
                limit: "jobs",
                message: format!(
                    "job limit: {MAX_RUNNING_JOBS} background commands already run in this workspace; wait for one or kill one"
                ),
            });
        }
        let id = {
            let mut next = lock(&jobs.next);
            *next += 1;
            *next
        };
        let job = Job(Arc::new(JobInner {
            id,
            command: describe(&req.program),
            started: SystemTime::now(),
            cancel: req.cancel.clone(),
            state: Mutex::default(),
            ended: Condvar::new(),
            followed: Mutex::default(),
        }));
        req.cancel = job.0.cancel.clone();
        let ws = self.clone();
        let runner = job.clone();
        std::thread::Builder::new()
            .name(format!("computer-job-{id}"))
            .spawn(move || {
                let writer = runner.clone();
                let sink = Arc::new(move |stream: Stream, data: &[u8]| writer.write(stream, data));
                // A panic must not leave the job "running" forever.
                let run = std::panic::AssertUnwindSafe(|| ws.exec_streaming(req, Some(sink)));
                let status = match std::panic::catch_unwind(run) {
                    Ok(Ok(out)) => JobStatus::Ended {
                        status: out.status,
                        ended: out.ended,
                    },
                    Ok(Err(e)) => JobStatus::Failed(e.to_string()),
                    Err(_) => JobStatus::Failed("the command's runner crashed".into()),
                };
                runner.end(status);
            })
            .map_err(|e| Error::Unavailable(format!("start a background command: {e}")))?;
        all.insert(id, job.clone());
        // Forget the oldest ended jobs beyond what is kept.
        let ended: Vec<u64> = all
            .iter()
            .filter(|(_, j)| j.status() != JobStatus::Running)
            .map(|(id, _)| *id)
            .collect();
        for old in ended.iter().take(ended.len().saturating_sub(ENDED_KEPT)) {
            all.remove(old);
        }
        Ok(job)
    }

    /// The job numbered `id`, if it is running or among the latest ended ones.
    pub fn job(&self, id: u64) -> Option<Job> {
        lock(&self.jobs_registry().all).get(&id).cloned()
    }

    /// The workspace's jobs: running ones and the latest ended ones, oldest first.
    pub fn jobs(&self) -> Vec<Job> {
        lock(&self.jobs_registry().all).values().cloned().collect()
    }

    /// The number the next job will take.
    pub fn next_job_id(&self) -> u64 {
        *lock(&self.jobs_registry().next) + 1
    }

    /// Kills every running job and waits up to `wait` for them to end (for a workspace about
    /// to leave this process: nothing of it may keep running). Returns the jobs it killed.
    pub fn kill_jobs(&self, wait: Duration) -> Vec<Job> {
        let running: Vec<Job> = self
            .jobs()
            .into_iter()
            .filter(|j| j.status() == JobStatus::Running)
            .collect();
        for job in &running {
            job.kill();
        }
        let deadline = Instant::now() + wait;
        for job in &running {
            job.wait(deadline.saturating_duration_since(Instant::now()));
        }
        running
    }

    /// Records jobs that ran elsewhere and were lost there ([`JobStatus::Lost`] with `why`),
    /// numbered as they were, and makes the next job's number at least `next`, so that a job
    /// number never names two jobs.
    pub fn record_lost_jobs(&self, lost: &[(u64, String)], why: &str, next: u64) {
        let jobs = self.jobs_registry();
        let mut all = lock(&jobs.all);
        let mut last = lock(&jobs.next);
        for (id, command) in lost {
            *last = (*last).max(*id);
            all.entry(*id).or_insert_with(|| {
                let job = Job(Arc::new(JobInner {
                    id: *id,
                    command: command.clone(),
                    started: SystemTime::now(),
                    cancel: CancelToken::default(),
                    state: Mutex::default(),
                    ended: Condvar::new(),
                    followed: Mutex::default(),
                }));
                job.end(JobStatus::Lost(why.to_string()));
                job
            });
        }
        *last = (*last).max(next.saturating_sub(1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_log_keeps_the_latest_bytes_and_reads_from_any_offset() {
        let mut log = Log::default();
        log.push(b"hello ");
        log.push(b"world");
        assert_eq!(log.read(0), (b"hello world".to_vec(), 11, 0));
        assert_eq!(log.read(6), (b"world".to_vec(), 11, 0));
        assert_eq!(log.read(11), (Vec::new(), 11, 0));
        // Past the end reads nothing, from the end.
        assert_eq!(log.read(50), (Vec::new(), 11, 0));
        // Beyond the limit the oldest bytes go, and a read from before them says so.
        log.push(&vec![b'x'; JOB_LOG_BYTES]);
        let (data, next, skipped) = log.read(0);
        assert_eq!(data.len(), JOB_LOG_BYTES);
        assert_eq!(next, 11 + JOB_LOG_BYTES as u64);
        assert_eq!(skipped, 11);
        assert!(data.iter().all(|&b| b == b'x'));
    }

    #[test]
    fn a_follower_reads_new_output_in_capped_pieces() {
        let ws = Workspace::in_memory().unwrap();
        let job = ws
            .spawn(ExecRequest::script("printf 'abcdef'; printf 'XY' >&2"))
            .unwrap();
        // A wait past what the clock holds (a binding's huge timeout) waits for the end.
        assert!(matches!(
            job.wait(Duration::MAX),
            JobStatus::Ended { status: 0, .. }
        ));
        let first = job.read_new(4);
        assert_eq!(
            (first.stdout.as_slice(), first.stderr.as_slice()),
            (&b"abcd"[..], &b"XY"[..])
        );
        assert_eq!(first.remaining, 2);
        // Another handle on the same job continues where the first read stopped.
        let again = ws.job(job.id()).unwrap().read_new(4);
        assert_eq!((again.stdout.as_slice(), again.remaining), (&b"ef"[..], 0));
        assert!(again.stderr.is_empty());
        assert!(job.read_new(4).stdout.is_empty());
        // Reads at an offset are independent of the follower.
        assert_eq!(job.logs(LogCursor::default()).stdout, b"abcdef");
    }
}
