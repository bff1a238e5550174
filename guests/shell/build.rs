//! Links the shell with a 4 MiB stack in its linear memory (Rust's default for wasm is
//! 1 MiB): deep recursion in scripts (functions, awk functions, nested substitutions) then
//! stops at the shell's own named depth limits or the host's stack limit, not by running
//! the stack into the heap.

fn main() {
    println!("cargo:rustc-link-arg-bins=-zstack-size=4194304");
}
