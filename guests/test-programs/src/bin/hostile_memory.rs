//! Allocates without end: the memory limit must stop it.
fn main() {
    let mut hoard: Vec<Vec<u8>> = Vec::new();
    loop {
        hoard.push(vec![1u8; 16 << 20]);
        println!("holding {} MiB", hoard.len() * 16);
    }
}
