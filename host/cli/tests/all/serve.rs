//! `computer serve` over real HTTP: the JSON API with a real client (reqwest), hostile
//! requests, MCP over streamable HTTP with the official Python SDK, and 50 concurrent clients.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use reqwest::StatusCode;
use reqwest::blocking::{Client, RequestBuilder, Response};
use serde_json::{Value, json};

const TOKEN: &str = "test-token-7f3a";

/// A `computer serve` process on a free loopback port, killed when dropped.
struct Server {
    child: Child,
    base: String,
    client: Client,
    dir: tempfile::TempDir,
}

impl Server {
    fn start(extra: &[&str]) -> Server {
        Server::start_with_env(extra, &[])
    }

    fn start_with_env(extra: &[&str], env: &[(&str, &str)]) -> Server {
        let dir = tempfile::tempdir().unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_computer"))
            .arg("serve")
            .args(["--listen", "127.0.0.1:0", "--data-dir"])
            .arg(dir.path().join("data"))
            .args(extra)
            .env("COMPUTER_TOKEN", TOKEN)
            .envs(env.iter().copied())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        stderr.read_line(&mut line).unwrap();
        let addr = line
            .trim()
            .strip_prefix("computer serve: listening on ")
            .unwrap_or_else(|| panic!("unexpected first line: {line:?}"))
            .to_string();
        // Keep draining the server's stderr so that it never blocks on a full pipe.
        std::thread::spawn(move || {
            let mut rest = String::new();
            let _ = stderr.read_to_string(&mut rest);
            if rest.contains("panicked") {
                eprintln!("server stderr:\n{rest}");
            }
        });
        Server {
            child,
            base: addr,
            client: Client::builder()
                .timeout(Duration::from_secs(60))
                .build()
                .unwrap(),
            dir,
        }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    fn authed(&self, req: RequestBuilder) -> RequestBuilder {
        req.bearer_auth(TOKEN)
    }

    fn get(&self, path: &str) -> Response {
        self.authed(self.client.get(self.url(path))).send().unwrap()
    }

    fn post(&self, path: &str, body: &Value) -> Response {
        self.authed(self.client.post(self.url(path)))
            .header("content-type", "application/json")
            .body(body.to_string())
            .send()
            .unwrap()
    }

    fn put(&self, path: &str, body: impl Into<Vec<u8>>) -> Response {
        self.authed(self.client.put(self.url(path)))
            .body(body.into())
            .send()
            .unwrap()
    }

    fn delete(&self, path: &str) -> Response {
        self.authed(self.client.delete(self.url(path)))
            .send()
            .unwrap()
    }

    fn create(&self, id: &str) {
        let r = self.post("/v1/workspaces", &json!({ "id": id }));
        assert_eq!(r.status(), StatusCode::CREATED, "{}", r.text().unwrap());
    }

    /// Still running and answering.
    fn assert_healthy(&mut self) {
        assert!(self.child.try_wait().unwrap().is_none(), "the server died");
        let r = self.client.get(self.url("/v1/health")).send().unwrap();
        assert_eq!(r.status(), StatusCode::OK);
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The JSON body of `r`, after checking its status.
fn json_of(r: Response, status: StatusCode) -> Value {
    let got = r.status();
    let text = r.text().unwrap();
    assert_eq!(got, status, "body: {text}");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

/// The `error` text of a failed request with `status`.
fn error_of(r: Response, status: StatusCode) -> String {
    json_of(r, status)["error"].as_str().unwrap().to_string()
}

#[test]
fn http_api_workspaces_files_exec_tools_and_log() {
    let mut s = Server::start(&[]);
    s.create("alpha");
    let listed = json_of(s.get("/v1/workspaces"), StatusCode::OK);
    assert_eq!(listed["workspaces"][0]["id"], "alpha");

    // Files: write (parents created), read, stat, ls.
    let st = json_of(
        s.put("/v1/workspaces/alpha/files/workspace/src/a.txt", "hello\n"),
        StatusCode::OK,
    );
    assert_eq!(st["size"], 6);
    let r = s.get("/v1/workspaces/alpha/files/workspace/src/a.txt");
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.bytes().unwrap().as_ref(), b"hello\n");
    let st = json_of(
        s.get("/v1/workspaces/alpha/stat/workspace/src"),
        StatusCode::OK,
    );
    assert_eq!(st["type"], "dir");
    let ls = json_of(
        s.get("/v1/workspaces/alpha/ls/workspace/src"),
        StatusCode::OK,
    );
    assert_eq!(ls["entries"][0]["path"], "/workspace/src/a.txt");
    assert_eq!(ls["total"], 1);

    // Exec, collected: the file the API wrote is there for the shell.
    let out = json_of(
        s.post(
            "/v1/workspaces/alpha/exec",
            &json!({"command": "cat src/a.txt; echo \"$X\" >&2; exit 3", "env": {"X": "from env"}}),
        ),
        StatusCode::OK,
    );
    assert_eq!(out["status"], 3);
    assert_eq!(out["stdout"], "hello\n");
    assert_eq!(out["stderr"], "from env\n");

    // Exec, streamed as server-sent events, in order, with the exit event last.
    let r = s
        .authed(s.client.post(s.url("/v1/workspaces/alpha/exec")))
        .header("accept", "text/event-stream")
        .header("content-type", "application/json")
        .body(json!({"command": "echo one; echo two >&2; echo three"}).to_string())
        .send()
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert!(
        r.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/event-stream")
    );
    let events = parse_events(&r.text().unwrap());
    let names: Vec<&str> = events.iter().map(|(e, _)| e.as_str()).collect();
    assert_eq!(names.last(), Some(&"exit"), "{events:?}");
    let stdout: String = events
        .iter()
        .filter(|(e, _)| e == "stdout")
        .map(|(_, d)| serde_json::from_str::<String>(d).unwrap())
        .collect();
    assert_eq!(stdout, "one\nthree\n");
    assert!(
        events
            .iter()
            .any(|(e, d)| e == "stderr" && d.contains("two"))
    );
    let exit: Value = serde_json::from_str(&events.last().unwrap().1).unwrap();
    assert_eq!(exit["status"], 0);

    // A timeout is a result, not a failed request.
    let out = json_of(
        s.post(
            "/v1/workspaces/alpha/exec",
            &json!({"command": "sleep 5", "timeout": 0.3}),
        ),
        StatusCode::OK,
    );
    assert_eq!(out["status"], 124);
    assert!(
        out["ended"].as_str().unwrap().contains("time limit"),
        "{out}"
    );

    // Tools: a call and a tool failure (an is_error result), both in the audit log.
    let r = json_of(
        s.post(
            "/v1/workspaces/alpha/tools/grep",
            &json!({"pattern": "hel+o", "regex": true}),
        ),
        StatusCode::OK,
    );
    assert_eq!(r["is_error"], false);
    assert_eq!(r["content"][0]["text"], "/workspace/src/a.txt:1:hello\n");
    let r = json_of(
        s.post(
            "/v1/workspaces/alpha/tools/edit",
            &json!({"path": "src/a.txt", "edits": [{"old_text": "absent", "new_text": "x"}]}),
        ),
        StatusCode::OK,
    );
    assert_eq!(r["is_error"], true);
    // Every call is in the log: the file routes, each exec, the tools.
    let log = json_of(s.get("/v1/workspaces/alpha/log"), StatusCode::OK);
    let entries = log["entries"].as_array().unwrap();
    let tools: Vec<&str> = entries
        .iter()
        .map(|e| e["tool"].as_str().unwrap())
        .collect();
    assert_eq!(
        tools,
        [
            "files.write",
            "files.read",
            "exec",
            "exec",
            "exec",
            "grep",
            "edit"
        ],
        "{log}"
    );
    assert!(entries.iter().all(|e| e["origin"] == "http"), "{log}");
    assert!(
        entries[1]["args"].as_str().unwrap().contains("src/a.txt"),
        "{log}"
    );
    assert!(
        entries[2]["args"].as_str().unwrap().contains("exit 3")
            && entries[2]["summary"]
                .as_str()
                .unwrap()
                .contains("\"status\":3"),
        "{log}"
    );
    assert!(
        entries[4]["summary"]
            .as_str()
            .unwrap()
            .contains("time limit"),
        "{log}"
    );
    assert!(
        entries[6]["error"].as_str().unwrap().contains("not found"),
        "{log}"
    );
    assert!(
        entries[6]["args"].as_str().unwrap().contains("absent"),
        "{log}"
    );
    let tools = json_of(s.get("/v1/tools"), StatusCode::OK);
    assert_eq!(tools["tools"].as_array().unwrap().len(), 9);

    // A background command: answered at once with its job, followed through the job tool
    // across requests (each call returns only what is new).
    let started = json_of(
        s.post(
            "/v1/workspaces/alpha/exec",
            &json!({
                "command": "echo first; until test -e go; do sleep 0.1; done; echo second",
                "background": true
            }),
        ),
        StatusCode::OK,
    );
    let job = started["job"].as_u64().unwrap();
    assert_eq!(
        started["command"],
        "echo first; until test -e go; do sleep 0.1; done; echo second"
    );
    let follow = |wait: f64| {
        let r = json_of(
            s.post(
                "/v1/workspaces/alpha/tools/job",
                &json!({"id": job, "wait": wait}),
            ),
            StatusCode::OK,
        );
        r["content"][0]["text"].as_str().unwrap().to_string()
    };
    let seen = (0..300)
        .map(|_| follow(0.2))
        .find(|text| text.contains("first"))
        .expect("the job's first line never came");
    assert!(seen.contains(&format!("job {job}: running")), "{seen}");
    s.put("/v1/workspaces/alpha/files/workspace/go", "");
    let done = follow(60.0);
    assert_eq!(
        done,
        format!(
            "job {job}: exit status 0: echo first; until test -e go; do sleep 0.1; done; \
             echo second\n--- stdout ---\nsecond\n"
        )
    );

    // Snapshots.
    let snap = json_of(
        s.post("/v1/workspaces/alpha/snapshots", &json!({"name": "first"})),
        StatusCode::CREATED,
    );
    assert_eq!(snap["name"], "first");
    let snaps = json_of(s.get("/v1/workspaces/alpha/snapshots"), StatusCode::OK);
    assert_eq!(snaps["snapshots"][0]["name"], "first");
    let info = json_of(s.get("/v1/workspaces/alpha"), StatusCode::OK);
    assert_eq!(info["snapshots"], 1);

    // Delete a file, then the workspace.
    let r = s.delete("/v1/workspaces/alpha/files/workspace/src?recursive=true");
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    assert_eq!(
        s.get("/v1/workspaces/alpha/stat/workspace/src").status(),
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        s.delete("/v1/workspaces/alpha").status(),
        StatusCode::NO_CONTENT
    );
    let msg = error_of(
        s.get("/v1/workspaces/alpha/ls/workspace"),
        StatusCode::NOT_FOUND,
    );
    assert!(msg.contains("no workspace"), "{msg}");
    s.assert_healthy();
}

/// `(event, data)` pairs of a server-sent event stream.
fn parse_events(text: &str) -> Vec<(String, String)> {
    let mut events = Vec::new();
    for block in text.split("\n\n") {
        let mut name = None;
        let mut data = Vec::new();
        for line in block.lines() {
            if let Some(v) = line.strip_prefix("event:") {
                name = Some(v.trim().to_string());
            } else if let Some(v) = line.strip_prefix("data:") {
                data.push(v.trim_start().to_string());
            }
        }
        if let Some(name) = name {
            events.push((name, data.join("\n")));
        }
    }
    events
}

#[test]
fn http_api_refuses_bad_requests_without_harm() {
    let mut s = Server::start(&["--max-body", "4096"]);
    s.create("good");
    s.put("/v1/workspaces/good/files/workspace/keep.txt", "kept");

    // Authentication: none, wrong, and the open routes.
    let r = s.client.get(s.url("/v1/workspaces")).send().unwrap();
    assert!(error_of(r, StatusCode::UNAUTHORIZED).contains("missing"));
    let r = s
        .client
        .get(s.url("/v1/workspaces"))
        .bearer_auth("wrong")
        .send()
        .unwrap();
    assert!(error_of(r, StatusCode::UNAUTHORIZED).contains("wrong"));
    let r = s
        .client
        .post(s.url("/v1/workspaces/good/mcp"))
        .send()
        .unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    let doc = json_of(
        s.client.get(s.url("/v1/openapi.json")).send().unwrap(),
        StatusCode::OK,
    );
    assert_eq!(doc["openapi"], "3.1.0");

    // Unknown and malformed ids; a duplicate.
    assert_eq!(
        s.get("/v1/workspaces/nobody").status(),
        StatusCode::NOT_FOUND
    );
    let msg = error_of(
        s.post("/v1/workspaces", &json!({"id": "../escape"})),
        StatusCode::BAD_REQUEST,
    );
    assert!(msg.contains("invalid workspace id"), "{msg}");
    assert_eq!(
        s.get("/v1/workspaces/..%2F..%2Fgood/ls/workspace").status(),
        StatusCode::BAD_REQUEST
    );
    assert_eq!(
        s.post("/v1/workspaces", &json!({"id": "good"})).status(),
        StatusCode::CONFLICT
    );

    // Malformed JSON, unknown fields, an oversized body.
    let r = s
        .authed(s.client.post(s.url("/v1/workspaces/good/exec")))
        .header("content-type", "application/json")
        .body("{\"command\": ")
        .send()
        .unwrap();
    assert!(error_of(r, StatusCode::BAD_REQUEST).contains("malformed JSON"));
    let r = s.post(
        "/v1/workspaces/good/exec",
        &json!({"command": "true", "bogus": 1}),
    );
    assert!(error_of(r, StatusCode::BAD_REQUEST).contains("bogus"));
    let r = s.put(
        "/v1/workspaces/good/files/workspace/big",
        vec![b'x'; 10_000],
    );
    assert_eq!(r.status(), StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(
        s.get("/v1/workspaces/good/stat/workspace/big").status(),
        StatusCode::NOT_FOUND,
        "nothing of an oversized body is written"
    );

    // Paths with `..` stay inside the workspace's own tree (raw, so no client normalizes them).
    let (status, _) = raw_get(
        &s,
        "/v1/workspaces/good/files/workspace/../../../../etc/passwd",
    );
    assert_eq!(status, 404);
    let (status, body) = raw_get(
        &s,
        "/v1/workspaces/good/files/workspace/../workspace/keep.txt",
    );
    assert_eq!((status, body.as_str()), (200, "kept"));
    // Reading a directory, a missing file, an unknown tool, an unknown route.
    assert_eq!(
        s.get("/v1/workspaces/good/files/workspace").status(),
        StatusCode::BAD_REQUEST
    );
    assert_eq!(
        s.get("/v1/workspaces/good/files/workspace/none").status(),
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        s.post("/v1/workspaces/good/tools/format_disk", &json!({}))
            .status(),
        StatusCode::NOT_FOUND
    );
    let msg = error_of(s.get("/v1/nothing/here"), StatusCode::NOT_FOUND);
    assert!(msg.contains("no such route"), "{msg}");

    // Every operation of the OpenAPI document is routed (none falls through to "no such route").
    s.put("/v1/workspaces/good/files/workspace/probe.txt", "probe");
    for (path, methods) in doc["paths"].as_object().unwrap() {
        let concrete = path
            .replace("{id}", "good")
            .replace("{path}", "workspace/probe.txt")
            .replace("{name}", "ls");
        for method in methods.as_object().unwrap().keys() {
            let req = match method.as_str() {
                "get" => s.client.get(s.url(&concrete)),
                "post" => s.client.post(s.url(&concrete)),
                "put" => s.client.put(s.url(&concrete)),
                "delete" => continue, // covered above; would delete the fixture
                other => panic!("unexpected method {other}"),
            };
            let r = s
                .authed(req)
                .header("content-type", "application/json")
                .body("{}")
                .send()
                .unwrap();
            let status = r.status();
            let text = r.text().unwrap();
            assert!(
                !text.contains("no such route") && status != StatusCode::METHOD_NOT_ALLOWED,
                "{method} {concrete}: {status} {text}"
            );
        }
    }

    // The other workspace is untouched, and the server is fine.
    let r = s.get("/v1/workspaces/good/files/workspace/keep.txt");
    assert_eq!(r.text().unwrap(), "kept");
    s.assert_healthy();
}

/// A GET sent byte for byte, so that `..` reaches the server as written.
fn raw_get(s: &Server, path: &str) -> (u16, String) {
    let addr = s.base.trim_start_matches("http://");
    let mut stream = TcpStream::connect(addr).unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {TOKEN}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let status = response[9..12].parse().unwrap();
    let body = response.split("\r\n\r\n").nth(1).unwrap_or("").to_string();
    (status, body)
}

#[test]
fn serve_refuses_a_public_address_without_a_token() {
    let out = Command::new(env!("CARGO_BIN_EXE_computer"))
        .args(["serve", "--listen", "0.0.0.0:0", "--data-dir"])
        .arg(tempfile::tempdir().unwrap().path())
        .env_remove("COMPUTER_TOKEN")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("without a token"), "{err}");
}

#[test]
fn idle_workspaces_are_closed_and_reopened() {
    let s = Server::start(&["--idle-timeout", "1"]);
    s.create("sleepy");
    s.put("/v1/workspaces/sleepy/files/workspace/f", "data");
    let open = |s: &Server| {
        json_of(s.get("/v1/workspaces"), StatusCode::OK)["workspaces"][0]["open"].clone()
    };
    assert_eq!(open(&s), true);
    let mut closed = false;
    for _ in 0..50 {
        std::thread::sleep(Duration::from_millis(100));
        if open(&s) == false {
            closed = true;
            break;
        }
    }
    assert!(closed, "the idle workspace was not closed");
    let r = s.get("/v1/workspaces/sleepy/files/workspace/f");
    assert_eq!(r.text().unwrap(), "data");
    assert_eq!(open(&s), true);
}

/// The server's descriptors on workspace files whose name starts with `prefix`.
fn descriptors_on(s: &Server, prefix: &str) -> usize {
    std::fs::read_dir(format!("/proc/{}/fd", s.child.id()))
        .unwrap()
        .filter_map(|e| std::fs::read_link(e.ok()?.path()).ok())
        .filter(|t| {
            t.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with(prefix))
        })
        .count()
}

#[test]
fn idle_workspaces_sleep_without_descriptors_and_wake_on_use() {
    let s = Server::start(&["--sleep-after", "1"]);
    s.create("nap");
    s.put("/v1/workspaces/nap/files/workspace/f", "data");
    // A command run (the workspace then keeps a git handle, which must not keep it awake).
    let out = json_of(
        s.post("/v1/workspaces/nap/exec", &json!({"command": "cat f"})),
        StatusCode::OK,
    );
    assert_eq!(out["stdout"], "data");
    assert_eq!(descriptors_on(&s, "nap.db"), 3);
    let mut asleep = false;
    for _ in 0..50 {
        std::thread::sleep(Duration::from_millis(100));
        if descriptors_on(&s, "nap.db") == 0 {
            asleep = true;
            break;
        }
    }
    assert!(asleep, "the idle workspace kept its database open");
    // Asleep, it is still open to the registry, and the next call wakes it.
    let listed = json_of(s.get("/v1/workspaces"), StatusCode::OK);
    assert_eq!(listed["workspaces"][0]["open"], true);
    let r = s.get("/v1/workspaces/nap/files/workspace/f");
    assert_eq!(r.text().unwrap(), "data");
    assert_eq!(descriptors_on(&s, "nap.db"), 3);
    s.put("/v1/workspaces/nap/files/workspace/g", "more");
    let r = s.get("/v1/workspaces/nap/files/workspace/g");
    assert_eq!(r.text().unwrap(), "more");
}

#[test]
fn fifty_concurrent_clients_on_fifty_workspaces() {
    let mut s = Server::start(&[]);
    let server = &s;
    std::thread::scope(|scope| {
        for n in 0..50 {
            scope.spawn(move || {
                let id = format!("w{n}");
                server.create(&id);
                for round in 0..3 {
                    let content = format!("client {n} round {round}\n");
                    let path = format!("/v1/workspaces/{id}/files/workspace/mine.txt");
                    assert_eq!(server.put(&path, content.clone()).status(), StatusCode::OK);
                    assert_eq!(server.get(&path).text().unwrap(), content);
                    let out = json_of(
                        server.post(
                            &format!("/v1/workspaces/{id}/exec"),
                            &json!({"command": "cat mine.txt; echo \"$N\"", "env": {"N": n.to_string()}}),
                        ),
                        StatusCode::OK,
                    );
                    assert_eq!(out["stdout"], format!("{content}{n}\n"));
                    let r = json_of(
                        server.post(
                            &format!("/v1/workspaces/{id}/tools/write"),
                            &json!({"path": format!("round{round}.txt"), "content": content}),
                        ),
                        StatusCode::OK,
                    );
                    assert_eq!(r["is_error"], false, "{r}");
                }
            });
        }
    });
    // Nothing lost, nothing crossed: each workspace holds exactly its own client's files.
    for n in 0..50 {
        let ls = json_of(
            s.get(&format!("/v1/workspaces/w{n}/ls/workspace")),
            StatusCode::OK,
        );
        let names: Vec<&str> = ls["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["path"].as_str().unwrap())
            .collect();
        assert_eq!(
            names,
            [
                "/workspace/mine.txt",
                "/workspace/round0.txt",
                "/workspace/round1.txt",
                "/workspace/round2.txt"
            ]
        );
        let r = s.get(&format!("/v1/workspaces/w{n}/files/workspace/round2.txt"));
        assert_eq!(r.text().unwrap(), format!("client {n} round 2\n"));
        // Per round a write, a read, an exec and a tool call; then the read above.
        let log = json_of(s.get(&format!("/v1/workspaces/w{n}/log")), StatusCode::OK);
        assert_eq!(log["entries"].as_array().unwrap().len(), 13);
    }
    s.assert_healthy();
}

#[test]
fn mcp_over_streamable_http_with_the_official_python_client() {
    if !super::mcp::python_mcp() {
        return;
    }
    let mut s = Server::start(&[]);
    s.create("agent");
    s.create("bystander");
    s.put(
        "/v1/workspaces/bystander/files/workspace/notes/a.txt",
        "bystander",
    );
    let url = s.url("/v1/workspaces/agent/mcp");
    let seen = super::mcp::run_client(&["http", &url, TOKEN]);
    super::mcp::check_session(&seen);
    let log = json_of(s.get("/v1/workspaces/agent/log"), StatusCode::OK);
    let entries = log["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 17, "{log}");
    assert!(entries.iter().all(|e| e["origin"] == "mcp-http"));
    // The session worked on its own workspace only.
    let r = s.get("/v1/workspaces/bystander/files/workspace/notes/a.txt");
    assert_eq!(r.text().unwrap(), "bystander");
    let log = json_of(s.get("/v1/workspaces/bystander/log"), StatusCode::OK);
    let entries = log["entries"].as_array().unwrap();
    assert!(
        entries.iter().all(|e| e["origin"] == "http"),
        "only this test's own file calls: {log}"
    );
    // A wrong token is refused before MCP sees the request.
    let r = s
        .client
        .post(&url)
        .bearer_auth("nope")
        .header("content-type", "application/json")
        .body("{}")
        .send()
        .unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    s.assert_healthy();
}

#[test]
fn a_read_only_server_offers_only_what_does_not_change_workspaces() {
    let s = Server::start(&["--read-only"]);
    // Workspaces are managed by the operator here: one made through the library.
    let data = s.dir.path().join("data");
    let ws = computer::Workspace::open(data.join("ro.db")).unwrap();
    ws.fs().write_file("/workspace/a.txt", "a\n").unwrap();
    drop(ws);
    let tools = json_of(s.get("/v1/tools"), StatusCode::OK);
    let names: Vec<&str> = tools["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["read", "ls", "find", "grep"]);
    let r = json_of(
        s.post("/v1/workspaces/ro/tools/read", &json!({"path": "a.txt"})),
        StatusCode::OK,
    );
    assert_eq!(r["is_error"], false);
    let r = json_of(
        s.post(
            "/v1/workspaces/ro/tools/write",
            &json!({"path": "b", "content": ""}),
        ),
        StatusCode::OK,
    );
    assert_eq!(r["is_error"], true);
    assert!(
        r["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("read-only")
    );
    for (path, body) in [
        ("/v1/workspaces", json!({"id": "new"})),
        ("/v1/workspaces/ro/snapshots", json!({"name": "s"})),
        (
            "/v1/workspaces/ro/bucket/import",
            json!({"url": "s3://b/p"}),
        ),
        (
            "/v1/workspaces/ro/bucket/push",
            json!({"url": "s3://b/p", "snapshot": "s"}),
        ),
    ] {
        assert_eq!(
            s.post(path, &body).status(),
            StatusCode::FORBIDDEN,
            "{path}"
        );
    }
    assert_eq!(
        s.delete("/v1/workspaces/ro").status(),
        StatusCode::FORBIDDEN
    );
    assert_eq!(
        s.put("/v1/workspaces/ro/files/workspace/b", "b").status(),
        StatusCode::FORBIDDEN
    );
    assert_eq!(
        s.post("/v1/workspaces/ro/exec", &json!({"command": "true"}))
            .status(),
        StatusCode::FORBIDDEN
    );
    assert_eq!(
        s.delete("/v1/workspaces/ro/files/workspace/a.txt").status(),
        StatusCode::FORBIDDEN
    );
    let r = s.get("/v1/workspaces/ro/files/workspace/a.txt");
    assert_eq!(r.text().unwrap(), "a\n");
}

#[test]
fn a_streamed_exec_stops_when_its_client_goes_away() {
    let s = Server::start(&[]);
    s.create("quit");
    let mut r = s
        .authed(s.client.post(s.url("/v1/workspaces/quit/exec")))
        .header("accept", "text/event-stream")
        .header("content-type", "application/json")
        .body(
            json!({"command": "echo first; sleep 1; echo tick; sleep 1; echo done > marker"})
                .to_string(),
        )
        .send()
        .unwrap();
    let mut first = [0u8; 64];
    let n = r.read(&mut first).unwrap();
    assert!(String::from_utf8_lossy(&first[..n]).contains("first"));
    drop(r);
    std::thread::sleep(Duration::from_millis(3500));
    assert_eq!(
        s.get("/v1/workspaces/quit/stat/workspace/marker").status(),
        StatusCode::NOT_FOUND,
        "the command ran on after its client left"
    );
}

/// Keeps secret `name` (bound to `host`) in the secret store at `store`, as `computer secret
/// set` does, the value on stdin.
fn keep_secret(store: &std::path::Path, name: &str, host: &str, value: &str) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_computer"))
        .args(["secret", "set", name, "--host", host])
        .env("COMPUTER_SECRETS", store)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(value.as_bytes())
        .unwrap();
    assert!(
        child.wait().unwrap().success(),
        "computer secret set {name}"
    );
}

/// A secret set (or removed) beside a running server applies to its next commands: the server
/// rereads its secret store when the file changes.
#[test]
fn a_secret_set_beside_a_running_server_reaches_its_next_commands() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("secrets.json");
    let s = Server::start_with_env(&[], &[("COMPUTER_SECRETS", store.to_str().unwrap())]);
    s.create("sec");
    let echo = || {
        let out = json_of(
            s.post(
                "/v1/workspaces/sec/exec",
                &json!({"command": "echo \"[$API_KEY]\""}),
            ),
            StatusCode::OK,
        );
        out["stdout"].as_str().unwrap().to_string()
    };
    let within = |want: &str| {
        for _ in 0..100 {
            if echo() == want {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("still {:?}, not {want:?}", echo());
    };
    assert_eq!(echo(), "[]\n");
    keep_secret(&store, "API_KEY", "api.example.com", "s3cr3t-value");
    within("[computer-secret:API_KEY]\n");
    // A file that does not parse leaves the secrets in force.
    std::fs::write(&store, "{ not json").unwrap();
    std::thread::sleep(Duration::from_millis(2500));
    assert_eq!(echo(), "[computer-secret:API_KEY]\n");
    let out = Command::new(env!("CARGO_BIN_EXE_computer"))
        .args(["secret", "list"])
        .env("COMPUTER_SECRETS", &store)
        .output()
        .unwrap();
    assert!(!out.status.success(), "the broken file is reported");
    std::fs::remove_file(&store).unwrap();
    within("[]\n");
}

#[test]
fn buckets_import_export_push_and_pull_over_http() {
    let Some(moto) = crate::moto::shared() else {
        return;
    };
    moto.create_bucket("served");
    // Credentials and endpoint are the server's, from its environment; callers name only
    // s3:// addresses. Each workspace's network policy holds its transfers: these open two
    // prefixes of the bucket.
    let seed = format!("{}/served/seed", moto.endpoint);
    let snaps = format!("{}/served/snaps", moto.endpoint);
    let s = Server::start_with_env(
        &[
            "--allow-bucket",
            "served",
            "--net-allow",
            &seed,
            "--net-allow",
            &snaps,
        ],
        &[
            ("AWS_ENDPOINT_URL", &moto.endpoint),
            ("AWS_ALLOW_HTTP", "true"),
            ("AWS_ACCESS_KEY_ID", "test"),
            ("AWS_SECRET_ACCESS_KEY", "test"),
            ("AWS_REGION", "us-east-1"),
        ],
    );
    s.create("src");
    let binary: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
    for (path, body) in [
        ("workspace/data/a.txt", b"alpha\n".to_vec()),
        ("workspace/data/sub/b.bin", binary.clone()),
    ] {
        let r = s.put(&format!("/v1/workspaces/src/files/{path}"), body);
        assert_eq!(r.status(), StatusCode::OK);
    }

    // Export, then again: nothing changed, nothing sent.
    let export = json!({"url": "s3://served/seed", "src": "/workspace/data"});
    let r = json_of(
        s.post("/v1/workspaces/src/bucket/export", &export),
        StatusCode::OK,
    );
    assert_eq!(
        (r["transferred"].as_u64(), r["unchanged"].as_u64()),
        (Some(2), Some(0))
    );
    let r = json_of(
        s.post("/v1/workspaces/src/bucket/export", &export),
        StatusCode::OK,
    );
    assert_eq!(
        (r["transferred"].as_u64(), r["unchanged"].as_u64()),
        (Some(0), Some(2))
    );

    // Import into another workspace: the same bytes.
    s.create("dst");
    let r = json_of(
        s.post(
            "/v1/workspaces/dst/bucket/import",
            &json!({"url": "s3://served/seed", "dest": "/workspace/in"}),
        ),
        StatusCode::OK,
    );
    assert_eq!(r["transferred"], 2);
    let got = s.get("/v1/workspaces/dst/files/workspace/in/sub/b.bin");
    assert_eq!(got.bytes().unwrap().as_ref(), binary.as_slice());
    let got = s.get("/v1/workspaces/dst/files/workspace/in/a.txt");
    assert_eq!(got.text().unwrap(), "alpha\n");

    // Sync with deletion.
    assert_eq!(
        s.delete("/v1/workspaces/src/files/workspace/data/a.txt")
            .status(),
        StatusCode::NO_CONTENT
    );
    let r = json_of(
        s.post(
            "/v1/workspaces/src/bucket/export",
            &json!({"url": "s3://served/seed", "src": "/workspace/data", "delete": true}),
        ),
        StatusCode::OK,
    );
    assert_eq!(r["deleted"], 1);

    // Snapshots: a second push of an unchanged tree uploads no chunk; a pull makes a new
    // workspace with the same files.
    let push = |name: &str| {
        json_of(
            s.post(
                "/v1/workspaces/src/bucket/push",
                &json!({"url": "s3://served/snaps", "snapshot": name}),
            ),
            StatusCode::OK,
        )
    };
    let first = push("v1");
    assert!(first["chunks_uploaded"].as_u64().unwrap() >= 1, "{first}");
    let second = push("v2");
    assert_eq!(second["chunks_uploaded"], 0, "{second}");
    let r = json_of(
        s.post(
            "/v1/workspaces",
            &json!({"id": "copy", "pull": {"url": "s3://served/snaps", "snapshot": "v1"}}),
        ),
        StatusCode::CREATED,
    );
    assert_eq!(r["id"], "copy");
    let got = s.get("/v1/workspaces/copy/files/workspace/data/sub/b.bin");
    assert_eq!(got.bytes().unwrap().as_ref(), binary.as_slice());
    assert_eq!(
        s.get("/v1/workspaces/copy/stat/workspace/data/a.txt")
            .status(),
        StatusCode::NOT_FOUND
    );

    // Failures: clear, with the status they mean, and nothing made.
    let msg = error_of(
        s.post(
            "/v1/workspaces",
            &json!({"id": "copy", "pull": {"url": "s3://served/snaps", "snapshot": "v1"}}),
        ),
        StatusCode::CONFLICT,
    );
    assert!(msg.contains("exists"), "{msg}");
    let msg = error_of(
        s.post(
            "/v1/workspaces",
            &json!({"id": "ghost", "pull": {"url": "s3://served/snaps", "snapshot": "nope"}}),
        ),
        StatusCode::NOT_FOUND,
    );
    assert!(msg.contains("snapshots/nope.json"), "{msg}");
    assert_eq!(
        s.get("/v1/workspaces/ghost").status(),
        StatusCode::NOT_FOUND
    );
    let msg = error_of(
        s.post(
            "/v1/workspaces/dst/bucket/import",
            &json!({"url": "http://served/seed"}),
        ),
        StatusCode::BAD_REQUEST,
    );
    assert!(msg.contains("s3://"), "{msg}");
    let r = s.post(
        "/v1/workspaces/dst/bucket/import",
        &json!({"url": "s3://no-such-bucket/x", "dest": "/workspace/never"}),
    );
    assert!(r.status().is_client_error() || r.status().is_server_error());
    let msg = r.text().unwrap();
    assert!(msg.contains("s3://no-such-bucket/x"), "{msg}");
    assert_eq!(
        s.get("/v1/workspaces/dst/stat/workspace/never").status(),
        StatusCode::NOT_FOUND
    );
    let msg = error_of(
        s.post(
            "/v1/workspaces/dst/bucket/export",
            &json!({"url": "s3://served/x", "bogus": 1}),
        ),
        StatusCode::BAD_REQUEST,
    );
    assert!(msg.contains("bogus"), "{msg}");
    // A bucket the operator did not list is refused, though the credentials reach it.
    moto.create_bucket("private");
    let msg = error_of(
        s.post(
            "/v1/workspaces/src/bucket/export",
            &json!({"url": "s3://private/x", "src": "/workspace/data"}),
        ),
        StatusCode::FORBIDDEN,
    );
    assert!(msg.contains("--allow-bucket private"), "{msg}");
    // A prefix the workspace's policy does not open, and a workspace whose policy allows
    // nothing: refused before any request, and in the audit log.
    let msg = error_of(
        s.post(
            "/v1/workspaces/src/bucket/export",
            &json!({"url": "s3://served/elsewhere", "src": "/workspace/data"}),
        ),
        StatusCode::FORBIDDEN,
    );
    assert!(
        msg.contains("no rule of the workspace's network policy"),
        "{msg}"
    );
    json_of(
        s.put("/v1/workspaces/dst/net", json!({"rules": []}).to_string()),
        StatusCode::OK,
    );
    let msg = error_of(
        s.post(
            "/v1/workspaces/dst/bucket/import",
            &json!({"url": "s3://served/seed", "dest": "/workspace/again"}),
        ),
        StatusCode::FORBIDDEN,
    );
    assert!(msg.contains("allows nothing"), "{msg}");
    let log = json_of(s.get("/v1/workspaces/src/log"), StatusCode::OK);
    let bucket_rows: Vec<&Value> = log["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["origin"] == "bucket")
        .collect();
    assert!(
        bucket_rows
            .iter()
            .any(|e| e["args"].as_str().unwrap().contains("/served/elsewhere/")),
        "{log}"
    );
    drop(s);
    // Credentials from the server's secret store instead of its environment: used where
    // they are bound, refused (before any request) where they are not.
    let secrets = tempfile::tempdir().unwrap();
    let store = secrets.path().join("secrets.json");
    // (Secrets are bound to hosts, on any port.)
    for name in ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"] {
        keep_secret(&store, name, "127.0.0.1", "test-key-of-moto");
    }
    let keyed = || {
        let s = Server::start_with_env(
            &["--allow-bucket", "served", "--net-allow", &seed],
            &[
                ("AWS_ENDPOINT_URL", &moto.endpoint),
                ("AWS_ALLOW_HTTP", "true"),
                ("AWS_REGION", "us-east-1"),
                ("COMPUTER_SECRETS", store.to_str().unwrap()),
            ],
        );
        s.create("keys");
        s
    };
    let s = keyed();
    let r = json_of(
        s.post(
            "/v1/workspaces/keys/bucket/import",
            &json!({"url": "s3://served/seed", "dest": "/workspace/in"}),
        ),
        StatusCode::OK,
    );
    assert_eq!(r["transferred"], 1, "{r}");
    drop(s);
    keep_secret(
        &store,
        "AWS_SECRET_ACCESS_KEY",
        "elsewhere.test",
        "test-key-of-moto",
    );
    let s = keyed();
    let msg = error_of(
        s.post(
            "/v1/workspaces/keys/bucket/import",
            &json!({"url": "s3://served/seed", "dest": "/workspace/in"}),
        ),
        StatusCode::FORBIDDEN,
    );
    assert!(
        msg.contains("AWS_SECRET_ACCESS_KEY is not bound to the bucket's endpoint"),
        "{msg}"
    );
    drop(s);
    // A read-only server exports, but does not delete.
    let s = Server::start_with_env(
        &["--allow-bucket", "served", "--read-only"],
        &[
            ("AWS_ENDPOINT_URL", &moto.endpoint),
            ("AWS_ALLOW_HTTP", "true"),
            ("AWS_ACCESS_KEY_ID", "test"),
            ("AWS_SECRET_ACCESS_KEY", "test"),
            ("AWS_REGION", "us-east-1"),
        ],
    );
    let r = s.post(
        "/v1/workspaces/nothing/bucket/export",
        &json!({"url": "s3://served/seed", "src": "/workspace", "delete": true}),
    );
    assert_eq!(r.status(), StatusCode::FORBIDDEN, "{}", r.text().unwrap());
}

/// Attacks on the server: web pages, missing tokens, scoped tokens, slow clients, caps.
mod hostile {
    use super::*;

    /// What a web page in the user's browser could send: a form's `text/plain` POST, a request
    /// through a rebound host name, a cross-site `Origin`. Each is refused before any route runs,
    /// with or without the right token.
    #[test]
    fn hostile_web_pages_cannot_drive_the_server() {
        let s = Server::start(&["--allow-origin", "http://localhost:6274"]);
        s.create("w");
        let exec = s.url("/v1/workspaces/w/exec");
        let body = json!({ "command": "echo pwned > /workspace/pwned" }).to_string();
        for authed in [false, true] {
            let with = |r: RequestBuilder| if authed { r.bearer_auth(TOKEN) } else { r };
            for content_type in [
                "text/plain",
                "text/plain;charset=UTF-8",
                "application/x-www-form-urlencoded",
                "multipart/form-data; boundary=x",
            ] {
                let r = with(s.client.post(&exec))
                    .header("content-type", content_type)
                    .body(body.clone())
                    .send()
                    .unwrap();
                assert_eq!(r.status(), StatusCode::FORBIDDEN, "{content_type}");
                assert!(r.text().unwrap().contains("Content-Type"));
            }
            let r = with(s.client.post(&exec))
                .header("content-type", "application/json")
                .header("origin", "http://evil.example")
                .body(body.clone())
                .send()
                .unwrap();
            assert_eq!(r.status(), StatusCode::FORBIDDEN);
            assert!(r.text().unwrap().contains("--allow-origin"));
            let r = with(s.client.get(s.url("/v1/workspaces")))
                .header("host", "evil.example:8420")
                .send()
                .unwrap();
            assert_eq!(r.status(), StatusCode::FORBIDDEN);
            assert!(r.text().unwrap().contains("Host"));
            // MCP checks Origin too.
            let r = with(s.client.post(s.url("/v1/workspaces/w/mcp")))
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .header("origin", "null")
                .body(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#)
                .send()
                .unwrap();
            assert_eq!(r.status(), StatusCode::FORBIDDEN);
        }
        let r = s.get("/v1/workspaces/w/files/workspace/pwned");
        assert_eq!(r.status(), StatusCode::NOT_FOUND, "a page ran a command");
        // The allowed origin, and a lower-case scheme, get through.
        let r = s
            .client
            .get(s.url("/v1/workspaces"))
            .header("authorization", format!("bearer {TOKEN}"))
            .header("origin", "http://localhost:6274")
            .send()
            .unwrap();
        assert_eq!(r.status(), StatusCode::OK);
    }

    /// Without a token given, the server makes one, keeps it in a 0600 file and requires it.
    #[test]
    fn a_server_started_without_a_token_makes_one() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        let mut child = Command::new(env!("CARGO_BIN_EXE_computer"))
            .args(["serve", "--listen", "127.0.0.1:0", "--data-dir"])
            .arg(&data)
            .env_remove("COMPUTER_TOKEN")
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let mut printed = String::new();
        let base = loop {
            let mut line = String::new();
            assert!(stderr.read_line(&mut line).unwrap() > 0, "{printed}");
            printed.push_str(&line);
            if let Some(addr) = line.trim().strip_prefix("computer serve: listening on ") {
                break addr.to_string();
            }
        };
        let file = data.join("token");
        let token = std::fs::read_to_string(&file).unwrap().trim().to_string();
        assert_eq!(token.len(), 64);
        assert!(
            printed.contains(&token),
            "the new token is printed once: {printed}"
        );
        let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let client = Client::new();
        let r = client.get(format!("{base}/v1/workspaces")).send().unwrap();
        assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
        let r = client
            .get(format!("{base}/v1/workspaces"))
            .bearer_auth(&token)
            .send()
            .unwrap();
        assert_eq!(r.status(), StatusCode::OK, "{}", r.text().unwrap());
        let _ = child.kill();
        let _ = child.wait();
    }

    /// A client that trickles its headers to hold a connection open is cut off at the header
    /// time limit; the server goes on answering others.
    #[test]
    fn a_slow_client_is_cut_off() {
        let mut s = Server::start(&["--header-timeout", "1"]);
        let addr = s.base.trim_start_matches("http://").to_string();
        let mut slow = TcpStream::connect(&addr).unwrap();
        slow.set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        write!(slow, "GET /v1/health HTTP/1.1\r\nHost: {addr}\r\n").unwrap();
        let started = std::time::Instant::now();
        let mut buf = Vec::new();
        // The server closes the connection (with or without a 408) instead of waiting.
        let _ = slow.read_to_end(&mut buf);
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the half-sent request held the connection for {:?}",
            started.elapsed()
        );
        s.assert_healthy();
    }

    /// The network policy over HTTP: a token of the workspace reads it; only the server's own
    /// token sets it (an agent holding a scoped token must not open its own network); a bad
    /// rule is a 400 that changes nothing; the guests' curl meets what was set.
    #[test]
    fn the_network_policy_is_set_with_the_servers_token_only() {
        let s = Server::start(&[]);
        s.create("w");
        let r = json_of(s.get("/v1/workspaces/w/net"), StatusCode::OK);
        assert_eq!(
            (r["none"].clone(), r["rules"].clone()),
            (json!(true), json!([]))
        );
        let rules = json!([
            "allow https://docs.python.org GET",
            "deny https://docs.python.org/2"
        ]);
        let r = json_of(
            s.put(
                "/v1/workspaces/w/net",
                json!({ "rules": rules }).to_string(),
            ),
            StatusCode::OK,
        );
        assert_eq!(
            (r["none"].clone(), r["rules"].clone()),
            (json!(false), rules.clone())
        );
        let out = json_of(
            s.post(
                "/v1/workspaces/w/exec",
                &json!({"command": "curl -sS https://example.com/"}),
            ),
            StatusCode::OK,
        );
        assert_eq!(out["status"], 7, "{out}");
        let err = out["stderr"].as_str().unwrap();
        assert!(
            err.contains("no rule of the workspace's network policy allows it"),
            "{err}"
        );
        for bad in [
            json!({"rules": ["allow ftp://x"]}),
            json!({"rules": ["permit https://x"]}),
            json!({"rules": "allow https://x"}),
            json!({"rules": [], "all": true}),
        ] {
            let r = s.put("/v1/workspaces/w/net", bad.to_string());
            assert_eq!(r.status(), StatusCode::BAD_REQUEST, "{bad}");
        }
        let r = json_of(s.get("/v1/workspaces/w/net"), StatusCode::OK);
        assert_eq!(r["rules"], rules);
        let made = json_of(
            s.post("/v1/tokens", &json!({"workspaces": ["w"]})),
            StatusCode::CREATED,
        );
        let scoped = made["token"].as_str().unwrap().to_string();
        let r = s
            .client
            .get(s.url("/v1/workspaces/w/net"))
            .bearer_auth(&scoped)
            .send()
            .unwrap();
        assert_eq!(json_of(r, StatusCode::OK)["rules"], rules);
        let r = s
            .client
            .put(s.url("/v1/workspaces/w/net"))
            .bearer_auth(&scoped)
            .body(json!({"rules": ["all"]}).to_string())
            .send()
            .unwrap();
        let why = error_of(r, StatusCode::FORBIDDEN);
        assert!(why.contains("server's own token"), "{why}");
        let r = json_of(s.get("/v1/workspaces/w/net"), StatusCode::OK);
        assert_eq!(r["rules"], rules);
        // Back to none.
        let r = json_of(
            s.put("/v1/workspaces/w/net", json!({"rules": []}).to_string()),
            StatusCode::OK,
        );
        assert_eq!(r["none"], true);
        // A server's --net-allow is where each workspace it creates starts.
        let s = Server::start(&[
            "--net-allow",
            "https://docs.python.org",
            "--net-allow",
            "all",
        ]);
        s.create("n");
        let r = json_of(s.get("/v1/workspaces/n/net"), StatusCode::OK);
        assert_eq!(r["rules"], json!(["all", "allow https://docs.python.org"]));
        let out = Command::new(env!("CARGO_BIN_EXE_computer"))
            .args(["serve", "--net-allow", "ftp://x", "--listen", "127.0.0.1:0"])
            .current_dir(s.dir.path())
            .output()
            .unwrap();
        assert!(!out.status.success());
        assert!(String::from_utf8_lossy(&out.stderr).contains("--net-allow"));
    }

    /// A token scoped to one workspace reaches that one only, and a read-only one changes
    /// nothing; revoked, it is refused. Made with `computer token` and over `/v1/tokens`.
    #[test]
    fn scoped_tokens_reach_only_their_workspaces() {
        let s = Server::start(&[]);
        s.create("mine");
        s.create("theirs");
        s.put(
            "/v1/workspaces/theirs/files/workspace/secret.txt",
            "theirs\n",
        );
        let data = s.dir.path().join("data");
        let cli_token = |args: &[&str]| {
            let out = Command::new(env!("CARGO_BIN_EXE_computer"))
                .arg("token")
                .args(args)
                .arg("--data-dir")
                .arg(&data)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            String::from_utf8(out.stdout).unwrap().trim().to_string()
        };
        let rw = cli_token(&["create", "--for", "mine"]);
        let ro = cli_token(&["create", "--for", "mine", "--read-only"]);
        let with = |token: &str, req: RequestBuilder| req.bearer_auth(token);
        let get = |token: &str, path: &str| with(token, s.client.get(s.url(path))).send().unwrap();
        let post = |token: &str, path: &str, body: Value| {
            with(token, s.client.post(s.url(path)))
                .header("content-type", "application/json")
                .body(body.to_string())
                .send()
                .unwrap()
        };

        // Read-write, on its own workspace: files and exec work.
        let r = with(
            &rw,
            s.client
                .put(s.url("/v1/workspaces/mine/files/workspace/a.txt")),
        )
        .body("a\n")
        .send()
        .unwrap();
        assert_eq!(r.status(), StatusCode::OK, "{}", r.text().unwrap());
        let out = json_of(
            post(
                &rw,
                "/v1/workspaces/mine/exec",
                json!({"command": "cat a.txt"}),
            ),
            StatusCode::OK,
        );
        assert_eq!(out["stdout"], "a\n");
        // Elsewhere: nothing, not even the list of workspaces or the tokens.
        for path in [
            "/v1/workspaces/theirs/files/workspace/secret.txt",
            "/v1/workspaces/theirs/log",
            "/v1/workspaces",
            "/v1/tokens",
        ] {
            let r = get(&rw, path);
            assert_eq!(r.status(), StatusCode::FORBIDDEN, "{path}");
            assert!(!r.text().unwrap().contains("theirs\n"));
        }
        let r = post(
            &rw,
            "/v1/workspaces/theirs/exec",
            json!({"command": "cat secret.txt"}),
        );
        assert_eq!(r.status(), StatusCode::FORBIDDEN);
        let r = post(&rw, "/v1/workspaces", json!({"id": "new"}));
        assert_eq!(r.status(), StatusCode::FORBIDDEN);
        // An encoded id does not slip past the scope.
        let r = get(&rw, "/v1/workspaces/%74heirs/files/workspace/secret.txt");
        assert_ne!(r.status(), StatusCode::OK);

        // Read-only: reads work; writes, exec and writing tools do not.
        let r = get(&ro, "/v1/workspaces/mine/files/workspace/a.txt");
        assert_eq!(r.text().unwrap(), "a\n");
        let r = with(
            &ro,
            s.client
                .put(s.url("/v1/workspaces/mine/files/workspace/a.txt")),
        )
        .body("changed")
        .send()
        .unwrap();
        assert_eq!(r.status(), StatusCode::FORBIDDEN);
        let r = post(&ro, "/v1/workspaces/mine/exec", json!({"command": "true"}));
        assert_eq!(r.status(), StatusCode::FORBIDDEN);
        let r = json_of(
            post(
                &ro,
                "/v1/workspaces/mine/tools/write",
                json!({"path": "a.txt", "content": "x"}),
            ),
            StatusCode::OK,
        );
        assert_eq!(r["is_error"], true, "{r}");
        let r = json_of(
            post(
                &ro,
                "/v1/workspaces/mine/tools/read",
                json!({"path": "a.txt"}),
            ),
            StatusCode::OK,
        );
        assert_eq!(r["is_error"], false, "{r}");
        let r = s.get("/v1/workspaces/mine/files/workspace/a.txt");
        assert_eq!(r.text().unwrap(), "a\n");

        // The admin's API: make one, list them (no secrets), revoke.
        let made = json_of(
            s.post(
                "/v1/tokens",
                &json!({"workspaces": ["theirs"], "read_only": true}),
            ),
            StatusCode::CREATED,
        );
        let theirs = made["token"].as_str().unwrap().to_string();
        let r = get(&theirs, "/v1/workspaces/theirs/files/workspace/secret.txt");
        assert_eq!(r.text().unwrap(), "theirs\n");
        let listed = json_of(s.get("/v1/tokens"), StatusCode::OK);
        assert_eq!(listed["tokens"].as_array().unwrap().len(), 3, "{listed}");
        assert!(!listed.to_string().contains(&theirs));
        assert!(!listed.to_string().contains(&rw));
        let r = post(&rw, "/v1/tokens", json!({"workspaces": ["*"]}));
        assert_eq!(
            r.status(),
            StatusCode::FORBIDDEN,
            "a scoped token made a token"
        );
        let id = rw.split('_').nth(1).unwrap().to_string();
        cli_token(&["revoke", &id]);
        assert_eq!(
            get(&rw, "/v1/workspaces/mine/files/workspace/a.txt").status(),
            StatusCode::UNAUTHORIZED
        );
        let file = std::fs::read_to_string(data.join("tokens.json")).unwrap();
        assert!(!file.contains(&ro), "the tokens file holds a token");
    }

    /// The server's caps, each named in its refusal: workspaces, the quota of a new one, and
    /// commands at once.
    #[test]
    fn server_caps_are_named_when_hit() {
        let s = Server::start(&[
            "--max-workspaces",
            "2",
            "--workspace-quota",
            "1",
            "--max-execs",
            "1",
            "--exec-wait",
            "0.5",
        ]);
        s.create("one");
        s.create("spare");
        let msg = error_of(
            s.post("/v1/workspaces", &json!({"id": "three"})),
            StatusCode::INSUFFICIENT_STORAGE,
        );
        assert!(msg.contains("--max-workspaces 2"), "{msg}");
        // The count is kept, not read from the directory at each create, but a refusal
        // counts again: a workspace file removed by hand makes room at once.
        std::fs::remove_file(s.dir.path().join("data/spare.db")).unwrap();
        s.create("two");
        let msg = error_of(
            s.post("/v1/workspaces", &json!({"id": "four"})),
            StatusCode::INSUFFICIENT_STORAGE,
        );
        assert!(msg.contains("holds 2 workspaces"), "{msg}");
        // 1 MiB per workspace: a 2 MiB file does not fit, and nothing of it is kept.
        let varied: Vec<u8> = (0..2u32 << 20).map(|i| (i * 7 % 251) as u8).collect();
        let r = s.put("/v1/workspaces/one/files/workspace/big", varied);
        let msg = error_of(r, StatusCode::INSUFFICIENT_STORAGE);
        assert!(msg.contains("quota"), "{msg}");
        // One command at a time: the second waits half a second, then is refused.
        std::thread::scope(|scope| {
            let slow = scope.spawn(|| {
                s.post(
                    "/v1/workspaces/one/exec",
                    &json!({"command": "sleep 3; echo done"}),
                )
            });
            std::thread::sleep(Duration::from_millis(800));
            let msg = error_of(
                s.post("/v1/workspaces/two/exec", &json!({"command": "echo hi"})),
                StatusCode::SERVICE_UNAVAILABLE,
            );
            assert!(msg.contains("max_concurrent_execs"), "{msg}");
            let out = json_of(slow.join().unwrap(), StatusCode::OK);
            assert_eq!(out["stdout"], "done\n");
        });
        let out = json_of(
            s.post("/v1/workspaces/two/exec", &json!({"command": "echo hi"})),
            StatusCode::OK,
        );
        assert_eq!(out["stdout"], "hi\n");
    }
}

/// The server's runtime uses the pooling allocator: the interpreter, compiled by `runtime
/// install` without it, must load from the same cache and fit its instance limits.
#[test]
fn python3_runs_in_the_servers_pooled_runtime() {
    if !crate::python::python_here() {
        return;
    }
    let data = crate::python::data_dir();
    let s = Server::start_with_env(&[], &[("COMPUTER_DATA_DIR", data.to_str().unwrap())]);
    s.create("py");
    let out = json_of(
        s.post(
            "/v1/workspaces/py/exec",
            &json!({"command": "python3 -c 'import sys; print(sys.platform, 6*7)'", "backend": "isolate"}),
        ),
        StatusCode::OK,
    );
    assert_eq!(out["stderr"], "");
    assert_eq!(out["stdout"], "wasi 42\n");
    assert_eq!(out["status"], 0);
}
