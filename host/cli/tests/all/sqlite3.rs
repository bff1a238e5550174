//! `sqlite3` in the isolate against Debian 12's sqlite3 3.40.1: the cases of
//! `tests/python/sqlite3.json` (`name`, `script`, optional `files` seeded into the working
//! directory and `stdin`; recorded `stdout`, `stderr`, `status`) run in bash with the real
//! sqlite3, and in the isolate's shell over a workspace, where `sqlite3` is a program of the
//! Python runtime. Every case must give the recorded output byte for byte.
//!
//! `COMPUTER_RECORD=1` records the cases anew from the machine's sqlite3 (3.40 only). Without
//! it, a machine with that sqlite3 still checks that it gives the recordings (CI installs
//! it, so the data stays honest), and one without it compares the isolate's with them alone.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use crate::Cli;
use crate::python::{data_dir, python_here};

fn cases_file() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/python/sqlite3.json")
}

/// What a script did.
#[derive(Debug, PartialEq)]
struct Outcome {
    stdout: String,
    stderr: String,
    status: i64,
}

impl Outcome {
    fn recorded(case: &Value) -> Option<Outcome> {
        Some(Outcome {
            stdout: case.get("stdout")?.as_str()?.to_string(),
            stderr: case.get("stderr")?.as_str()?.to_string(),
            status: case.get("status")?.as_i64()?,
        })
    }

    fn of(out: &std::process::Output) -> Outcome {
        Outcome {
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            status: out.status.code().unwrap_or(-1).into(),
        }
    }
}

fn files(case: &Value) -> Vec<(String, String)> {
    case.get("files")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                .collect()
        })
        .unwrap_or_default()
}

fn stdin(case: &Value) -> &str {
    case.get("stdin")
        .and_then(Value::as_str)
        .unwrap_or_default()
}

/// Whether the machine's `sqlite3` is Debian 12's 3.40, the oracle.
fn oracle_here() -> bool {
    Command::new("sqlite3")
        .arg("-version")
        .output()
        .is_ok_and(|o| o.stdout.starts_with(b"3.40."))
}

/// The case in bash with the machine's sqlite3, in a fresh directory.
fn run_native(case: &Value) -> Outcome {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files(case) {
        std::fs::write(dir.path().join(path), text).unwrap();
    }
    let mut cmd = Command::new("bash");
    cmd.arg("-c")
        .arg(case["script"].as_str().unwrap())
        .current_dir(dir.path())
        .env("LC_ALL", "C");
    Outcome::of(&crate::finish(cmd, stdin(case).as_bytes()))
}

/// The case in the isolate's shell, over a fresh workspace.
fn run_isolate(case: &Value) -> Outcome {
    let cli = Cli::new();
    for (path, text) in files(case) {
        let out = cli.run_with_stdin(&["fs", "write", &path], text.as_bytes());
        assert!(out.status.success(), "{out:?}");
    }
    let mut cmd = cli.command(&[
        "exec",
        "--backend",
        "isolate",
        case["script"].as_str().unwrap(),
    ]);
    cmd.env("COMPUTER_DATA_DIR", data_dir());
    Outcome::of(&crate::finish(cmd, stdin(case).as_bytes()))
}

#[test]
fn sqlite3_prints_what_debians_sqlite3_prints() {
    if !python_here() {
        return;
    }
    let record = std::env::var_os("COMPUTER_RECORD").is_some();
    let oracle = oracle_here();
    assert!(
        oracle || !record,
        "recording needs Debian 12's sqlite3 3.40 (apt-get install sqlite3)"
    );
    assert!(
        oracle || std::env::var_os("CI").is_none(),
        "CI checks the recordings against Debian 12's sqlite3 3.40 (apt-get install sqlite3)"
    );
    let text = std::fs::read_to_string(cases_file()).unwrap();
    let mut cases: Vec<Value> = serde_json::from_str(&text).unwrap();
    let mut failures = Vec::new();
    for case in &mut cases {
        let name = case["name"].as_str().unwrap().to_string();
        if oracle {
            let native = run_native(case);
            if record {
                let map = case.as_object_mut().unwrap();
                map.insert("stdout".into(), json!(native.stdout));
                map.insert("stderr".into(), json!(native.stderr));
                map.insert("status".into(), json!(native.status));
            } else if Outcome::recorded(case).as_ref() != Some(&native) {
                failures.push(format!(
                    "{name}: sqlite3 3.40 no longer gives the recording (COMPUTER_RECORD=1 \
                     records it anew): {native:#?}"
                ));
                continue;
            }
        }
        let Some(expected) = Outcome::recorded(case) else {
            failures.push(format!(
                "{name}: never recorded (COMPUTER_RECORD=1 records it)"
            ));
            continue;
        };
        let ours = run_isolate(case);
        if ours != expected {
            failures.push(format!(
                "{name}:\n  expected {expected:#?}\n  got {ours:#?}"
            ));
        }
    }
    if record {
        let mut text = serde_json::to_string_pretty(&cases).unwrap();
        text.push('\n');
        std::fs::write(cases_file(), text).unwrap();
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases differ:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn hostile_sql_is_held_by_the_isolate() {
    if !python_here() {
        return;
    }
    let cli = Cli::new();
    let run = |args: &[&str]| {
        let mut cmd = cli.command(args);
        cmd.env("COMPUTER_DATA_DIR", data_dir());
        Outcome::of(&crate::finish(cmd, b""))
    };
    // A blob of a gigabyte: the memory limit, said as SQLite's out-of-memory error.
    let out = run(&[
        "exec",
        "--backend",
        "isolate",
        "sqlite3 :memory: 'select length(randomblob(1e9))'",
    ]);
    assert_eq!(
        (out.stderr.as_str(), out.status),
        ("Error: stepping, out of memory (7)\n", 7)
    );
    // A query without end: the time limit, named.
    let out = run(&[
        "exec",
        "--backend",
        "isolate",
        "--timeout",
        "2",
        "sqlite3 :memory: 'with recursive c(x) as (select 1 union all select x + 1 from c) \
         select count(*) from c'",
    ]);
    assert_eq!(out.status, 124, "{out:?}");
    assert!(out.stderr.contains("time limit"), "{out:?}");
    // The runtime's read-only layer and the host's files are not databases it can open.
    for path in ["/usr/local/lib/new.db", "/etc/passwd"] {
        let out = run(&[
            "exec",
            "--backend",
            "isolate",
            &format!("sqlite3 {path} 'create table t(x)'"),
        ]);
        assert_eq!(
            out.stderr,
            format!("Error: unable to open database \"{path}\": unable to open database file\n")
        );
        assert_eq!(out.status, 1);
    }
    // The next command works.
    let out = run(&[
        "exec",
        "--backend",
        "isolate",
        "sqlite3 :memory: 'select 6 * 7'",
    ]);
    assert_eq!((out.stdout.as_str(), out.status), ("42\n", 0));
}
