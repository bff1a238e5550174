//! Shared pieces of the integration tests and their helper processes.

/// Deterministic content for crash-test write number `i`; every 7th is larger than a chunk.
pub fn crash_data(i: u64) -> Vec<u8> {
    let len = if i.is_multiple_of(7) {
        300_000
    } else {
        100 + (i % 13) as usize * 50
    };
    (0..len).map(|j| (i as usize * 31 + j) as u8).collect()
}
