//! The agent servers as a client sees them: round trips of `read` and of `exec "echo hi"` over
//! MCP on stdio, over the HTTP API and over MCP on streamable HTTP (p50/p99); throughput with
//! 50 concurrent clients; host memory and descriptors per idle open workspace, awake and
//! asleep, and memory per MCP session. The baseline, measured in the same run, is a bare
//! loopback TCP round trip (the floor of any local server).
//! `cargo bench -p computer-cli --bench agents`; `BENCH_WORKSPACES` sets how many idle
//! workspaces the density part opens (2,000 by default).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use reqwest::blocking::Client;
use serde_json::{Value, json};

const ROUNDS: usize = 500;
const TOKEN: &str = "bench";

/// Idle workspaces measured awake; the density part opens more (see [`workspaces`]).
const IDLE: usize = 200;

/// Idle workspaces the density part opens: `BENCH_WORKSPACES`, 2,000 by default, at least
/// [`IDLE`].
fn workspaces() -> usize {
    std::env::var("BENCH_WORKSPACES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000)
        .max(IDLE)
}

fn percentiles(mut times: Vec<Duration>) -> (f64, f64) {
    times.sort();
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize].as_secs_f64() * 1e3;
    (at(0.5), at(0.99))
}

fn measure(rounds: usize, mut f: impl FnMut()) -> (f64, f64) {
    for _ in 0..20 {
        f(); // warm up: caches, the isolate's first instance
    }
    percentiles(
        (0..rounds)
            .map(|_| {
                let start = Instant::now();
                f();
                start.elapsed()
            })
            .collect(),
    )
}

/// A loopback TCP round trip of one short line: the native floor.
fn tcp_round_trip() -> (f64, f64) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        let (stream, _) = listener.accept().unwrap();
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        let mut writer = stream;
        let mut line = String::new();
        while reader.read_line(&mut line).unwrap_or(0) > 0 {
            writer.write_all(line.as_bytes()).unwrap();
            line.clear();
        }
    });
    let stream = TcpStream::connect(addr).unwrap();
    stream.set_nodelay(true).unwrap();
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut writer = stream;
    let mut line = String::new();
    measure(ROUNDS, || {
        writer.write_all(b"ping\n").unwrap();
        line.clear();
        reader.read_line(&mut line).unwrap();
    })
}

/// `computer mcp` spoken to by hand: newline-delimited JSON-RPC.
struct StdioMcp {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl StdioMcp {
    fn start(workspace: &std::path::Path) -> StdioMcp {
        let mut child = Command::new(env!("CARGO_BIN_EXE_computer"))
            .arg("--workspace")
            .arg(workspace)
            .arg("mcp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut mcp = StdioMcp {
            stdin: child.stdin.take().unwrap(),
            stdout: BufReader::new(child.stdout.take().unwrap()),
            child,
            next_id: 1,
        };
        mcp.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}),
        );
        writeln!(
            mcp.stdin,
            "{}",
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
        )
        .unwrap();
        mcp
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        writeln!(
            self.stdin,
            "{}",
            json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
        )
        .unwrap();
        self.stdin.flush().unwrap();
        let mut line = String::new();
        loop {
            line.clear();
            assert!(
                self.stdout.read_line(&mut line).unwrap() > 0,
                "the server closed"
            );
            let msg: Value = serde_json::from_str(&line).unwrap();
            if msg["id"] == id {
                return msg;
            }
        }
    }

    fn call(&mut self, name: &str, args: Value) -> String {
        let r = self.request("tools/call", json!({"name": name, "arguments": args}));
        r["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    }
}

impl Drop for StdioMcp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A `computer serve` process.
struct Server {
    child: Child,
    base: String,
    client: Client,
}

impl Server {
    fn start(data: &std::path::Path, workspaces: usize) -> Server {
        // Room for the idle workspaces below and the 51 others (`bench`, the 50 clients');
        // they sleep after 2 s unused.
        let mut child = Command::new(env!("CARGO_BIN_EXE_computer"))
            .args(["serve", "--listen", "127.0.0.1:0", "--sleep-after", "2"])
            .arg("--max-workspaces")
            .arg((workspaces + 100).to_string())
            .arg("--data-dir")
            .arg(data)
            .env("COMPUTER_TOKEN", TOKEN)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        stderr.read_line(&mut line).unwrap();
        let base = line.trim().rsplit(' ').next().unwrap().to_string();
        std::thread::spawn(move || {
            let mut rest = String::new();
            let _ = stderr.read_to_string(&mut rest);
        });
        let client = Client::builder()
            .pool_max_idle_per_host(64)
            .build()
            .unwrap();
        Server {
            child,
            base,
            client,
        }
    }

    fn post(&self, path: &str, body: &Value) -> reqwest::blocking::Response {
        let r = self
            .client
            .post(format!("{}{path}", self.base))
            .bearer_auth(TOKEN)
            .header("content-type", "application/json")
            .body(body.to_string())
            .send()
            .unwrap();
        assert!(r.status().is_success(), "{path}: {}", r.status());
        r
    }

    fn fds(&self) -> usize {
        std::fs::read_dir(format!("/proc/{}/fd", self.child.id()))
            .unwrap()
            .count()
    }

    /// Gets a stat of workspace `id`'s root, which opens it.
    fn touch(&self, id: &str) {
        let r = self
            .client
            .get(format!("{}/v1/workspaces/{id}/stat/workspace", self.base))
            .bearer_auth(TOKEN)
            .send()
            .unwrap();
        assert!(r.status().is_success());
    }

    fn rss_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches(" kB").trim().parse().ok())
            .unwrap()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// MCP over streamable HTTP, spoken to by hand (session mode: initialize, then calls with the
/// session id; each answer is one server-sent event or a JSON body).
struct HttpMcp<'a> {
    server: &'a Server,
    url: String,
    session: String,
    next_id: u64,
}

impl<'a> HttpMcp<'a> {
    fn start(server: &'a Server, workspace: &str) -> HttpMcp<'a> {
        let url = format!("{}/v1/workspaces/{workspace}/mcp", server.base);
        let mut mcp = HttpMcp {
            server,
            url,
            session: String::new(),
            next_id: 1,
        };
        let r = mcp.send(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params":
            {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}}));
        mcp.session = r.headers()["mcp-session-id"].to_str().unwrap().to_string();
        let _ = r.text();
        let _ = mcp
            .send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .text();
        mcp
    }

    fn send(&self, body: &Value) -> reqwest::blocking::Response {
        let mut req = self
            .server
            .client
            .post(&self.url)
            .bearer_auth(TOKEN)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-06-18");
        if !self.session.is_empty() {
            req = req.header("mcp-session-id", &self.session);
        }
        let r = req.body(body.to_string()).send().unwrap();
        assert!(r.status().is_success(), "MCP over HTTP: {}", r.status());
        r
    }

    fn call(&mut self, name: &str, args: Value) -> String {
        let id = self.next_id;
        self.next_id += 1;
        let text = self
            .send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": args}}))
            .text()
            .unwrap();
        let msg = text
            .lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
            .find(|m| m["id"] == id)
            .or_else(|| serde_json::from_str(&text).ok())
            .unwrap_or_else(|| panic!("no answer in {text:?}"));
        msg["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    }
}

fn row(what: &str, (p50, p99): (f64, f64), floor: f64) {
    println!("| {what} | {p50:.3} | {p99:.3} | {:.1} |", p50 / floor);
}

fn main() {
    let many = workspaces();
    let dir = tempfile::tempdir().unwrap();
    let notes = "one line of notes\n".repeat(200);
    let read = json!({"path": "notes.txt", "limit": 50});
    let echo = json!({"command": "echo hi"});

    let tcp = tcp_round_trip();
    let floor = tcp.0;

    // MCP on stdio.
    let ws = dir.path().join("stdio.db");
    computer::Workspace::open(&ws)
        .unwrap()
        .fs()
        .write_file("/workspace/notes.txt", &notes)
        .unwrap();
    let mut stdio = StdioMcp::start(&ws);
    assert!(stdio.call("read", read.clone()).contains("one line"));
    assert!(stdio.call("exec", echo.clone()).contains("hi"));
    let stdio_read = measure(ROUNDS, || {
        stdio.call("read", read.clone());
    });
    let stdio_exec = measure(ROUNDS, || {
        stdio.call("exec", echo.clone());
    });
    drop(stdio);

    // The HTTP API and MCP over HTTP, one server.
    let server = Server::start(&dir.path().join("data"), many);
    server.post("/v1/workspaces", &json!({"id": "bench"}));
    server.post(
        "/v1/workspaces/bench/tools/write",
        &json!({"path": "notes.txt", "content": notes}),
    );
    let http_read = measure(ROUNDS, || {
        server
            .post("/v1/workspaces/bench/tools/read", &read)
            .bytes()
            .unwrap();
    });
    let http_exec = measure(ROUNDS, || {
        server
            .post("/v1/workspaces/bench/exec", &echo)
            .bytes()
            .unwrap();
    });
    let mut mcp = HttpMcp::start(&server, "bench");
    assert!(mcp.call("read", read.clone()).contains("one line"));
    let mcp_read = measure(ROUNDS, || {
        mcp.call("read", read.clone());
    });
    let mcp_exec = measure(ROUNDS, || {
        mcp.call("exec", echo.clone());
    });

    println!("Round trips ({ROUNDS} each, after 20 to warm up), ms:\n");
    println!("| operation | p50 | p99 | p50 ratio to the TCP floor |");
    println!("|---|---:|---:|---:|");
    row("loopback TCP round trip (native floor)", tcp, floor);
    row("`read` over MCP stdio", stdio_read, floor);
    row("`exec \"echo hi\"` over MCP stdio", stdio_exec, floor);
    row("`read` over the HTTP API (`/tools/read`)", http_read, floor);
    row(
        "`exec \"echo hi\"` over the HTTP API (`/exec`)",
        http_exec,
        floor,
    );
    row("`read` over MCP streamable HTTP", mcp_read, floor);
    row(
        "`exec \"echo hi\"` over MCP streamable HTTP",
        mcp_exec,
        floor,
    );

    // Throughput: 50 clients, each on its own workspace, read and exec in turn.
    let clients = 50;
    let per_client = 40;
    for n in 0..clients {
        server.post("/v1/workspaces", &json!({"id": format!("c{n}")}));
        server.post(
            &format!("/v1/workspaces/c{n}/tools/write"),
            &json!({"path": "notes.txt", "content": notes}),
        );
    }
    let start = Instant::now();
    std::thread::scope(|scope| {
        for n in 0..clients {
            let server = &server;
            let (read, echo) = (read.clone(), echo.clone());
            scope.spawn(move || {
                for i in 0..per_client {
                    if i % 2 == 0 {
                        server
                            .post(&format!("/v1/workspaces/c{n}/tools/read"), &read)
                            .bytes()
                            .unwrap();
                    } else {
                        server
                            .post(&format!("/v1/workspaces/c{n}/exec"), &echo)
                            .bytes()
                            .unwrap();
                    }
                }
            });
        }
    });
    let elapsed = start.elapsed().as_secs_f64();
    let calls = clients * per_client;
    println!(
        "\nThroughput: {clients} concurrent clients on {clients} workspaces, {calls} calls (half read, half exec): \
         {:.0} calls/s ({elapsed:.2} s)",
        calls as f64 / elapsed
    );

    // Memory: idle open workspaces, then MCP sessions, then many workspaces asleep.
    let idle = IDLE;
    let creating = Instant::now();
    for n in 0..many {
        server.post("/v1/workspaces", &json!({"id": format!("idle{n}")}));
    }
    println!(
        "\nCreating {many} workspaces, one request each: {:.2} ms per workspace",
        creating.elapsed().as_secs_f64() * 1e3 / many as f64
    );
    // Creating a workspace opens it: measure on a fresh server that opens them by use.
    drop(mcp);
    drop(server);
    let server = Server::start(&dir.path().join("data"), many);
    server
        .post("/v1/workspaces/bench/tools/read", &read)
        .bytes()
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let base = server.rss_kib();
    let base_fds = server.fds();
    for n in 0..idle {
        server.touch(&format!("idle{n}"));
    }
    std::thread::sleep(Duration::from_millis(300));
    let opened = server.rss_kib();
    let sessions_n = 50;
    let mut sessions: Vec<HttpMcp> = (0..sessions_n)
        .map(|_| HttpMcp::start(&server, "bench"))
        .collect();
    for s in &mut sessions {
        s.call("read", read.clone());
    }
    std::thread::sleep(Duration::from_millis(300));
    let with_sessions = server.rss_kib();
    println!(
        "\nMemory (server RSS): {idle} idle workspaces opened: {:.0} KiB each ({} → {} KiB); \
         {sessions_n} MCP sessions over HTTP, each after one call: {:.0} KiB each",
        (opened.saturating_sub(base)) as f64 / idle as f64,
        base,
        opened,
        (with_sessions.saturating_sub(opened)) as f64 / sessions_n as f64,
    );
    drop(sessions);
    // Past `--sleep-after` (2 s) and the sweep (1 s), every workspace sleeps.
    let settle = Duration::from_millis(3500);
    std::thread::sleep(settle);
    let asleep_fds = server.fds();
    let asleep = server.rss_kib();
    for n in idle..many {
        server.touch(&format!("idle{n}"));
    }
    std::thread::sleep(settle);
    let all_fds = server.fds();
    let all = server.rss_kib();
    println!(
        "Asleep (--sleep-after 2): the {idle} idle workspaces hold {} descriptors ({} before \
         they were opened), RSS {asleep} KiB; after opening {} more by use and letting them \
         sleep: {} descriptors, RSS {all} KiB: {:.1} KiB per added workspace, {:.1} KiB per \
         workspace over the base",
        asleep_fds,
        base_fds,
        many - idle,
        all_fds,
        all.saturating_sub(asleep) as f64 / (many - idle) as f64,
        all.saturating_sub(base) as f64 / many as f64,
    );
}
