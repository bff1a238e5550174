//! A container's way out: the workspace's egress proxy on the container's own loopback,
//! reached by busybox's wget through `http_proxy`, in front of a server on the host's
//! 127.0.0.1 under a test name. (curl over https, with a secret, in the default image: the
//! CLI's tests.)

use std::io::{BufRead, BufReader, Write};
use std::sync::atomic::{AtomicUsize, Ordering};

use computer_net::{Egress, EgressSlot, Policy, StaticResolver, save_policy};

use super::*;

/// A plain server on the host's 127.0.0.1 answering `hello`; counts its connections.
fn hello_server() -> (u16, Arc<AtomicUsize>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let count = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&count);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            seen.fetch_add(1, Ordering::SeqCst);
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            while reader.read_line(&mut line).unwrap_or(0) > 0 && line != "\r\n" {
                line.clear();
            }
            let _ = stream.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Length: 6\r\nConnection: close\r\n\r\nhello\n",
            );
        }
    });
    (port, count)
}

#[test]
fn a_container_reaches_what_the_policy_allows_through_the_proxy_and_nothing_else() {
    let Some(engine) = engine() else { return };
    let (port, count) = hello_server();
    let (vfs, _dir) = workspace();
    save_policy(
        &vfs,
        &Policy::from_text(&format!("allow http://docs.test:{port}")).unwrap(),
    )
    .unwrap();
    let names = StaticResolver::new([
        ("docs.test", "127.0.0.1".parse().unwrap()),
        ("other.test", "127.0.0.1".parse().unwrap()),
    ]);
    let slot = EgressSlot::default();
    slot.set(Some(
        Egress::new(Arc::clone(&vfs), "container").with_resolver(Arc::new(names)),
    ));
    let sandbox = runtime()
        .block_on(Sandbox::start_with_egress(
            &engine,
            Arc::clone(&vfs),
            &config(BUSYBOX, Limits::default()),
            Some(slot.clone()),
        ))
        .unwrap();
    let out = sh(
        &sandbox,
        &format!("wget -q -O - http://docs.test:{port}/hello"),
    );
    assert_eq!(
        (out.status, text(&out.stdout).as_str()),
        (0, "hello\n"),
        "{out:?}"
    );
    // Another name for the same address: refused by the proxy, the server sees nothing.
    let out = sh(
        &sandbox,
        &format!("wget -q -O - http://other.test:{port}/hello"),
    );
    assert_ne!(out.status, 0, "{out:?}");
    assert!(text(&out.stderr).contains("403"), "{out:?}");
    // The host's loopback is not the container's: straight to 127.0.0.1 reaches nothing.
    let out = sh(
        &sandbox,
        &format!("wget -q -O - http://127.0.0.1:{port}/hello"),
    );
    assert_ne!(out.status, 0, "{out:?}");
    assert_eq!(count.load(Ordering::SeqCst), 1);
    // Commands are pointed at the proxy and its CA; the CA's folder is read-only.
    let out = sh(
        &sandbox,
        "echo $http_proxy $HTTPS_PROXY $SSL_CERT_FILE; head -1 /run/computer/ca.pem; \
         echo x > /run/computer/x 2>/dev/null || echo read-only",
    );
    assert_eq!(
        text(&out.stdout),
        "http://127.0.0.1:3128 http://127.0.0.1:3128 /run/computer/ca-bundle.pem\n\
         -----BEGIN CERTIFICATE-----\nread-only\n",
        "{out:?}"
    );
    // A command's own setting wins.
    let cmd = Command {
        source: Some("echo $http_proxy".into()),
        env: vec![("http_proxy".into(), "http://elsewhere:1".into())],
        ..Command::default()
    };
    let out = runtime()
        .block_on(sandbox.exec(&cmd, &|_, _| {}, &|| false))
        .unwrap();
    assert_eq!(text(&out.stdout), "http://elsewhere:1\n");
    // Without an egress in place every request is refused.
    slot.set(None);
    let out = sh(
        &sandbox,
        &format!("wget -q -O - http://docs.test:{port}/hello"),
    );
    assert_ne!(out.status, 0, "{out:?}");
    assert_eq!(count.load(Ordering::SeqCst), 1);
    let log = vfs.audit_log(0, 100).unwrap();
    assert!(
        log.iter()
            .any(|e| e.origin == "container" && e.summary.starts_with("200")),
        "{log:?}"
    );
    assert!(log.iter().any(|e| e.summary == "refused"), "{log:?}");
    runtime().block_on(sandbox.stop());
    // A container started without an egress has no proxy at all.
    let plain = runtime()
        .block_on(Sandbox::start(
            &engine,
            Arc::clone(&vfs),
            &config(BUSYBOX, Limits::default()),
        ))
        .unwrap();
    let out = sh(
        &plain,
        "echo \"[$http_proxy]\"; ls /run/computer 2>&1 | head -1",
    );
    assert!(text(&out.stdout).starts_with("[]\n"), "{out:?}");
    runtime().block_on(plain.stop());
}
