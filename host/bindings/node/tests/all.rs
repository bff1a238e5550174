//! Runs the Node.js package's tests (`node --test tests/*.test.js`) against the addon cargo
//! just built, laid out as the package (index.js, index.d.ts, computer.node) in a temporary
//! folder, and type-checks index.d.ts with tsc (Debian's node-typescript). Without node or
//! tsc the test says so and passes, except in CI (`CI` set), where it fails.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The addon cargo built with this test (it stays in target/<profile>/deps).
fn addon() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    let deps = exe.parent().expect("target/<profile>/deps/<test>");
    [
        deps.join("libcomputer_node.so"),
        deps.join("../libcomputer_node.so"),
    ]
    .into_iter()
    .find(|p| p.exists())
    .expect("libcomputer_node.so is missing: cargo builds it with this test")
}

fn have(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn required(what: &str) {
    assert!(std::env::var_os("CI").is_none(), "CI needs {what}");
    println!("skipped: {what} is not here");
}

fn containers_here() -> bool {
    let docker = Command::new("docker")
        .arg("info")
        .output()
        .is_ok_and(|o| o.status.success());
    let root = std::fs::read_to_string("/proc/self/status")
        .is_ok_and(|s| s.lines().any(|l| l.starts_with("Uid:\t0\t")));
    let here = docker && root && Path::new("/dev/fuse").exists();
    if !here {
        required("Docker, FUSE and root for the container step");
    }
    here
}

#[test]
fn node_suite_passes() {
    if !have("node") {
        return required("node (Node.js 18 or later)");
    }
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tmp = tempfile::tempdir().unwrap();
    for file in ["index.js", "index.d.ts"] {
        std::fs::copy(crate_dir.join(file), tmp.path().join(file)).unwrap();
    }
    std::fs::copy(addon(), tmp.path().join("computer.node")).unwrap();
    let out = Command::new("node")
        .arg("--test")
        .arg(crate_dir.join("tests/workspace.test.js"))
        .env("COMPUTER_NODE_PACKAGE", tmp.path())
        .env(
            "COMPUTER_CONTAINERS",
            if containers_here() { "1" } else { "0" },
        )
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "node --test failed:\n{stdout}");
    assert!(stdout.contains("# fail 0"), "{stdout}");
}

#[test]
fn index_d_ts_type_checks() {
    if !have("tsc") {
        return required("tsc (Debian's node-typescript)");
    }
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new("tsc")
        .args(["--noEmit", "--strict", "--lib", "es2020,dom"])
        .arg(crate_dir.join("tests/usage.ts"))
        .output()
        .expect("tsc runs");
    assert!(
        out.status.success(),
        "tsc:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
