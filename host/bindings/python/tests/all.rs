//! Runs the Python binding's pytest suite (`tests/test_*.py`) against the extension module
//! cargo just built: the module and `python/computer/` are laid out as maturin installs
//! them, in a temporary directory on `PYTHONPATH`. `cargo test --workspace` so runs the
//! Python tests too, with no other build. It also type-checks `tests/usage.py` against the
//! stubs with mypy. Without pytest or mypy a test says so and passes, except in CI (`CI`
//! set), where it fails.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The extension module cargo built with this test: in `target/<profile>/deps` (a library
/// built for tests stays there), or `target/<profile>` after a `cargo build`.
fn extension_module() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    let deps = exe.parent().expect("target/<profile>/deps/<test>");
    let candidates = [
        deps.join("lib_computer.so"),
        deps.join("../lib_computer.so"),
    ];
    candidates
        .into_iter()
        .find(|p| p.exists())
        .expect("lib_computer.so is missing: cargo builds it with this test")
}

/// `computer/` as maturin lays it out: the Python sources and `_computer.abi3.so`.
fn package(dir: &Path) -> PathBuf {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("python/computer");
    let dest = dir.join("computer");
    std::fs::create_dir_all(&dest).unwrap();
    for entry in std::fs::read_dir(&src).unwrap() {
        let entry = entry.unwrap();
        // Not a module `maturin develop` may have left there: the one just built goes in.
        if entry.path().extension().is_some_and(|e| e == "so") {
            continue;
        }
        std::fs::copy(entry.path(), dest.join(entry.file_name())).unwrap();
    }
    std::fs::copy(extension_module(), dest.join("_computer.abi3.so")).unwrap();
    dir.to_path_buf()
}

/// Whether python3 can import `module`; if not, says so (and fails in CI).
fn have(module: &str) -> bool {
    let here = Command::new("python3")
        .args(["-c", &format!("import {module}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if !here {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI needs python3 with {module} (`python3 -m pip install {module}`)"
        );
        println!("skipped: no python3 with {module} here (`python3 -m pip install {module}`)");
    }
    here
}

#[test]
fn type_stubs_check_under_mypy() {
    if !have("mypy") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let path = package(tmp.path());
    let usage = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/usage.py");
    let out = Command::new("python3")
        .args([
            "-m",
            "mypy",
            "--strict",
            "--no-incremental",
            "--cache-dir=/dev/null",
        ])
        .arg(&usage)
        .env("MYPYPATH", &path)
        .current_dir(tmp.path())
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "mypy --strict tests/usage.py:\n{stdout}"
    );
}

#[test]
fn pytest_suite_passes() {
    if !have("pytest") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let path = package(tmp.path());
    let tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let out = Command::new("python3")
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs"])
        .arg(&tests)
        .env("PYTHONPATH", &path)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .current_dir(tmp.path())
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "pytest failed:\n{stdout}");
    assert!(stdout.contains(" passed"), "pytest ran no test:\n{stdout}");
}
