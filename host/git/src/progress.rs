//! Network operations on their own thread: progress polled from gix's progress tree, and a
//! time limit that holds even when a hostile server stops answering (a blocked socket read
//! does not see gix's interrupt flag, so the caller stops waiting and the thread is left to
//! end when the socket does).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::cli::Invocation;

/// Runs `work` on a new thread with a gix progress item, reporting progress lines to the
/// invocation every 250 ms. `None` when it outlasted `limit` (it is interrupted and no
/// longer waited for).
pub(crate) fn run<T: Send + 'static>(
    inv: &Invocation<'_>,
    limit: Duration,
    work: impl FnOnce(gix::progress::tree::Item, &AtomicBool) -> T + Send + 'static,
) -> Option<T> {
    let root = gix::progress::tree::Root::new();
    let item = root.add_child("git");
    let interrupt = Arc::new(AtomicBool::new(false));
    let (tx, rx) = mpsc::channel();
    let flag = interrupt.clone();
    std::thread::spawn(move || {
        let _ = tx.send(work(item, &flag));
    });
    let start = Instant::now();
    let mut tasks = Vec::new();
    let mut last = String::new();
    loop {
        match rx.recv_timeout(Duration::from_millis(250)) {
            Ok(result) => return Some(result),
            Err(mpsc::RecvTimeoutError::Disconnected) => return None,
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
        if start.elapsed() > limit {
            interrupt.store(true, Ordering::Relaxed);
            // A moment to stop cleanly; after that the thread is on its own.
            return rx.recv_timeout(Duration::from_secs(2)).ok();
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
