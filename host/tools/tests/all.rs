//! The toolkit against a real workspace (an in-memory SQLite store) and the real isolate.

use computer::Workspace;
use computer_tools::{Content, ToolError, ToolLimits, Toolkit};
use serde_json::json;

#[path = "../../container/tests/support/requirements.rs"]
mod requirements;
use requirements::containers_here;

fn kit() -> Toolkit {
    Toolkit::new(Workspace::in_memory().unwrap())
}

fn call(kit: &Toolkit, name: &str, args: serde_json::Value) -> String {
    kit.call(name, args)
        .unwrap_or_else(|e| panic!("{name} failed: {e}"))
}

fn fails(kit: &Toolkit, name: &str, args: serde_json::Value) -> String {
    match kit.call(name, args) {
        Ok(out) => panic!("{name} should fail, gave {out:?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn tools_have_schemas_and_read_only_mode_offers_four() {
    let k = kit();
    let names: Vec<&str> = k.tools().iter().map(|t| t.name).collect();
    assert_eq!(
        names,
        [
            "read", "write", "edit", "ls", "find", "grep", "delete", "exec", "job"
        ]
    );
    for t in k.tools() {
        assert_eq!(t.input_schema["type"], "object", "{}", t.name);
        assert!(t.input_schema["properties"].is_object(), "{}", t.name);
        assert!(!t.description.is_empty());
    }
    let edit = k.tools().into_iter().find(|t| t.name == "edit").unwrap();
    let required = edit.input_schema["required"].as_array().unwrap();
    assert!(required.contains(&json!("path")) && required.contains(&json!("edits")));

    let ro = kit().read_only();
    let names: Vec<&str> = ro.tools().iter().map(|t| t.name).collect();
    assert_eq!(names, ["read", "ls", "find", "grep"]);
    assert!(matches!(
        ro.call("write", json!({"path": "a", "content": "x"})),
        Err(ToolError::ReadOnly(_))
    ));
    assert!(matches!(
        ro.call("nope", json!({})),
        Err(ToolError::UnknownTool(_))
    ));
}

#[test]
fn write_then_read_with_paging_and_clear_errors() {
    let k = kit();
    let text: String = (1..=10).map(|i| format!("line {i}\n")).collect();
    let out = call(&k, "write", json!({"path": "src/a.txt", "content": text}));
    assert!(out.contains("/workspace/src/a.txt"), "{out}");
    let out = call(
        &k,
        "read",
        json!({"path": "/workspace/src/a.txt", "offset": 3, "limit": 2}),
    );
    assert_eq!(
        out,
        "     3\tline 3\n     4\tline 4\n[6 more lines: read with offset=5]\n"
    );
    let all = call(&k, "read", json!({"path": "src/a.txt"}));
    assert!(all.ends_with("    10\tline 10\n"), "{all}");
    assert!(fails(&k, "read", json!({"path": "nope.txt"})).contains("No such file"));
    assert!(fails(&k, "read", json!({"path": "src"})).contains("is a directory"));
    assert!(fails(&k, "read", json!({"path": "src/a.txt", "offset": 99})).contains("past the end"));
    // Binary files are described, not dumped.
    k.workspace()
        .fs()
        .write_file("/workspace/bin.dat", [0u8, 1, 2, 255])
        .unwrap();
    assert!(call(&k, "read", json!({"path": "bin.dat"})).contains("binary file (4 bytes)"));
    // Arguments are checked against the schema.
    assert!(fails(&k, "read", json!({"path": "a", "bogus": 1})).contains("invalid arguments"));
    assert!(fails(&k, "write", json!({"path": "a"})).contains("content"));
}

#[test]
fn limits_are_named() {
    let limits = ToolLimits {
        write_bytes: 10,
        line_chars: 5,
        results: 2,
        exec_output: 8,
        ..ToolLimits::default()
    };
    let k = kit().with_limits(limits);
    let err = fails(
        &k,
        "write",
        json!({"path": "big", "content": "x".repeat(11)}),
    );
    assert!(err.contains("write limit of 10 bytes"), "{err}");
    call(
        &k,
        "write",
        json!({"path": "long", "content": "abcdefghi\n"}),
    );
    let out = call(&k, "read", json!({"path": "long"}));
    assert!(
        out.contains("abcde [line cut at 5 characters of 9]"),
        "{out}"
    );
    for n in ["a", "b", "c"] {
        call(
            &k,
            "write",
            json!({"path": format!("d/{n}"), "content": "1"}),
        );
    }
    let out = call(&k, "ls", json!({"path": "d"}));
    assert_eq!(
        out,
        "a\nb\n[2 of 3 entries shown: pass offset=2 for more]\n"
    );
    assert_eq!(call(&k, "ls", json!({"path": "d", "offset": 2})), "c\n");
    let out = call(&k, "exec", json!({"command": "seq 1 100"}));
    assert!(
        out.contains("[stdout cut: 292 bytes, the tool returns the first 8]"),
        "{out}"
    );
}

#[test]
fn edit_is_exact_unique_atomic_and_returns_a_diff() {
    let k = kit();
    let src = "fn main() {\n    println!(\"hi\");\n    let x = 1;\n    let y = 1;\n}\n";
    call(&k, "write", json!({"path": "m.rs", "content": src}));
    let read = |k: &Toolkit| {
        String::from_utf8(k.workspace().fs().read_file("/workspace/m.rs").unwrap()).unwrap()
    };

    let diff = call(
        &k,
        "edit",
        json!({"path": "m.rs", "edits": [{"old_text": "\"hi\"", "new_text": "\"hello\""}]}),
    );
    assert!(
        diff.contains("-    println!(\"hi\");\n+    println!(\"hello\");"),
        "{diff}"
    );
    assert!(read(&k).contains("hello"));

    // Not unique: says how many, changes nothing.
    let err = fails(
        &k,
        "edit",
        json!({"path": "m.rs", "edits": [{"old_text": "= 1;", "new_text": "= 2;"}]}),
    );
    assert!(err.contains("occurs 2 times"), "{err}");
    let out = call(
        &k,
        "edit",
        json!({"path": "m.rs", "edits": [{"old_text": "= 1;", "new_text": "= 2;", "replace_all": true}]}),
    );
    assert!(out.contains("+    let y = 2;"), "{out}");

    // All or nothing: the second edit fails, so the first is not written either.
    let before = read(&k);
    let err = fails(
        &k,
        "edit",
        json!({"path": "m.rs", "edits": [
        {"old_text": "let x", "new_text": "let z"},
        {"old_text": "not there", "new_text": "x"}]}),
    );
    assert!(err.contains("edit 2: old_text was not found"), "{err}");
    assert_eq!(read(&k), before);

    // Dry run: the diff, no change.
    let out = call(
        &k,
        "edit",
        json!({"path": "m.rs", "dry_run": true, "edits": [{"old_text": "let x", "new_text": "let w"}]}),
    );
    assert!(out.contains("+    let w = 2;"), "{out}");
    assert_eq!(read(&k), before);

    // Curly quotes and trailing blanks typed differently still match.
    call(
        &k,
        "write",
        json!({"path": "q.txt", "content": "say \"yes\"   \nend\n"}),
    );
    let out = call(
        &k,
        "edit",
        json!({"path": "q.txt", "edits": [{"old_text": "say \u{201c}yes\u{201d}", "new_text": "say no"}]}),
    );
    assert!(out.contains("+say no"), "{out}");
    let q = String::from_utf8(k.workspace().fs().read_file("/workspace/q.txt").unwrap()).unwrap();
    assert_eq!(q, "say no\nend\n");
}

#[test]
fn ls_find_grep_delete() {
    let k = kit();
    for (p, c) in [
        ("src/main.rs", "fn main() {}\n// TODO fix\n"),
        ("src/util/mod.rs", "pub fn todo() {}\n"),
        ("README.md", "# todo list\n\nnothing\n"),
    ] {
        call(&k, "write", json!({"path": p, "content": c}));
    }
    assert_eq!(call(&k, "ls", json!({})), "README.md\nsrc/\n");
    assert_eq!(
        call(&k, "ls", json!({"path": "src", "recursive": true})),
        "main.rs\nutil/\nutil/mod.rs\n"
    );
    assert_eq!(
        call(&k, "find", json!({"pattern": "**/*.rs"})),
        "src/main.rs\nsrc/util/mod.rs\n"
    );
    assert_eq!(
        call(&k, "find", json!({"pattern": "src/*.rs"})),
        "src/main.rs\n"
    );
    assert_eq!(
        call(&k, "find", json!({"pattern": "*.py"})),
        "(no matches)\n"
    );

    let out = call(&k, "grep", json!({"pattern": "TODO"}));
    assert_eq!(out, "/workspace/src/main.rs:2:// TODO fix\n");
    let out = call(
        &k,
        "grep",
        json!({"pattern": "todo", "ignore_case": true, "include": "*.rs"}),
    );
    assert_eq!(
        out,
        "/workspace/src/main.rs:2:// TODO fix\n/workspace/src/util/mod.rs:1:pub fn todo() {}\n"
    );
    let out = call(
        &k,
        "grep",
        json!({"pattern": "fn main() {}", "regex": false, "context": 1}),
    );
    assert_eq!(
        out,
        "/workspace/src/main.rs:1:fn main() {}\n/workspace/src/main.rs-2-// TODO fix\n"
    );
    assert!(fails(&k, "grep", json!({"pattern": "(unclosed"})).contains("invalid arguments"));

    assert!(fails(&k, "delete", json!({"path": "src"})).contains("recursive=true"));
    assert!(
        fails(
            &k,
            "delete",
            json!({"path": "/workspace", "recursive": true})
        )
        .contains("cannot be deleted")
    );
    // `.` and `..` do not get around it.
    for sneaky in ["/workspace/.", "src/..", "/workspace/src/../..", "../../.."] {
        let err = fails(&k, "delete", json!({"path": sneaky, "recursive": true}));
        assert!(err.contains("cannot be deleted"), "{sneaky}: {err}");
    }
    call(&k, "delete", json!({"path": "src", "recursive": true}));
    call(&k, "delete", json!({"path": "README.md"}));
    assert_eq!(call(&k, "ls", json!({})), "(no entries)\n");
    assert!(fails(&k, "delete", json!({"path": "README.md"})).contains("No such file"));
}

#[test]
fn exec_runs_in_the_isolate_and_reports_status() {
    let k = kit();
    call(
        &k,
        "write",
        json!({"path": "n.txt", "content": "3\n1\n2\n"}),
    );
    let out = call(
        &k,
        "exec",
        json!({"command": "sort n.txt; echo oops >&2; exit 3", "backend": "isolate"}),
    );
    assert_eq!(
        out,
        "exit status 3\n--- stdout ---\n1\n2\n3\n--- stderr ---\noops\n"
    );
    call(&k, "write", json!({"path": "sub/.keep", "content": ""}));
    let out = call(
        &k,
        "exec",
        json!({"command": "cat; pwd; echo $X", "cwd": "sub", "env": {"X": "y"}, "stdin": "in\n"}),
    );
    assert_eq!(
        out,
        "exit status 0\n--- stdout ---\nin\n/workspace/sub\ny\n"
    );
    let out = call(&k, "exec", json!({"command": "sleep 5", "timeout": 0.2}));
    assert!(out.starts_with("exit status 124"), "{out}");
    assert!(
        fails(&k, "exec", json!({"command": "true", "backend": "vm"}))
            .contains("expected auto, isolate or container")
    );
    assert!(fails(&k, "exec", json!({"command": "true", "timeout": -1})).contains("positive"));
}

#[test]
fn images_are_read_as_images_for_multimodal_clients() {
    let k = kit();
    let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR rest of a tiny png";
    k.workspace()
        .fs()
        .write_file("/workspace/pic.png", png)
        .unwrap();
    let parts = k.call_content("read", json!({"path": "pic.png"})).unwrap();
    assert_eq!(parts.len(), 2, "{parts:?}");
    assert!(matches!(&parts[0], Content::Text(t) if t.contains("image (image/png")));
    use base64::Engine;
    let expected = base64::engine::general_purpose::STANDARD.encode(png);
    assert_eq!(
        parts[1],
        Content::Image {
            mime: "image/png",
            base64: expected
        }
    );
    // Text files and other tools give text, as `call` does.
    call(&k, "write", json!({"path": "t.txt", "content": "hi\n"}));
    assert_eq!(
        k.call_content("read", json!({"path": "t.txt"})).unwrap(),
        vec![Content::Text("     1\thi\n".into())]
    );
}

#[test]
fn every_call_is_audited_with_long_arguments_shortened() {
    let k = kit().with_origin("test");
    let big = "x".repeat(5000);
    call(&k, "write", json!({"path": "big.txt", "content": big}));
    fails(&k, "read", json!({"path": "missing.txt"}));
    let log = k.workspace().fs().audit_log(0, 10).unwrap();
    assert_eq!(log.len(), 2);
    assert_eq!(
        (log[0].tool.as_str(), log[0].origin.as_str()),
        ("write", "test")
    );
    assert!(log[0].args.contains("[5000 bytes]"), "{}", log[0].args);
    assert!(log[0].args.len() < 400, "the log keeps no copy of the file");
    assert!(log[0].summary.contains("big.txt"), "{}", log[0].summary);
    assert_eq!(log[0].error, None);
    assert_eq!(log[1].tool, "read");
    assert!(log[1].error.as_deref().unwrap().contains("missing.txt"));
    assert!(log[1].started >= log[0].started);
}

#[test]
fn exec_streams_output_and_stops_when_cancelled() {
    use std::sync::{Arc, Mutex};
    let k = kit();
    let seen = Arc::new(Mutex::new(Vec::<u8>::new()));
    let sink_seen = Arc::clone(&seen);
    let cancel = computer::isolate::CancelToken::new();
    let context = computer_tools::CallContext {
        on_output: Some(Arc::new(move |_, bytes: &[u8]| {
            sink_seen.lock().unwrap().extend_from_slice(bytes)
        })),
        cancel: Some(cancel.clone()),
    };
    let stopper = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(300));
        cancel.cancel();
    });
    let out = k
        .call_with(
            "exec",
            json!({"command": "echo started; sleep 30; echo never"}),
            context,
        )
        .unwrap();
    stopper.join().unwrap();
    assert_eq!(
        out,
        [Content::Text(
            "exit status 130\n--- stdout ---\nstarted\n".into()
        )]
    );
    assert_eq!(seen.lock().unwrap().as_slice(), b"started\n");
}

/// Calls `job` on `id` (waiting a little each time) until its output so far holds `text`.
fn job_output_until(kit: &Toolkit, id: u64, text: &str) -> String {
    let mut seen = String::new();
    for _ in 0..100 {
        seen.push_str(&call(kit, "job", json!({"id": id, "wait": 0.1})));
        if seen.contains(text) {
            return seen;
        }
    }
    panic!("job {id} never wrote {text:?}: {seen}");
}

#[test]
fn background_commands_are_followed_waited_for_and_killed() {
    let k = kit();
    let out = call(
        &k,
        "exec",
        json!({"command": "echo one; sleep 1; echo two >&2; exit 3", "background": true}),
    );
    assert_eq!(
        out,
        "started job 1: follow it with the job tool ({\"id\": 1})\n"
    );
    let out = call(&k, "job", json!({"id": 1, "wait": 60}));
    assert_eq!(
        out,
        "job 1: exit status 3: echo one; sleep 1; echo two >&2; exit 3\n\
         --- stdout ---\none\n--- stderr ---\ntwo\n"
    );
    // Output is returned once: the next call has only the status.
    assert_eq!(
        call(&k, "job", json!({"id": 1})),
        "job 1: exit status 3: echo one; sleep 1; echo two >&2; exit 3\n"
    );
    // A job that runs on is seen running, with its output so far, and killed.
    let out = call(
        &k,
        "exec",
        json!({"command": "echo started; sleep 60", "background": true}),
    );
    assert!(out.starts_with("started job 2"), "{out}");
    let seen = job_output_until(&k, 2, "started\n");
    assert!(seen.contains("job 2: running"), "{seen}");
    let out = call(&k, "job", json!({"id": 2, "kill": true}));
    assert!(out.starts_with("job 2: killed (status 130)"), "{out}");
    let listed = call(&k, "job", json!({}));
    assert_eq!(listed.lines().count(), 2, "{listed}");
    assert!(listed.contains("job 1: exit status 3"), "{listed}");
    assert!(listed.contains("job 2: killed"), "{listed}");
    // Bad calls say what is wrong.
    assert!(fails(&k, "job", json!({"id": 99})).contains("job 99: no such job"));
    assert!(fails(&k, "job", json!({"kill": true})).contains("need an `id`"));
    assert!(fails(&k, "job", json!({"id": 1, "wait": -1})).contains("wait -1"));

    // The library: a limit on jobs running at once, and a request that cannot run at all.
    let ws = k.workspace();
    let running: Vec<computer::Job> = (0..computer::MAX_RUNNING_JOBS)
        .map(|_| ws.spawn(computer::ExecRequest::script("sleep 60")).unwrap())
        .collect();
    let err = ws
        .spawn(computer::ExecRequest::script("true"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("job limit"), "{err}");
    for job in &running {
        job.kill();
    }
    for job in &running {
        assert!(
            matches!(
                job.wait(std::time::Duration::from_secs(60)),
                computer::JobStatus::Ended { status: 130, .. }
            ),
            "{job:?}"
        );
    }
    let job = ws
        .spawn(computer::ExecRequest::argv(Vec::<String>::new()))
        .unwrap();
    assert_eq!(
        job.wait(std::time::Duration::from_secs(60)),
        computer::JobStatus::Failed("exec: an empty command line".into())
    );
}

#[test]
fn an_agents_exec_reaches_native_programs_through_the_container() {
    if !containers_here() {
        return;
    }
    let k = kit();
    call(
        &k,
        "write",
        json!({"path": "data.txt", "content": "b\na\n"}),
    );
    // The default backend: the shell's sort, python3 from the container, in one pipeline.
    let out = call(
        &k,
        "exec",
        json!({"command": "sort data.txt | python3 -c 'import sys; print(sys.stdin.read().split())'"}),
    );
    assert_eq!(out, "exit status 0\n--- stdout ---\n['a', 'b']\n");
    // The whole command in the container; what it writes is in the workspace at once.
    let out = call(
        &k,
        "exec",
        json!({"command": "python3 -c 'open(\"made.txt\", \"w\").write(\"42\")'", "backend": "container"}),
    );
    assert!(out.starts_with("exit status 0"), "{out}");
    let read = call(&k, "read", json!({"path": "made.txt"}));
    assert_eq!(read.trim_start(), "1\t42\n");
    // A background command in the container: followed, while other commands run beside it,
    // then killed with every process it started.
    let out = call(
        &k,
        "exec",
        json!({"command": "echo up; sleep 60 & sleep 60", "backend": "container", "background": true}),
    );
    assert!(out.starts_with("started job 1"), "{out}");
    job_output_until(&k, 1, "up\n");
    let out = call(
        &k,
        "exec",
        json!({"command": "ps -eo args | grep -c '^sleep 60'", "backend": "container"}),
    );
    assert_eq!(out, "exit status 0\n--- stdout ---\n2\n");
    let out = call(&k, "job", json!({"id": 1, "kill": true}));
    assert!(out.starts_with("job 1: killed"), "{out}");
    let out = call(
        &k,
        "exec",
        json!({"command": "ps -eo args | grep -c '^sleep 60' || true", "backend": "container"}),
    );
    assert_eq!(out, "exit status 0\n--- stdout ---\n0\n");
}

/// Numbers and sizes from an agent: none panics, each limit is named.
mod hostile {
    use super::*;

    #[test]
    fn huge_numbers_are_refused_not_panics() {
        let k = kit();
        call(
            &k,
            "write",
            json!({"path": "a.txt", "content": "1\n2\n3\n"}),
        );
        // A timeout past the limit (and one past what a Duration holds).
        for t in [1e20, 3601.0, f64::MAX] {
            let err = fails(&k, "exec", json!({"command": "true", "timeout": t}));
            assert!(err.contains("max_exec_timeout"), "{t}: {err}");
        }
        // Paging that would overflow.
        let out = call(
            &k,
            "read",
            json!({"path": "a.txt", "offset": 2, "limit": u64::MAX}),
        );
        assert!(out.contains("2\t2") && out.contains("3\t3"), "{out}");
        for tool in ["ls", "find", "grep"] {
            let args = match tool {
                "grep" => json!({"pattern": "1", "offset": u64::MAX, "limit": u64::MAX}),
                "find" => json!({"pattern": "*", "offset": u64::MAX, "limit": u64::MAX}),
                _ => json!({"offset": u64::MAX, "limit": u64::MAX}),
            };
            k.call(tool, args).unwrap();
        }
    }

    #[test]
    fn a_file_past_the_read_limit_is_refused_by_name() {
        let limits = ToolLimits {
            read_bytes: 1000,
            ..ToolLimits::default()
        };
        let k = kit().with_limits(limits);
        call(
            &k,
            "write",
            json!({"path": "big.txt", "content": "x".repeat(5000)}),
        );
        let err = fails(&k, "read", json!({"path": "big.txt"}));
        assert!(err.contains("read limit of 1000 bytes"), "{err}");
    }

    /// A quota the guest's shell writes past: the write fails, and so does the command (it
    /// used to end with status 0 and the data silently gone, the commit failing at a close).
    #[test]
    fn a_write_past_the_quota_fails_in_the_shell() {
        let k = kit();
        k.workspace().fs().set_quota(200_000).unwrap();
        let out = call(
            &k,
            "exec",
            json!({"command": "seq 1 300000 > big.bin; echo status $?", "backend": "isolate"}),
        );
        assert!(out.contains("status 1"), "{out}");
        let st = k.workspace().fs().stat("/workspace/big.bin");
        assert!(
            st.map(|s| s.size < 1_000_000).unwrap_or(true),
            "the file grew past the quota"
        );
    }
}
