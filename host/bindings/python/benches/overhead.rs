//! Per-call overhead of the Python binding against the Rust API, in the same run:
//! `exec("true")` on the isolate and `read` of a 1 KiB file, p50 of each, on an in-memory
//! workspace. The Python side runs the extension module cargo built for this bench (laid out
//! as maturin installs it).
//!
//! `cargo bench -p computer-python --bench overhead`

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use computer::{ExecRequest, Workspace};

const EXECS: usize = 300;
const READS: usize = 5000;

/// The median of `n` timed calls of `f` (after a tenth as many warm-up calls), in µs.
fn p50(n: usize, mut f: impl FnMut()) -> f64 {
    for _ in 0..n / 10 {
        f();
    }
    let mut times: Vec<f64> = (0..n)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[n / 2]
}

const PYTHON: &str = r#"
import statistics, sys, time
import computer
ws = computer.Workspace.memory()
ws.fs.write_bytes("k.bin", b"x" * 1024)
def p50(n, f):
    for _ in range(n // 10):
        f()
    times = []
    for _ in range(n):
        t = time.perf_counter_ns()
        f()
        times.append((time.perf_counter_ns() - t) / 1000)
    return statistics.median(times)
execs, reads = int(sys.argv[1]), int(sys.argv[2])
print(p50(execs, lambda: ws.exec("true", backend="isolate")), p50(reads, lambda: ws.fs.read_bytes("k.bin")))
"#;

fn main() {
    let ws = Workspace::in_memory().unwrap();
    ws.fs()
        .write_file("/workspace/k.bin", vec![b'x'; 1024])
        .unwrap();
    let rust_exec = p50(EXECS, || {
        let out = ws
            .exec(ExecRequest::script("true").backend(computer::Backend::Isolate))
            .unwrap();
        assert_eq!(out.status, 0);
    });
    let rust_read = p50(READS, || {
        assert_eq!(ws.fs().read_file("/workspace/k.bin").unwrap().len(), 1024);
    });

    let exe = std::env::current_exe().unwrap();
    let profile = exe.parent().and_then(Path::parent).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let pkg = tmp.path().join("computer");
    std::fs::create_dir_all(&pkg).unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("python/computer");
    for entry in std::fs::read_dir(src).unwrap() {
        let entry = entry.unwrap();
        if entry.path().extension().is_some_and(|e| e == "so") {
            continue; // a module `maturin develop` left there
        }
        std::fs::copy(entry.path(), pkg.join(entry.file_name())).unwrap();
    }
    std::fs::copy(
        profile.join("lib_computer.so"),
        pkg.join("_computer.abi3.so"),
    )
    .unwrap();
    let out = Command::new("python3")
        .args(["-c", PYTHON, &EXECS.to_string(), &READS.to_string()])
        .env("PYTHONPATH", tmp.path())
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let mut fields = text.split_whitespace().map(|f| f.parse::<f64>().unwrap());
    let (py_exec, py_read) = (fields.next().unwrap(), fields.next().unwrap());

    println!("per-call p50, in-memory workspace (target: Python within 20 µs of Rust)");
    println!(
        "{:<24} {:>10} {:>10} {:>12}",
        "call", "Rust µs", "Python µs", "overhead µs"
    );
    for (name, rust, py) in [
        ("exec(\"true\") isolate", rust_exec, py_exec),
        ("read 1 KiB file", rust_read, py_read),
    ] {
        println!("{name:<24} {rust:>10.1} {py:>10.1} {:>12.1}", py - rust);
    }
}
