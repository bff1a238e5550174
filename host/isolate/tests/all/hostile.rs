//! Hostile guests are stopped by the limit they hit, with that limit named; none of them
//! harms the host, and the next run works.

use std::sync::Arc;
use std::time::{Duration, Instant};

use computer_isolate::{CancelToken, LimitHit, Limits, RunRequest, RunStatus};
use computer_vfs::Vfs;

use crate::{isolate, run, run_on, text};

fn limited(limits: Limits) -> RunRequest {
    RunRequest {
        limits,
        ..RunRequest::default()
    }
}

fn next_run_works() {
    let (_, out) = run(computer_components::HELLO, &[]);
    assert_eq!(out.status, RunStatus::Exited(0));
    assert_eq!(text(&out.stdout), "hello from the isolate\n");
}

#[test]
pub fn hostile_loop() {
    let vfs = Arc::new(Vfs::in_memory().unwrap());
    let limits = Limits {
        timeout: Duration::from_millis(300),
        ..Limits::default()
    };
    let out = run_on(
        &vfs,
        computer_components::HOSTILE_LOOP,
        &[],
        limited(limits),
    );
    assert_eq!(
        out.status,
        RunStatus::Limit(LimitHit::Timeout(limits.timeout))
    );
    assert_eq!(out.exit_code(), 124);
    assert_eq!(
        LimitHit::Timeout(limits.timeout).to_string(),
        "time limit of 0.300 s exceeded"
    );
    next_run_works();
}

#[test]
pub fn hostile_sleep() {
    let vfs = Arc::new(Vfs::in_memory().unwrap());
    let limits = Limits {
        timeout: Duration::from_millis(200),
        ..Limits::default()
    };
    let started = Instant::now();
    let out = run_on(
        &vfs,
        computer_components::HOSTILE_SLEEP,
        &[],
        limited(limits),
    );
    assert_eq!(
        out.status,
        RunStatus::Limit(LimitHit::Timeout(limits.timeout))
    );
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "a sleeping guest outlived its timeout"
    );
    next_run_works();
}

#[test]
pub fn cancelling_stops_a_running_guest() {
    let vfs = Arc::new(Vfs::in_memory().unwrap());
    let cancel = CancelToken::new();
    let req = RunRequest {
        cancel: cancel.clone(),
        ..RunRequest::default()
    };
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        cancel.cancel();
    });
    let out = run_on(&vfs, computer_components::HOSTILE_LOOP, &[], req);
    canceller.join().unwrap();
    assert_eq!(out.status, RunStatus::Cancelled);
    assert_eq!(out.exit_code(), 130);
}

#[test]
pub fn hostile_memory() {
    let vfs = Arc::new(Vfs::in_memory().unwrap());
    let limits = Limits {
        memory: 64 << 20,
        ..Limits::default()
    };
    let out = run_on(
        &vfs,
        computer_components::HOSTILE_MEMORY,
        &[],
        limited(limits),
    );
    assert_eq!(
        out.status,
        RunStatus::Limit(LimitHit::Memory(64 << 20)),
        "{}",
        text(&out.stderr)
    );
    assert!(text(&out.stdout).contains("holding 16 MiB"));
    assert_eq!(
        LimitHit::Memory(64 << 20).to_string(),
        "memory limit of 64 MiB exceeded"
    );
    next_run_works();
}

#[test]
pub fn hostile_output() {
    let vfs = Arc::new(Vfs::in_memory().unwrap());
    let limits = Limits {
        output: 100_000,
        ..Limits::default()
    };
    let out = run_on(
        &vfs,
        computer_components::HOSTILE_OUTPUT,
        &[],
        limited(limits),
    );
    assert_eq!(out.status, RunStatus::Limit(LimitHit::Output(100_000)));
    assert_eq!(
        out.stdout.len(),
        100_000,
        "output is cut exactly at the cap"
    );
    next_run_works();
}

#[test]
pub fn trap_panic() {
    let (_, out) = run(computer_components::TRAP_PANIC, &[]);
    let RunStatus::Trapped(msg) = &out.status else {
        panic!("expected a trap, got {:?}", out.status)
    };
    assert_eq!(msg, "wasm trap: wasm `unreachable` instruction executed");
    assert!(
        text(&out.stderr).contains("index out of bounds"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(text(&out.stdout), "about to fail\n");
    assert_eq!(out.exit_code(), 134);
    next_run_works();
}

#[test]
fn invalid_binaries_get_clear_errors() {
    let err = isolate().load(b"not wasm at all").err().unwrap();
    assert!(
        err.to_string().contains("not a WebAssembly binary"),
        "{err}"
    );
    // A core module with no `_start` is a WASI 0.1 reactor: it has nothing to run.
    let core_module = b"\0asm\x01\0\0\0";
    let err = isolate().load(core_module).err().unwrap();
    assert!(
        err.to_string()
            .contains("a WASI 0.1 module without `_start`"),
        "{err}"
    );
    // One that imports what no host answers names the import.
    let imports_other = b"\0asm\x01\0\0\0\x01\x04\x01\x60\0\0\x02\x0d\x01\x04host\x04call\0\0";
    let err = isolate().load(imports_other).err().unwrap();
    assert!(err.to_string().contains("host"), "{err}");
    let mut truncated = computer_components::HELLO.to_vec();
    truncated.truncate(truncated.len() / 2);
    let err = isolate().load(&truncated).err().unwrap();
    assert!(err.to_string().starts_with("invalid component:"), "{err}");
    next_run_works();
}

/// More runs at once than the pool holds: the one past the limit ends at once with the limit
/// named (exit 75), instead of failing to instantiate as a crash; the others are unharmed.
#[test]
fn too_many_isolates_at_once_is_a_named_limit() {
    let small = Arc::new(
        computer_isolate::Isolate::new(computer_isolate::IsolateConfig {
            cache_dir: None,
            max_instances: 1,
            max_memory: 256 << 20,
            ..computer_isolate::IsolateConfig::default()
        })
        .unwrap(),
    );
    let program = small.load(computer_components::HOSTILE_LOOP).unwrap();
    let busy = {
        let (small, program) = (Arc::clone(&small), Arc::clone(&program));
        std::thread::spawn(move || {
            let limits = Limits {
                timeout: Duration::from_millis(1500),
                ..Limits::default()
            };
            let vfs = Arc::new(Vfs::in_memory().unwrap());
            small.run(&program, vfs, limited(limits))
        })
    };
    std::thread::sleep(Duration::from_millis(300));
    let hello = small.load(computer_components::HELLO).unwrap();
    let vfs = Arc::new(Vfs::in_memory().unwrap());
    let out = small.run(&hello, Arc::clone(&vfs), RunRequest::default());
    assert_eq!(out.status, RunStatus::Limit(LimitHit::Instances(1)));
    assert_eq!(out.exit_code(), 75);
    assert!(
        text(&out.stderr).contains("max_instances"),
        "{}",
        text(&out.stderr)
    );
    let first = busy.join().unwrap();
    assert!(matches!(
        first.status,
        RunStatus::Limit(LimitHit::Timeout(_))
    ));
    // Its slot is free again.
    let out = small.run(&hello, vfs, RunRequest::default());
    assert_eq!(out.status, RunStatus::Exited(0), "{}", text(&out.stderr));
}

/// `wasi:sockets` is linked (guests built by componentize-py import it) but grants nothing:
/// a connection to a real listener on loopback, a listening socket and a name lookup all
/// fail, and the listener sees no connection.
#[test]
pub fn hostile_socket() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let vfs = Arc::new(Vfs::in_memory().unwrap());
    let out = run_on(
        &vfs,
        computer_components::HOSTILE_SOCKET,
        &[&addr],
        RunRequest::default(),
    );
    let stdout = text(&out.stdout);
    assert_eq!(
        out.status,
        RunStatus::Exited(0),
        "{stdout}{}",
        text(&out.stderr)
    );
    for line in ["connect: refused", "listen: refused", "lookup: refused"] {
        assert!(stdout.contains(line), "{line}: {stdout}");
    }
    assert!(
        listener.accept().is_err(),
        "the guest reached a host socket"
    );
}

/// A guest's reads share one read transaction while it runs (`Vfs::hold_reads`); one that
/// reads and then waits must not hold back other connections' checkpoints meanwhile.
#[test]
pub fn a_guest_that_reads_then_waits_lets_checkpoints_through() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.db");
    let vfs = Arc::new(Vfs::open(&path).unwrap());
    // Written through another connection, so that the log holds frames a reader could pin.
    Vfs::open(&path)
        .unwrap()
        .write_file("/workspace/f", "content\n")
        .unwrap();
    let (read, was_read) = std::sync::mpsc::channel();
    let req = RunRequest {
        on_output: Some(Arc::new(move |_, bytes: &[u8]| {
            if bytes.starts_with(b"content") {
                let _ = read.send(());
            }
        })),
        ..RunRequest::default()
    };
    let guest = {
        let vfs = Arc::clone(&vfs);
        std::thread::spawn(move || {
            let script = "cat /workspace/f; cat /workspace/f; sleep 3";
            run_on(&vfs, computer_components::SHELL, &["-c", script], req)
        })
    };
    was_read.recv_timeout(Duration::from_secs(60)).unwrap();
    // A few ticks of the isolate later the guest sleeps, holding nothing: a checkpoint that
    // never waits empties the log.
    std::thread::sleep(Duration::from_millis(200));
    let other = rusqlite::Connection::open(&path).unwrap();
    other.busy_timeout(Duration::ZERO).unwrap();
    let busy: i64 = other
        .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| r.get(0))
        .unwrap();
    assert_eq!(busy, 0, "the sleeping guest holds back a checkpoint");
    let out = guest.join().unwrap();
    assert_eq!(out.status, RunStatus::Exited(0), "{}", text(&out.stderr));
}
