//! `computer-exec`: what every execution backend shares, so that backends implement one
//! trait and never know each other. A guest (or the workspace's exec router) hands an
//! [`ExecCommand`] to an [`ExecHandler`]; the isolate, the container backend and workspace
//! components each implement it, and the router chains them (`auto`: the shell, then
//! components, then the container).
//!
//! No wasmtime, no Docker: only the request, its input, its deadline, the output streams,
//! cancellation and the errors.

mod stdin;

pub use stdin::{PIPE_CHUNKS, Stdin, StdinReader, StdinWriter};

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Which output stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    /// Standard output.
    Stdout,
    /// Standard error.
    Stderr,
}

/// Receives output while the guest runs.
pub type OutputSink = Arc<dyn Fn(Stream, &[u8]) + Send + Sync>;

/// When a run's time is up. A backend that spends time getting ready before a command of the
/// guest's starts (building an image, starting a container) gives that time back with
/// [`Deadline::extend`]: setting a backend up once is not the command's time.
#[derive(Debug, Clone)]
pub struct Deadline {
    start: Instant,
    /// Nanoseconds from `start`; only ever grows.
    at: Arc<AtomicU64>,
}

impl Deadline {
    /// A deadline `limit` from now.
    pub fn after(limit: Duration) -> Deadline {
        Deadline {
            start: Instant::now(),
            at: Arc::new(AtomicU64::new(nanos(limit))),
        }
    }

    /// The instant the time is up.
    pub fn at(&self) -> Instant {
        self.start + Duration::from_nanos(self.at.load(Ordering::SeqCst))
    }

    /// Time left (zero once passed).
    pub fn left(&self) -> Duration {
        self.at().saturating_duration_since(Instant::now())
    }

    /// Whether the time is up.
    pub fn passed(&self) -> bool {
        Instant::now() >= self.at()
    }

    /// Moves the deadline `by` later.
    pub fn extend(&self, by: Duration) {
        self.at.fetch_add(nanos(by), Ordering::SeqCst);
    }

    /// Runs `f` with the clock stopped: the time it takes (a backend getting ready, an image
    /// built on first use) does not count, and nobody watching the deadline sees it pass
    /// meanwhile (moving it only afterwards would come too late for them).
    pub fn paused<T>(&self, f: impl FnOnce() -> T) -> T {
        const HOLD: Duration = Duration::from_secs(24 * 3600);
        self.extend(HOLD);
        let start = Instant::now();
        let out = f();
        let unused = HOLD.saturating_sub(start.elapsed());
        self.at.fetch_sub(nanos(unused), Ordering::SeqCst);
        out
    }
}

fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX / 2)
}

/// A command a guest asked to run, with paths and limits already resolved by the host.
#[derive(Debug, Clone)]
pub struct ExecCommand {
    /// Program and arguments (empty when `source` is set).
    pub argv: Vec<String>,
    /// Shell source to run instead of `argv`.
    pub source: Option<String>,
    /// Absolute working directory.
    pub cwd: String,
    /// The whole environment.
    pub env: Vec<(String, String)>,
    /// Standard input: bytes, or a stream its caller writes while it runs.
    pub stdin: Stdin,
    /// The backend asked for (`None`: automatic).
    pub backend: Option<String>,
    /// Time the command may take: the guest's request, capped by what the guest has left.
    pub timeout: Duration,
    /// The guest's own deadline: a backend gives back here the time it spent getting ready
    /// before the command started (see [`Deadline::extend`]).
    pub deadline: Deadline,
}

/// Why a command could not run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExecError {
    /// No backend has the program.
    NotFound(String),
    /// The backend cannot be used now.
    Unavailable(String),
    /// A host limit was hit.
    Limit(String),
    /// The request is invalid.
    Invalid(String),
}

/// A cancellation flag shared between a caller and a running command. A child token is
/// cancelled when it or any of its parents is.
#[derive(Debug, Clone, Default)]
pub struct CancelToken(Arc<CancelInner>);

#[derive(Debug, Default)]
struct CancelInner {
    flag: AtomicBool,
    parent: Option<CancelToken>,
}

impl CancelToken {
    /// A new, not cancelled token.
    pub fn new() -> CancelToken {
        CancelToken::default()
    }

    /// A token cancelled by its own `cancel` and by this one's.
    pub fn child(&self) -> CancelToken {
        CancelToken(Arc::new(CancelInner {
            flag: AtomicBool::new(false),
            parent: Some(self.clone()),
        }))
    }

    /// Asks the command to stop.
    pub fn cancel(&self) {
        self.0.flag.store(true, Ordering::SeqCst);
    }

    /// Whether this token or a parent was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.0.flag.load(Ordering::SeqCst) || self.0.parent.as_ref().is_some_and(Self::is_cancelled)
    }
}

/// Runs commands for guests. Implementations must stop soon after `cancel` is set.
pub trait ExecHandler: Send + Sync + 'static {
    /// Runs `cmd` to completion, handing its output to `sink` as it comes; returns the status.
    fn run(
        &self,
        cmd: ExecCommand,
        sink: &(dyn Fn(Stream, &[u8]) + Send + Sync),
        cancel: &CancelToken,
    ) -> Result<i32, ExecError>;
}

/// The handler of a runtime with no backends: every command is "not found".
#[derive(Debug, Default)]
pub struct NoBackends;

impl ExecHandler for NoBackends {
    fn run(
        &self,
        cmd: ExecCommand,
        _sink: &(dyn Fn(Stream, &[u8]) + Send + Sync),
        _cancel: &CancelToken,
    ) -> Result<i32, ExecError> {
        let what = cmd.argv.first().cloned().or(cmd.source).unwrap_or_default();
        Err(ExecError::NotFound(format!(
            "{what}: no backend can run it"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::Deadline;
    use std::time::Duration;

    #[test]
    fn a_paused_clock_does_not_run() {
        let d = Deadline::after(Duration::from_millis(300));
        let passed_meanwhile = d.paused(|| {
            std::thread::sleep(Duration::from_millis(500));
            d.passed()
        });
        assert!(
            !passed_meanwhile,
            "the deadline passed while the clock was stopped"
        );
        assert!(!d.passed(), "the time spent paused was counted");
        std::thread::sleep(d.left() + Duration::from_millis(10));
        assert!(d.passed(), "the clock did not run again");
    }
}
