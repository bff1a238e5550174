//! Writes to stdout without end: the output limit must stop it.
use std::io::Write;

fn main() {
    let line = [b'y'; 4096];
    let mut out = std::io::stdout().lock();
    loop {
        if out.write_all(&line).is_err() {
            // A write error is also an acceptable end, but the host should have trapped us.
            std::process::exit(3);
        }
    }
}
