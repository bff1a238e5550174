//! `computer net` and the isolate's `curl` as a user runs them: a workspace file, a server
//! on 127.0.0.1 started here, no `HOME`.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::Cli;

/// Reads a request's head (its body is not read); gives its first line.
fn read_head(stream: &std::net::TcpStream) -> String {
    let mut reader = BufReader::new(stream);
    let mut first = String::new();
    let _ = reader.read_line(&mut first);
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
            return first;
        }
    }
}

/// A server that answers every request with `hello` and counts the connections.
fn server() -> (u16, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let count = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&count);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            seen.fetch_add(1, Ordering::SeqCst);
            read_head(&stream);
            let mut stream = stream;
            let _ = stream.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Length: 6\r\nConnection: close\r\n\r\nhello\n",
            );
        }
    });
    (port, count)
}

#[test]
fn the_policy_is_set_shown_checked_and_holds_curl() {
    let cli = Cli::new();
    let (port, count) = server();
    let url = format!("http://127.0.0.1:{port}/x");
    let sh = |script: &str| {
        let out = cli
            .command(&["sh", "-c", script])
            .env_remove("HOME")
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    // Nothing by default: refused before any connection, and said so.
    assert!(
        cli.ok(&["net", "show"])
            .starts_with("none: no host is reachable")
    );
    let (status, _, err) = sh(&format!("curl -sS {url}"));
    assert_eq!(status, Some(7), "{err}");
    assert!(err.contains("network policy allows nothing"), "{err}");
    assert_eq!(count.load(Ordering::SeqCst), 0);
    // A wildcard does not open loopback; a rule naming the address does.
    cli.ok(&["net", "allow", "all"]);
    let (status, _, err) = sh(&format!("curl -sS {url}"));
    assert_eq!(status, Some(7), "{err}");
    assert!(err.contains("127.0.0.0/8"), "{err}");
    cli.ok(&["net", "deny", "all"]);
    let shown = cli.ok(&[
        "net",
        "allow",
        &format!("http://127.0.0.1:{port}"),
        "--method",
        "GET",
    ]);
    assert_eq!(shown, format!("allow http://127.0.0.1:{port} GET\n"));
    let (status, out, err) = sh(&format!("curl -sS {url}"));
    assert_eq!((status, out.as_str()), (Some(0), "hello\n"), "{err}");
    let (status, _, err) = sh(&format!("curl -sS -d x=1 {url}"));
    assert_eq!(status, Some(7), "POST is not allowed: {err}");
    // check resolves and decides without sending.
    let before = count.load(Ordering::SeqCst);
    assert_eq!(
        cli.ok(&["net", "check", &url]),
        format!("allowed: 127.0.0.1:{port}\n")
    );
    let refused = cli.run(&["net", "check", "http://169.254.169.254/latest/meta-data/"]);
    assert_eq!(refused.status.code(), Some(1));
    assert_eq!(count.load(Ordering::SeqCst), before);
    // Bad rules are errors that say what is wrong, and change nothing.
    for bad in ["ftp://x", "docs.test", "https://x:0"] {
        let out = cli.run(&["net", "allow", bad]);
        assert!(!out.status.success(), "{bad}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("network policy"),
            "{bad}"
        );
    }
    // The audit log has the requests: allowed with status and size, refused with why.
    let log = cli.ok(&["log"]);
    assert!(log.contains("200, 6 bytes"), "{log}");
    assert!(log.contains("refused"), "{log}");
    // A fork keeps the policy.
    cli.ok(&["snapshot", "create", "s"]);
    cli.ok(&["snapshot", "fork", "s", "fork.db"]);
    let forked = cli.ok(&["--workspace", "fork.db", "net", "show"]);
    assert_eq!(forked, format!("allow http://127.0.0.1:{port} GET\n"));
}

/// A TLS server on 127.0.0.1 for the name `docs.test`, its certificate signed by a CA made
/// here (`ca`): `/echo` answers with the request's `Authorization` and `X-*` headers (and
/// appends them to `received`, the server's own record), any other path serves `site/`.
struct TlsServer {
    port: u16,
    ca: std::path::PathBuf,
    received: std::path::PathBuf,
    child: std::process::Child,
}

impl Drop for TlsServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn tls_server(cli: &Cli) -> TlsServer {
    let dir = cli.path("tls");
    std::fs::create_dir_all(dir.join("site")).unwrap();
    std::fs::write(dir.join("site/hello.txt"), "over tls\n").unwrap();
    let openssl = |args: &[&str]| {
        let out = std::process::Command::new("openssl")
            .args(args)
            .current_dir(&dir)
            .output()
            .expect("openssl runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    std::fs::write(
        dir.join("leaf.ext"),
        "basicConstraints=CA:FALSE\nsubjectAltName=DNS:docs.test\nextendedKeyUsage=serverAuth\n",
    )
    .unwrap();
    openssl(&[
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "1",
        "-subj",
        "/CN=test CA",
        "-keyout",
        "ca-key.pem",
        "-out",
        "ca.pem",
    ]);
    openssl(&[
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-subj",
        "/CN=docs.test",
        "-keyout",
        "key.pem",
        "-out",
        "leaf.csr",
    ]);
    openssl(&[
        "x509",
        "-req",
        "-in",
        "leaf.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca-key.pem",
        "-CAcreateserial",
        "-days",
        "1",
        "-extfile",
        "leaf.ext",
        "-out",
        "cert.pem",
    ]);
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let script = format!(
        "import http.server, ssl, functools\n\
         class Handler(http.server.SimpleHTTPRequestHandler):\n\
         \x20   def do_GET(self):\n\
         \x20       if self.path != '/echo':\n\
         \x20           return super().do_GET()\n\
         \x20       seen = ''.join(f'{{k}}: {{v}}\\n' for k, v in self.headers.items()\n\
         \x20                      if k.lower() == 'authorization' or k.lower().startswith('x-'))\n\
         \x20       with open('received', 'a') as f:\n\
         \x20           f.write(seen)\n\
         \x20       body = seen.encode()\n\
         \x20       self.send_response(200)\n\
         \x20       self.send_header('Content-Length', str(len(body)))\n\
         \x20       self.end_headers()\n\
         \x20       self.wfile.write(body)\n\
         handler = functools.partial(Handler, directory='site')\n\
         server = http.server.HTTPServer(('127.0.0.1', {port}), handler)\n\
         context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)\n\
         context.load_cert_chain('cert.pem', 'key.pem')\n\
         server.socket = context.wrap_socket(server.socket, server_side=True)\n\
         server.serve_forever()\n"
    );
    let child = std::process::Command::new("python3")
        .args(["-c", &script])
        .current_dir(&dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("python3 starts");
    for _ in 0..100 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    TlsServer {
        port,
        ca: dir.join("ca.pem"),
        received: dir.join("received"),
        child,
    }
}

/// The CLI's `sh -c SCRIPT` with the test name `docs.test` and the test CA, no `HOME`:
/// status, stdout, stderr.
fn tls_sh(cli: &Cli, server: &TlsServer, script: &str) -> (Option<i32>, String, String) {
    let out = cli
        .command(&["sh", "-c", script])
        .env_remove("HOME")
        .env("COMPUTER_NET_HOSTS", "docs.test=127.0.0.1")
        .env("COMPUTER_CA_FILE", &server.ca)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// What the network issue is done by: `computer net allow https://docs.test:PORT` (a TLS
/// server on loopback under a test name, through the host's test names and CA file) lets the
/// isolate's curl reach it, and nothing else.
#[test]
fn curl_reaches_an_allowed_tls_server_by_its_test_name() {
    let cli = Cli::new();
    let server = tls_server(&cli);
    let port = server.port;
    let sh = |script: &str| tls_sh(&cli, &server, script);
    let url = format!("https://docs.test:{port}/hello.txt");
    let (status, _, err) = sh(&format!("curl -sS {url}"));
    assert_eq!(status, Some(7), "refused before it is allowed: {err}");
    cli.ok(&["net", "allow", &format!("https://docs.test:{port}")]);
    let (status, out, err) = sh(&format!("curl -sS {url}"));
    assert_eq!((status, out.as_str()), (Some(0), "over tls\n"), "{err}");
    // The same server by its address, or over plain http, is not what the rule names.
    for other in [
        format!("https://127.0.0.1:{port}/hello.txt"),
        format!("http://docs.test:{port}/hello.txt"),
    ] {
        let (status, _, err) = sh(&format!("curl -sS {other}"));
        assert_eq!(status, Some(7), "{other}: {err}");
    }
    // -k is refused; without the CA file the certificate does not verify.
    let (status, _, err) = sh(&format!("curl -k {url}"));
    assert_eq!(status, Some(2), "{err}");
    let out = cli
        .command(&["sh", "-c", &format!("curl -sS {url}")])
        .env("COMPUTER_NET_HOSTS", "docs.test=127.0.0.1")
        .env_remove("COMPUTER_CA_FILE")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(60),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A test name must map to loopback.
    let out = cli
        .command(&["net", "check", &url])
        .env("COMPUTER_NET_HOSTS", "docs.test=10.0.0.1")
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("127.0.0.x only"));
}

/// `computer secret set API_KEY` for docs.test as a bearer token, the value on stdin.
fn set_api_key(cli: &Cli, value: &str) -> std::process::Output {
    cli.run_with_stdin(
        &[
            "secret",
            "set",
            "API_KEY",
            "--host",
            "docs.test",
            "--header",
            "Authorization",
            "--format",
            "Bearer {}",
        ],
        format!("{value}\n").as_bytes(),
    )
}

/// A secret is used without ever being readable by the guest: `computer secret set` takes
/// the value on stdin; the guest's `$API_KEY` is a placeholder; the host adds the value as
/// the bound header on https requests to docs.test; the value is in no output, audit row or
/// workspace file; the placeholder sent to another host is refused before any connection.
#[test]
fn a_secret_reaches_its_host_and_nothing_else_sees_it() {
    let cli = Cli::new();
    let tls = tls_server(&cli);
    let port = tls.port;
    let value = "key-0123456789abcdef";
    let sh = |script: &str| tls_sh(&cli, &tls, script);
    // Set from stdin; listed without its value; a bad one is refused with why.
    let out = set_api_key(&cli, value);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let listed = cli.ok(&["secret", "list"]);
    assert_eq!(
        listed,
        "API_KEY  docs.test  header Authorization: Bearer {}\n"
    );
    let short = cli.run_with_stdin(&["secret", "set", "X", "--host", "docs.test"], b"short\n");
    assert!(String::from_utf8_lossy(&short.stderr).contains("MIN_SECRET_BYTES"));
    let nohost = cli.run_with_stdin(&["secret", "set", "X"], format!("{value}\n").as_bytes());
    assert!(!nohost.status.success());
    let store = std::fs::read_to_string(cli.path(".computer/secrets.json")).unwrap();
    assert!(store.contains(value), "the store holds the value");
    cli.ok(&["net", "allow", &format!("https://docs.test:{port}")]);
    // The guest sees the placeholder only.
    let (status, out, _) = sh("echo \"$API_KEY\"; env | grep -c key-0123 || true");
    assert_eq!(
        (status, out.as_str()),
        (Some(0), "computer-secret:API_KEY\n0\n")
    );
    // A plain request to docs.test gets the header from the host; the server got the value,
    // the guest sees it redacted back to the placeholder.
    let echo = format!("https://docs.test:{port}/echo");
    let (status, out, err) = sh(&format!("curl -sS {echo}"));
    assert_eq!(status, Some(0), "{err}");
    // (The formatted value as a whole is redacted to the placeholder.)
    assert_eq!(out, "authorization: computer-secret:API_KEY\n");
    let received = std::fs::read_to_string(&tls.received).unwrap();
    assert_eq!(received, format!("authorization: Bearer {value}\n"));
    // The placeholder in a header of the guest's own is replaced too.
    let (status, _, err) = sh(&format!(
        "curl -sS -H \"X-Key: $API_KEY\" {echo} >/dev/null"
    ));
    assert_eq!(status, Some(0), "{err}");
    let received = std::fs::read_to_string(&tls.received).unwrap();
    assert!(
        received.contains(&format!("x-key: {value}\n")),
        "{received}"
    );
    // To another host (allowed by the policy) the placeholder is refused, nothing connects.
    let (plain_port, count) = server();
    cli.ok(&["net", "allow", &format!("http://127.0.0.1:{plain_port}")]);
    let (status, _, err) = sh(&format!(
        "curl -sS -H \"Authorization: Bearer $API_KEY\" http://127.0.0.1:{plain_port}/"
    ));
    assert_eq!(status, Some(7), "{err}");
    assert!(err.contains("secret API_KEY"), "{err}");
    assert_eq!(count.load(Ordering::SeqCst), 0);
    // ... and over plain http to its own host, nothing is added.
    let (status, out, _) = sh(&format!("curl -sS http://127.0.0.1:{plain_port}/"));
    assert_eq!((status, out.as_str()), (Some(0), "hello\n"));
    // Nowhere in the audit log or the workspace file; the log says which secret was used.
    let log = cli.ok(&["log"]);
    assert!(log.contains("with secret API_KEY"), "{log}");
    assert!(log.contains("refused"), "{log}");
    for text in [
        log.into_bytes(),
        std::fs::read(cli.path(".computer/workspace.db")).unwrap(),
    ] {
        assert!(
            !text.windows(value.len()).any(|w| w == value.as_bytes()),
            "the value leaked"
        );
    }
    // Removed, it is sent no more.
    cli.ok(&["secret", "rm", "API_KEY"]);
    assert!(
        cli.fails(&["secret", "rm", "API_KEY"])
            .contains("no secret API_KEY")
    );
    let (status, out, _) = sh(&format!("curl -sS {echo}; echo \"[$API_KEY]\""));
    assert_eq!((status, out.as_str()), (Some(0), "[]\n"));
}

/// The network issue's "done when" on the other backend: `computer net allow` lets the
/// container's curl reach the TLS server under its test name through the proxy on the
/// container's loopback (tunnelled: the server's own certificate, checked with the test CA
/// the guest is given), and nothing else; with a secret bound the proxy ends TLS with the
/// container's own CA, the host adds the header, and the guest holds only the placeholder;
/// python's urllib goes the same way.
#[test]
fn the_containers_curl_goes_through_the_proxy_under_the_same_policy_and_secrets() {
    if !crate::requirements::containers_here() {
        return;
    }
    let cli = Cli::new();
    let tls = tls_server(&cli);
    let port = tls.port;
    let ca = std::fs::read(&tls.ca).unwrap();
    assert!(
        cli.run_with_stdin(&["fs", "write", "test-ca.pem"], &ca)
            .status
            .success()
    );
    let exec = |script: &str| {
        let out = cli
            .command(&["exec", "--backend", "container", script])
            .env_remove("HOME")
            .env("COMPUTER_NET_HOSTS", "docs.test=127.0.0.1")
            .env("COMPUTER_CA_FILE", &tls.ca)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let hello = format!("https://docs.test:{port}/hello.txt");
    let (status, _, err) = exec(&format!("curl -sS --cacert test-ca.pem {hello}"));
    assert_eq!(status, Some(56), "refused before it is allowed: {err}");
    assert!(err.contains("403"), "{err}");
    cli.ok(&["net", "allow", &format!("https://docs.test:{port}")]);
    let (status, out, err) = exec(&format!("curl -sS --cacert test-ca.pem {hello}"));
    assert_eq!((status, out.as_str()), (Some(0), "over tls\n"), "{err}");
    // Its address is not what the rule names; nor is plain http.
    let (status, _, err) = exec(&format!(
        "curl -sS --cacert test-ca.pem https://127.0.0.1:{port}/hello.txt"
    ));
    assert_ne!(status, Some(0), "{err}");
    let (status, out, err) = exec(&format!(
        "curl -sS -o /dev/null -w '%{{http_code}}' http://docs.test:{port}/hello.txt"
    ));
    assert_eq!((status, out.as_str()), (Some(0), "403"), "{err}");
    // A secret bound to docs.test: the proxy ends TLS there with the container's own CA
    // (trusted inside through SSL_CERT_FILE and CURL_CA_BUNDLE) and adds the header.
    let value = "container-key-0123456789";
    let set = set_api_key(&cli, value);
    assert!(set.status.success());
    let echo = format!("https://docs.test:{port}/echo");
    let (status, out, err) = exec(&format!(
        "echo \"$API_KEY\"; curl -sS {echo}; env | grep -c container-key || true"
    ));
    assert_eq!(status, Some(0), "{err}");
    assert_eq!(
        out,
        "computer-secret:API_KEY\nauthorization: computer-secret:API_KEY\n0\n"
    );
    let received = std::fs::read_to_string(&tls.received).unwrap();
    assert_eq!(received, format!("authorization: Bearer {value}\n"));
    // Python's urllib takes the proxy and the CA from the environment too.
    let (status, out, err) = exec(&format!(
        "python3 -c \"import urllib.request; print(urllib.request.urlopen('{hello}').read().decode(), end='')\""
    ));
    assert_eq!((status, out.as_str()), (Some(0), "over tls\n"), "{err}");
    let log = cli.ok(&["log"]);
    assert!(log.contains("tunnelled"), "{log}");
    assert!(log.contains("intercepted"), "{log}");
    assert!(log.contains("with secret API_KEY"), "{log}");
    assert!(!log.contains(value), "{log}");
}

/// The isolate's Python reaches the network the same way as its curl: `urllib` and
/// `http.client` send each request through the runtime's door to the host, which holds it to
/// the workspace's policy, makes the TLS connection (the test CA through `COMPUTER_CA_FILE`)
/// and puts in the bound secret; refusals are the `OSError`s a socket would raise.
#[test]
fn pythons_urllib_goes_through_the_same_policy_and_secrets() {
    if !crate::python::python_here() {
        return;
    }
    let cli = Cli::new();
    let tls = tls_server(&cli);
    let port = tls.port;
    let py = |script: &str| {
        let mut cmd = cli.command(&["exec", "--backend", "isolate", "python3 -"]);
        cmd.env_remove("HOME")
            .env("COMPUTER_DATA_DIR", crate::python::data_dir())
            .env("COMPUTER_NET_HOSTS", "docs.test=127.0.0.1")
            .env("COMPUTER_CA_FILE", &tls.ca);
        let out = crate::finish(cmd, script.as_bytes());
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let fetch = |url: &str| {
        format!(
            "import urllib.request, urllib.error\n\
             try:\n\
             \x20   with urllib.request.urlopen({url:?}, timeout=20) as r:\n\
             \x20       print(r.status, r.read().decode(), end='')\n\
             except urllib.error.URLError as e:\n\
             \x20   print('URLError', type(e.reason).__name__, e.reason)\n"
        )
    };
    let url = format!("https://docs.test:{port}/hello.txt");
    // Refused before it is allowed: PermissionError, the policy named.
    let (status, out, err) = py(&fetch(&url));
    assert_eq!(status, Some(0), "{err}");
    assert!(out.starts_with("URLError PermissionError"), "{out}");
    assert!(out.contains("network policy allows nothing"), "{out}");
    cli.ok(&["net", "allow", &format!("https://docs.test:{port}")]);
    let (status, out, err) = py(&fetch(&url));
    assert_eq!((status, out.as_str()), (Some(0), "200 over tls\n"), "{err}");
    // http.client directly: a HEAD keeps the length it would have; a missing file is 404.
    let (status, out, err) = py(&format!(
        "import http.client\n\
         c = http.client.HTTPSConnection('docs.test', {port}, timeout=20)\n\
         c.request('HEAD', '/hello.txt')\n\
         r = c.getresponse(); r.read()\n\
         print(r.status, r.getheader('Content-Length'))\n\
         c.request('GET', '/nothing-here')\n\
         r = c.getresponse(); r.read()\n\
         print(r.status)\n"
    ));
    assert_eq!((status, out.as_str()), (Some(0), "200 9\n404\n"), "{err}");
    // Not what the rule names: plain http to the name, the address; and loopback under
    // `all` is still refused.
    for other in [
        format!("http://docs.test:{port}/hello.txt"),
        format!("https://127.0.0.1:{port}/hello.txt"),
    ] {
        let (_, out, err) = py(&fetch(&other));
        assert!(
            out.starts_with("URLError PermissionError"),
            "{other}: {out} {err}"
        );
    }
    let (plain_port, count) = server();
    cli.ok(&["net", "allow", "all"]);
    let (_, out, _) = py(&fetch(&format!("http://127.0.0.1:{plain_port}/")));
    assert!(out.contains("127.0.0.0/8"), "{out}");
    assert_eq!(count.load(Ordering::SeqCst), 0);
    // A plain http server allowed by its address, with a POST body and a header.
    cli.ok(&["net", "allow", &format!("http://127.0.0.1:{plain_port}")]);
    let (status, out, err) = py(&format!(
        "import urllib.request\n\
         req = urllib.request.Request('http://127.0.0.1:{plain_port}/', data=b'a=1', \
         headers={{'X-Test': 'yes'}})\n\
         print(urllib.request.urlopen(req).read().decode(), end='')\n"
    ));
    assert_eq!((status, out.as_str()), (Some(0), "hello\n"), "{err}");
    assert_eq!(count.load(Ordering::SeqCst), 1);
    // A secret: the host adds it on https to its host; the guest holds the placeholder and
    // reads the echo redacted; sent to another host, it is refused before any connection.
    let value = "key-0123456789abcdef";
    assert!(set_api_key(&cli, value).status.success());
    let (status, out, err) = py(&format!(
        "import os, urllib.request\n\
         print(os.environ['API_KEY'])\n\
         print(urllib.request.urlopen('https://docs.test:{port}/echo').read().decode(), end='')\n"
    ));
    assert_eq!(
        (status, out.as_str()),
        (
            Some(0),
            "computer-secret:API_KEY\nauthorization: computer-secret:API_KEY\n"
        ),
        "{err}"
    );
    let received = std::fs::read_to_string(&tls.received).unwrap();
    assert_eq!(received, format!("authorization: Bearer {value}\n"));
    let (_, out, err) = py(&format!(
        "import os, urllib.request, urllib.error\n\
         req = urllib.request.Request('http://127.0.0.1:{plain_port}/', \
         headers={{'Authorization': os.environ['API_KEY']}})\n\
         try:\n\
         \x20   urllib.request.urlopen(req)\n\
         except urllib.error.URLError as e:\n\
         \x20   print(e.reason)\n"
    ));
    assert!(out.contains("secret API_KEY"), "{out} {err}");
    assert_eq!(count.load(Ordering::SeqCst), 1);
    // A method rule, a path rule, a redirect to a host the policy does not name (followed by
    // urllib, checked again: no connection), a response past the host's size limit, and one
    // slower than the request's timeout, each named.
    let tricks = tricky_server(plain_port);
    cli.ok(&["net", "deny", "all"]);
    cli.ok(&[
        "net",
        "allow",
        &format!("http://127.0.0.1:{tricks}/ok"),
        "--method",
        "GET",
    ]);
    let base = format!("http://127.0.0.1:{tricks}");
    let probe = |path: &str, post: bool| {
        let data = if post { "b'x'" } else { "None" };
        py(&format!(
            "import urllib.request, urllib.error\n\
             req = urllib.request.Request('{base}{path}', data={data})\n\
             try:\n\
             \x20   print(urllib.request.urlopen(req, timeout=2).read().decode(), end='')\n\
             except urllib.error.URLError as e:\n\
             \x20   print(type(e.reason).__name__, e.reason)\n\
             except OSError as e:\n\
             \x20   print(type(e).__name__, e)\n"
        ))
    };
    let (status, out, err) = probe("/ok", false);
    assert_eq!((status, out.as_str()), (Some(0), "ok\n"), "{err}");
    let (_, out, _) = probe("/ok", true);
    assert!(
        out.starts_with("PermissionError"),
        "POST is not allowed: {out}"
    );
    let (_, out, _) = probe("/other", false);
    assert!(out.starts_with("PermissionError"), "another path: {out}");
    let (_, out, _) = probe("/ok/redirect", false);
    assert!(
        out.starts_with("PermissionError"),
        "the redirect's target: {out}"
    );
    assert_eq!(
        count.load(Ordering::SeqCst),
        1,
        "the redirect's target got no connection"
    );
    let (_, out, _) = probe("/ok/big", false);
    assert!(out.contains("larger than the limit"), "{out}");
    let (_, out, _) = probe("/ok/slow", false);
    assert!(out.starts_with("TimeoutError"), "{out}");
    assert!(out.contains("time limit of 2000 ms"), "{out}");
    let (_, out, err) = py(&format!(
        "import urllib.request, urllib.error\n\
         req = urllib.request.Request('{base}/ok', headers={{'X-Big': 'a' * (2 << 20)}})\n\
         try:\n\
         \x20   urllib.request.urlopen(req)\n\
         except urllib.error.URLError as e:\n\
         \x20   print(e.reason)\n"
    ));
    assert!(out.contains("MAX_FRAME_HEAD_BYTES"), "{out} {err}");
    // The runtime's tool protocol still finds no host.
    let (_, out, err) = py("try:\n\
         \x20   from host import tools\n\
         except Exception as e:\n\
         \x20   print(type(e).__name__)\n");
    assert!(!out.is_empty(), "{err}");
    let log = cli.ok(&["log"]);
    assert!(log.contains("with secret API_KEY"), "{log}");
    assert!(!log.contains(value), "{log}");
}

/// A server for the Python test: `/ok` answers `ok`, `/ok/redirect` sends the client to
/// `127.0.0.1:{to}`, `/ok/big` announces and sends more than the host's response limit,
/// `/ok/slow` answers after 5 s.
fn tricky_server(to: u16) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || {
                let first = read_head(&stream);
                let path = first.split(' ').nth(1).unwrap_or("").to_string();
                let mut stream = stream;
                let _ = match path.as_str() {
                    "/ok/redirect" => stream.write_all(
                        format!(
                            "HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:{to}/\r\n\
                             Content-Length: 0\r\n\r\n"
                        )
                        .as_bytes(),
                    ),
                    "/ok/big" => {
                        let size = computer::net::DEFAULT_MAX_RESPONSE_BYTES + (1 << 20);
                        let _ = stream.write_all(
                            format!("HTTP/1.1 200 OK\r\nContent-Length: {size}\r\n\r\n").as_bytes(),
                        );
                        let chunk = vec![0u8; 1 << 20];
                        (0..size >> 20).try_for_each(|_| stream.write_all(&chunk))
                    }
                    "/ok/slow" => {
                        std::thread::sleep(std::time::Duration::from_secs(5));
                        stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
                    }
                    _ => stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n"),
                };
            });
        }
    });
    port
}
