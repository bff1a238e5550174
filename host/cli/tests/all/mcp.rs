//! `computer mcp` driven by a real MCP client: the official Python SDK (`pip install mcp`).

use std::process::Command;

/// Whether the Python MCP SDK can be imported; in CI it must be.
pub(crate) fn python_mcp() -> bool {
    let ok = Command::new("python3")
        .args(["-c", "import mcp"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI needs the Python MCP SDK (python3 -m pip install mcp)"
        );
        println!("skipped: the Python MCP SDK is not installed (python3 -m pip install mcp)");
    }
    ok
}

#[test]
fn mcp_over_stdio_with_the_official_python_client() {
    if !python_mcp() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().join("ws.db");
    let workspace_arg = workspace.to_str().unwrap();
    let seen = run_client(&["stdio", env!("CARGO_BIN_EXE_computer"), workspace_arg]);
    check_session(&seen);
    // Every call is in the workspace's audit log, failures with their error.
    let ws = computer::Workspace::open(&workspace).unwrap();
    let log = ws.fs().audit_log(0, 100).unwrap();
    assert_eq!(log.len(), 17, "{log:#?}");
    assert!(log.iter().all(|e| e.origin == "mcp"));
    let missing = log.iter().find(|e| e.args.contains("nope.txt")).unwrap();
    assert_eq!(missing.tool, "read");
    assert!(missing.error.as_deref().unwrap().contains("No such file"));
    let out = Command::new(env!("CARGO_BIN_EXE_computer"))
        .arg("--workspace")
        .arg(&workspace)
        .args(["log", "--errors"])
        .output()
        .unwrap();
    let shown = String::from_utf8(out.stdout).unwrap();
    assert!(
        shown.contains("error: /workspace/nope.txt: No such file"),
        "{shown}"
    );
    assert!(!shown.contains(" write "), "only failures: {shown}");
}

/// Runs the Python client with `args`; what it saw.
pub(crate) fn run_client(args: &[&str]) -> serde_json::Value {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/all/mcp_client.py");
    let out = Command::new("python3")
        .arg(script)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "client failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// What `mcp_client.py` must have seen, over either transport.
pub(crate) fn check_session(seen: &serde_json::Value) {
    assert_eq!(seen["server"], "computer");
    assert_eq!(
        seen["tools"],
        serde_json::json!([
            "read", "write", "edit", "ls", "find", "grep", "delete", "exec", "job"
        ])
    );
    assert_eq!(
        seen["edit_schema_required"],
        serde_json::json!(["edits", "path"])
    );
    assert_eq!(seen["write"]["error"], false);
    assert_eq!(
        seen["read"]["text"],
        "     1\tone\n[2 more lines: read with offset=2]\n"
    );
    assert_eq!(seen["edit_ambiguous"]["error"], true);
    assert!(
        seen["edit_ambiguous"]["text"]
            .as_str()
            .unwrap()
            .contains("occurs 2 times")
    );
    assert!(seen["edit"]["text"].as_str().unwrap().contains("+1\n"));
    assert_eq!(seen["missing"]["error"], true);
    assert_eq!(
        seen["missing"]["text"],
        "/workspace/nope.txt: No such file or directory"
    );
    assert_eq!(
        seen["grep"]["text"],
        "/workspace/notes/a.txt:2:two\n/workspace/notes/a.txt:3:two\n"
    );
    assert_eq!(seen["exec"]["text"], "exit status 2\n--- stdout ---\n3\n");
    assert_eq!(seen["ls"]["error"], false);
    assert!(seen["ls"]["text"].as_str().unwrap().contains("a.txt"));
    assert!(
        seen["find"]["text"]
            .as_str()
            .unwrap()
            .contains("notes/a.txt")
    );
    assert!(
        seen["timeout"]["text"]
            .as_str()
            .unwrap()
            .starts_with("exit status 124"),
        "{}",
        seen["timeout"]
    );
    assert!(
        seen["streamed"]["text"]
            .as_str()
            .unwrap()
            .contains("second")
    );
    let progress: Vec<&str> = seen["progress"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m.as_str())
        .collect();
    assert!(progress.iter().any(|m| m.contains("first")), "{progress:?}");
    assert!(
        progress.iter().any(|m| m.contains("second")),
        "{progress:?}"
    );
    assert_eq!(seen["git"]["text"], "exit status 0\n--- stdout ---\nMo\n");
    let unsupported = seen["git_unsupported"]["text"].as_str().unwrap();
    assert!(
        unsupported.starts_with("exit status 1\n")
            && unsupported.contains("'bisect' is not a command of the isolate's git")
            && unsupported.contains("container backend"),
        "{unsupported}"
    );
    assert_eq!(seen["delete"]["error"], false);
    assert_eq!(seen["delete_root"]["error"], true);
    assert_eq!(seen["bad_args"]["error"], true);
    assert_ne!(seen["unknown"], "no error");
}
