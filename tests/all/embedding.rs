//! The bindings' shared scenario through the Rust API (host/bindings/{python,node,c} run the same
//! steps through theirs): write a file, exec in the isolate, stream output, snapshot, fork,
//! tool calls, an error for a missing file, a timeout named as a limit. The container step
//! is in host/cli/tests (auto's fallback) and in each binding's suite.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use computer::isolate::{LimitHit, Limits, RunStatus, Stream};
use computer::{Backend, ExecRequest, Workspace};
use computer_tools::Toolkit;

#[test]
fn the_shared_scenario_of_the_bindings() {
    let dir = tempfile::tempdir().unwrap();
    let ws = Workspace::open(dir.path().join("agent.db")).unwrap();
    ws.fs()
        .write_file("/workspace/notes.md", "one\ntwo\nthree\n")
        .unwrap();

    let out = ws
        .exec(
            ExecRequest::script("wc -l < notes.md && grep -c o notes.md").backend(Backend::Isolate),
        )
        .unwrap();
    assert_eq!((out.status, &out.stdout[..]), (0, &b"3\n2\n"[..]));

    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = {
        let seen = Arc::clone(&seen);
        Arc::new(move |stream: Stream, data: &[u8]| {
            seen.lock().unwrap().push((stream, data.to_vec()));
        })
    };
    let out = ws
        .exec_streaming(
            ExecRequest::script("echo one; echo two >&2; echo three"),
            Some(sink),
        )
        .unwrap();
    let stdout: Vec<u8> = seen
        .lock()
        .unwrap()
        .iter()
        .filter(|(s, _)| *s == Stream::Stdout)
        .flat_map(|(_, d)| d.clone())
        .collect();
    assert_eq!(stdout, b"one\nthree\n");
    assert_eq!(out.stderr, b"two\n");

    ws.snapshot("before").unwrap();
    ws.fs()
        .write_file("/workspace/notes.md", "after\n")
        .unwrap();
    let copy = ws.fork("before", dir.path().join("copy.db")).unwrap();
    assert_eq!(
        copy.fs().read_file("/workspace/notes.md").unwrap(),
        b"one\ntwo\nthree\n"
    );

    let tools = Toolkit::new(ws.clone());
    let defs = tools.tools();
    assert!(
        defs.iter()
            .any(|t| t.openai()["function"]["name"] == "read")
    );
    let text = tools
        .call("read", serde_json::json!({"path": "notes.md"}))
        .unwrap();
    assert!(text.contains("after"), "{text}");
    let missing = tools
        .call("read", serde_json::json!({"path": "missing.txt"}))
        .unwrap_err();
    assert_eq!(missing.errno(), Some(libc::ENOENT));

    let err = ws
        .fs()
        .read_file("/workspace/nope/missing.txt")
        .unwrap_err();
    assert_eq!(err.errno(), libc::ENOENT);

    let out = ws
        .exec(
            ExecRequest::script("echo started; sleep 30").limits(Limits {
                timeout: Duration::from_millis(500),
                ..Limits::default()
            }),
        )
        .unwrap();
    assert_eq!(out.status, 124);
    assert!(matches!(out.ended, RunStatus::Limit(LimitHit::Timeout(_))));
    assert_eq!(out.stdout, b"started\n");
}
