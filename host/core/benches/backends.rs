//! Exec latency of the two backends in one run: a small command on the isolate against the
//! same command in the workspace's warm container (p50 and p99), and a container's cold
//! start (mount, create, start, check the mount, first command); and the same warm exec in
//! copy mode (the workspace copied into the container, changes listed and copied back),
//! with 1,000 files in the workspace. Needs Docker, /dev/fuse and root; builds the default
//! image first if it is missing.
//! `cargo bench -p computer --bench backends`.

use std::time::{Duration, Instant};

use computer::containers::{ContainerConfig, Transfer};
use computer::{Backend, ExecRequest, Workspace};

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i]
}

fn time_execs(ws: &Workspace, backend: Backend, n: usize) -> Vec<Duration> {
    let mut v = Vec::with_capacity(n);
    for _ in 0..n {
        let start = Instant::now();
        let out = ws
            .exec(ExecRequest::script("true").backend(backend))
            .expect("exec");
        v.push(start.elapsed());
        assert_eq!(out.status, 0);
    }
    v.sort();
    v
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let ws = Workspace::open(dir.path().join("ws.db")).unwrap();
    ws.on_container_progress(Some(std::sync::Arc::new(|s: &str| eprintln!("{s}"))));
    // Warm both up: the isolate compiles the shell once; the container starts.
    time_execs(&ws, Backend::Isolate, 5);
    time_execs(&ws, Backend::Container, 3);

    let isolate = time_execs(&ws, Backend::Isolate, 300);
    let container = time_execs(&ws, Backend::Container, 100);
    let mut cold = Vec::new();
    for i in 0..5 {
        let ws = Workspace::open(dir.path().join(format!("cold{i}.db"))).unwrap();
        let start = Instant::now();
        let out = ws
            .exec(ExecRequest::script("true").backend(Backend::Container))
            .unwrap();
        cold.push(start.elapsed());
        assert_eq!(out.status, 0);
        drop(ws); // removes the container and unmounts (not timed)
    }
    cold.sort();

    // Copy mode: what each command adds is the sync before it and the listing after it.
    let copied = Workspace::open(dir.path().join("copy.db")).unwrap();
    copied.set_container_config(ContainerConfig {
        transfer: Transfer::Copy,
        ..copied.container_config()
    });
    for i in 0..1000 {
        copied
            .fs()
            .write_file(format!("/workspace/d{}/f{i}.txt", i % 10), format!("{i}\n"))
            .or_else(|_| {
                copied
                    .fs()
                    .create_dir_all(format!("/workspace/d{}", i % 10))?;
                copied
                    .fs()
                    .write_file(format!("/workspace/d{}/f{i}.txt", i % 10), format!("{i}\n"))
            })
            .unwrap();
    }
    time_execs(&copied, Backend::Container, 3);
    let copy = time_execs(&copied, Backend::Container, 50);

    println!("| exec of `true` | p50 | p99 |");
    println!("|---|---:|---:|");
    println!(
        "| isolate (in process) | {:.3} ms | {:.3} ms |",
        ms(percentile(&isolate, 0.5)),
        ms(percentile(&isolate, 0.99))
    );
    println!(
        "| container, warm (docker exec) | {:.1} ms | {:.1} ms |",
        ms(percentile(&container, 0.5)),
        ms(percentile(&container, 0.99))
    );
    println!(
        "| container, cold start (5 runs: median, max) | {:.0} ms | {:.0} ms |",
        ms(percentile(&cold, 0.5)),
        ms(cold[cold.len() - 1])
    );
    println!(
        "| container, warm, copy mode (1,000 files) | {:.1} ms | {:.1} ms |",
        ms(percentile(&copy, 0.5)),
        ms(percentile(&copy, 0.99))
    );
    println!(
        "\nisolate is {:.0}× faster than a warm container at p50 ({:.0}× at p99)",
        percentile(&container, 0.5).as_secs_f64() / percentile(&isolate, 0.5).as_secs_f64(),
        percentile(&container, 0.99).as_secs_f64() / percentile(&isolate, 0.99).as_secs_f64()
    );
}
