//! The egress proxy of containers, driven by the real curl (`curl -x`), in front of plain
//! and TLS servers on 127.0.0.1 under test names (the proxy listens on loopback here; in a
//! container it listens in the container's own network namespace).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use computer_net::{
    Egress, EgressSlot, Policy, Proxy, ProxyCa, ProxyServer, Secrets, StaticResolver, save_policy,
};
use computer_vfs::Vfs;

/// A site on 127.0.0.1: `/hello` says hello, `/echo` answers with the request's head; every
/// head it got is kept in `received`.
struct Site {
    port: u16,
    connections: Arc<AtomicUsize>,
    received: Arc<Mutex<String>>,
}

fn answer(stream: &mut (impl Read + Write), received: &Mutex<String>) {
    let mut reader = BufReader::new(stream);
    let mut head = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
            break;
        }
        head.push_str(&line);
    }
    received.lock().unwrap().push_str(&head);
    // The body is read before the answer: an answer to a request still being sent races
    // the client's upload (see network.md on uploads answered early).
    let lower = head.to_ascii_lowercase();
    if lower.contains("transfer-encoding: chunked") {
        loop {
            let mut size = String::new();
            if reader.read_line(&mut size).unwrap_or(0) == 0 {
                break;
            }
            let size = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
            let mut chunk = vec![0; size + 2];
            if reader.read_exact(&mut chunk).is_err() || size == 0 {
                break;
            }
        }
    } else if let Some(length) = lower
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse::<usize>().ok())
    {
        let mut body = vec![0; length];
        let _ = reader.read_exact(&mut body);
    }
    let path = head.split(' ').nth(1).unwrap_or("/").to_string();
    let body = match path.as_str() {
        "/hello" => "hello".to_string(),
        "/echo" => head.clone(),
        _ => "no".to_string(),
    };
    let stream = reader.get_mut();
    let _ = write!(
        stream,
        "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.flush();
}

fn site(tls: Option<Arc<rustls::ServerConfig>>) -> Site {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let connections = Arc::new(AtomicUsize::new(0));
    let received = Arc::new(Mutex::new(String::new()));
    let (count, record) = (Arc::clone(&connections), Arc::clone(&received));
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            count.fetch_add(1, Ordering::SeqCst);
            let (record, tls) = (Arc::clone(&record), tls.clone());
            std::thread::spawn(move || match tls {
                None => answer(&mut { stream }, &record),
                Some(config) => {
                    let Ok(conn) = rustls::ServerConnection::new(config) else {
                        return;
                    };
                    let mut tls = rustls::StreamOwned::new(conn, stream);
                    answer(&mut tls, &record);
                    tls.conn.send_close_notify();
                    let _ = tls.conn.complete_io(&mut tls.sock);
                }
            });
        }
    });
    Site {
        port,
        connections,
        received,
    }
}

/// A proxy on loopback for a workspace with `policy` and `secrets`; its egress trusts
/// `site_ca` (the test sites' CA) beside the system's roots.
struct Setup {
    vfs: Arc<Vfs>,
    server: ProxyServer,
    port: u16,
    dir: tempfile::TempDir,
}

impl Setup {
    fn new(policy: &str, secrets: Secrets, site_ca: &ProxyCa) -> Setup {
        let vfs = Arc::new(Vfs::in_memory().unwrap());
        save_policy(&vfs, &Policy::from_text(policy).unwrap()).unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("site-ca.pem"), site_ca.cert_pem()).unwrap();
        let names = StaticResolver::new([
            ("docs.test", "127.0.0.1".parse().unwrap()),
            ("other.test", "127.0.0.1".parse().unwrap()),
        ]);
        let egress = Egress::new(Arc::clone(&vfs), "container")
            .with_resolver(Arc::new(names))
            .with_ca_file(dir.path().join("site-ca.pem"))
            .with_secrets(secrets);
        let slot = EgressSlot::default();
        slot.set(Some(egress));
        let proxy = Proxy::new(slot).unwrap();
        std::fs::write(dir.path().join("proxy-ca.pem"), proxy.ca_pem()).unwrap();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let server = proxy.serve(listener).unwrap();
        Setup {
            vfs,
            server,
            port,
            dir,
        }
    }

    fn file(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// The real curl through the proxy: status, stdout, stderr.
    fn curl(&self, args: &[&str]) -> (i32, String, String) {
        let out = std::process::Command::new("curl")
            .args(["-sS", "--max-time", "20", "-x"])
            .arg(format!("http://127.0.0.1:{}", self.port))
            .args(args)
            .env_clear()
            .output()
            .expect("curl runs (CI installs it)");
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    /// The audit log once it has settled: a response's row is written when the proxy drops
    /// it, which may be just after the client has read its last byte.
    fn audit(&self) -> String {
        let mut log = self.audit_now();
        for _ in 0..40 {
            std::thread::sleep(std::time::Duration::from_millis(50));
            let again = self.audit_now();
            if again == log {
                break;
            }
            log = again;
        }
        log
    }

    fn audit_now(&self) -> String {
        self.vfs
            .audit_log(0, 100)
            .unwrap()
            .iter()
            .map(|e| {
                format!(
                    "{} {} {} {}\n",
                    e.origin,
                    e.args,
                    e.summary,
                    e.error.as_deref().unwrap_or("")
                )
            })
            .collect()
    }
}

fn site_tls() -> (ProxyCa, Arc<rustls::ServerConfig>) {
    let ca = ProxyCa::new().unwrap();
    let config = ca.server_config("docs.test").unwrap();
    (ca, config)
}

fn cacert(path: &Path) -> String {
    path.display().to_string()
}

#[test]
fn plain_requests_go_through_the_policy_and_the_audit_log() {
    let s = site(None);
    let (site_ca, _) = site_tls();
    let setup = Setup::new(
        &format!("allow http://docs.test:{}", s.port),
        Secrets::default(),
        &site_ca,
    );
    let (code, out, err) = setup.curl(&[&format!("http://docs.test:{}/hello", s.port)]);
    assert_eq!((code, out.as_str()), (0, "hello"), "{err}");
    // Another name of the same address: refused, with the policy's reason in the body.
    let (code, out, _) = setup.curl(&[
        "-w",
        "\n%{http_code}",
        &format!("http://other.test:{}/hello", s.port),
    ]);
    assert_eq!(code, 0);
    assert!(out.ends_with("\n403"), "{out}");
    assert!(
        out.contains("no rule of the workspace's network policy allows it"),
        "{out}"
    );
    assert_eq!(s.connections.load(Ordering::SeqCst), 1);
    // A POST body is passed on, sized or chunked.
    let (code, out, err) = setup.curl(&[
        "-H",
        "Transfer-Encoding: chunked",
        "--data-binary",
        "abc",
        &format!("http://docs.test:{}/echo", s.port),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("POST /echo HTTP/1.1"), "{out}");
    // Streamed: a chunked body goes on chunked.
    assert!(
        out.to_ascii_lowercase()
            .contains("transfer-encoding: chunked"),
        "{out}"
    );
    let (code, out, err) = setup.curl(&[
        "--data-binary",
        "abc",
        &format!("http://docs.test:{}/echo", s.port),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.to_ascii_lowercase().contains("content-length: 3"),
        "{out}"
    );
    let log = setup.audit();
    assert!(log.contains("container"), "{log}");
    assert!(log.contains("200, 5 bytes"), "{log}");
    assert!(log.contains("other.test"), "{log}");
}

#[test]
fn https_is_tunnelled_untouched_to_the_checked_address() {
    let (site_ca, tls) = site_tls();
    let s = site(Some(tls));
    let setup = Setup::new(
        &format!("allow https://docs.test:{}", s.port),
        Secrets::default(),
        &site_ca,
    );
    // The site's own certificate reaches curl: it trusts the site's CA, not the proxy's.
    let (code, out, err) = setup.curl(&[
        "--cacert",
        &cacert(&setup.file("site-ca.pem")),
        &format!("https://docs.test:{}/hello", s.port),
    ]);
    assert_eq!((code, out.as_str()), (0, "hello"), "{err}");
    assert!(
        setup.audit().contains("tunnelled: 127.0.0.1"),
        "{}",
        setup.audit()
    );
    // A host the policy does not name: the CONNECT is refused and nothing connects.
    let before = s.connections.load(Ordering::SeqCst);
    let (code, _, err) = setup.curl(&[
        "--cacert",
        &cacert(&setup.file("site-ca.pem")),
        &format!("https://other.test:{}/hello", s.port),
    ]);
    assert_eq!(code, 56, "{err}");
    assert!(err.contains("403"), "{err}");
    assert_eq!(s.connections.load(Ordering::SeqCst), before);
    assert!(
        setup
            .audit()
            .contains("no rule of the workspace's network policy allows it"),
        "{}",
        setup.audit()
    );
}

#[test]
fn loopback_under_all_is_refused_at_the_connect() {
    let (site_ca, tls) = site_tls();
    let s = site(Some(tls));
    let setup = Setup::new("all", Secrets::default(), &site_ca);
    let (code, _, err) = setup.curl(&[
        "--cacert",
        &cacert(&setup.file("site-ca.pem")),
        &format!("https://docs.test:{}/hello", s.port),
    ]);
    assert_eq!(code, 56, "{err}");
    assert_eq!(s.connections.load(Ordering::SeqCst), 0);
    assert!(setup.audit().contains("127.0.0.0/8"), "{}", setup.audit());
}

#[test]
fn a_secret_is_added_inside_tls_ended_at_the_proxy() {
    let (site_ca, tls) = site_tls();
    let s = site(Some(tls));
    let value = "s3cr3t-proxy-value";
    let secret = computer_net::Secret::new(
        "TOKEN",
        value,
        &["docs.test".to_string()],
        Some("Authorization"),
        Some("Bearer {}"),
    )
    .unwrap();
    let setup = Setup::new(
        &format!("allow https://docs.test:{}", s.port),
        Secrets::new(vec![secret]).unwrap(),
        &site_ca,
    );
    // The proxy ends TLS for a host with a secret: the site's CA alone does not verify it.
    let url = format!("https://docs.test:{}/echo", s.port);
    let (code, _, err) = setup.curl(&["--cacert", &cacert(&setup.file("site-ca.pem")), &url]);
    assert_eq!(code, 60, "{err}");
    // The container's trust store holds the proxy's CA: the request goes through, and the
    // secret is added on the host, past the guest.
    let (code, out, err) = setup.curl(&[
        "--cacert",
        &cacert(&setup.file("proxy-ca.pem")),
        "-H",
        "X-Sent: computer-secret:TOKEN",
        &url,
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("GET /echo HTTP/1.1"), "{out}");
    let received = s.received.lock().unwrap().clone();
    assert!(
        received.contains(&format!("authorization: Bearer {value}")),
        "{received}"
    );
    assert!(received.contains(&format!("x-sent: {value}")), "{received}");
    let log = setup.audit();
    assert!(log.contains("intercepted"), "{log}");
    assert!(log.contains("with secret TOKEN"), "{log}");
    assert!(!log.contains(value), "{log}");
}

#[test]
fn path_and_method_rules_are_held_inside_tls() {
    let (site_ca, tls) = site_tls();
    let s = site(Some(tls));
    let setup = Setup::new(
        &format!("allow https://docs.test:{}/hello GET", s.port),
        Secrets::default(),
        &site_ca,
    );
    let ca = cacert(&setup.file("proxy-ca.pem"));
    let base = format!("https://docs.test:{}", s.port);
    let (code, out, err) = setup.curl(&["--cacert", &ca, &format!("{base}/hello")]);
    assert_eq!((code, out.as_str()), (0, "hello"), "{err}");
    let (_, out, _) = setup.curl(&[
        "--cacert",
        &ca,
        "-w",
        "\n%{http_code}",
        &format!("{base}/echo"),
    ]);
    assert!(out.ends_with("\n403"), "{out}");
    let (_, out, _) = setup.curl(&[
        "--cacert",
        &ca,
        "-w",
        "\n%{http_code}",
        "-d",
        "x",
        &format!("{base}/hello"),
    ]);
    assert!(out.ends_with("\n403"), "{out}");
    assert!(!s.received.lock().unwrap().contains("/echo"));
}

#[test]
fn raw_tcp_through_a_tunnel_and_oversized_heads_get_named_errors() {
    let s = site(None);
    let (site_ca, _) = site_tls();
    let setup = Setup::new(
        &format!("allow https://docs.test:{}", s.port),
        Secrets::default(),
        &site_ca,
    );
    let mut stream = TcpStream::connect(("127.0.0.1", setup.port)).unwrap();
    write!(
        stream,
        "CONNECT docs.test:{0} HTTP/1.1\r\nHost: docs.test:{0}\r\n\r\n",
        s.port
    )
    .unwrap();
    let mut reply = [0u8; 39];
    stream.read_exact(&mut reply).unwrap();
    assert_eq!(&reply[..], b"HTTP/1.1 200 Connection established\r\n\r\n");
    stream.write_all(b"SSH-2.0-OpenSSH_9.2\r\n").unwrap();
    let mut rest = String::new();
    let _ = stream.read_to_string(&mut rest);
    assert!(
        rest.contains("only HTTP and HTTPS leave a container"),
        "{rest}"
    );
    assert!(
        setup.audit().contains("ssh and other raw TCP"),
        "{}",
        setup.audit()
    );

    let mut stream = TcpStream::connect(("127.0.0.1", setup.port)).unwrap();
    let huge = "a".repeat(computer_net::PROXY_MAX_HEAD_BYTES);
    let _ = write!(
        stream,
        "GET http://docs.test:{}/hello HTTP/1.1\r\nX-Big: {huge}\r\n\r\n",
        s.port
    );
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    assert!(answer.starts_with("HTTP/1.1 431"), "{answer}");
    assert!(answer.contains("PROXY_MAX_HEAD_BYTES"), "{answer}");
    // A refused request is answered before its body is read (none is sent here: the
    // answer comes at once, not at the idle limit).
    let mut stream = TcpStream::connect(("127.0.0.1", setup.port)).unwrap();
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(10)))
        .unwrap();
    write!(
        stream,
        "POST http://other.test:{}/echo HTTP/1.1\r\nContent-Length: 50000000\r\n\r\n",
        s.port
    )
    .unwrap();
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    assert!(answer.starts_with("HTTP/1.1 403"), "{answer}");
    // A body past the limit: refused before the host hears of it.
    let mut stream = TcpStream::connect(("127.0.0.1", setup.port)).unwrap();
    write!(
        stream,
        "PUT http://docs.test:{}/echo HTTP/1.1\r\nContent-Length: {}\r\n\r\n",
        s.port,
        computer_net::PROXY_MAX_BODY_BYTES + 1
    )
    .unwrap();
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    assert!(answer.contains("PROXY_MAX_BODY_BYTES"), "{answer}");
    // Not a proxy request at all.
    let mut stream = TcpStream::connect(("127.0.0.1", setup.port)).unwrap();
    stream.write_all(b"GET /hello HTTP/1.1\r\n\r\n").unwrap();
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
    assert!(answer.contains("HTTP_PROXY"), "{answer}");
    // The site got no byte of any of it.
    assert_eq!(s.received.lock().unwrap().as_str(), "");
    drop(setup.server);
}

/// Reads from `stream` until `want` has come (or the read times out): what came.
fn read_until(stream: &mut TcpStream, want: &str) -> String {
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    while !String::from_utf8_lossy(&got).contains(want) {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => got.extend_from_slice(&buf[..n]),
        }
    }
    String::from_utf8_lossy(&got).into_owned()
}

#[test]
fn bodies_stream_through_the_proxy_both_ways() {
    use std::sync::mpsc;
    use std::time::Duration;
    // A host that reads a request body in two parts and answers a chunked body in two parts,
    // telling the test what it got, and waiting for its word before the second part.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (got_tx, got_rx) = mpsc::channel::<String>();
    let (go_tx, go_rx) = mpsc::channel::<()>();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            let mut reader = BufReader::new(stream);
            let mut head = String::new();
            while reader.read_line(&mut head).unwrap_or(0) > 2 {}
            if head.starts_with("POST") {
                let mut first = [0u8; 5];
                reader.read_exact(&mut first).unwrap();
                got_tx.send(String::from_utf8_lossy(&first).into()).unwrap();
                let mut last = [0u8; 5];
                reader.read_exact(&mut last).unwrap();
                got_tx.send(String::from_utf8_lossy(&last).into()).unwrap();
            }
            let out = reader.get_mut();
            out.write_all(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nready\r\n")
                .unwrap();
            out.flush().unwrap();
            if go_rx.recv_timeout(Duration::from_secs(20)).is_err() {
                return;
            }
            out.write_all(b"5\r\n-last\r\n0\r\n\r\n").unwrap();
            out.flush().unwrap();
        }
    });
    let (site_ca, _) = site_tls();
    let setup = Setup::new(
        &format!("allow http://docs.test:{port}"),
        Secrets::default(),
        &site_ca,
    );
    let client = || {
        let stream = TcpStream::connect(("127.0.0.1", setup.port)).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        stream
    };

    // Up: the host has the body's first part while the client still holds the rest.
    let mut stream = client();
    write!(
        stream,
        "POST http://docs.test:{port}/ HTTP/1.1\r\nHost: docs.test\r\nContent-Length: 10\r\n\r\nfirst"
    )
    .unwrap();
    let first = got_rx.recv_timeout(Duration::from_secs(10));
    assert_eq!(
        first.as_deref(),
        Ok("first"),
        "the proxy held the body back"
    );
    stream.write_all(b"-last").unwrap();
    assert_eq!(
        got_rx.recv_timeout(Duration::from_secs(10)).as_deref(),
        Ok("-last")
    );
    // Down: the client has the response's first part while the host still holds the rest.
    let head = read_until(&mut stream, "ready");
    assert!(head.starts_with("HTTP/1.1 200 OK"), "{head}");
    assert!(
        head.to_ascii_lowercase()
            .contains("transfer-encoding: chunked"),
        "{head}"
    );
    assert!(
        head.contains("ready"),
        "the proxy held the response back: {head}"
    );
    go_tx.send(()).unwrap();
    let rest = read_until(&mut stream, "0\r\n\r\n");
    assert!(
        rest.contains("-last") && rest.ends_with("0\r\n\r\n"),
        "{rest}"
    );

    // An HTTP/1.0 client gets a body of unknown length up to the end of the connection.
    let mut stream = client();
    write!(stream, "GET http://docs.test:{port}/ HTTP/1.0\r\n\r\n").unwrap();
    let head = read_until(&mut stream, "ready");
    assert!(!head.to_ascii_lowercase().contains("chunked"), "{head}");
    assert!(
        head.to_ascii_lowercase().contains("connection: close"),
        "{head}"
    );
    go_tx.send(()).unwrap();
    let mut rest = String::new();
    stream.read_to_string(&mut rest).unwrap();
    assert_eq!(rest, "-last");

    let log = setup.audit();
    assert!(log.contains(r#""method":"POST""#), "{log}");
    assert_eq!(log.matches("200, 10 bytes").count(), 2, "{log}");
}
