//! `computer serve --store`: several nodes over one moto S3 server, all on loopback. A
//! workspace is served by the node holding its lease; the others forward to it; a node that
//! stops or dies hands it over with what it acknowledged.

use std::io::{BufRead, BufReader, Read};
use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use reqwest::blocking::{Client, Response};
use serde_json::{Value, json};

const TOKEN: &str = "cluster-token-5c1e";

/// Seconds a lease lasts in these tests.
const LEASE: &str = "3";

/// One `computer serve` node: its port and data directory outlive restarts.
struct Node {
    child: Option<Child>,
    port: u16,
    dir: tempfile::TempDir,
    store: String,
    endpoint: String,
    extra: Vec<String>,
    client: Client,
}

/// The AWS variables that reach moto at `endpoint`.
fn store_env(endpoint: &str) -> [(&'static str, &str); 5] {
    [
        ("AWS_ENDPOINT_URL", endpoint),
        ("AWS_ALLOW_HTTP", "true"),
        ("AWS_ACCESS_KEY_ID", "test"),
        ("AWS_SECRET_ACCESS_KEY", "test"),
        ("AWS_REGION", "us-east-1"),
    ]
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

impl Node {
    fn start(moto: &crate::moto::Moto, store: &str, extra: &[&str]) -> Node {
        let mut node = Node {
            child: None,
            port: free_port(),
            dir: tempfile::tempdir().unwrap(),
            store: store.to_string(),
            endpoint: moto.endpoint.clone(),
            extra: extra.iter().map(|s| s.to_string()).collect(),
            client: Client::builder()
                .timeout(Duration::from_secs(60))
                .build()
                .unwrap(),
        };
        node.restart();
        node
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn restart(&mut self) {
        assert!(self.child.is_none(), "already running");
        let mut child = Command::new(env!("CARGO_BIN_EXE_computer"))
            .arg("serve")
            .args(["--listen", &format!("127.0.0.1:{}", self.port)])
            .arg("--data-dir")
            .arg(self.dir.path().join("data"))
            .args(["--store", &self.store, "--lease-seconds", LEASE])
            .args(["--push-every", "1"])
            .args(&self.extra)
            .env("COMPUTER_TOKEN", TOKEN)
            .envs(store_env(&self.endpoint))
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        stderr.read_line(&mut line).unwrap();
        assert!(
            line.starts_with("computer serve: listening on "),
            "unexpected first line: {line:?}"
        );
        std::thread::spawn(move || {
            let mut rest = String::new();
            let _ = stderr.read_to_string(&mut rest);
            if rest.contains("panicked") {
                eprintln!("node stderr:\n{rest}");
            }
        });
        self.child = Some(child);
    }

    /// SIGTERM, and waits: the node pushes and lets its leases go.
    fn stop(&mut self) {
        let mut child = self.child.take().expect("running");
        let status = Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        let status = child.wait().unwrap();
        assert!(status.success(), "a clean stop: {status}");
    }

    /// SIGKILL: nothing pushed, nothing let go.
    fn kill(&mut self) {
        let mut child = self.child.take().expect("running");
        child.kill().unwrap();
        child.wait().unwrap();
    }

    fn send(&self, method: reqwest::Method, path: &str, body: Option<Vec<u8>>) -> Response {
        let mut req = self
            .client
            .request(method, format!("{}{path}", self.url()))
            .bearer_auth(TOKEN);
        if let Some(body) = body {
            req = req.header("content-type", "application/json").body(body);
        }
        req.send().unwrap()
    }

    fn get(&self, path: &str) -> Response {
        self.send(reqwest::Method::GET, path, None)
    }

    fn post(&self, path: &str, body: &Value) -> Response {
        self.send(
            reqwest::Method::POST,
            path,
            Some(body.to_string().into_bytes()),
        )
    }

    fn put(&self, path: &str, body: &str) -> Response {
        self.send(reqwest::Method::PUT, path, Some(body.as_bytes().to_vec()))
    }

    fn workspace_file(&self, id: &str) -> std::path::PathBuf {
        self.dir.path().join("data").join(format!("{id}.db"))
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The node that answered.
fn served_by(r: &Response) -> String {
    r.headers()
        .get("x-computer-node")
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default()
}

fn json_of(r: Response, status: StatusCode) -> Value {
    let got = r.status();
    let text = r.text().unwrap();
    assert_eq!(got, status, "body: {text}");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

fn text_of(r: Response) -> String {
    let status = r.status();
    let text = r.text().unwrap();
    assert_eq!(status, StatusCode::OK, "body: {text}");
    text
}

/// Retries `f` until it returns `Some` (a node waiting out a dead one's lease), for at most
/// `secs` seconds.
fn eventually<T>(secs: u64, mut f: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(Instant::now() < deadline, "gave up after {secs} s");
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn moto_with(bucket: &str) -> Option<&'static crate::moto::Moto> {
    let moto = crate::moto::shared()?;
    moto.create_bucket(bucket);
    Some(moto)
}

#[test]
fn a_workspace_follows_its_lease_from_node_to_node() {
    let Some(moto) = moto_with("cluster-move") else {
        return;
    };
    let store = "s3://cluster-move/nodes";
    let mut a = Node::start(moto, store, &[]);
    let b = Node::start(moto, store, &[]);
    let r = a.post("/v1/workspaces", &json!({"id": "w"}));
    assert_eq!(r.status(), StatusCode::CREATED, "{}", r.text().unwrap());
    let r = a.put("/v1/workspaces/w/files/workspace/a.txt", "alpha\n");
    assert_eq!(r.status(), StatusCode::OK);
    let out = json_of(
        a.post(
            "/v1/workspaces/w/exec",
            &json!({"command": "echo made > made.txt; ln made.txt hard.txt; cat a.txt"}),
        ),
        StatusCode::OK,
    );
    assert_eq!(out["stdout"], "alpha\n", "{out}");
    json_of(
        a.post("/v1/workspaces/w/snapshots", &json!({"name": "first"})),
        StatusCode::CREATED,
    );
    // Creating it again, on either node, is refused.
    for node in [&a, &b] {
        let r = node.post("/v1/workspaces", &json!({"id": "w"}));
        assert_eq!(r.status(), StatusCode::CONFLICT);
    }

    // B forwards to A, which holds the lease.
    let r = b.get("/v1/workspaces/w/files/workspace/made.txt");
    assert_eq!(served_by(&r), a.url());
    assert_eq!(text_of(r), "made\n");
    let listed = json_of(b.get("/v1/workspaces"), StatusCode::OK);
    assert_eq!(listed["workspaces"][0]["id"], "w", "{listed}");
    // The Python MCP client, through B, with the token: served by A.
    if super::mcp::python_mcp() {
        let seen =
            super::mcp::run_client(&["http", &format!("{}/v1/workspaces/w/mcp", b.url()), TOKEN]);
        super::mcp::check_session(&seen);
    }

    // A scoped token made on A works on B (and is held to its scope there); revoked on B, A
    // refuses it within the nodes' token cache time.
    let made = json_of(
        a.post(
            "/v1/tokens",
            &json!({"workspaces": ["w"], "read_only": true}),
        ),
        StatusCode::CREATED,
    );
    let scoped = made["token"].as_str().unwrap().to_string();
    let with_scoped = |node: &Node, method: reqwest::Method, path: &str| {
        node.client
            .request(method, format!("{}{path}", node.url()))
            .bearer_auth(&scoped)
            .send()
            .unwrap()
    };
    let r = with_scoped(
        &b,
        reqwest::Method::GET,
        "/v1/workspaces/w/files/workspace/a.txt",
    );
    assert_eq!(text_of(r), "alpha\n");
    let r = with_scoped(
        &b,
        reqwest::Method::PUT,
        "/v1/workspaces/w/files/workspace/x",
    );
    assert_eq!(r.status(), StatusCode::FORBIDDEN, "read-only on B too");
    let r = with_scoped(
        &b,
        reqwest::Method::GET,
        "/v1/workspaces/other/stat/workspace",
    );
    assert_eq!(
        r.status(),
        StatusCode::FORBIDDEN,
        "other workspaces are out of scope"
    );
    let listed = json_of(b.get("/v1/tokens"), StatusCode::OK);
    let id = made["info"]["id"].as_str().unwrap();
    assert_eq!(listed["tokens"][0]["id"], id, "{listed}");
    let r = b.send(reqwest::Method::DELETE, &format!("/v1/tokens/{id}"), None);
    assert!(r.status().is_success(), "{}", r.status());
    eventually(10, || {
        let r = with_scoped(&a, reqwest::Method::GET, "/v1/workspaces/w/stat/workspace");
        (r.status() == StatusCode::UNAUTHORIZED).then_some(())
    });
    // `computer token --store` edits the same tokens from a shell.
    let token_cli = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_computer"))
            .arg("token")
            .args(args)
            .args(["--store", store])
            .envs(store_env(&moto.endpoint))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert!(out.status.success(), "computer token {args:?}: {err}");
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    let from_shell = token_cli(&["create", "--for", "w"]);
    let listed = token_cli(&["list"]);
    let shell_id = from_shell.split('_').nth(1).unwrap();
    assert!(listed.contains(shell_id), "{listed}");
    // The nodes read the tokens again within `SHARED_TTL` (2 s).
    let text = eventually(10, || {
        let r = b
            .client
            .get(format!("{}/v1/workspaces/w/files/workspace/a.txt", b.url()))
            .bearer_auth(&from_shell)
            .send()
            .unwrap();
        (r.status() == StatusCode::OK).then(|| r.text().unwrap())
    });
    assert_eq!(text, "alpha\n");
    token_cli(&["revoke", shell_id]);

    // An MCP session through B, begun while A serves the workspace, goes on after the move.
    let mut session = super::mcp::python_mcp().then(|| {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/all/mcp_client.py");
        let mut child = Command::new("python3")
            .arg(script)
            .args(["move", &format!("{}/v1/workspaces/w/mcp", b.url()), TOKEN])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        assert_eq!(line, "ready\n", "the client did not get going");
        (child, out)
    });

    // A stops cleanly: B serves it at once, with every write, its snapshot, hard link and log.
    a.stop();
    if let Some((mut child, mut out)) = session.take() {
        use std::io::Write;
        child.stdin.take().unwrap().write_all(b"go\n").unwrap();
        let mut seen = String::new();
        out.read_to_string(&mut seen).unwrap();
        let mut err = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        assert!(child.wait().unwrap().success(), "the client failed: {err}");
        let seen: Value = serde_json::from_str(&seen).unwrap();
        assert_eq!(seen["read"]["text"], "     1\tbefore the move\n", "{seen}");
        assert_eq!(
            seen["exec"]["text"], "exit status 0\n--- stdout ---\nbefore the move\nafter\n",
            "{seen}"
        );
    }
    let r = b.get("/v1/workspaces/w/files/workspace/made.txt");
    assert_eq!(served_by(&r), b.url());
    assert_eq!(text_of(r), "made\n");
    let st = json_of(
        b.get("/v1/workspaces/w/stat/workspace/hard.txt"),
        StatusCode::OK,
    );
    assert_eq!(st["nlink"], 2, "{st}");
    let snaps = json_of(b.get("/v1/workspaces/w/snapshots"), StatusCode::OK);
    assert_eq!(snaps["snapshots"][0]["name"], "first", "{snaps}");
    let log = json_of(b.get("/v1/workspaces/w/log"), StatusCode::OK);
    assert!(
        log["entries"].as_array().unwrap().len() >= 3,
        "the audit log came along: {log}"
    );

    // A, back, forwards to B; a delete through A leaves a tombstone: gone everywhere.
    a.restart();
    let r = a.get("/v1/workspaces/w/files/workspace/a.txt");
    assert_eq!(served_by(&r), b.url());
    assert_eq!(text_of(r), "alpha\n");
    let r = a.send(reqwest::Method::DELETE, "/v1/workspaces/w", None);
    assert_eq!(r.status(), StatusCode::NO_CONTENT, "{}", r.text().unwrap());
    for node in [&a, &b] {
        let r = node.get("/v1/workspaces/w/files/workspace/a.txt");
        assert_eq!(r.status(), StatusCode::NOT_FOUND, "{}", r.text().unwrap());
        let listed = json_of(node.get("/v1/workspaces"), StatusCode::OK);
        assert_eq!(listed["workspaces"], json!([]), "{listed}");
    }
    assert!(
        !b.workspace_file("w").exists(),
        "the owner removed its copy"
    );
}

#[test]
fn two_nodes_racing_for_one_workspace_agree_on_one_owner() {
    let Some(moto) = moto_with("cluster-race") else {
        return;
    };
    let store = "s3://cluster-race/nodes";
    let mut a = Node::start(moto, store, &[]);
    let b = Node::start(moto, store, &[]);
    for round in 0..5 {
        let id = format!("new{round}");
        let (ra, rb) = std::thread::scope(|s| {
            let ta = s.spawn(|| a.post("/v1/workspaces", &json!({"id": id})).status());
            let tb = s.spawn(|| b.post("/v1/workspaces", &json!({"id": id})).status());
            (ta.join().unwrap(), tb.join().unwrap())
        });
        let mut got = [ra, rb];
        got.sort();
        assert_eq!(got, [StatusCode::CREATED, StatusCode::CONFLICT], "{id}");
    }
    // No owner (A let go of its leases on stopping): the first requests race for the lease;
    // one node takes it and the other forwards.
    a.stop();
    a.restart();
    for round in 0..5 {
        let path = format!("/v1/workspaces/new{round}/stat/workspace");
        let (ra, rb) = std::thread::scope(|s| {
            let ta = s.spawn(|| a.get(&path));
            let tb = s.spawn(|| b.get(&path));
            (ta.join().unwrap(), tb.join().unwrap())
        });
        assert_eq!((ra.status(), rb.status()), (StatusCode::OK, StatusCode::OK));
        assert_eq!(served_by(&ra), served_by(&rb), "one owner for new{round}");
    }
}

/// Kills the node holding the workspace while a client writes through it, again and again:
/// after the lease runs out the other node serves every write that was acknowledged, the
/// file passes SQLite's integrity check, and the killed node, restarted, forwards rather
/// than serving its old copy.
#[test]
fn killed_nodes_lose_no_acknowledged_write_with_sync_writes() {
    let Some(moto) = moto_with("cluster-kill") else {
        return;
    };
    let store = "s3://cluster-kill/nodes";
    let rounds: usize = std::env::var("COMPUTER_CLUSTER_KILLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);
    let mut nodes = [
        Node::start(moto, store, &["--sync-writes"]),
        Node::start(moto, store, &["--sync-writes"]),
    ];
    let r = nodes[0].post("/v1/workspaces", &json!({"id": "k"}));
    assert_eq!(r.status(), StatusCode::CREATED);
    let mut acknowledged: Vec<String> = Vec::new();
    let mut seed = 0x9e37_79b9_u64;
    for round in 0..rounds {
        // Whoever serves "k" now is the victim; the other survives.
        let owner = served_by(&nodes[0].get("/v1/workspaces/k"));
        let victim = usize::from(owner != nodes[0].url());
        let survivor = 1 - victim;
        assert_eq!(owner, nodes[victim].url());
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let kill_after = Duration::from_millis(50 + seed % 700);
        let writer = {
            let client = nodes[victim].client.clone();
            let url = nodes[victim].url();
            std::thread::spawn(move || {
                let mut done = Vec::new();
                for i in 0.. {
                    let name = format!("r{round}-{i}");
                    let r = client
                        .put(format!("{url}/v1/workspaces/k/files/workspace/{name}"))
                        .bearer_auth(TOKEN)
                        .body(name.clone())
                        .send();
                    match r {
                        Ok(r) if r.status() == StatusCode::OK => done.push(name),
                        _ => break,
                    }
                }
                done
            })
        };
        std::thread::sleep(kill_after);
        nodes[victim].kill();
        let done = writer.join().unwrap();
        println!(
            "round {round}: killed after {kill_after:?}, {} writes acknowledged",
            done.len()
        );
        acknowledged.extend(done);
        // After the lease, the survivor serves it, every acknowledged write there.
        let listing = eventually(30, || {
            let r = nodes[survivor].get("/v1/workspaces/k/ls/workspace?limit=100000");
            (r.status() == StatusCode::OK)
                .then(|| serde_json::from_str::<Value>(&r.text().unwrap()).unwrap())
        });
        let names: std::collections::HashSet<&str> = listing["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                e["path"]
                    .as_str()
                    .unwrap()
                    .trim_start_matches("/workspace/")
            })
            .collect();
        for name in &acknowledged {
            assert!(
                names.contains(name.as_str()),
                "round {round}: {name} was lost"
            );
        }
        let options = computer::VfsOptions {
            read_only: true,
            create: false,
            ..Default::default()
        };
        let ws =
            computer::Workspace::open_with(nodes[survivor].workspace_file("k"), &options).unwrap();
        ws.fs().check_integrity().unwrap();
        drop(ws);
        // The victim, back with its old copy, forwards to the new owner.
        nodes[victim].restart();
        let r = nodes[victim].get("/v1/workspaces/k");
        assert_eq!(served_by(&r), nodes[survivor].url(), "round {round}");
    }
    assert!(
        acknowledged.len() >= rounds,
        "writes were acknowledged: {}",
        acknowledged.len()
    );
}

/// Without `--sync-writes`, a write older than the push interval survives a `kill -9`.
#[test]
fn a_killed_node_loses_nothing_older_than_the_push_interval() {
    let Some(moto) = moto_with("cluster-interval") else {
        return;
    };
    let store = "s3://cluster-interval/nodes";
    let mut a = Node::start(moto, store, &[]);
    let b = Node::start(moto, store, &[]);
    assert_eq!(
        a.post("/v1/workspaces", &json!({"id": "p"})).status(),
        StatusCode::CREATED
    );
    let r = a.put("/v1/workspaces/p/files/workspace/old.txt", "kept\n");
    assert_eq!(r.status(), StatusCode::OK);
    // The interval is 1 s, checked every second: 3 s is past it.
    std::thread::sleep(Duration::from_secs(3));
    a.kill();
    let text = eventually(30, || {
        let r = b.get("/v1/workspaces/p/files/workspace/old.txt");
        (r.status() == StatusCode::OK).then(|| r.text().unwrap())
    });
    assert_eq!(text, "kept\n");
}

/// A node refuses to start without the token every node checks, and with a store it cannot
/// reach (told at once, not at the first request).
#[test]
fn a_node_needs_a_shared_token_and_a_reachable_store() {
    let dir = tempfile::tempdir().unwrap();
    let serve = |token: Option<&str>| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_computer"));
        cmd.arg("serve")
            .args(["--listen", &format!("127.0.0.1:{}", free_port())])
            .arg("--data-dir")
            .arg(dir.path().join("data"))
            .args(["--store", "s3://unreachable-bucket/nodes"])
            .env_remove("COMPUTER_TOKEN")
            // Nothing listens on port 1: every request fails at once.
            .env("AWS_ENDPOINT_URL", "http://127.0.0.1:1")
            .env("AWS_ALLOW_HTTP", "true")
            .env("AWS_ACCESS_KEY_ID", "test")
            .env("AWS_SECRET_ACCESS_KEY", "test")
            .env("AWS_REGION", "us-east-1");
        if let Some(token) = token {
            cmd.env("COMPUTER_TOKEN", token);
        }
        cmd.output().unwrap()
    };
    let out = serve(None);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("give the token every node"), "{err}");
    let out = serve(Some(TOKEN));
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cannot use the cluster's store s3://unreachable-bucket/nodes"),
        "{err}"
    );
}

/// The text a tool call through the HTTP API answered.
fn tool_text(node: &Node, id: &str, tool: &str, args: &Value) -> (String, String) {
    let r = node.post(&format!("/v1/workspaces/{id}/tools/{tool}"), args);
    let by = served_by(&r);
    let out = json_of(r, StatusCode::OK);
    (out["content"][0]["text"].as_str().unwrap().to_string(), by)
}

/// Three nodes answer as one service; a background job does not move with its workspace:
/// the node that takes it over lists the job as lost, naming the node it ran on, and
/// numbers new jobs after it.
#[test]
fn three_nodes_serve_as_one_and_say_which_jobs_were_lost() {
    let Some(moto) = moto_with("cluster-jobs") else {
        return;
    };
    let store = "s3://cluster-jobs/nodes";
    let mut a = Node::start(moto, store, &[]);
    let b = Node::start(moto, store, &[]);
    let c = Node::start(moto, store, &[]);
    assert_eq!(
        a.post("/v1/workspaces", &json!({"id": "j"})).status(),
        StatusCode::CREATED
    );
    let started = |node: &Node, command: &str| {
        let out = json_of(
            node.post(
                "/v1/workspaces/j/exec",
                &json!({"command": command, "background": true}),
            ),
            StatusCode::OK,
        );
        out["job"].as_u64().unwrap()
    };
    assert_eq!(started(&a, "true"), 1);
    // Started through C, run by A.
    assert_eq!(started(&c, "echo started > s.txt; sleep 600"), 2);
    // Every node answers for it, all through A.
    for node in [&a, &b, &c] {
        let r = node.get("/v1/workspaces/j/stat/workspace");
        assert_eq!(r.status(), StatusCode::OK);
        assert_eq!(served_by(&r), a.url());
    }
    let (text, _) = tool_text(&b, "j", "job", &json!({"id": 2}));
    assert!(text.starts_with("job 2: running"), "{text}");
    // The push interval (1 s) passes: the store knows job 2 runs on A. Then A dies.
    std::thread::sleep(Duration::from_secs(3));
    a.kill();
    let (text, by) = eventually(30, || {
        let r = c.post("/v1/workspaces/j/tools/job", &json!({"id": 2}));
        (r.status() == StatusCode::OK).then(|| {
            let by = served_by(&r);
            let out: Value = serde_json::from_str(&r.text().unwrap()).unwrap();
            (out["content"][0]["text"].as_str().unwrap().to_string(), by)
        })
    });
    assert_ne!(by, a.url());
    assert!(
        text.starts_with(&format!(
            "job 2: lost: it was running on node {} when that node stopped serving",
            a.url()
        )),
        "{text}"
    );
    let (listed, _) = tool_text(&b, "j", "job", &json!({}));
    assert!(listed.contains("job 2: lost"), "{listed}");
    // What the job wrote before the last push is there; new jobs number on.
    let r = b.get("/v1/workspaces/j/files/workspace/s.txt");
    assert_eq!(text_of(r), "started\n");
    assert_eq!(started(&b, "echo again"), 3);
    // A, back, is one of the three again: every node answers through the same one.
    a.restart();
    let owners: Vec<String> = [&a, &b, &c]
        .iter()
        .map(|node| served_by(&node.get("/v1/workspaces/j/stat/workspace")))
        .collect();
    assert_eq!(owners, vec![by.clone(), by.clone(), by], "{owners:?}");
}

/// The cluster's store, opened by the test (to play a node that takes a lease away).
fn cluster_store(moto: &crate::moto::Moto, url: &str) -> computer_bucket::cluster::ClusterStore {
    let config = computer_bucket::BucketConfig {
        endpoint: Some(moto.endpoint.clone()),
        region: Some("us-east-1".into()),
        access_key_id: Some("test".into()),
        secret_access_key: Some("test".into()),
        allow_http: true,
        ..Default::default()
    };
    let url = computer_bucket::BucketUrl::parse(url).unwrap();
    let objects = computer_bucket::open_store_with(&url, &config).unwrap();
    computer_bucket::cluster::ClusterStore::new(objects, url)
}

/// A node that loses a workspace's lease while it lives on (another node took it) kills the
/// workspace's background jobs and removes its container at once: nothing keeps changing
/// its stale copy.
#[test]
fn a_node_that_loses_a_lease_stops_the_jobs_and_container() {
    if !crate::requirements::containers_here() {
        return;
    }
    let Some(moto) = moto_with("cluster-lose") else {
        return;
    };
    let store = "s3://cluster-lose/nodes";
    let a = Node::start(moto, store, &[]);
    let pid = a.child.as_ref().unwrap().id();
    assert_eq!(
        a.post("/v1/workspaces", &json!({"id": "c"})).status(),
        StatusCode::CREATED
    );
    let out = json_of(
        a.post(
            "/v1/workspaces/c/exec",
            &json!({
                "command": "while :; do echo x >> tick; sleep 0.2; done",
                "background": true,
                "backend": "container",
                "timeout": 600
            }),
        ),
        StatusCode::OK,
    );
    assert_eq!(out["job"], 1, "{out}");
    let containers = || {
        let out = Command::new("docker")
            .args(["ps", "-q", "--filter"])
            .arg(format!("label=computer.owner={pid}"))
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8_lossy(&out.stdout).lines().count()
    };
    eventually(300, || {
        let r = a.get("/v1/workspaces/c/stat/workspace/tick");
        (r.status() == StatusCode::OK && containers() == 1).then_some(())
    });

    // Another node takes the lease (one generation up) and fences the head.
    let thief = cluster_store(moto, store);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let lease = thief.lease("c").await.unwrap().unwrap();
        let head = thief.head("c").await.unwrap().unwrap();
        let generation = lease.value.generation.max(head.value.generation) + 1;
        let until = computer_bucket::cluster::lease::now_ms() + 600_000;
        let taken =
            computer_bucket::cluster::Lease::new("thief", "http://127.0.0.1:1", generation, until);
        thief
            .put_lease("c", &taken, Some(&lease.version))
            .await
            .unwrap()
            .unwrap();
        let fenced = computer_bucket::cluster::Head {
            generation,
            ..head.value
        };
        thief
            .put_head("c", &fenced, Some(&head.version))
            .await
            .unwrap()
            .unwrap();
    });
    // A finds out at its next renewal (a third of the lease): the container goes.
    eventually(30, || (containers() == 0).then_some(()));
    // Requests now go to the new holder (which does not answer here).
    let r = a.get("/v1/workspaces/c/stat/workspace");
    assert_eq!(r.status(), StatusCode::BAD_GATEWAY, "{}", r.text().unwrap());
    // And the job no longer writes A's copy.
    let options = computer::VfsOptions {
        read_only: true,
        create: false,
        ..Default::default()
    };
    let ticks = || {
        let ws = computer::Workspace::open_with(a.workspace_file("c"), &options).unwrap();
        ws.fs().read_file("/workspace/tick").unwrap().len()
    };
    let before = ticks();
    std::thread::sleep(Duration::from_secs(1));
    assert_eq!(
        ticks(),
        before,
        "the job still runs on the node that lost it"
    );
}
