//! The egress policy against hostile URLs, names that resolve to private ranges, and the
//! workspace file that stores it. No request leaves: these tests check decisions only (the
//! git tests connect through them to servers on 127.0.0.1).

use std::net::IpAddr;
use std::sync::Arc;

use computer_net::{
    Egress, NetError, Policy, Rule, Secret, SecretStore, Secrets, StaticResolver, load_policy,
    redacted, save_policy,
};
use computer_vfs::Vfs;

#[path = "all/proxy.rs"]
mod proxy;

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
    // The text form holds the same limit as adding rules one by one.
    let many: String = (0..=computer_net::MAX_RULES)
        .map(|i| format!("allow https://h{i}.test\n"))
        .collect();
    let err = Policy::from_text(&many).unwrap_err().to_string();
    assert!(err.contains("MAX_RULES"), "{err}");
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

fn secret(
    name: &str,
    value: &str,
    hosts: &[&str],
    header: Option<&str>,
    format: Option<&str>,
) -> Secret {
    let hosts: Vec<String> = hosts.iter().map(|h| h.to_string()).collect();
    Secret::new(name, value, &hosts, header, format).unwrap()
}

fn headers(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn a_placeholder_becomes_its_value_only_over_https_to_a_bound_host() {
    let secrets = Secrets::new(vec![
        secret("GH", "gh-value-123", &["api.github.test"], None, None),
        secret("GH_TOKEN", "gh-token-456", &["*.github.test"], None, None),
    ])
    .unwrap();
    // In any header, anywhere in its value; a longer name is not taken for a shorter one.
    let mut h = headers(&[
        ("Authorization", "Bearer computer-secret:GH"),
        ("X-Both", "computer-secret:GH_TOKEN/computer-secret:GH"),
        ("X-Unknown", "computer-secret:NOPE"),
    ]);
    let used = secrets
        .apply("https://api.github.test/user", &mut h)
        .unwrap();
    assert_eq!(used, ["GH", "GH_TOKEN"]);
    assert_eq!(
        h,
        headers(&[
            ("Authorization", "Bearer gh-value-123"),
            ("X-Both", "gh-token-456/gh-value-123"),
            ("X-Unknown", "computer-secret:NOPE"),
        ])
    );
    // Another host, plain http, a look-alike name, the bare parent of a wildcard: refused,
    // and the reason names the secret, never its value.
    for url in [
        "https://evil.test/",
        "http://api.github.test/",
        "https://api.github.test.evil.test/",
        "https://github.test/",
    ] {
        let mut h = headers(&[("X-Token", "computer-secret:GH_TOKEN")]);
        let why = secrets.apply(url, &mut h).unwrap_err();
        assert!(why.contains("secret GH_TOKEN"), "{url}: {why}");
        assert!(!why.contains("gh-token-456"), "{why}");
        assert_eq!(h[0].1, "computer-secret:GH_TOKEN", "{url}: replaced");
    }
    // In the URL (a query parameter) to another host: refused too.
    let why = secrets
        .apply("https://evil.test/?t=computer-secret:GH", &mut Vec::new())
        .unwrap_err();
    assert!(why.contains("the URL"), "{why}");
    // With no placeholder, a request to any host goes as it is.
    let mut plain = headers(&[("Accept", "*/*")]);
    assert!(
        secrets
            .apply("https://evil.test/", &mut plain)
            .unwrap()
            .is_empty()
    );
    assert_eq!(plain, headers(&[("Accept", "*/*")]));
}

#[test]
fn a_secret_bound_to_a_header_is_added_in_its_format() {
    let secrets = Secrets::new(vec![secret(
        "API_KEY",
        "key-0123456789",
        &["docs.test"],
        Some("Authorization"),
        Some("Bearer {}"),
    )])
    .unwrap();
    let mut none = Vec::new();
    assert_eq!(
        secrets
            .apply("https://docs.test:8443/x", &mut none)
            .unwrap(),
        ["API_KEY"]
    );
    assert_eq!(none, headers(&[("Authorization", "Bearer key-0123456789")]));
    // The placeholder alone in that header gets the format; a guest's own header is kept.
    let mut own = headers(&[("authorization", "computer-secret:API_KEY")]);
    secrets.apply("https://docs.test/", &mut own).unwrap();
    assert_eq!(own, headers(&[("authorization", "Bearer key-0123456789")]));
    let mut theirs = headers(&[("Authorization", "Basic abc")]);
    assert!(
        secrets
            .apply("https://docs.test/", &mut theirs)
            .unwrap()
            .is_empty()
    );
    assert_eq!(theirs, headers(&[("Authorization", "Basic abc")]));
    // Not added elsewhere, nor over http.
    for url in ["https://other.test/", "http://docs.test/"] {
        let mut h = Vec::new();
        secrets.apply(url, &mut h).unwrap();
        assert!(h.is_empty(), "{url}: {h:?}");
    }
    // {base64}, and git's headers: a bound header as it is, else basic auth.
    let b64 = Secrets::new(vec![
        secret(
            "B",
            "user:password",
            &["docs.test"],
            Some("Authorization"),
            Some("Basic {base64}"),
        ),
        secret("T", "token-abcdefgh", &["git.test"], None, None),
    ])
    .unwrap();
    let mut h = Vec::new();
    b64.apply("https://docs.test/", &mut h).unwrap();
    assert_eq!(
        h,
        headers(&[("Authorization", "Basic dXNlcjpwYXNzd29yZA==")])
    );
    assert_eq!(
        b64.git_headers("https://docs.test/r.git"),
        ["Authorization: Basic dXNlcjpwYXNzd29yZA=="]
    );
    assert_eq!(
        b64.git_headers("https://GIT.test:8443/r.git"),
        ["Authorization: Basic eC1hY2Nlc3MtdG9rZW46dG9rZW4tYWJjZGVmZ2g="]
    );
    // Clear text, other hosts, look-alikes and other schemes: never.
    for url in [
        "http://git.test/r.git",
        "https://other.test/r.git",
        "https://git.test.evil.test/r.git",
        "https://evil.test/git.test/r.git",
        "https://git.test@evil.test/r.git",
        "git://git.test/r.git",
        "ssh://git.test/r.git",
        "git.test:r.git",
    ] {
        assert!(b64.git_headers(url).is_empty(), "{url}");
    }
}

#[test]
fn values_are_redacted_in_every_form_they_are_sent() {
    let secrets = Secrets::new(vec![
        secret("A", "alpha-secret-1", &["docs.test"], None, None),
        secret(
            "B",
            "user:password",
            &["docs.test"],
            Some("X-Auth"),
            Some("Basic {base64}"),
        ),
    ])
    .unwrap();
    assert_eq!(
        secrets.redact("got alpha-secret-1 and dXNlcjpwYXNzd29yZA== and user:password"),
        "got computer-secret:A and computer-secret:B and computer-secret:B"
    );
    assert!(secrets.reveals(b"..alpha-secret-1.."));
    assert!(!secrets.reveals(b"alpha-secret"));
    let plain: &[u8] = b"nothing here";
    assert!(matches!(
        secrets.redact_bytes(plain),
        std::borrow::Cow::Borrowed(_)
    ));
    assert_eq!(
        secrets.env(),
        [
            ("A".to_string(), "computer-secret:A".to_string()),
            ("B".to_string(), "computer-secret:B".to_string()),
        ]
    );
    // Debug output shows no value.
    let shown = format!("{secrets:?}");
    assert!(
        !shown.contains("alpha-secret-1") && shown.contains("\"A\""),
        "{shown}"
    );
}

#[test]
fn bad_secrets_are_refused_with_the_rule_they_break() {
    let hosts = ["docs.test".to_string()];
    for (name, value, hosts, header, format, expect) in [
        (
            "1ABC",
            "long-enough",
            &hosts[..],
            None,
            None,
            "not a secret name",
        ),
        (
            "A-B",
            "long-enough",
            &hosts[..],
            None,
            None,
            "not a secret name",
        ),
        ("A", "short", &hosts[..], None, None, "MIN_SECRET_BYTES"),
        (
            "A",
            "long-enough\r\nX-Evil: 1",
            &hosts[..],
            None,
            None,
            "control character",
        ),
        ("A", "long-enough", &[][..], None, None, "bound to no host"),
        (
            "A",
            "long-enough",
            &["docs.test:443".to_string()][..],
            None,
            None,
            "not a host",
        ),
        (
            "A",
            "long-enough",
            &["https://docs.test".to_string()][..],
            None,
            None,
            "not a host",
        ),
        (
            "A",
            "long-enough",
            &["docs.test/x".to_string()][..],
            None,
            None,
            "not a host",
        ),
        (
            "A",
            "long-enough",
            &hosts[..],
            Some("Bad Header"),
            None,
            "not a header name",
        ),
        (
            "A",
            "long-enough",
            &hosts[..],
            Some("X"),
            Some("no value"),
            "neither",
        ),
        (
            "A",
            "computer-secret:B",
            &hosts[..],
            None,
            None,
            "computer-secret:",
        ),
    ] {
        let err = Secret::new(name, value, hosts, header, format)
            .unwrap_err()
            .to_string();
        assert!(err.contains(expect), "{name} {value:?}: {err}");
        assert!(
            !err.contains("long-enough"),
            "the value is in the error: {err}"
        );
    }
    let big = "x".repeat(computer_net::MAX_SECRET_BYTES + 1);
    let err = Secret::new("A", &big, &hosts, None, None)
        .unwrap_err()
        .to_string();
    assert!(err.contains("MAX_SECRET_BYTES"), "{err}");
    let twice = Secrets::new(vec![
        secret("A", "value-one-1", &["docs.test"], None, None),
        secret("A", "value-two-2", &["docs.test"], None, None),
    ]);
    assert!(
        twice
            .unwrap_err()
            .to_string()
            .contains("two secrets are named A")
    );
}

#[test]
fn the_store_is_private_and_survives_a_reopen() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let store = SecretStore::new(tmp.path().join("new/secrets.json"));
    assert!(store.load().unwrap().is_empty());
    let set = Secrets::default()
        .with(secret(
            "A",
            "alpha-secret-1",
            &["docs.test", "*.api.test"],
            Some("X-Key"),
            None,
        ))
        .unwrap();
    store.save(&set).unwrap();
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(store.path()), 0o600);
    assert_eq!(mode(&tmp.path().join("new")), 0o700);
    let back = store.load().unwrap();
    assert_eq!(back.list().len(), 1);
    assert_eq!(back.list()[0].hosts(), ["docs.test", "*.api.test"]);
    assert_eq!(back.list()[0].header(), Some("X-Key"));
    let mut h = Vec::new();
    back.apply("https://x.api.test/", &mut h).unwrap();
    assert_eq!(h, headers(&[("X-Key", "alpha-secret-1")]));
    // Replaced by name, removed by name.
    let set = back
        .with(secret("A", "alpha-secret-2", &["docs.test"], None, None))
        .unwrap();
    assert_eq!(set.list().len(), 1);
    assert!(set.without("B").is_none());
    store.save(&set.without("A").unwrap()).unwrap();
    assert!(store.load().unwrap().is_empty());
    // A file that does not parse, or holds a bad secret, is an error naming the file.
    std::fs::write(
        store.path(),
        "{\"secrets\": [{\"name\": \"A\", \"value\": \"x\", \"hosts\": []}]}",
    )
    .unwrap();
    let err = store.load().unwrap_err().to_string();
    assert!(
        err.contains("secrets.json") && err.contains("MIN_SECRET_BYTES"),
        "{err}"
    );
    std::fs::write(store.path(), "not json").unwrap();
    assert!(
        store
            .load()
            .unwrap_err()
            .to_string()
            .contains("does not parse")
    );
}

#[test]
fn a_placeholder_to_an_unbound_host_is_refused_before_any_connection() {
    let s = server();
    let (vfs, e) = loopback_egress(&format!("allow http://docs.test:{}", s.port));
    let e = e.with_secrets(
        Secrets::new(vec![secret(
            "TOKEN",
            "tok-0123456789",
            &["docs.test"],
            Some("Authorization"),
            Some("Bearer {}"),
        )])
        .unwrap(),
    );
    // Bound to docs.test, but this is plain http: neither replaced nor added, and the
    // placeholder is refused.
    let mut req = request("GET", &format!("http://docs.test:{}/echo", s.port));
    req.headers = headers(&[("X-Token", "computer-secret:TOKEN")]);
    let err = e.send(req, &never).unwrap_err();
    assert!(
        matches!(err, computer_net::SendError::Refused(_)),
        "{err:?}"
    );
    assert!(err.to_string().contains("secret TOKEN"), "{err}");
    assert_eq!(s.accepted.load(std::sync::atomic::Ordering::SeqCst), 0);
    // Without the placeholder it goes, and nothing is added over http.
    let r = e
        .send(
            request("GET", &format!("http://docs.test:{}/echo", s.port)),
            &never,
        )
        .unwrap();
    let echoed = String::from_utf8_lossy(&r.body).to_ascii_lowercase();
    assert!(!echoed.contains("authorization"), "{echoed}");
    let log = vfs.audit_log(0, 10).unwrap();
    assert_eq!(log.len(), 2);
    assert_eq!(log[0].summary, "refused");
    assert!(log[0].error.as_deref().unwrap().contains("secret TOKEN"));
    for row in &log {
        let text = format!("{row:?}");
        assert!(!text.contains("tok-0123456789"), "{text}");
    }
}
