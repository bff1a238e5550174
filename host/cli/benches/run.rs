//! Whole-process `computer run hello.wasm` (the compiled component cached on disk), against a
//! native process doing the same (`/bin/echo`), in one run:
//! `cargo bench -p computer-cli --bench run`.

mod common;

use common::median_of;
use std::process::Command;

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let wasm = dir.path().join("hello.wasm");
    std::fs::write(&wasm, computer_components::HELLO).unwrap();
    let cache = dir.path().join("cache");
    let run = || {
        let out = Command::new(env!("CARGO_BIN_EXE_computer"))
            .current_dir(dir.path())
            .env("XDG_CACHE_HOME", &cache)
            .args(["--memory", "run"])
            .arg(&wasm)
            .output()
            .unwrap();
        assert_eq!(out.stdout, b"hello from the isolate\n");
    };
    run(); // compile once into the cache
    let computer = median_of(30, run);
    let native = median_of(30, || {
        let out = Command::new("/bin/echo").arg("hello").output().unwrap();
        assert!(out.status.success());
    });
    println!("| operation | median ms | ratio to /bin/echo |");
    println!("|---|---:|---:|");
    println!(
        "| /bin/echo hello | {:.2} | 1.00 |",
        native.as_secs_f64() * 1e3
    );
    println!(
        "| computer --memory run hello.wasm (disk-cached) | {:.2} | {:.1} |",
        computer.as_secs_f64() * 1e3,
        computer.as_secs_f64() / native.as_secs_f64()
    );
}
