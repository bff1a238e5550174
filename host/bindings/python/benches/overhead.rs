//! Per-call overhead of each binding against the Rust API, in the same run: `exec("true")`
//! on the isolate and `read` of a 1 KiB file, p50 of each, on an in-memory workspace. Python
//! runs the extension module cargo built for this bench (laid out as maturin installs it);
//! Node.js and C run their libraries when cargo built them too (select their packages).
//!
//! `cargo bench -p computer-python -p computer-node -p computer-c`

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
    // Libraries built for a bench stay in target/<profile>/deps, beside it.
    let deps = exe.parent().unwrap();
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
    std::fs::copy(deps.join("lib_computer.so"), pkg.join("_computer.abi3.so")).unwrap();
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
    let (py_exec, py_read) = two_numbers(&out.stdout);
    let node = deps
        .join("libcomputer_node.so")
        .exists()
        .then(|| node(deps, tmp.path()));
    let c = deps
        .join("libcomputer.so")
        .exists()
        .then(|| c(deps, tmp.path()));

    println!("per-call p50, in-memory workspace (target: each binding within 20 µs of Rust)");
    println!(
        "{:<24} {:>9} {:>11} {:>11} {:>15} {:>11}",
        "call", "Rust µs", "Python +µs", "Node +µs", "Node sync +µs", "C +µs"
    );
    let extra = |v: Option<(f64, f64)>, pick: fn((f64, f64)) -> f64, rust: f64| {
        v.map_or("not built".to_string(), |v| {
            format!("{:.1}", pick(v) - rust)
        })
    };
    for (name, rust, py, pick) in [
        (
            "exec(\"true\") isolate",
            rust_exec,
            py_exec,
            (|v: (f64, f64)| v.0) as fn((f64, f64)) -> f64,
        ),
        ("read 1 KiB file", rust_read, py_read, |v: (f64, f64)| v.1),
    ] {
        println!(
            "{name:<24} {rust:>9.1} {:>11.1} {:>11} {:>15} {:>11}",
            py - rust,
            extra(node.map(|n| n.0), pick, rust),
            extra(node.map(|n| n.1), pick, rust),
            extra(c, pick, rust),
        );
    }
}

/// The numbers a timing program printed.
fn numbers(stdout: &[u8]) -> Vec<f64> {
    let text = String::from_utf8_lossy(stdout);
    text.split_whitespace()
        .map(|f| f.parse().unwrap())
        .collect()
}

/// The two numbers a timing program printed.
fn two_numbers(stdout: &[u8]) -> (f64, f64) {
    let n = numbers(stdout);
    (n[0], n[1])
}

const NODE: &str = r#"
const { Workspace } = require(process.env.PKG)
const ws = Workspace.memory()
async function p50 (n, f) {
  for (let i = 0; i < n / 10; i++) await f()
  const times = []
  for (let i = 0; i < n; i++) {
    const t = process.hrtime.bigint()
    await f()
    times.push(Number(process.hrtime.bigint() - t) / 1000)
  }
  times.sort((a, b) => a - b)
  return times[Math.floor(n / 2)]
}
;(async () => {
  await ws.fs.writeFile('k.bin', Buffer.alloc(1024, 120))
  const e = await p50(Number(process.argv[1]), () => ws.exec('true', { backend: 'isolate' }))
  const r = await p50(Number(process.argv[2]), () => ws.fs.readFile('k.bin'))
  const es = await p50(Number(process.argv[1]), () => ws.execSync('true', { backend: 'isolate' }))
  const rs = await p50(Number(process.argv[2]), () => ws.fs.readFileSync('k.bin'))
  console.log(e, r, es, rs)
})()
"#;

/// Node's p50s (µs) of the two calls, through the package as index.js gives it: awaiting
/// the Promises, then the `...Sync` variants.
fn node(deps: &Path, tmp: &Path) -> ((f64, f64), (f64, f64)) {
    let pkg = tmp.join("node");
    std::fs::create_dir_all(&pkg).unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../node");
    for file in ["index.js", "index.d.ts"] {
        std::fs::copy(src.join(file), pkg.join(file)).unwrap();
    }
    std::fs::copy(deps.join("libcomputer_node.so"), pkg.join("computer.node")).unwrap();
    let out = Command::new("node")
        .args(["-e", NODE, &EXECS.to_string(), &READS.to_string()])
        .env("PKG", &pkg)
        .output()
        .expect("node runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let n = numbers(&out.stdout);
    ((n[0], n[1]), (n[2], n[3]))
}

const C: &str = r#"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "computer.h"
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e6 + t.tv_nsec / 1e3; }
static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }
static ComputerWorkspace *ws;
static void run_exec(void) { ComputerExecOptions o = {0}; o.backend = "isolate"; ComputerExecResult r; if (computer_exec(ws, "true", &o, &r) == 0) computer_exec_result_free(&r); }
static void run_read(void) { uint8_t *d; size_t n; if (computer_read_file(ws, "k.bin", &d, &n) == 0) computer_bytes_free(d, n); }
static double p50(int n, void (*f)(void)) {
    double *t = malloc(sizeof(double) * n);
    for (int i = 0; i < n / 10; i++) f();
    for (int i = 0; i < n; i++) { double s = now(); f(); t[i] = now() - s; }
    qsort(t, n, sizeof(double), cmp);
    double m = t[n / 2]; free(t); return m;
}
int main(int argc, char **argv) {
    (void)argc;
    ws = computer_open_memory();
    static uint8_t k[1024];
    computer_write_file(ws, "k.bin", k, sizeof k);
    double e = p50(atoi(argv[1]), run_exec), r = p50(atoi(argv[2]), run_read);
    printf("%f %f\n", e, r);
    computer_close(ws);
    return 0;
}
"#;

/// C's p50s (µs) of the two calls, through libcomputer.
fn c(deps: &Path, tmp: &Path) -> (f64, f64) {
    let src = tmp.join("bench.c");
    std::fs::write(&src, C).unwrap();
    let exe = tmp.join("bench-c");
    let include = Path::new(env!("CARGO_MANIFEST_DIR")).join("../c/include");
    let cc = Command::new("cc")
        .args(["-O2", "-o"])
        .arg(&exe)
        .arg(&src)
        .arg(format!("-I{}", include.display()))
        .arg(format!("-L{}", deps.display()))
        .arg("-lcomputer")
        .arg(format!("-Wl,-rpath,{}", deps.display()))
        .output()
        .expect("cc runs");
    assert!(
        cc.status.success(),
        "{}",
        String::from_utf8_lossy(&cc.stderr)
    );
    let out = Command::new(&exe)
        .args([EXECS.to_string(), READS.to_string()])
        .output()
        .expect("the C bench runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    two_numbers(&out.stdout)
}
