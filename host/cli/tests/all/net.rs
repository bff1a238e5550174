//! `computer net` and the isolate's `curl` as a user runs them: a workspace file, a server
//! on 127.0.0.1 started here, no `HOME`.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::Cli;

/// A server that answers every request with `hello` and counts the connections.
fn server() -> (u16, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let count = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&count);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            seen.fetch_add(1, Ordering::SeqCst);
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
            }
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
