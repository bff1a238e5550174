//! Links the `computer` binary with packed relative relocations (DT_RELR): its ~88,000
//! relocations of position-independent code otherwise take 2 MiB of tables that the dynamic
//! loader reads at every start, about a fifth of a one-shot command's time. GNU ld leaves
//! them unpacked where the C library does not support it (glibc before 2.36).

fn main() {
    let target = std::env::var("TARGET").unwrap_or_default();
    if target.ends_with("-linux-gnu") {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}
