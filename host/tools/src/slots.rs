//! A limit on commands running at once across a server's workspaces: each `exec` takes a
//! place for as long as it runs, waits a while for one when all are taken, then is refused
//! with the limit named.

use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::ToolError;

/// Places for commands running at once.
#[derive(Debug)]
pub struct ExecSlots {
    max: usize,
    wait: Duration,
    used: Mutex<usize>,
    freed: Condvar,
}

/// One command's place; given back when dropped.
#[derive(Debug)]
pub struct ExecSlot(Arc<ExecSlots>);

impl ExecSlots {
    /// `max` places; a command waits up to `wait` for one.
    pub fn new(max: usize, wait: Duration) -> Arc<ExecSlots> {
        Arc::new(ExecSlots {
            max: max.max(1),
            wait,
            used: Mutex::new(0),
            freed: Condvar::new(),
        })
    }

    /// A place, waiting for one if need be (blocking this thread).
    pub fn acquire(self: &Arc<ExecSlots>) -> Result<ExecSlot, ToolError> {
        let deadline = Instant::now() + self.wait;
        let mut used = self.used.lock().unwrap_or_else(|e| e.into_inner());
        while *used >= self.max {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(ToolError::Busy(format!(
                    "{} commands are running on this server, its limit (max_concurrent_execs); \
                     waited {:.0} s for one to end: try again later",
                    self.max,
                    self.wait.as_secs_f64()
                )));
            }
            used = self
                .freed
                .wait_timeout(used, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        *used += 1;
        Ok(ExecSlot(Arc::clone(self)))
    }
}

impl Drop for ExecSlot {
    fn drop(&mut self) {
        let mut used = self.0.used.lock().unwrap_or_else(|e| e.into_inner());
        *used -= 1;
        self.0.freed.notify_one();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_place_past_the_limit_waits_then_is_refused() {
        let slots = ExecSlots::new(2, Duration::from_millis(100));
        let a = slots.acquire().unwrap();
        let _b = slots.acquire().unwrap();
        let err = slots.acquire().unwrap_err().to_string();
        assert!(err.contains("max_concurrent_execs"), "{err}");
        // A place given back while one waits goes to it.
        let waiter = {
            let slots = Arc::clone(&slots);
            std::thread::spawn(move || slots.acquire().map(drop))
        };
        std::thread::sleep(Duration::from_millis(20));
        drop(a);
        assert!(waiter.join().unwrap().is_ok());
    }
}
