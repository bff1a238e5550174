//! What the host answers through the Python runtime's door: HTTP requests of `http.client`
//! (and so of `urllib`), sent like the shell's `curl` through the `computer:host/http`
//! implementation ([`crate::http`]): the workspace's policy, its secrets, the audit log, the
//! same limits. `python_net.py` is the guest's half; the prelude installs it
//! ([`prelude_code`]).
//!
//! A frame is a JSON line, a newline, then the body's raw bytes:
//! - request: `{"op": "http", "method", "url", "headers": [[name, value]...], "timeout_ms"}`;
//! - answer: `{"ok": true, "version", "status", "reason", "headers", "url"}` or
//!   `{"ok": false, "kind", "message"}` (kind as the `http` interface's error cases).
//!
//! A frame that is not ours (the runtime's tool protocol, `from host import tools`) is
//! answered `-1`, "no host", as before there was a door.

use base64::Engine as _;
use serde::Deserialize;

use crate::bindings::computer::host::http::{self, Host as _};
use crate::python::NO_HOST;
use crate::state::State;

/// The guest's half, compiled when `http.client` is first imported.
const PATCH: &str = include_str!("python_net.py");
/// What the prelude runs: a finder that patches `http.client` as it is imported.
const HOOK: &str = include_str!("python_net_hook.py");

/// The largest JSON line of a request frame: its headers and URL, not its body.
pub const MAX_FRAME_HEAD_BYTES: usize = 1 << 20;

/// The Python expression the prelude evaluates to install the hook (`None`), made once.
pub(crate) fn prelude_code() -> &'static str {
    static CODE: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    CODE.get_or_init(|| {
        let b64 = |s: &str| base64::engine::general_purpose::STANDARD.encode(s);
        format!(
            "exec(__import__('binascii').a2b_base64('{}'), {{'__name__': '_computer_net', \
             '_SOURCE': '{}'}})",
            b64(HOOK),
            b64(PATCH)
        )
    })
}

#[derive(Deserialize)]
struct Request {
    op: String,
    method: String,
    url: String,
    #[serde(default)]
    headers: Vec<(String, String)>,
    timeout_ms: Option<u64>,
}

/// The answer to one frame of the door: its bytes, or what `_host.call` is told.
pub(crate) fn answer(state: &mut State, frame: &[u8]) -> Result<Vec<u8>, i32> {
    let head_end = frame
        .iter()
        .take(MAX_FRAME_HEAD_BYTES)
        .position(|&b| b == b'\n');
    let Some(head_end) = head_end else {
        if frame.starts_with(br#"{"op": "http""#) || frame.starts_with(br#"{"op":"http""#) {
            return Ok(failure(
                "limit",
                &format!(
                    "network: a request's URL and headers are larger than \
                     {MAX_FRAME_HEAD_BYTES} bytes (MAX_FRAME_HEAD_BYTES)"
                ),
            ));
        }
        return Err(NO_HOST);
    };
    let Ok(req) = serde_json::from_slice::<Request>(&frame[..head_end]) else {
        return Err(NO_HOST);
    };
    if req.op != "http" {
        return Err(NO_HOST);
    }
    let request = http::Request {
        method: req.method,
        url: req.url,
        headers: req.headers,
        body: frame[head_end + 1..].to_vec(),
        // urllib follows redirects itself, each a request checked again.
        max_redirects: 0,
        timeout_ms: req.timeout_ms,
        max_bytes: None,
    };
    let sent = match state.send(request) {
        Ok(sent) => sent,
        Err(e) => return Ok(failure("failed", &format!("{e:#}"))),
    };
    Ok(match sent {
        Ok(response) => {
            let head = serde_json::json!({
                "ok": true,
                "version": response.head.version,
                "status": response.head.status,
                "reason": response.head.reason,
                "headers": response.head.headers,
                "url": response.url,
            });
            let mut out = head.to_string().into_bytes();
            out.push(b'\n');
            out.extend_from_slice(&response.body);
            out
        }
        Err(e) => {
            let (kind, message) = match e {
                http::Error::InvalidUrl(m) => ("invalid-url", m),
                http::Error::Refused(m) => ("refused", m),
                http::Error::Resolve(m) => ("resolve", m),
                http::Error::Connect(m) => ("connect", m),
                http::Error::Tls(m) => ("tls", m),
                http::Error::Timeout(m) => ("timeout", m),
                http::Error::TooLarge(m) => ("too-large", m),
                http::Error::TooManyRedirects(m) => ("too-many-redirects", m),
                http::Error::Limit(m) => ("limit", m),
                http::Error::Failed(m) => ("failed", m),
            };
            failure(kind, &message)
        }
    })
}

fn failure(kind: &str, message: &str) -> Vec<u8> {
    let mut out = serde_json::json!({"ok": false, "kind": kind, "message": message})
        .to_string()
        .into_bytes();
    out.push(b'\n');
    out
}
