//! Network operations on their own thread: progress polled from gix's progress tree, and a
//! time limit (and the caller's own deadline and cancel) that holds even when a hostile server
//! stops answering: a blocked socket read does not see gix's interrupt flag, so the caller
//! stops waiting and the thread is left to end when the socket does. It keeps the
//! repository's lock until then (`hold`), so it never writes the host copy under another
//! operation.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::cli::Invocation;

/// Why network work was abandoned.
pub(crate) enum Abandoned {
    /// The network time limit.
    TimeLimit,
    /// The caller's command reached its deadline or was cancelled.
    Stopped,
}

/// Runs `work` on a new thread with a gix progress item, reporting progress lines to the
/// invocation every 250 ms; the thread owns `hold` (a clone of the repository's lock) until
/// it ends. `Err` when it outlasted `limit` or the caller stopped (it is interrupted and no
/// longer waited for).
pub(crate) fn run<T: Send + 'static>(
    inv: &Invocation<'_>,
    limit: Duration,
    hold: std::fs::File,
    work: impl FnOnce(gix::progress::tree::Item, &AtomicBool) -> T + Send + 'static,
) -> Result<T, Abandoned> {
    let root = gix::progress::tree::Root::new();
    let item = root.add_child("git");
    let interrupt = Arc::new(AtomicBool::new(false));
    let (tx, rx) = mpsc::channel();
    let flag = interrupt.clone();
    std::thread::spawn(move || {
        let _ = tx.send(work(item, &flag));
        drop(hold);
    });
    let start = Instant::now();
    let mut tasks = Vec::new();
    let mut last = String::new();
    loop {
        match rx.recv_timeout(Duration::from_millis(250)) {
            Ok(result) => return Ok(result),
            Err(mpsc::RecvTimeoutError::Disconnected) => return Err(Abandoned::TimeLimit),
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
        let why = if inv.stopped() {
            Some(Abandoned::Stopped)
        } else if start.elapsed() > limit {
            Some(Abandoned::TimeLimit)
        } else {
            None
        };
        if let Some(why) = why {
            interrupt.store(true, Ordering::Relaxed);
            // A moment to stop cleanly; after that the thread is on its own.
            return rx.recv_timeout(Duration::from_secs(2)).map_err(|_| why);
        }
        root.sorted_snapshot(&mut tasks);
        let line = describe(&tasks);
        if !line.is_empty() && line != last {
            inv.progress(&line);
            last = line;
        }
    }
}

/// The most specific running task with a count, as `name: step/total`.
fn describe(
    tasks: &[(
        gix::progress::prodash::progress::Key,
        gix::progress::prodash::progress::Task,
    )],
) -> String {
    tasks
        .iter()
        .rev()
        .find_map(|(_, task)| {
            let value = task.progress.as_ref()?;
            let step = value.step.load(Ordering::Relaxed);
            Some(match value.done_at {
                Some(total) if total > 0 => {
                    format!("{}: {}% ({step}/{total})", task.name, step * 100 / total)
                }
                _ => format!("{}: {step}", task.name),
            })
        })
        .unwrap_or_default()
}
