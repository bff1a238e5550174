//! What the CLI's bench binaries share.

use std::time::{Duration, Instant};

/// The median wall time of `runs` calls of `f`.
pub fn median_of(runs: usize, mut f: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}
