//! A cluster of `computer serve` nodes over moto's S3 server, on loopback: the time to hand a
//! workspace of 10,000 files (100 MiB) from one node to another, and the cost of a write with
//! `--sync-writes`. The baselines, measured in the same run against the same moto: a plain
//! HTTP client putting and getting as many bytes (8 MiB objects, all at once), and one PUT of
//! a 4 KiB object.
//! `cargo bench -p computer-cli --bench cluster` (needs `moto_server`:
//! `python3 -m pip install 'moto[server]'`). `BENCH_FILES` sets the number of 10 KiB files.

#[path = "../../bucket/tests/support/moto.rs"]
mod moto;

use std::io::{BufRead, BufReader, Read};
use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use computer_bucket::object_store::ObjectStoreExt;
use reqwest::blocking::Client;
use serde_json::{Value, json};

const TOKEN: &str = "bench";
const BUCKET: &str = "bench-cluster";
const WRITES: usize = 100;

struct Node {
    child: Option<Child>,
    port: u16,
    dir: tempfile::TempDir,
    endpoint: String,
    extra: Vec<&'static str>,
}

impl Node {
    fn start(endpoint: &str, extra: &[&'static str]) -> Node {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut node = Node {
            child: None,
            port,
            dir: tempfile::tempdir().unwrap(),
            endpoint: endpoint.to_string(),
            extra: extra.to_vec(),
        };
        node.restart();
        node
    }

    fn restart(&mut self) {
        let mut child = Command::new(env!("CARGO_BIN_EXE_computer"))
            .arg("serve")
            .args(["--listen", &format!("127.0.0.1:{}", self.port)])
            .arg("--data-dir")
            .arg(self.dir.path().join("data"))
            .args(["--store", &format!("s3://{BUCKET}/nodes")])
            .args(&self.extra)
            .env("COMPUTER_TOKEN", TOKEN)
            .env("AWS_ENDPOINT_URL", &self.endpoint)
            .env("AWS_ALLOW_HTTP", "true")
            .env("AWS_ACCESS_KEY_ID", "bench")
            .env("AWS_SECRET_ACCESS_KEY", "bench")
            .env("AWS_REGION", "us-east-1")
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        stderr.read_line(&mut line).unwrap();
        assert!(line.contains("listening on"), "{line}");
        std::thread::spawn(move || {
            let mut rest = String::new();
            let _ = stderr.read_to_string(&mut rest);
        });
        self.child = Some(child);
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    /// SIGTERM and wait: the node pushes what changed and lets its leases go.
    fn stop(&mut self) {
        let mut child = self.child.take().unwrap();
        Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .unwrap();
        assert!(child.wait().unwrap().success());
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

fn ok(r: reqwest::blocking::Response) -> Value {
    let status = r.status();
    let text = r.text().unwrap();
    assert!(status.is_success(), "{status}: {text}");
    serde_json::from_str(&text).unwrap_or(Value::Null)
}

fn timed<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let start = Instant::now();
    let value = f();
    (value, start.elapsed().as_secs_f64())
}

fn median_ms(mut times: Vec<f64>) -> f64 {
    times.sort_by(f64::total_cmp);
    times[times.len() / 2] * 1e3
}

fn main() {
    let Some(moto) = moto::shared() else {
        eprintln!("moto_server is needed: python3 -m pip install 'moto[server]'");
        std::process::exit(1);
    };
    moto.create_bucket(BUCKET);
    let files: usize = std::env::var("BENCH_FILES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    let client = Client::builder()
        .timeout(Duration::from_secs(600))
        .build()
        .unwrap();
    let api = |node: &Node, method: reqwest::Method, path: &str, body: Option<String>| {
        let mut req = client.request(method, node.url(path)).bearer_auth(TOKEN);
        if let Some(body) = body {
            req = req.header("content-type", "application/json").body(body);
        }
        req.send().unwrap()
    };

    // No periodic push: a stop pushes everything since the workspace was made.
    let mut a = Node::start(&moto.endpoint, &["--push-every", "3600"]);
    let mut b = Node::start(&moto.endpoint, &["--push-every", "3600"]);
    ok(api(
        &a,
        reqwest::Method::POST,
        "/v1/workspaces",
        Some(json!({"id": "big"}).to_string()),
    ));
    let fill =
        format!("i=0; while [ $i -lt {files} ]; do printf '%10240d' $i > f$i; i=$((i+1)); done");
    let (_, fill_s) = timed(|| {
        ok(api(
            &a,
            reqwest::Method::POST,
            "/v1/workspaces/big/exec",
            Some(json!({"command": fill, "timeout": 600}).to_string()),
        ))
    });
    let size = std::fs::metadata(a.dir.path().join("data/big.db"))
        .unwrap()
        .len();
    eprintln!(
        "filled {files} files in {fill_s:.1} s; the workspace file is {:.1} MiB",
        size as f64 / (1 << 20) as f64
    );

    // The floor: the same bytes up and down with object_store alone (the client the nodes
    // use, no workspace), in 8 MiB objects, all at once.
    let part = 8 << 20;
    let parts = (size as usize).div_ceil(part);
    let url = computer_bucket::BucketUrl::parse(&format!("s3://{BUCKET}/floor")).unwrap();
    let config = computer_bucket::BucketConfig {
        endpoint: Some(moto.endpoint.clone()),
        region: Some("us-east-1".into()),
        access_key_id: Some("bench".into()),
        secret_access_key: Some("bench".into()),
        allow_http: true,
        ..Default::default()
    };
    let objects = computer_bucket::open_store_with(&url, &config).unwrap();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let key = |i: usize| computer_bucket::object_store::path::Path::from(format!("floor/{i}"));
    let (_, put_s) = timed(|| {
        runtime.block_on(async {
            let puts: Vec<_> = (0..parts)
                .map(|i| {
                    let objects = std::sync::Arc::clone(&objects);
                    let len = part.min(size as usize - i * part);
                    tokio::spawn(async move {
                        objects
                            .put(&key(i), vec![i as u8; len].into())
                            .await
                            .unwrap()
                    })
                })
                .collect();
            for put in puts {
                put.await.unwrap();
            }
        })
    });
    let (_, get_s) = timed(|| {
        runtime.block_on(async {
            let gets: Vec<_> = (0..parts)
                .map(|i| {
                    let objects = std::sync::Arc::clone(&objects);
                    tokio::spawn(async move {
                        objects
                            .get(&key(i))
                            .await
                            .unwrap()
                            .bytes()
                            .await
                            .unwrap()
                            .len()
                    })
                })
                .collect();
            let mut total = 0;
            for get in gets {
                total += get.await.unwrap();
            }
            assert_eq!(total as u64, size);
        })
    });

    // A stops: it pushes what changed since its last push (everything: the fill) and lets go.
    let (_, stop_s) = timed(|| a.stop());
    // B's first request takes the lease and hydrates the whole file (no local copy).
    let (served, take_s) = timed(|| {
        api(
            &b,
            reqwest::Method::GET,
            "/v1/workspaces/big/stat/workspace/f0",
            None,
        )
    });
    assert!(served.status().is_success());
    // Back to A, whose old copy holds every piece: only the changed ones come down.
    ok(api(
        &b,
        reqwest::Method::PUT,
        "/v1/workspaces/big/files/workspace/one-more",
        Some("x".into()),
    ));
    let (_, back_stop_s) = timed(|| b.stop());
    a.restart();
    let (served, back_take_s) = timed(|| {
        api(
            &a,
            reqwest::Method::GET,
            "/v1/workspaces/big/stat/workspace/one-more",
            None,
        )
    });
    assert!(served.status().is_success());
    let floor = put_s + get_s;
    println!(
        "\n| hand-over of {files} files ({:.1} MiB) | s | ratio to a plain client's PUT + GET of as many bytes ({floor:.2} s) |",
        size as f64 / (1 << 20) as f64
    );
    println!("|---|---:|---:|");
    println!(
        "| A stops: push of the fill, lease let go | {stop_s:.2} | {:.2} |",
        stop_s / floor
    );
    println!(
        "| B's first request: lease, hydrate with no local copy | {take_s:.2} | {:.2} |",
        take_s / floor
    );
    println!(
        "| whole hand-over (the two above) | {:.2} | {:.2} |",
        stop_s + take_s,
        (stop_s + take_s) / floor
    );
    println!(
        "| B stops after one small write (one piece pushed) | {back_stop_s:.2} | {:.2} |",
        back_stop_s / floor
    );
    println!(
        "| A's first request, reusing its old copy | {back_take_s:.2} | {:.2} |",
        back_take_s / floor
    );

    // Writes: a plain node and a --sync-writes node, on a small workspace and on the big one.
    let mut c = Node::start(&moto.endpoint, &["--sync-writes"]);
    ok(api(
        &a,
        reqwest::Method::POST,
        "/v1/workspaces",
        Some(json!({"id": "small"}).to_string()),
    ));
    let small_put = "x".repeat(100);
    let writes = |node: &Node, id: &str| -> f64 {
        median_ms(
            (0..WRITES)
                .map(|i| {
                    timed(|| {
                        ok(api(
                            node,
                            reqwest::Method::PUT,
                            &format!("/v1/workspaces/{id}/files/workspace/w{i}"),
                            Some(small_put.clone()),
                        ))
                    })
                    .1
                })
                .collect(),
        )
    };
    let plain_small = writes(&a, "small");
    let plain_big = writes(&a, "big");
    a.stop();
    let sync_small = writes(&c, "small");
    let sync_big = writes(&c, "big");
    c.stop();
    let object_put = median_ms(
        (0..WRITES)
            .map(|i| {
                timed(|| {
                    runtime
                        .block_on(objects.put(&key(1000 + i), vec![1u8; 4096].into()))
                        .unwrap()
                })
                .1
            })
            .collect(),
    );
    println!(
        "\n| a 100-byte file written over the API (median of {WRITES}) | ms | ratio to one 4 KiB PUT to moto ({object_put:.2} ms) |"
    );
    println!("|---|---:|---:|");
    for (what, ms) in [
        ("default, small workspace", plain_small),
        ("default, the 100 MiB workspace", plain_big),
        ("--sync-writes, small workspace", sync_small),
        ("--sync-writes, the 100 MiB workspace", sync_big),
    ] {
        println!("| {what} | {ms:.2} | {:.2} |", ms / object_put);
    }
}
