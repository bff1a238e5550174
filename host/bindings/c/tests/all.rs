//! Builds `examples/scenario.c` with `cc` against the library cargo just built and
//! `include/computer.h`, and runs it: the bindings' shared scenario in C. The container
//! step runs where Docker and FUSE are here, and must in CI (`CI` set).

use std::path::{Path, PathBuf};
use std::process::Command;

/// Where cargo put `libcomputer.so` for this test: `target/<profile>/deps` (a library built
/// for tests stays there), or `target/<profile>` after a `cargo build`.
fn lib_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    let deps = exe.parent().expect("target/<profile>/deps/<test>");
    [deps.to_path_buf(), deps.join("..")]
        .into_iter()
        .find(|d| d.join("libcomputer.so").exists())
        .expect("libcomputer.so is missing: cargo builds it with this test")
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
        assert!(
            std::env::var_os("CI").is_none(),
            "CI needs Docker, FUSE and root for the container step"
        );
        println!("the container step is skipped: no Docker engine, /dev/fuse or root");
    }
    here
}

#[test]
fn c_scenario_passes() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lib_dir = lib_dir();
    let tmp = tempfile::tempdir().unwrap();
    let exe = tmp.path().join("scenario");
    let cc = Command::new("cc")
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-o"])
        .arg(&exe)
        .arg(crate_dir.join("examples/scenario.c"))
        .arg(format!("-I{}", crate_dir.join("include").display()))
        .arg(format!("-L{}", lib_dir.display()))
        .arg("-lcomputer")
        .arg(format!("-Wl,-rpath,{}", lib_dir.display()))
        .output()
        .expect("cc runs");
    assert!(
        cc.status.success(),
        "cc failed:\n{}",
        String::from_utf8_lossy(&cc.stderr)
    );
    let mut run = Command::new(&exe);
    run.arg(tmp.path());
    if containers_here() {
        run.arg("--container");
    }
    let out = run.output().expect("the scenario runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}");
    assert!(
        out.status.success(),
        "the C scenario failed:\n{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("ok: a timeout is named as a limit"),
        "{stdout}"
    );
}
