//! Spins forever: the timeout must stop it.
fn main() {
    let mut x: u64 = 0;
    loop {
        x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(7));
    }
}
