//! Requests the host sends for a guest: each hop checked by the policy, connected to the
//! checked addresses only, redirects followed by hand (each one checked again), the body
//! read under a size limit, and a row in the audit log for every hop.

use std::io::{self, Read};
use std::time::{Duration, Instant};

use crate::egress::{Allowed, Egress, PinnedResolver, redacted};
use crate::error::NetError;
use rustls::ClientConfig;

/// The largest response body the host reads for a guest unless the embedder says otherwise.
pub const DEFAULT_MAX_RESPONSE_BYTES: u64 = 128 << 20;
/// The longest one request may take unless the guest or the embedder says less.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(300);
/// The most headers a guest may send, and the longest request body.
pub const MAX_REQUEST_HEADERS: usize = 200;
/// The largest request body a guest may send.
pub const MAX_REQUEST_BYTES: usize = 64 << 20;

/// One request.
#[derive(Debug, Clone, Default)]
pub struct Request {
    /// The method, upper case.
    pub method: String,
    /// An http or https URL.
    pub url: String,
    /// Headers in order.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
    /// Redirects to follow; 0 returns the redirect itself.
    pub max_redirects: u32,
    /// The time limit of the whole exchange.
    pub timeout: Duration,
    /// The largest body to read.
    pub max_bytes: u64,
}

/// A status line and headers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Head {
    /// `HTTP/1.1`, `HTTP/2`, ...
    pub version: String,
    /// The status code.
    pub status: u16,
    /// The standard reason phrase of the status.
    pub reason: String,
    /// Headers as received (names in lower case).
    pub headers: Vec<(String, String)>,
}

/// The final response.
#[derive(Debug, Clone)]
pub struct Response {
    /// The heads of the redirects followed, oldest first.
    pub redirects: Vec<Head>,
    /// The final head.
    pub head: Head,
    /// The body, whole.
    pub body: Vec<u8>,
    /// The URL it came from.
    pub url: String,
}

/// Why a request got no response.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SendError {
    /// A URL, method or header the host cannot send.
    #[error("{0}")]
    Invalid(String),
    /// Refused by the policy.
    #[error("{0}")]
    Refused(String),
    /// The name did not resolve.
    #[error("{0}")]
    Resolve(String),
    /// No connection.
    #[error("{0}")]
    Connect(String),
    /// TLS failed.
    #[error("{0}")]
    Tls(String),
    /// The time limit passed (or the guest's command was stopped).
    #[error("{0}")]
    Timeout(String),
    /// The body passed the size limit.
    #[error("{0}")]
    TooLarge(String),
    /// More redirects than allowed.
    #[error("{0}")]
    TooManyRedirects(String),
    /// Anything else.
    #[error("{0}")]
    Failed(String),
}

impl SendError {
    /// The same error with its message passed through `f`.
    pub fn map_text(self, f: impl FnOnce(String) -> String) -> SendError {
        match self {
            SendError::Invalid(t) => SendError::Invalid(f(t)),
            SendError::Refused(t) => SendError::Refused(f(t)),
            SendError::Resolve(t) => SendError::Resolve(f(t)),
            SendError::Connect(t) => SendError::Connect(f(t)),
            SendError::Tls(t) => SendError::Tls(f(t)),
            SendError::Timeout(t) => SendError::Timeout(f(t)),
            SendError::TooLarge(t) => SendError::TooLarge(f(t)),
            SendError::TooManyRedirects(t) => SendError::TooManyRedirects(f(t)),
            SendError::Failed(t) => SendError::Failed(f(t)),
        }
    }
}

impl From<NetError> for SendError {
    fn from(e: NetError) -> SendError {
        match e {
            NetError::Refused { .. } => SendError::Refused(e.to_string()),
            NetError::Resolve { .. } => SendError::Resolve(e.to_string()),
            NetError::BadUrl { .. } | NetError::BadRule(_) => SendError::Invalid(e.to_string()),
            NetError::Store(_) | NetError::Secrets(_) | NetError::Proxy(_) => {
                SendError::Failed(e.to_string())
            }
        }
    }
}

impl Egress {
    /// Sends `req` through the policy and reads the whole response; `stop` is polled while the
    /// body arrives (the guest's command was cancelled or ran out of time).
    pub fn send(
        &self,
        req: Request,
        stop: &(dyn Fn() -> bool + Sync),
    ) -> Result<Response, SendError> {
        check_request(&req)?;
        let started = Instant::now();
        let mut method = req.method.clone();
        let mut url = req.url.clone();
        let mut body = req.body.clone();
        let mut headers = req.headers.clone();
        let mut redirects = Vec::new();
        loop {
            http_only(&url)?;
            let hop_started = Instant::now();
            let Admitted {
                headers: sent,
                allowed,
                used,
            } = self.admit(&method, &url, &headers)?;
            let left = req.timeout.saturating_sub(started.elapsed());
            let shown = redacted(&url);
            let result = self
                .exchange(
                    &method,
                    &url,
                    &sent,
                    body_of(&body),
                    allowed,
                    left,
                    req.timeout,
                )
                .and_then(|(head, response)| {
                    let hop_body = read_whole(response, &shown, req.max_bytes, stop)?;
                    Ok((head, hop_body))
                });
            let (head, hop_body) =
                result.map_err(|e| self.failed(&method, &url, hop_started, e))?;
            let location = location(&head);
            self.audit(
                &method,
                &url,
                hop_started,
                format!("{}, {} bytes{}", head.status, hop_body.len(), with(&used)),
                None,
            );
            let next = location.filter(|_| is_redirect(head.status));
            let Some(next) = next.filter(|_| req.max_redirects > 0) else {
                return Ok(Response {
                    redirects,
                    head,
                    body: hop_body,
                    url,
                });
            };
            if redirects.len() as u32 >= req.max_redirects {
                return Err(SendError::TooManyRedirects(format!(
                    "network: more than {} redirects (the request's max-redirects)",
                    req.max_redirects
                )));
            }
            let base = url::Url::parse(&url).map_err(|e| SendError::Invalid(e.to_string()))?;
            let target = base
                .join(&next)
                .map_err(|e| SendError::Failed(format!("network: a redirect to a bad URL: {e}")))?;
            // As curl: 303, and 301/302 after a POST, go on as GET without the body.
            if head.status == 303 || (matches!(head.status, 301 | 302) && method == "POST") {
                if method != "HEAD" {
                    method = "GET".into();
                }
                body.clear();
                headers.retain(|(k, _)| {
                    !k.eq_ignore_ascii_case("content-type")
                        && !k.eq_ignore_ascii_case("content-length")
                });
            }
            // Credentials stay with the host they were given for.
            if target.host_str() != base.host_str()
                || target.port_or_known_default() != base.port_or_known_default()
            {
                headers.retain(|(k, _)| {
                    !k.eq_ignore_ascii_case("authorization") && !k.eq_ignore_ascii_case("cookie")
                });
            }
            redirects.push(head);
            url = target.to_string();
        }
    }

    /// A hop that got no response, its error redacted, with its audit row.
    fn failed(&self, method: &str, url: &str, started: Instant, e: SendError) -> SendError {
        let e = e.map_text(|t| self.secrets().redact(&t));
        self.audit(method, url, started, "failed".into(), Some(e.to_string()));
        e
    }

    /// Checks one hop of a request: its secrets put into a copy of `headers` (a misplaced
    /// placeholder is refused before any lookup of the name), then the policy. Refused, the
    /// audit log gets a row.
    fn admit(
        &self,
        method: &str,
        url: &str,
        headers: &[(String, String)],
    ) -> Result<Admitted, SendError> {
        let started = Instant::now();
        let mut sent = headers.to_vec();
        let checked = self
            .secrets()
            .apply(url, &mut sent)
            .map_err(|why| {
                SendError::Refused(
                    NetError::Refused {
                        method: method.to_string(),
                        url: redacted(url),
                        why,
                    }
                    .to_string(),
                )
            })
            .and_then(|used| Ok((self.decide_method_url(method, url)?, used)));
        match checked {
            Ok((allowed, used)) => Ok(Admitted {
                headers: sent,
                allowed,
                used,
            }),
            Err(e) => {
                self.audit(method, url, started, "refused".into(), Some(e.to_string()));
                Err(e)
            }
        }
    }

    /// Checks a request to one host whose body will stream (the container's proxy): its
    /// method and headers, its secrets and the policy, before a byte of the body is read.
    /// Refused, the audit log gets a row; allowed, [`Prepared::send`] sends it.
    pub fn prepare(
        &self,
        method: &str,
        url: &str,
        headers: Vec<(String, String)>,
    ) -> Result<Prepared, SendError> {
        check_head(method, &headers)?;
        http_only(url)?;
        let started = Instant::now();
        let Admitted {
            headers,
            allowed,
            used,
        } = self.admit(method, url, &headers)?;
        Ok(Prepared {
            egress: self.clone(),
            method: method.to_string(),
            url: url.to_string(),
            headers,
            allowed,
            used,
            started,
        })
    }

    /// One exchange with one host, up to the response's head.
    #[allow(clippy::too_many_arguments)]
    fn exchange(
        &self,
        method: &str,
        url: &str,
        headers: &[(String, String)],
        body: Option<reqwest::blocking::Body>,
        allowed: Allowed,
        left: Duration,
        limit: Duration,
    ) -> Result<(Head, reqwest::blocking::Response), SendError> {
        if left.is_zero() {
            return Err(timed_out(limit));
        }
        let shown = redacted(url);
        // The extra roots matter to TLS alone: plain http does not read the CA file.
        let roots = if url.starts_with("https://") {
            self.extra_roots().map_err(SendError::Failed)?
        } else {
            &[]
        };
        let tls = crate::tls::client_config(roots).map_err(SendError::Failed)?;
        let client = reqwest::blocking::Client::builder()
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .dns_resolver(std::sync::Arc::new(PinnedResolver::new(allowed)))
            .timeout(left)
            .tls_backend_preconfigured(ClientConfig::clone(&tls))
            .user_agent(concat!("computer/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| SendError::Failed(format!("network: {e}")))?;
        let method = reqwest::Method::from_bytes(method.as_bytes())
            .map_err(|_| SendError::Invalid(format!("network: '{method}' is not a method")))?;
        let mut builder = client.request(method, url);
        for (name, value) in headers {
            builder = builder.header(name.as_str(), value.as_str());
        }
        if let Some(body) = body {
            builder = builder.body(body);
        }
        let response = builder.send().map_err(|e| classify(&shown, &e, limit))?;
        let head = Head {
            version: format!("{:?}", response.version()),
            status: response.status().as_u16(),
            reason: response
                .status()
                .canonical_reason()
                .unwrap_or("")
                .to_string(),
            headers: response
                .headers()
                .iter()
                .map(|(k, v)| {
                    (
                        k.as_str().to_string(),
                        String::from_utf8_lossy(v.as_bytes()).into_owned(),
                    )
                })
                .collect(),
        };
        Ok((head, response))
    }
}

/// One hop the policy allowed: its headers with the secrets put in, where to connect, and
/// the secrets it carries.
struct Admitted {
    headers: Vec<(String, String)>,
    allowed: Allowed,
    used: Vec<String>,
}

/// A request the policy allowed ([`Egress::prepare`]), ready to send to its one host.
#[derive(Debug)]
pub struct Prepared {
    egress: Egress,
    method: String,
    url: String,
    /// With the secrets put in.
    headers: Vec<(String, String)>,
    allowed: Allowed,
    used: Vec<String>,
    started: Instant,
}

/// A request body read as it is sent, never held whole.
pub struct StreamBody {
    /// Where the bytes come from.
    pub reader: Box<dyn Read + Send>,
    /// Its length when known (sent as `Content-Length`; otherwise the body is chunked).
    pub length: Option<u64>,
}

impl Prepared {
    /// Sends the request with `body` (read as it goes) and gives the response with its body
    /// still to read (the caller limits how much it reads). `timeout` bounds sending the
    /// request (its body included) with the wait for the response's head, and then each wait
    /// for more of the response's body. Redirects come back as they are. The audit row is written when
    /// the response is dropped, with the bytes read.
    pub fn send(self, body: Option<StreamBody>, timeout: Duration) -> Result<Incoming, SendError> {
        let egress = &self.egress;
        let body = body.map(|b| match b.length {
            Some(length) => reqwest::blocking::Body::sized(b.reader, length),
            None => reqwest::blocking::Body::new(b.reader),
        });
        let exchanged = egress.exchange(
            &self.method,
            &self.url,
            &self.headers,
            body,
            self.allowed.clone(),
            timeout,
            timeout,
        );
        match exchanged {
            Ok((head, response)) => Ok(Incoming {
                head,
                response,
                prepared: self,
                read: 0,
                ended: None,
            }),
            Err(e) => Err(egress.failed(&self.method, &self.url, self.started, e)),
        }
    }
}

/// A response whose body is read as it arrives ([`Prepared::send`]).
pub struct Incoming {
    head: Head,
    response: reqwest::blocking::Response,
    prepared: Prepared,
    read: u64,
    /// `Ok` at the end of the body; the error that cut it short.
    ended: Option<Result<(), String>>,
}

impl Incoming {
    /// Its status line and headers.
    pub fn head(&self) -> &Head {
        &self.head
    }

    /// The body's length, when the host said it.
    pub fn content_length(&self) -> Option<u64> {
        self.response.content_length()
    }

    /// Records, for its audit row, why the body was not read to its end (past a limit, the
    /// client went away, ...).
    pub fn abandon(&mut self, why: &str) {
        if self.ended.is_none() {
            self.ended = Some(Err(why.to_string()));
        }
    }
}

impl Read for Incoming {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Some(ended) = &self.ended {
            return match ended {
                Ok(()) => Ok(0),
                Err(why) => Err(io::Error::other(why.clone())),
            };
        }
        let n = match self.response.read(buf) {
            Ok(n) => n,
            Err(e) => {
                let why = format!(
                    "network: {}: {}",
                    redacted(&self.prepared.url),
                    self.prepared.egress.secrets().redact(&e.to_string())
                );
                self.ended = Some(Err(why.clone()));
                return Err(io::Error::new(e.kind(), why));
            }
        };
        if n == 0 {
            self.ended = Some(Ok(()));
            return Ok(0);
        }
        self.read += n as u64;
        Ok(n)
    }
}

impl Drop for Incoming {
    fn drop(&mut self) {
        let p = &self.prepared;
        let status = self.head.status;
        let (summary, error) = match &self.ended {
            Some(Ok(())) => (
                format!("{status}, {} bytes{}", self.read, with(&p.used)),
                None,
            ),
            Some(Err(why)) => (
                format!(
                    "{status}, cut short after {} bytes{}",
                    self.read,
                    with(&p.used)
                ),
                Some(why.clone()),
            ),
            None => (
                format!("{status}, {} bytes read{}", self.read, with(&p.used)),
                None,
            ),
        };
        p.egress.audit(&p.method, &p.url, p.started, summary, error);
    }
}

impl std::fmt::Debug for Incoming {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Incoming")
            .field("head", &self.head)
            .field("read", &self.read)
            .finish_non_exhaustive()
    }
}

impl std::fmt::Debug for StreamBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamBody")
            .field("length", &self.length)
            .finish_non_exhaustive()
    }
}

/// The audit summary's mention of the secrets a request carried.
fn with(used: &[String]) -> String {
    if used.is_empty() {
        String::new()
    } else {
        format!(", with secret {}", used.join(", "))
    }
}

/// A whole body as reqwest sends it; none when empty.
fn body_of(body: &[u8]) -> Option<reqwest::blocking::Body> {
    (!body.is_empty()).then(|| reqwest::blocking::Body::from(body.to_vec()))
}

/// The redirect's target a head names.
fn location(head: &Head) -> Option<String> {
    head.headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("location"))
        .map(|(_, v)| v.clone())
}

/// Reads a response's body whole, under `max_bytes`; `stop` is polled between reads.
fn read_whole(
    mut response: reqwest::blocking::Response,
    shown: &str,
    max_bytes: u64,
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<Vec<u8>, SendError> {
    // Sized once from Content-Length (within the limit): no copies as the body grows.
    let expected = response.content_length().unwrap_or(0).min(max_bytes);
    let mut out = Vec::with_capacity(usize::try_from(expected).unwrap_or(0));
    let mut buf = vec![0u8; 256 * 1024];
    loop {
        if stop() {
            return Err(SendError::Timeout(format!(
                "network: {shown}: stopped with the command (its time limit or a cancel)"
            )));
        }
        let n = response
            .read(&mut buf)
            .map_err(|e| SendError::Failed(format!("network: {shown}: {e}")))?;
        if n == 0 {
            return Ok(out);
        }
        if (out.len() + n) as u64 > max_bytes {
            return Err(SendError::TooLarge(format!(
                "network: {shown}: the response is larger than the limit of {max_bytes} bytes (max-bytes)"
            )));
        }
        out.extend_from_slice(&buf[..n]);
    }
}

/// Refuses a URL that is not http or https (a redirect may lead anywhere).
fn http_only(url: &str) -> Result<(), SendError> {
    if url.starts_with("http://") || url.starts_with("https://") {
        return Ok(());
    }
    let scheme = url.split(':').next().unwrap_or("");
    Err(SendError::Invalid(format!(
        "network: {}: only http and https are sent (not {scheme})",
        redacted(url)
    )))
}

fn is_redirect(status: u16) -> bool {
    matches!(status, 301 | 302 | 303 | 307 | 308)
}

fn timed_out(limit: Duration) -> SendError {
    SendError::Timeout(format!(
        "network: the request took longer than its time limit of {} ms",
        limit.as_millis()
    ))
}

/// What a guest may not send: control characters in the method, names or values (a header
/// injected through a newline), too many headers, a body past the limit.
fn check_request(req: &Request) -> Result<(), SendError> {
    check_head(&req.method, &req.headers)?;
    if req.body.len() > MAX_REQUEST_BYTES {
        return Err(SendError::Invalid(format!(
            "network: the request body is larger than the limit of {MAX_REQUEST_BYTES} bytes (MAX_REQUEST_BYTES)"
        )));
    }
    Ok(())
}

/// [`check_request`] of the method and headers.
fn check_head(method: &str, headers: &[(String, String)]) -> Result<(), SendError> {
    let bad = |why: String| Err(SendError::Invalid(format!("network: {why}")));
    if method.is_empty() || !method.bytes().all(|b| b.is_ascii_alphabetic() || b == b'-') {
        return bad(format!("'{}' is not a method", method.escape_debug()));
    }
    if headers.len() > MAX_REQUEST_HEADERS {
        return bad(format!(
            "more than {MAX_REQUEST_HEADERS} headers (MAX_REQUEST_HEADERS)"
        ));
    }
    for (name, value) in headers {
        if name.is_empty() || !name.bytes().all(crate::secrets::is_token_byte) {
            return bad(format!("'{}' is not a header name", name.escape_debug()));
        }
        if value.bytes().any(|b| b == b'\r' || b == b'\n' || b == 0) {
            return bad(format!("the value of header {name} holds a line break"));
        }
    }
    Ok(())
}

/// reqwest's error as a guest should see it.
fn classify(url: &str, e: &reqwest::Error, limit: Duration) -> SendError {
    let chain = {
        let mut text = e.to_string();
        let mut source = std::error::Error::source(e);
        while let Some(s) = source {
            text.push_str(": ");
            text.push_str(&s.to_string());
            source = s.source();
        }
        text
    };
    if e.is_timeout() {
        return timed_out(limit);
    }
    let lower = chain.to_ascii_lowercase();
    if lower.contains("certificate") || lower.contains("tls") || lower.contains("handshake") {
        SendError::Tls(format!("network: {url}: {chain}"))
    } else if e.is_connect() {
        SendError::Connect(format!("network: {url}: {chain}"))
    } else {
        SendError::Failed(format!("network: {url}: {chain}"))
    }
}
