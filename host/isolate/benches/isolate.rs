//! The isolate runtime, measured: `cargo bench -p computer-isolate --bench isolate`.
//!
//! 1. In-process instantiate + run + drop of the smallest guest, p50/p99 over many runs, with
//!    the pooling allocator and without.
//!    The same for `hello` built as a WASI 0.1 module (run through the preview 1 adapter).
//! 2. Cold start: a new runtime (its time and the memory it takes), loading a component from
//!    the on-disk cache, then its first run; adapting and compiling the WASI 0.1 `hello`.
//! 3. `std::fs` inside a guest (on a workspace file on disk) against the same operations
//!    natively with `std::fs` on the same disk, as ratios.
//!
//! `BENCH_RUNS` sets the number of runs of (1), default 3000.

use std::sync::Arc;
use std::time::{Duration, Instant};

use computer_isolate::{Isolate, IsolateConfig, RunRequest, RunStatus};
use computer_vfs::Vfs;

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn us(d: Duration) -> String {
    format!("{:.1}", d.as_secs_f64() * 1e6)
}

fn instantiate_run_drop(pooling: bool, runs: usize, wasip1: bool) {
    let isolate = Isolate::new(IsolateConfig {
        cache_dir: None,
        pooling,
        ..IsolateConfig::default()
    })
    .unwrap();
    let wasm = if wasip1 {
        computer_components::HELLO_P1
    } else {
        computer_components::HELLO
    };
    let program = isolate.load(wasm).unwrap();
    let vfs = Arc::new(Vfs::in_memory().unwrap());
    let run = || {
        let start = Instant::now();
        let out = isolate.run(&program, Arc::clone(&vfs), RunRequest::default());
        let t = start.elapsed();
        assert_eq!(out.status, RunStatus::Exited(0));
        t
    };
    for _ in 0..200 {
        run();
    }
    let mut times: Vec<Duration> = (0..runs).map(|_| run()).collect();
    times.sort();
    println!(
        "| instantiate + run + drop, {}{} | {} | {} | {} |",
        if pooling { "pooling" } else { "on-demand" },
        if wasip1 { ", WASI 0.1 module" } else { "" },
        us(percentile(&times, 0.5)),
        us(percentile(&times, 0.99)),
        runs
    );
}

fn cold_start() {
    let dir = tempfile::tempdir().unwrap();
    let config = IsolateConfig {
        cache_dir: Some(dir.path().to_path_buf()),
        ..IsolateConfig::default()
    };
    let compile = {
        let isolate = Isolate::new(config.clone()).unwrap();
        let start = Instant::now();
        isolate.load(computer_components::HELLO).unwrap();
        start.elapsed()
    };
    let before = statm();
    let start = Instant::now();
    let isolate = Isolate::new(config.clone()).unwrap();
    let engine = start.elapsed();
    let after = statm();
    let start = Instant::now();
    let program = isolate.load(computer_components::HELLO).unwrap();
    let load = start.elapsed();
    let start = Instant::now();
    let out = isolate.run(
        &program,
        Arc::new(Vfs::in_memory().unwrap()),
        RunRequest::default(),
    );
    let first = start.elapsed();
    assert_eq!(out.status, RunStatus::Exited(0));
    println!(
        "| compile the hello component (no cache) | {} | | |",
        us(compile)
    );
    println!("| cold start: new engine | {} | | |", us(engine));
    println!(
        "| new engine: resident / virtual memory added | {:.1} MiB / {:.0} GiB | | |",
        (after.1 - before.1) as f64 / (1 << 20) as f64,
        (after.0 - before.0) as f64 / (1u64 << 30) as f64
    );
    let adapt = {
        let fresh = tempfile::tempdir().unwrap();
        let isolate = Isolate::new(IsolateConfig {
            cache_dir: Some(fresh.path().to_path_buf()),
            ..config
        })
        .unwrap();
        let start = Instant::now();
        isolate.load(computer_components::HELLO_P1).unwrap();
        start.elapsed()
    };
    println!(
        "| adapt + compile hello as a WASI 0.1 module (no cache) | {} | | |",
        us(adapt)
    );
    println!(
        "| cold start: load from the disk cache | {} | | |",
        us(load)
    );
    println!("| cold start: first run | {} | | |", us(first));
}

/// This process's (virtual, resident) bytes, from /proc/self/statm.
fn statm() -> (i64, i64) {
    let text = std::fs::read_to_string("/proc/self/statm").unwrap();
    let mut pages = text.split_whitespace().map(|v| v.parse::<i64>().unwrap());
    let page = 4096;
    (pages.next().unwrap() * page, pages.next().unwrap() * page)
}

/// Runs the fs_bench guest on a workspace file in `dir`; returns (operation, ns) rows.
fn guest_fs(dir: &std::path::Path, n: usize) -> Vec<(String, u128)> {
    let isolate = Isolate::new(IsolateConfig {
        cache_dir: None,
        ..IsolateConfig::default()
    })
    .unwrap();
    let program = isolate.load(computer_components::FS_BENCH).unwrap();
    let vfs = Arc::new(Vfs::open(dir.join("bench.db")).unwrap());
    let req = RunRequest {
        args: vec!["fs_bench".into(), "/workspace/b".into(), n.to_string()],
        ..RunRequest::default()
    };
    let out = isolate.run(&program, vfs, req);
    assert_eq!(
        out.status,
        RunStatus::Exited(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let (op, ns) = l.split_once('\t')?;
            Some((op.to_string(), ns.parse().ok()?))
        })
        .collect()
}

/// The same operations natively.
fn native_fs(dir: &std::path::Path, n: usize) -> Vec<(String, u128)> {
    use std::fs;
    let base = dir.join("native");
    fs::create_dir_all(&base).unwrap();
    let data = vec![b'x'; 1024];
    let mut rows = Vec::new();
    let mut time = |name: &str, f: &mut dyn FnMut()| {
        let start = Instant::now();
        f();
        rows.push((name.to_string(), start.elapsed().as_nanos()));
    };
    time("create", &mut || {
        for i in 0..n {
            fs::write(base.join(format!("f{i}")), &data).unwrap();
        }
    });
    time("stat", &mut || {
        for i in 0..n {
            std::hint::black_box(fs::metadata(base.join(format!("f{i}"))).unwrap());
        }
    });
    time("read", &mut || {
        for i in 0..n {
            std::hint::black_box(fs::read(base.join(format!("f{i}"))).unwrap());
        }
    });
    time("readdir", &mut || {
        assert_eq!(fs::read_dir(&base).unwrap().count(), n)
    });
    let big = vec![7u8; 16 << 20];
    time("write 16 MiB", &mut || {
        fs::write(base.join("big"), &big).unwrap()
    });
    time("read 16 MiB", &mut || {
        assert_eq!(fs::read(base.join("big")).unwrap().len(), big.len())
    });
    time("remove tree", &mut || fs::remove_dir_all(&base).unwrap());
    rows
}

fn main() {
    let runs: usize = std::env::var("BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3000);
    println!(
        "## Instantiation (hello guest, {} bytes)\n",
        computer_components::HELLO.len()
    );
    println!("| measure | p50 µs | p99 µs | runs |");
    println!("|---|---:|---:|---:|");
    instantiate_run_drop(true, runs, false);
    instantiate_run_drop(false, runs / 3, false);
    instantiate_run_drop(true, runs, true);
    cold_start();

    let n = 2000;
    println!(
        "\n## std::fs inside a guest against native std::fs, same disk ({n} files of 1 KiB)\n"
    );
    println!("| operation | native ms | guest ms | ratio |");
    println!("|---|---:|---:|---:|");
    let dir = tempfile::tempdir_in(std::env::temp_dir()).unwrap();
    let native = native_fs(dir.path(), n);
    let guest = guest_fs(dir.path(), n);
    for (op, native_ns) in &native {
        let Some((_, guest_ns)) = guest.iter().find(|(g, _)| g == op) else {
            continue;
        };
        println!(
            "| {op} | {:.1} | {:.1} | {:.2} |",
            *native_ns as f64 / 1e6,
            *guest_ns as f64 / 1e6,
            *guest_ns as f64 / (*native_ns).max(1) as f64
        );
    }
}
