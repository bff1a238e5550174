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
    let core_module = b"\0asm\x01\0\0\0";
    let err = isolate().load(core_module).err().unwrap();
    assert!(
        err.to_string()
            .contains("a core WebAssembly module, not a component"),
        "{err}"
    );
    let mut truncated = computer_components::HELLO.to_vec();
    truncated.truncate(truncated.len() / 2);
    let err = isolate().load(&truncated).err().unwrap();
    assert!(err.to_string().starts_with("invalid component:"), "{err}");
    next_run_works();
}
