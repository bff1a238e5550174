//! The container's way out, measured: a 1 KiB GET and a 64 MiB download from a server on the
//! host's 127.0.0.1, by curl in the workspace's container (the default image) through the
//! egress proxy on the container's loopback, against native curl on the host to the same
//! server in the same run. Both are timed by curl itself (`%{time_total}`), so the exec
//! API's own cost is left out; the median of 50 small and 7 large requests. Plain http (the
//! proxy reads the whole response, checks it, and writes it on) and https through a tunnel
//! (bytes passed through; the server's certificate from a CA made here, given to both
//! curls) are both measured. The ratio is ours over native time (above 1: slower).
//!
//! Needs root, /dev/fuse, the Docker engine and the default image (built once with
//! debootstrap). `cargo bench -p computer-container --bench proxy`.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::Arc;

use computer_container::{Command, ContainerConfig, DEFAULT_IMAGE, Engine, Sandbox};
use computer_net::{Egress, EgressSlot, Policy, StaticResolver, save_policy};
use computer_vfs::Vfs;

/// A server that answers `/64m` with 64 MiB and anything else with 1 KiB, over TLS with
/// `tls`.
fn server(tls: Option<Arc<rustls::ServerConfig>>) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let tls = tls.clone();
            std::thread::spawn(move || match tls {
                None => answer(stream),
                Some(config) => {
                    let conn = rustls::ServerConnection::new(config).unwrap();
                    let mut stream = rustls::StreamOwned::new(conn, stream);
                    answer(&mut stream);
                    stream.conn.send_close_notify();
                    let _ = stream.conn.complete_io(&mut stream.sock);
                }
            });
        }
    });
    port
}

fn answer(mut stream: impl std::io::Read + Write) {
    let mut reader = BufReader::new(&mut stream);
    let mut line = String::new();
    reader.read_line(&mut line).unwrap_or(0);
    let size = if line.contains("/64m") {
        64 << 20
    } else {
        1024
    };
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).unwrap_or(0) == 0 || h == "\r\n" {
            break;
        }
    }
    drop(reader);
    let _ = write!(
        stream,
        "HTTP/1.1 200 OK\r\nContent-Length: {size}\r\nConnection: close\r\n\r\n"
    );
    let chunk = vec![b'x'; 1 << 20];
    let mut left = size;
    while left > 0 {
        let n = left.min(chunk.len());
        if stream.write_all(&chunk[..n]).is_err() {
            break;
        }
        left -= n;
    }
    let _ = stream.flush();
}

/// `runs` curl requests to `url`, one line each: curl's own time and the size. The site's
/// CA is `/workspace/site-ca.pem` in the container, `$SITE_CA` on the host.
fn script(url: &str, runs: usize, inside: bool) -> String {
    let ca = if inside {
        "/workspace/site-ca.pem"
    } else {
        "\"$SITE_CA\""
    };
    format!(
        "for i in $(seq {runs}); do curl -s --cacert {ca} -o /dev/null -w '%{{time_total}} %{{size_download}}\\n' {url}; done"
    )
}

/// The median time of `text`'s lines, each checked to have downloaded `size` bytes.
fn median(text: &str, size: u64) -> f64 {
    let mut times: Vec<f64> = text
        .lines()
        .map(|l| {
            let (t, n) = l.split_once(' ').expect("time and size");
            assert_eq!(n.parse::<u64>().unwrap(), size, "{text}");
            t.parse().unwrap()
        })
        .collect();
    assert!(!times.is_empty(), "no runs: {text}");
    times.sort_by(|a, b| a.partial_cmp(b).unwrap());
    times[times.len() / 2]
}

fn main() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let engine = rt.block_on(Engine::connect()).expect("a Docker engine");
    rt.block_on(engine.ensure_image(DEFAULT_IMAGE, &mut |step| eprintln!("{step}")))
        .expect("the default image");
    let port = server(None);
    // The TLS server's certificate comes from a CA made here, which the container's curl is
    // given: the proxy tunnels https untouched (no secret is bound).
    let site_ca = computer_net::ProxyCa::new().unwrap();
    let tls_port = server(Some(site_ca.server_config("bench.test").unwrap()));
    let dir = tempfile::tempdir().unwrap();
    let vfs = Arc::new(Vfs::open(dir.path().join("bench.db")).unwrap());
    vfs.write_file("/workspace/site-ca.pem", site_ca.cert_pem())
        .unwrap();
    std::fs::write(dir.path().join("site-ca.pem"), site_ca.cert_pem()).unwrap();
    save_policy(
        &vfs,
        &Policy::from_text(&format!(
            "allow http://bench.test:{port}\nallow https://bench.test:{tls_port}"
        ))
        .unwrap(),
    )
    .unwrap();
    let names = StaticResolver::new([("bench.test", "127.0.0.1".parse().unwrap())]);
    let slot = EgressSlot::default();
    slot.set(Some(
        Egress::new(Arc::clone(&vfs), "container").with_resolver(Arc::new(names)),
    ));
    let config = ContainerConfig {
        image: DEFAULT_IMAGE.into(),
        ..ContainerConfig::default()
    };
    let sandbox = rt
        .block_on(Sandbox::start_with_egress(
            &engine,
            Arc::clone(&vfs),
            &config,
            Some(slot),
        ))
        .expect("a container");
    let mut rows = Vec::new();
    let cases = [
        ("http", port, "/1k", 50, 1024u64),
        ("http", port, "/64m", 7, 64 << 20),
        ("https", tls_port, "/1k", 50, 1024u64),
        ("https", tls_port, "/64m", 7, 64 << 20),
    ];
    for (scheme, port, path, runs, size) in cases {
        let url = |host: &str| format!("{scheme}://{host}:{port}{path}");
        let inside = Command {
            source: Some(script(&url("bench.test"), runs, true)),
            ..Command::default()
        };
        let out = rt
            .block_on(sandbox.exec(&inside, &|_, _| {}, &|| false))
            .unwrap();
        assert_eq!(out.status, 0, "{}", String::from_utf8_lossy(&out.stderr));
        // Native curl names the server by its address (no resolver of ours out here) and
        // checks its certificate against the same CA, under the test name.
        let native = std::process::Command::new("sh")
            .args([
                "-c",
                &script(&url("bench.test"), runs, false).replace(
                    "curl ",
                    &format!("curl --resolve bench.test:{port}:127.0.0.1 "),
                ),
            ])
            .env("SITE_CA", dir.path().join("site-ca.pem"))
            .output()
            .expect("native curl");
        rows.push((
            median(&String::from_utf8_lossy(&out.stdout), size),
            median(&String::from_utf8_lossy(&native.stdout), size),
        ));
    }
    rt.block_on(sandbox.stop());
    println!("| request (curl's time_total) | container curl, proxy | native curl | ratio |");
    println!("|---|---:|---:|---:|");
    for (i, (ours, native)) in rows.iter().enumerate() {
        let (scheme, _, path, _, _) = cases[i];
        if path == "/1k" {
            println!(
                "| {scheme} GET 1 KiB (median ms) | {:.2} | {:.2} | {:.1} |",
                ours * 1e3,
                native * 1e3,
                ours / native
            );
        } else {
            println!(
                "| {scheme} GET 64 MiB (MiB/s) | {:.0} | {:.0} | {:.2} |",
                64.0 / ours,
                64.0 / native,
                ours / native
            );
        }
    }
}
