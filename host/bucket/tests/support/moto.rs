//! A real S3-compatible server for tests: `moto_server` (PyPI `moto[server]`, installed by
//! `.ci/run`) on a free loopback port. Shared by this crate's tests and the CLI's (which
//! include this file by path).

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

/// A running moto server.
pub struct Moto {
    _child: Child,
    /// `http://127.0.0.1:PORT`.
    pub endpoint: String,
}

impl Moto {
    /// Creates bucket `name` on the server (with any credentials: moto's default mode
    /// checks none).
    pub fn create_bucket(&self, name: &str) {
        let r = reqwest::blocking::Client::new()
            .put(format!("{}/{name}", self.endpoint))
            .send()
            .unwrap();
        assert!(
            r.status().is_success(),
            "create bucket {name}: {}",
            r.status()
        );
    }
}

/// Whether moto can run here; in CI (`CI` set) it must.
fn installed() -> bool {
    let found = Command::new("moto_server")
        .arg("--help")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !found {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI needs moto_server (python3 -m pip install 'moto[server]')"
        );
        println!("skipped: moto_server is not installed (python3 -m pip install 'moto[server]')");
    }
    found
}

/// Starts a moto server with `env` (for example its IAM mode), or `None` when moto is not
/// installed outside CI.
pub fn start(env: &[(&str, &str)]) -> Option<Moto> {
    if !installed() {
        return None;
    }
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    // A server in a static is never dropped, so it is stopped by a watchdog shell instead: it
    // kills moto when its stdin (a pipe from this process) closes as the tests exit.
    #[allow(clippy::zombie_processes)]
    let child = Command::new("sh")
        .args([
            "-c",
            "moto_server -H 127.0.0.1 -p \"$0\" >/dev/null 2>&1 & m=$!; read _; kill $m",
            &port.to_string(),
        ])
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    let endpoint = format!("http://127.0.0.1:{port}");
    for _ in 0..100 {
        if reqwest::blocking::get(format!("{endpoint}/moto-api/")).is_ok() {
            return Some(Moto {
                _child: child,
                endpoint,
            });
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!("moto_server did not start on {endpoint}");
}

/// The moto server shared by a test binary's tests (each uses its own buckets).
pub fn shared() -> Option<&'static Moto> {
    static MOTO: OnceLock<Option<Moto>> = OnceLock::new();
    MOTO.get_or_init(|| start(&[])).as_ref()
}
