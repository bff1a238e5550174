//! `computer mcp` driven by a real MCP client: the official Python SDK (`pip install mcp`).

use std::process::Command;

/// Whether the Python MCP SDK can be imported; in CI it must be.
fn python_mcp() -> bool {
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
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/all/mcp_client.py");
    let out = Command::new("python3")
        .args([script, env!("CARGO_BIN_EXE_computer")])
        .arg(&workspace)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "client failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let seen: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(seen["server"], "computer");
    assert_eq!(
        seen["tools"],
        serde_json::json!([
            "read", "write", "edit", "ls", "find", "grep", "delete", "exec"
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
    assert_eq!(seen["bad_args"]["error"], true);
    assert_ne!(seen["unknown"], "no error");
    // What the tools wrote is in the workspace file.
    let ws = computer::Workspace::open(&workspace).unwrap();
    let text = ws.fs().read_file("/workspace/notes/a.txt").unwrap();
    assert_eq!(text, b"1\ntwo\ntwo\n");
}
