//! The egress policy against hostile URLs, names that resolve to private ranges, and the
//! workspace file that stores it. No request leaves: these tests check decisions only (the
//! git tests connect through them to servers on 127.0.0.1).

use std::net::IpAddr;
use std::sync::Arc;

use computer_net::{
    Egress, NetError, Policy, Rule, StaticResolver, load_policy, redacted, save_policy,
};
use computer_vfs::Vfs;

fn ip(text: &str) -> IpAddr {
    text.parse().unwrap()
}

/// A workspace with `policy` and a resolver for the test names (the egress holds the
/// workspace weakly: keep the first half alive).
fn egress(policy: &str) -> (Arc<Vfs>, Egress) {
    let vfs = Arc::new(Vfs::in_memory().unwrap());
    save_policy(&vfs, &Policy::from_text(policy).unwrap()).unwrap();
    let names = StaticResolver::new([
        ("docs.test", ip("127.0.0.2")),
        ("api.docs.test", ip("127.0.0.3")),
        ("public.test", ip("93.184.215.14")),
        ("a.public.test", ip("93.184.215.15")),
        ("metadata.test", ip("169.254.169.254")),
        ("private.test", ip("10.1.2.3")),
        ("mixed.test", ip("93.184.215.14")),
        ("mixed.test", ip("192.168.1.1")),
        ("v6.test", ip("fd00::1")),
        ("mapped.test", ip("::ffff:127.0.0.1")),
    ]);
    let e = Egress::new(Arc::clone(&vfs), "test").with_resolver(Arc::new(names));
    (vfs, e)
}

fn refused(e: &Egress, method: &str, url: &str) -> String {
    match e.check(method, url) {
        Err(err @ NetError::Refused { .. }) => err.to_string(),
        other => panic!("{method} {url}: expected a refusal, got {other:?}"),
    }
}

#[test]
fn the_default_policy_refuses_everything_and_says_how_to_open() {
    let (_vfs, e) = egress("");
    let why = refused(&e, "GET", "https://public.test/");
    assert!(why.contains("allows nothing"), "{why}");
    assert!(why.contains("computer net allow"), "{why}");
}

#[test]
fn a_rule_opens_its_scheme_host_default_port_and_path() {
    let (_vfs, e) = egress("allow https://public.test/api");
    let ok = e.check("GET", "https://public.test/api/v1?x=1").unwrap();
    assert_eq!(ok.addrs, vec!["93.184.215.14:443".parse().unwrap()]);
    assert!(e.check("GET", "https://public.test/api").is_ok());
    refused(&e, "GET", "https://public.test/apix");
    refused(&e, "GET", "https://public.test/other");
    // `..` is resolved before matching, also percent-encoded.
    refused(&e, "GET", "https://public.test/api/../admin");
    refused(&e, "GET", "https://public.test/api/%2e%2e/admin");
    refused(&e, "GET", "http://public.test/api");
    refused(&e, "GET", "https://public.test:8443/api");
    refused(&e, "GET", "https://a.public.test/api");
}

#[test]
fn methods_ports_and_wildcards() {
    let (_vfs, e) =
        egress("allow https://*.public.test:* GET,HEAD\nallow http://public.test:8080/up/ POST");
    assert!(e.check("get", "https://a.public.test:9999/x").is_ok());
    refused(&e, "POST", "https://a.public.test/x");
    // A wildcard covers subdomains, not the name itself.
    refused(&e, "GET", "https://public.test/x");
    assert!(e.check("POST", "http://public.test:8080/up/load").is_ok());
    refused(&e, "POST", "http://public.test:8080/upload");
}

#[test]
fn deny_rules_narrow_all() {
    let (_vfs, e) = egress("all\ndeny https://a.public.test");
    assert!(e.check("GET", "https://public.test/").is_ok());
    let why = refused(&e, "GET", "https://a.public.test/x");
    assert!(why.contains("denies https://a.public.test"), "{why}");
}

#[test]
fn private_ranges_are_refused_under_all_and_wildcards() {
    let (_vfs, e) = egress("all\nallow https://*.docs.test");
    for (url, range) in [
        ("http://127.0.0.1/", "127.0.0.0/8"),
        ("http://2130706433/", "127.0.0.0/8"),
        ("http://0x7f.1/", "127.0.0.0/8"),
        ("http://[::1]/", "::1"),
        ("http://[::ffff:169.254.169.254]/", "169.254.0.0/16"),
        ("http://metadata.test/latest/meta-data/", "169.254.0.0/16"),
        ("http://169.254.169.254/", "169.254.0.0/16"),
        ("https://private.test/", "10.0.0.0/8"),
        ("https://mixed.test/", "192.168.0.0/16"),
        ("https://v6.test/", "fc00::/7"),
        ("https://mapped.test/", "127.0.0.0/8"),
        ("https://api.docs.test/", "127.0.0.0/8"),
        ("git://0.0.0.0/repo", "0.0.0.0/8"),
        ("http://localhost./", ""),
    ] {
        match e.check("GET", url) {
            Err(NetError::Refused { why, .. }) => assert!(why.contains(range), "{url}: {why}"),
            // `localhost` is not in the test table: it must not resolve through the system.
            Err(NetError::Resolve { host, .. }) => assert_eq!(host, "localhost", "{url}"),
            other => panic!("{url}: expected a refusal, got {other:?}"),
        }
    }
}

#[test]
fn a_rule_naming_a_loopback_host_opens_it() {
    let (_vfs, e) = egress("allow http://docs.test:8080\nallow git://127.0.0.1:*");
    let ok = e.check("GET", "http://docs.test:8080/repo.git").unwrap();
    assert_eq!(ok.host, "docs.test");
    assert_eq!(ok.addrs, vec!["127.0.0.2:8080".parse().unwrap()]);
    assert!(e.check("GET", "git://127.0.0.1:9418/r").is_ok());
    refused(&e, "GET", "http://docs.test:8081/");
    refused(&e, "GET", "git://127.0.0.2:9418/r");
}

#[test]
fn a_name_rule_does_not_open_the_metadata_service() {
    // The name's owner points it at the metadata service: a rule naming the name is not
    // enough; one naming the address is.
    let (_vfs, e) = egress("allow http://metadata.test\nallow http://private.test");
    let why = refused(&e, "GET", "http://metadata.test/latest/meta-data/");
    assert!(why.contains("cloud metadata"), "{why}");
    assert!(e.check("GET", "http://private.test/").is_ok());
    let (_vfs, e) = egress("allow http://169.254.169.254");
    assert!(e.check("GET", "http://169.254.169.254/latest").is_ok());
}

#[test]
fn hostile_urls_are_errors_not_requests() {
    let (_vfs, e) = egress("all");
    for url in [
        "file:///etc/passwd",
        "ssh://git@public.test/r",
        "gopher://public.test/",
        "http://",
        "not a url",
        "http://[::1/",
        "http://public.test:99999/",
    ] {
        assert!(
            matches!(e.check("GET", url), Err(NetError::BadUrl { .. })),
            "{url}"
        );
    }
    assert!(matches!(
        e.check("GET\r\nX: y", "https://public.test/"),
        Err(NetError::BadUrl { .. })
    ));
}

#[test]
fn every_decision_is_audited_without_credentials_or_query_values() {
    let (_vfs, e) = egress("allow https://public.test");
    let vfs = Arc::new(Vfs::in_memory().unwrap());
    let e2 = Egress::new(Arc::clone(&vfs), "git");
    let _ = e.check("GET", "https://public.test/");
    let _ = e2.check(
        "POST",
        "https://user:hunter2@public.test/x?token=hunter2&a=1#frag",
    );
    let log = vfs.audit_log(0, 10).unwrap();
    assert_eq!(log.len(), 1);
    let row = &log[0];
    assert_eq!((row.origin.as_str(), row.tool.as_str()), ("git", "net"));
    assert!(!row.args.contains("hunter2"), "{}", row.args);
    assert!(
        row.args.contains("token=") && row.args.contains("POST"),
        "{}",
        row.args
    );
    assert!(row.error.as_deref().unwrap().contains("allows nothing"));
    assert!(!row.error.as_deref().unwrap().contains("hunter2"));
    assert_eq!(redacted("not a url?secret=1"), "not a url…");
}

#[test]
fn rules_parse_print_and_refuse_nonsense() {
    for text in [
        "https://docs.test",
        "https://*.docs.test:*",
        "http://[::1]:8080/api",
        "git://127.0.0.1:9418",
        "https://docs.test/api/ GET,POST",
    ] {
        let (rule, methods) = text.split_once(' ').unwrap_or((text, ""));
        let parsed = Rule::parse(rule, &[methods.to_string()]).unwrap();
        assert_eq!(parsed.to_string(), text);
    }
    for bad in [
        "docs.test",
        "ftp://docs.test",
        "https://",
        "https://docs.test:0",
        "https://docs.test:x",
        "https://user@docs.test",
        "https://docs.test/?q",
        "https://*.",
        "https://do cs.test",
        "https://[::1",
    ] {
        assert!(Rule::parse(bad, &[]).is_err(), "{bad}");
    }
    assert!(Rule::parse("https://docs.test", &["GE T".into()]).is_err());
}

#[test]
fn an_egress_whose_workspace_was_dropped_refuses() {
    let (vfs, e) = egress("all");
    assert!(e.check("GET", "https://public.test/").is_ok());
    drop(vfs);
    assert!(matches!(
        e.check("GET", "https://public.test/"),
        Err(NetError::Store(_))
    ));
}

#[test]
fn the_policy_is_kept_in_the_workspace_and_forks_take_it() {
    let dir = tempfile::tempdir().unwrap();
    let vfs = Vfs::open(dir.path().join("w.db")).unwrap();
    assert!(load_policy(&vfs).unwrap().is_none());
    let mut policy = Policy::default();
    policy
        .allow(Rule::parse("https://docs.test", &[]).unwrap())
        .unwrap();
    policy
        .deny(Rule::parse("https://docs.test/private", &[]).unwrap())
        .unwrap();
    save_policy(&vfs, &policy).unwrap();
    vfs.snapshot("s").unwrap();
    let fork = vfs.fork("s", dir.path().join("fork.db")).unwrap();
    assert_eq!(load_policy(&fork).unwrap(), policy);
    drop(vfs);
    let reopened = Vfs::open(dir.path().join("w.db")).unwrap();
    assert_eq!(load_policy(&reopened).unwrap(), policy);
    // Denying an allowed rule removes it; the policy is empty again.
    policy
        .deny(Rule::parse("https://docs.test", &[]).unwrap())
        .unwrap();
    policy.deny.clear();
    save_policy(&reopened, &policy).unwrap();
    assert_eq!(reopened.setting("net.policy").unwrap(), None);
}

/// A small HTTP/1.1 server on 127.0.0.1 for the client's tests: one thread per connection,
/// `Connection: close`. Routes: `/hello`; `/echo` (the request's head and body back);
/// `/big` (1 MiB); `/slow` (answers after 5 s); `/redirect?to=URL` (302 to URL);
/// `/see-other` (303 to /echo). Counts the connections it accepted.
struct Server {
    port: u16,
    accepted: Arc<std::sync::atomic::AtomicUsize>,
}

fn server() -> Server {
    use std::io::{BufRead, BufReader, Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let accepted = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let count = Arc::clone(&accepted);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut head = String::new();
                let mut length = 0usize;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                        break;
                    }
                    if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                        length = v.trim().parse().unwrap_or(0);
                    }
                    head.push_str(&line);
                }
                let mut body = vec![0u8; length];
                let _ = reader.read_exact(&mut body);
                let path = head.split(' ').nth(1).unwrap_or("/").to_string();
                let mut stream = stream;
                let reply = |stream: &mut std::net::TcpStream,
                             status: &str,
                             extra: &str,
                             body: &[u8]| {
                    let _ = write!(
                        stream,
                        "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n{extra}\r\n",
                        body.len()
                    );
                    let _ = stream.write_all(body);
                };
                if path == "/hello" {
                    reply(
                        &mut stream,
                        "200 OK",
                        "Content-Type: text/plain\r\n",
                        b"hello",
                    );
                } else if path == "/echo" {
                    let mut out = head.into_bytes();
                    out.extend_from_slice(&body);
                    reply(&mut stream, "200 OK", "", &out);
                } else if path == "/big" {
                    reply(&mut stream, "200 OK", "", &vec![b'x'; 1 << 20]);
                } else if path == "/slow" {
                    std::thread::sleep(std::time::Duration::from_secs(5));
                    reply(&mut stream, "200 OK", "", b"late");
                } else if let Some(to) = path.strip_prefix("/redirect?to=") {
                    reply(
                        &mut stream,
                        "302 Found",
                        &format!("Location: {to}\r\n"),
                        b"",
                    );
                } else if path == "/see-other" {
                    reply(&mut stream, "303 See Other", "Location: /echo\r\n", b"");
                } else {
                    reply(&mut stream, "404 Not Found", "", b"no");
                }
            });
        }
    });
    Server { port, accepted }
}

fn request(method: &str, url: &str) -> computer_net::Request {
    computer_net::Request {
        method: method.into(),
        url: url.into(),
        max_redirects: 10,
        timeout: std::time::Duration::from_secs(30),
        max_bytes: computer_net::DEFAULT_MAX_RESPONSE_BYTES,
        ..Default::default()
    }
}

fn never() -> bool {
    false
}

#[test]
fn a_request_goes_to_the_checked_address_and_is_audited() {
    let s = server();
    // docs.test resolves only in the test table (to the server's address): the request
    // reaches the server only through the address the policy checked.
    let (vfs, e) = loopback_egress(&format!("allow http://docs.test:{}", s.port));
    let r = e
        .send(
            request("GET", &format!("http://docs.test:{}/hello", s.port)),
            &never,
        )
        .unwrap();
    assert_eq!((r.head.status, r.body.as_slice()), (200, &b"hello"[..]));
    assert_eq!(r.head.version, "HTTP/1.1");
    assert!(
        r.head
            .headers
            .iter()
            .any(|(k, v)| k == "content-type" && v == "text/plain")
    );
    let log = vfs.audit_log(0, 10).unwrap();
    assert_eq!(log.len(), 1);
    assert_eq!(log[0].summary, "200, 5 bytes");
    assert_eq!(log[0].origin, "isolate");
}

fn loopback_egress(policy: &str) -> (Arc<Vfs>, Egress) {
    let vfs = Arc::new(Vfs::in_memory().unwrap());
    save_policy(&vfs, &Policy::from_text(policy).unwrap()).unwrap();
    let names = StaticResolver::new([
        ("docs.test", ip("127.0.0.1")),
        ("other.test", ip("127.0.0.1")),
        ("sneaky.test", ip("127.0.0.1")),
    ]);
    let e = Egress::new(Arc::clone(&vfs), "isolate").with_resolver(Arc::new(names));
    (vfs, e)
}

#[test]
fn redirects_are_followed_only_where_the_policy_allows() {
    let s = server();
    let denied = server();
    let p = s.port;
    let (vfs, e) = loopback_egress(&format!(
        "allow http://docs.test:{p}\nallow http://other.test:{p}"
    ));
    // Within the policy: followed, and the head of the redirect kept.
    let r = e
        .send(
            request("GET", &format!("http://docs.test:{p}/redirect?to=/hello")),
            &never,
        )
        .unwrap();
    assert_eq!(r.body, b"hello");
    assert_eq!(r.redirects.len(), 1);
    assert_eq!(r.redirects[0].status, 302);
    assert_eq!(r.url, format!("http://docs.test:{p}/hello"));
    // Not followed when asked not to.
    let mut once = request("GET", &format!("http://docs.test:{p}/redirect?to=/hello"));
    once.max_redirects = 0;
    assert_eq!(e.send(once, &never).unwrap().head.status, 302);
    // To an address the policy does not name, to a name resolving to loopback without a
    // rule, to another scheme: refused, and nothing reaches the target.
    for to in [
        format!("http://127.0.0.1:{}/hello", denied.port),
        format!("http://sneaky.test:{}/hello", denied.port),
        format!("http://[::ffff:127.0.0.1]:{}/hello", denied.port),
        "file:///etc/passwd".to_string(),
    ] {
        let err = e
            .send(
                request("GET", &format!("http://docs.test:{p}/redirect?to={to}")),
                &never,
            )
            .unwrap_err();
        assert!(
            matches!(
                err,
                computer_net::SendError::Refused(_) | computer_net::SendError::Invalid(_)
            ),
            "{to}: {err:?}"
        );
    }
    assert_eq!(denied.accepted.load(std::sync::atomic::Ordering::SeqCst), 0);
    // Credentials do not follow a redirect to another host; a 303 turns a POST into a GET.
    let mut auth = request(
        "GET",
        &format!("http://docs.test:{p}/redirect?to=http://other.test:{p}/echo"),
    );
    auth.headers = vec![
        ("Authorization".into(), "Bearer hunter2".into()),
        ("X-Kept".into(), "1".into()),
    ];
    let echoed = String::from_utf8(e.send(auth, &never).unwrap().body).unwrap();
    assert!(
        !echoed.to_ascii_lowercase().contains("authorization"),
        "{echoed}"
    );
    assert!(
        echoed.to_ascii_lowercase().contains("x-kept: 1"),
        "{echoed}"
    );
    let mut post = request("POST", &format!("http://docs.test:{p}/see-other"));
    post.body = b"payload".to_vec();
    let echoed = String::from_utf8(e.send(post, &never).unwrap().body).unwrap();
    assert!(echoed.starts_with("GET /echo "), "{echoed}");
    assert!(!echoed.contains("payload"), "{echoed}");
    // A redirect loop ends at the limit, named.
    let mut looping = request(
        "GET",
        &format!("http://docs.test:{p}/redirect?to=/redirect?to=/hello"),
    );
    looping.max_redirects = 1;
    let err = e.send(looping, &never).unwrap_err();
    assert!(
        matches!(err, computer_net::SendError::TooManyRedirects(ref m) if m.contains("max-redirects")),
        "{err:?}"
    );
    // Every hop is a row: allowed ones with their status, refused ones with why.
    let log = vfs.audit_log(0, 100).unwrap();
    assert!(log.iter().any(|r| r.summary == "302, 0 bytes"));
    assert!(
        log.iter()
            .any(|r| r.error.as_deref().is_some_and(|e| e.contains("refused")))
    );
}

#[test]
fn limits_on_size_time_and_what_a_guest_may_send() {
    let s = server();
    let p = s.port;
    let (_vfs, e) = loopback_egress(&format!("allow http://docs.test:{p}"));
    let mut big = request("GET", &format!("http://docs.test:{p}/big"));
    big.max_bytes = 1000;
    let err = e.send(big, &never).unwrap_err();
    assert!(
        matches!(err, computer_net::SendError::TooLarge(ref m) if m.contains("1000 bytes")),
        "{err:?}"
    );
    let mut slow = request("GET", &format!("http://docs.test:{p}/slow"));
    slow.timeout = std::time::Duration::from_millis(300);
    let err = e.send(slow, &never).unwrap_err();
    assert!(
        matches!(err, computer_net::SendError::Timeout(ref m) if m.contains("300 ms")),
        "{err:?}"
    );
    let before = s.accepted.load(std::sync::atomic::Ordering::SeqCst);
    for (name, value) in [
        ("X-A", "1\r\nX-Injected: 1"),
        ("Bad Name", "1"),
        ("X-B", "a\nb"),
    ] {
        let mut r = request("GET", &format!("http://docs.test:{p}/echo"));
        r.headers = vec![(name.into(), value.into())];
        assert!(
            matches!(e.send(r, &never), Err(computer_net::SendError::Invalid(_))),
            "{name}"
        );
    }
    assert!(matches!(
        e.send(
            request("GE T", &format!("http://docs.test:{p}/echo")),
            &never
        ),
        Err(computer_net::SendError::Invalid(_))
    ));
    assert_eq!(
        s.accepted.load(std::sync::atomic::Ordering::SeqCst),
        before,
        "a bad request was sent"
    );
    // A stopped command stops its download.
    let err = e
        .send(
            request("GET", &format!("http://docs.test:{p}/big")),
            &|| true,
        )
        .unwrap_err();
    assert!(
        matches!(err, computer_net::SendError::Timeout(ref m) if m.contains("stopped")),
        "{err:?}"
    );
}

#[test]
fn an_unreadable_ca_file_fails_https_requests_and_names_itself() {
    let s = server();
    let p = s.port;
    let (_vfs, e) = loopback_egress(&format!(
        "allow http://docs.test:{p}\nallow https://docs.test:{p}"
    ));
    let e = e.with_ca_file("/nonexistent/ca.pem");
    // Plain http does not read it.
    let plain = e.send(
        request("GET", &format!("http://docs.test:{p}/hello")),
        &never,
    );
    assert_eq!(plain.unwrap().body, b"hello");
    let before = s.accepted.load(std::sync::atomic::Ordering::SeqCst);
    let err = e
        .send(
            request("GET", &format!("https://docs.test:{p}/hello")),
            &never,
        )
        .unwrap_err();
    assert!(
        matches!(err, computer_net::SendError::Failed(ref m) if m.contains("COMPUTER_CA_FILE") && m.contains("/nonexistent/ca.pem")),
        "{err:?}"
    );
    assert_eq!(s.accepted.load(std::sync::atomic::Ordering::SeqCst), before);
}
