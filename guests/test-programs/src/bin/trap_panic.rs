//! Panics: the run ends as a trap with the panic message on stderr.
fn main() {
    let v: Vec<u32> = Vec::new();
    let i = std::env::args().count() + 5;
    println!("about to fail");
    println!("{}", v[i]);
}
