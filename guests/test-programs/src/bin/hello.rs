//! The smallest guest: prints one line (used to measure instantiation).
fn main() {
    println!("hello from the isolate");
}
