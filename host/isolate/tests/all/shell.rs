//! The shell's compatibility cases (`tests/shell/cases.json`): each script's stdout, stderr
//! and status were recorded from the machine's /bin/bash. Every run checks that bash still
//! gives the recorded result (so the data stays honest) and that our shell gives it too,
//! except for cases marked `known_difference` with a reason.
//! `COMPUTER_RECORD=1 cargo test -p computer-isolate shell` re-records from bash.

use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use computer_isolate::RunRequest;
use computer_vfs::Vfs;
use serde_json::{Value, json};

use crate::{run_on, text};

const ENV: &[(&str, &str)] = &[
    ("HOME", "/home/user"),
    ("PATH", "/usr/bin:/bin"),
    ("LC_ALL", "C"),
];

fn cases_path() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/shell/cases.json")
}

/// (stdout, stderr, status) of real bash, in an empty directory.
fn bash(script: &str) -> (String, String, i64) {
    let dir = tempfile::tempdir().unwrap();
    use std::os::unix::process::CommandExt;
    let out = Command::new("/bin/bash")
        .arg0("bash")
        .args(["-c", script])
        .current_dir(dir.path())
        .env_clear()
        .envs(ENV.iter().copied())
        .output()
        .expect("run /bin/bash");
    let stderr = text(&out.stderr).replace("bash: ", "computer: ");
    (
        text(&out.stdout),
        stderr,
        out.status.code().unwrap_or(-1) as i64,
    )
}

/// The same from our shell in the isolate, on a fresh workspace.
fn ours(script: &str) -> (String, String, i64) {
    let vfs = Arc::new(Vfs::in_memory().unwrap());
    let req = RunRequest {
        env: ENV
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        ..RunRequest::default()
    };
    let out = run_on(&vfs, computer_components::SHELL, &["-c", script], req);
    (text(&out.stdout), text(&out.stderr), out.exit_code() as i64)
}

#[test]
fn compatibility_cases_recorded_from_bash() {
    let path = cases_path();
    let mut cases: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let record = std::env::var_os("COMPUTER_RECORD").is_some();
    let mut failures = Vec::new();
    let (mut passed, mut known) = (0, 0);
    for case in cases.iter_mut() {
        let name = case["name"].as_str().unwrap().to_string();
        let script = case["script"].as_str().unwrap().to_string();
        let now = bash(&script);
        if record {
            case["stdout"] = json!(now.0);
            case["stderr"] = json!(now.1);
            case["status"] = json!(now.2);
        }
        let recorded = (
            case["stdout"].as_str().unwrap_or_default().to_string(),
            case["stderr"].as_str().unwrap_or_default().to_string(),
            case["status"].as_i64().unwrap_or(-1),
        );
        assert_eq!(
            now, recorded,
            "case {name:?}: /bin/bash no longer gives the recorded result; re-record"
        );
        if case.get("known_difference").is_some() {
            known += 1;
            continue;
        }
        let got = ours(&script);
        if got == recorded {
            passed += 1;
        } else {
            failures.push(format!(
                "{name}:\n  script: {script:?}\n  bash:  {recorded:?}\n  ours:  {got:?}"
            ));
        }
    }
    if record {
        std::fs::write(&path, serde_json::to_string_pretty(&cases).unwrap() + "\n").unwrap();
    }
    println!(
        "shell compatibility: {passed} passed, {} failed, {known} known differences",
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {} cases differ from bash:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
