//! Builds every guest under `guests/` for wasm32-wasip2, and the `wasi:filesystem`
//! conformance programs also for wasm32-wasip1 (core modules, run through the preview 1
//! adapter), and embeds the bytes.
//!
//! A nested `cargo build` into `OUT_DIR` (its own target dir, so no lock contention with the
//! outer build), each target installed with rustup when missing, dep-info turned into
//! `rerun-if-changed`. `COMPUTER_GUESTS_DIR` may point at prebuilt `.wasm` files instead (the
//! wasip1 builds in its `wasip1/` folder).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

const TARGET: &str = "wasm32-wasip2";
const TARGET_P1: &str = "wasm32-wasip1";
/// The test programs also built for wasm32-wasip1: the conformance programs, and `hello`.
const WASIP1_PROGRAMS: &[&str] = &[
    "fs_create_read",
    "fs_links",
    "fs_metadata",
    "fs_offsets",
    "fs_readdir",
    "fs_rename",
    "hello",
];

fn main() {
    let root = PathBuf::from(env("CARGO_MANIFEST_DIR")).join("..");
    let guests = root.join("guests");
    let out = PathBuf::from(env("OUT_DIR"));
    println!("cargo:rerun-if-env-changed=COMPUTER_GUESTS_DIR");
    // Directories, so that a new program or source file is noticed (cargo scans them); the
    // guests' own target directory is not among them.
    for watched in [
        "Cargo.toml",
        "shell",
        "shell-base",
        "shell-interp",
        "shell-utils",
        "test-programs",
        "examples",
    ] {
        println!("cargo:rerun-if-changed={}", guests.join(watched).display());
    }
    println!("cargo:rerun-if-changed={}", root.join("wit").display());
    let (wasm_dir, wasip1_dir) = match std::env::var_os("COMPUTER_GUESTS_DIR") {
        Some(dir) => (PathBuf::from(&dir), PathBuf::from(dir).join("wasip1")),
        None => (build_guests(&guests, &out), build_wasip1(&guests, &out)),
    };

    let programs = bin_names(&guests.join("test-programs/src/bin"));
    let mut code = String::new();
    for name in &programs {
        let _ = writeln!(
            code,
            "/// The `{name}` test program.\npub const {}: &[u8] = include_bytes!({:?});",
            name.to_uppercase(),
            wasm_dir.join(format!("{name}.wasm"))
        );
    }
    for name in WASIP1_PROGRAMS {
        let _ = writeln!(
            code,
            "/// The `{name}` test program built for wasm32-wasip1 (a core module).\npub const {}_P1: &[u8] = include_bytes!({:?});",
            name.to_uppercase(),
            wasip1_dir.join(format!("{name}.wasm"))
        );
    }
    let _ = writeln!(
        code,
        "/// The Rust example guest.\npub const RUST_HELLO: &[u8] = include_bytes!({:?});",
        wasm_dir.join("rust-hello.wasm")
    );
    let _ = writeln!(
        code,
        "/// The shell interpreter of the isolate backend.\npub const SHELL: &[u8] = include_bytes!({:?});",
        wasm_dir.join("shell.wasm")
    );
    let shell = std::fs::read(wasm_dir.join("shell.wasm")).expect("read shell.wasm");
    let _ = writeln!(
        code,
        "/// The BLAKE3 hash of [`SHELL`] (the runtime's cache key for it).\npub const SHELL_HASH: [u8; 32] = {:?};",
        blake3::hash(&shell).as_bytes()
    );
    let _ = writeln!(
        code,
        "/// Every test program, by name.\npub const TEST_PROGRAMS: &[(&str, &[u8])] = &["
    );
    for name in &programs {
        let _ = writeln!(code, "    ({name:?}, {}),", name.to_uppercase());
    }
    let _ = writeln!(code, "];");
    let _ = writeln!(
        code,
        "/// Calls `$mac!(name)` for every test program, so that a program without a test fails to compile.\n#[macro_export]\nmacro_rules! foreach_test_program {{ ($mac:ident) => {{ {} }} }}",
        programs
            .iter()
            .map(|n| format!("$mac!({n});"))
            .collect::<String>()
    );
    std::fs::write(out.join("components.rs"), code).expect("write components.rs");
}

fn env(key: &str) -> String {
    std::env::var(key).unwrap_or_else(|_| panic!("{key} is not set"))
}

/// The names of `src/bin/*.rs`, sorted.
fn bin_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            name.strip_suffix(".rs").map(str::to_string)
        })
        .collect();
    names.sort();
    names
}

fn build_guests(guests: &Path, out: &Path) -> PathBuf {
    cargo_build(guests, out, TARGET, &[])
}

/// The [`WASIP1_PROGRAMS`], built for wasm32-wasip1.
fn build_wasip1(guests: &Path, out: &Path) -> PathBuf {
    let mut args = vec!["-p", "test-programs"];
    for name in WASIP1_PROGRAMS {
        args.extend(["--bin", name]);
    }
    cargo_build(guests, out, TARGET_P1, &args)
}

/// `cargo build --release --target TARGET ARGS` of the guests' workspace; the folder of what
/// it built.
fn cargo_build(guests: &Path, out: &Path, target: &str, args: &[&str]) -> PathBuf {
    ensure_target(target);
    let target_dir = out.join("guests-target");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.args(["build", "--release", "--target", target, "--manifest-path"])
        .arg(guests.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(&target_dir)
        .args(args);
    // The outer build's settings are for the host, not for wasm.
    for var in [
        "RUSTFLAGS",
        "CARGO_ENCODED_RUSTFLAGS",
        "CARGO_BUILD_RUSTFLAGS",
        "CARGO_TARGET_DIR",
        "CARGO_BUILD_TARGET",
        "RUSTC_WORKSPACE_WRAPPER",
        "CARGO_PROFILE_RELEASE_DEBUG",
    ] {
        cmd.env_remove(var);
    }
    let status = cmd.status().expect("run cargo for the guests");
    assert!(status.success(), "building the guests for {target} failed");
    let release = target_dir.join(target).join("release");
    track_dep_info(&release);
    release
}

/// Installs the standard library of `target` with rustup if this toolchain lacks it.
fn ensure_target(target: &str) {
    let libdir = Command::new(std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into()))
        .args(["--print", "target-libdir", "--target", target])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()));
    if libdir.is_some_and(|d| d.is_dir()) {
        return;
    }
    println!("cargo:warning=installing the {target} target with rustup");
    let ok = Command::new("rustup")
        .args(["target", "add", target])
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        ok,
        "the {target} target is missing and `rustup target add {target}` failed; without rustup \
         downloads, install Debian's rust-web-src and build guests with \
         RUSTC_BOOTSTRAP=1 cargo build -Zbuild-std=std,panic_abort (see docs/architecture.md), then set \
         COMPUTER_GUESTS_DIR to the folder of the .wasm files"
    );
}

/// Reruns this script when any source a guest was built from changes.
fn track_dep_info(release: &Path) {
    let Ok(dir) = std::fs::read_dir(release) else {
        return;
    };
    for entry in dir.filter_map(Result::ok) {
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "d") {
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            for line in text.lines() {
                let Some((_, deps)) = line.split_once(": ") else {
                    continue;
                };
                for dep in deps.split_whitespace() {
                    if !dep.contains("/.cargo/registry/") {
                        println!("cargo:rerun-if-changed={dep}");
                    }
                }
            }
        }
    }
}
