//! Links the `computer` binary with packed relative relocations (DT_RELR) where the C library
//! can load them: its ~88,000 relocations of position-independent code otherwise take 2 MiB
//! of tables that the dynamic loader reads at every start. glibc reads DT_RELR from 2.36 on,
//! and the linker marks the binary as needing it (`GLIBC_ABI_DT_RELR`), so a binary linked
//! this way would not start on an older glibc: the flag is only given when the build machine
//! runs 2.36 or later and builds for itself.

use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let target = std::env::var("TARGET").unwrap_or_default();
    let host = std::env::var("HOST").unwrap_or_default();
    if target == host && target.ends_with("-linux-gnu") && glibc_at_least(2, 36) {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}

/// Whether this machine's glibc (`getconf GNU_LIBC_VERSION`: "glibc 2.36") is at least
/// `major.minor`; false when it cannot tell.
fn glibc_at_least(major: u32, minor: u32) -> bool {
    let Ok(out) = Command::new("getconf").arg("GNU_LIBC_VERSION").output() else {
        return false;
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let Some(version) = text.trim().strip_prefix("glibc ") else {
        return false;
    };
    let mut parts = version.split('.').map(|p| p.parse::<u32>().ok());
    match (parts.next().flatten(), parts.next().flatten()) {
        (Some(a), Some(b)) => (a, b) >= (major, minor),
        _ => false,
    }
}
