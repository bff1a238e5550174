//! The network's cost, in one run: `cargo bench -p computer-cli --bench net`.
//!
//! A 1 KiB GET and a 64 MiB download from a server on 127.0.0.1, through the isolate's `curl`
//! (the host sends it through the workspace's network policy) against native curl to the same
//! server: the added latency of a small request and the throughput ratio of a large one.
//! The isolate runs in process (`Workspace::exec`, the component compiled once), as a server
//! keeps it; native curl is a new process each time, as an agent's shell would start it.
//!
//! With the Python runtime installed (`COMPUTER_DATA_DIR` as `computer runtime install`
//! used), Python's `urllib` in the isolate (through the runtime's door) against native
//! CPython's, each one process running the same script: 20 GETs of 1 KiB, and one of 64 MiB.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::process::Command;

use common::median_of;
use computer::{ExecRequest, Workspace};

/// A server that answers `/1k` and `/64m` with that many bytes.
fn server() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut line = String::new();
                reader.read_line(&mut line).unwrap();
                let size = if line.contains("/64m") {
                    64 << 20
                } else {
                    1024
                };
                loop {
                    let mut h = String::new();
                    if reader.read_line(&mut h).unwrap_or(0) == 0 || h == "\r\n" {
                        break;
                    }
                }
                let mut stream = stream;
                let _ = write!(
                    stream,
                    "HTTP/1.1 200 OK\r\nContent-Length: {size}\r\nConnection: close\r\n\r\n"
                );
                let chunk = vec![b'x'; 1 << 20];
                let mut left = size;
                while left > 0 {
                    let n = left.min(chunk.len());
                    if stream.write_all(&chunk[..n]).is_err() {
                        break;
                    }
                    left -= n;
                }
            });
        }
    });
    port
}

fn main() {
    let port = server();
    let base = format!("http://127.0.0.1:{port}");
    computer::start_runtime(computer::isolate::IsolateConfig::default()).unwrap();
    let ws = Workspace::in_memory().unwrap();
    ws.set_net_policy(&computer::net::Policy::from_text(&format!("allow {base}")).unwrap())
        .unwrap();
    let ours = |path: &str, runs: usize| {
        // Both discard the body, as native curl's `-o /dev/null` does (writing 64 MiB into
        // the workspace is the store's cost, measured by its own bench).
        let script = format!("curl -s -o /dev/null -w '%{{size_download}}' {base}{path}");
        let check = if path == "/1k" { "1024" } else { "67108864" };
        // Once to compile the shell.
        let out = ws.exec(ExecRequest::script(script.clone())).unwrap();
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            check,
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        median_of(runs, || {
            let out = ws.exec(ExecRequest::script(script.clone())).unwrap();
            assert_eq!(out.status, 0);
        })
    };
    let native = |path: &str, runs: usize| {
        median_of(runs, || {
            let out = Command::new("curl")
                .args(["-s", "-o", "/dev/null", &format!("{base}{path}")])
                .output()
                .expect("native curl");
            assert!(out.status.success());
        })
    };
    let python = computer::isolate::python::installed_python().map(|_| {
        let script = |path: &str, times: usize| {
            format!(
                "import urllib.request as u\n\
                 n = 0\n\
                 for _ in range({times}):\n    n += len(u.urlopen('{base}{path}').read())\n\
                 print(n)\n"
            )
        };
        let ours = |script: &str, runs: usize, bytes: usize| {
            // `python3 -c`: the script as one argument, no shell quoting.
            let req = || ExecRequest::argv(["python3", "-c", script]);
            let out = ws.exec(req()).unwrap();
            assert_eq!(
                String::from_utf8_lossy(&out.stdout),
                format!("{bytes}\n"),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            median_of(runs, || {
                assert_eq!(ws.exec(req()).unwrap().status, 0);
            })
        };
        let native = |script: &str, runs: usize| {
            median_of(runs, || {
                let out = Command::new("python3")
                    .args(["-c", script])
                    .output()
                    .expect("native python3");
                assert!(out.status.success());
            })
        };
        let small = script("/1k", 20);
        let big = script("/64m", 1);
        (
            (ours(&small, 7, 20 << 10), native(&small, 7)),
            (ours(&big, 3, 64 << 20), native(&big, 3)),
        )
    });
    let (ours_small, native_small) = (ours("/1k", 50), native("/1k", 50));
    let (ours_big, native_big) = (ours("/64m", 7), native("/64m", 7));
    let mib_s = |d: std::time::Duration| 64.0 / d.as_secs_f64();
    println!("| request | isolate curl | native curl | ratio |");
    println!("|---|---:|---:|---:|");
    println!(
        "| GET 1 KiB (median ms) | {:.2} | {:.2} | {:.1} |",
        ours_small.as_secs_f64() * 1e3,
        native_small.as_secs_f64() * 1e3,
        ours_small.as_secs_f64() / native_small.as_secs_f64()
    );
    println!(
        "| GET 64 MiB (MiB/s) | {:.0} | {:.0} | {:.2} |",
        mib_s(ours_big),
        mib_s(native_big),
        mib_s(native_big) / mib_s(ours_big)
    );
    let Some(((py_small, native_py_small), (py_big, native_py_big))) = python else {
        println!("(Python's urllib not measured: the Python runtime is not installed)");
        return;
    };
    println!();
    println!("| python3 script | isolate | native CPython | ratio |");
    println!("|---|---:|---:|---:|");
    println!(
        "| 20 GETs of 1 KiB (median ms, whole process) | {:.1} | {:.1} | {:.1} |",
        py_small.as_secs_f64() * 1e3,
        native_py_small.as_secs_f64() * 1e3,
        py_small.as_secs_f64() / native_py_small.as_secs_f64()
    );
    println!(
        "| GET 64 MiB (median ms, whole process) | {:.0} | {:.0} | {:.2} |",
        py_big.as_secs_f64() * 1e3,
        native_py_big.as_secs_f64() * 1e3,
        py_big.as_secs_f64() / native_py_big.as_secs_f64()
    );
}
