//! Threads that run streamed commands (`exec_stream`) while the caller reads their output.
//! Starting a thread per call cost about 200 µs (its stack, and the runtime's per-thread
//! setup on first use), twice a whole `exec("true")`; idle threads are kept and reused.

use std::sync::Mutex;
use std::sync::mpsc::{self, Sender};

/// A command to run; what it gives back delivers its result.
type Job = Box<dyn FnOnce() -> Box<dyn FnOnce()> + Send>;

/// Idle threads kept for the next calls (more than this many end when done).
const MAX_IDLE: usize = 16;

/// Idle workers, with the process they belong to: after a `fork()` (Python's
/// multiprocessing) the child has the list but not the threads, and must not send to them.
static IDLE: Mutex<Vec<(u32, Sender<Job>)>> = Mutex::new(Vec::new());

fn idle() -> std::sync::MutexGuard<'static, Vec<(u32, Sender<Job>)>> {
    IDLE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs `work` on an idle worker thread, or a new one, then hands its result to `deliver`.
/// The thread is back in the idle list before `deliver` runs: a caller that has its result
/// can fork without a worker holding the list's lock (the child would wait for it forever).
pub fn run<T: 'static>(
    work: impl FnOnce() -> T + Send + 'static,
    deliver: impl FnOnce(T) + Send + 'static,
) -> std::io::Result<()> {
    let mut job: Job = Box::new(move || {
        let out = work();
        Box::new(move || deliver(out))
    });
    // A worker that ended (past MAX_IDLE) is not in the list; one whose send fails is gone.
    let pid = std::process::id();
    while let Some((owner, worker)) = idle().pop() {
        if owner != pid {
            continue;
        }
        match worker.send(job) {
            Ok(()) => return Ok(()),
            Err(mpsc::SendError(back)) => job = back,
        }
    }
    let (tx, rx) = mpsc::channel::<Job>();
    let me = tx.clone();
    std::thread::Builder::new()
        .name("computer-exec".into())
        .spawn(move || {
            while let Ok(job) = rx.recv() {
                let deliver = job();
                let keep = {
                    let mut idle = idle();
                    let keep = idle.len() < MAX_IDLE;
                    if keep {
                        idle.push((pid, me.clone()));
                    }
                    keep
                };
                deliver();
                if !keep {
                    return;
                }
            }
        })?;
    tx.send(job)
        .map_err(|_| std::io::Error::other("a new worker thread ended at once"))
}
