//! Limits of one execution: each has a default and a name that appears in the error when hit.

use std::time::Duration;

/// The limits of one execution.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Wall-clock time for the whole run. Default 60 s.
    pub timeout: Duration,
    /// Linear memory of the guest (all memories together), in bytes. Default 512 MiB.
    pub memory: u64,
    /// Bytes the guest may write to stdout and stderr (each). Default 16 MiB.
    pub output: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            timeout: Duration::from_secs(60),
            memory: 512 << 20,
            output: 16 << 20,
        }
    }
}

/// Which limit stopped a guest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitHit {
    /// The wall-clock timeout.
    Timeout(Duration),
    /// The memory limit, in bytes.
    Memory(u64),
    /// The output limit, in bytes.
    Output(u64),
    /// The runtime's limit on instances alive at once (`IsolateConfig::max_instances`).
    Instances(u32),
}

impl std::fmt::Display for LimitHit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LimitHit::Timeout(t) => write!(f, "time limit of {:.3} s exceeded", t.as_secs_f64()),
            LimitHit::Memory(m) => write!(f, "memory limit of {} MiB exceeded", m >> 20),
            LimitHit::Output(o) => write!(f, "output limit of {o} bytes exceeded"),
            LimitHit::Instances(n) => write!(
                f,
                "limit of {n} isolates running at once reached (IsolateConfig::max_instances); \
                 try again when others have finished"
            ),
        }
    }
}

/// A `ResourceLimiter` that refuses memory growth past the limit and remembers that it did
/// (a guest usually dies of the failed allocation, and we want to say why). The limit is on
/// all the instance's linear memories together: a component may have several.
#[derive(Debug)]
pub(crate) struct MemoryLimiter {
    pub(crate) limit: u64,
    pub(crate) hit: bool,
    /// Bytes of every linear memory of the store so far.
    pub(crate) total: u64,
}

impl MemoryLimiter {
    pub(crate) fn new(limit: u64) -> MemoryLimiter {
        MemoryLimiter {
            limit,
            hit: false,
            total: 0,
        }
    }
}

impl wasmtime::ResourceLimiter for MemoryLimiter {
    fn memory_growing(
        &mut self,
        current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        let grown = (desired as u64).saturating_sub(current as u64);
        let total = self.total.saturating_add(grown);
        if total > self.limit {
            self.hit = true;
            return Ok(false);
        }
        self.total = total;
        Ok(true)
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        Ok(desired <= 1_000_000)
    }
}

#[cfg(test)]
mod tests {
    use wasmtime::ResourceLimiter;

    use super::MemoryLimiter;

    #[test]
    fn the_memory_limit_counts_every_linear_memory() {
        let mut limiter = MemoryLimiter::new(64 << 20);
        // Two memories of 40 MiB each: the second one is over the limit of the instance.
        assert!(limiter.memory_growing(0, 40 << 20, None).unwrap());
        assert!(!limiter.memory_growing(0, 40 << 20, None).unwrap());
        assert!(limiter.hit);
        // Growth is counted from where a memory is: 40 → 60 MiB fits.
        assert!(limiter.memory_growing(40 << 20, 60 << 20, None).unwrap());
        assert!(!limiter.memory_growing(0, 8 << 20, None).unwrap());
    }
}
