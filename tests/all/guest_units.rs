//! The shell's own unit tests (`guests/shell-base`, `shell-utils`, `shell-interp`), built
//! natively: the guests are their own Cargo workspace (built for wasm32-wasip2 by
//! `components/build.rs`), so `cargo test --workspace` reaches them through this test, which
//! runs them with the same cargo into a target directory of their own.

use std::path::Path;
use std::process::Command;

#[test]
fn the_shell_crates_pass_their_unit_tests_natively() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("../guests-native");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["test", "--manifest-path"])
        .arg(root.join("guests/Cargo.toml"))
        .args(["-p", "shell-base", "-p", "shell-utils"])
        .args(["-p", "shell-interp"])
        .arg("--target-dir")
        .arg(&target)
        // The outer build's settings are not the guests' (their own profile and target).
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_BUILD_TARGET")
        .output()
        .expect("run cargo");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    // Show the inner runs' counts (or failures) in this test's output.
    for line in stdout
        .lines()
        .filter(|l| l.starts_with("test result") || l.contains("FAILED"))
    {
        println!("{line}");
    }
    assert!(
        out.status.success(),
        "the shell's unit tests failed:\n{stdout}\n{stderr}"
    );
    let passed: usize = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("test result: ok. "))
        .filter_map(|l| l.split(' ').next()?.parse::<usize>().ok())
        .sum();
    assert!(passed >= 50, "only {passed} unit tests ran:\n{stdout}");
}
