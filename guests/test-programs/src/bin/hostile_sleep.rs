//! Sleeps far longer than any timeout (waiting in the host, not spinning).
fn main() {
    std::thread::sleep(std::time::Duration::from_secs(3600));
}
