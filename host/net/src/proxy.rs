//! The egress proxy of a container: an HTTP proxy the host serves on a listener inside the
//! container's own network namespace (`127.0.0.1`, named by `HTTP_PROXY`/`HTTPS_PROXY`), so
//! that a container with no network interface but loopback reaches exactly what the
//! workspace's policy allows.
//!
//! - `GET http://host/path` (absolute form): sent through [`Egress::send`]: the policy, the
//!   checked addresses, the secrets, the limits and an audit row, as the isolate's curl.
//! - `CONNECT host:port`: decided by [`Egress::connect`]. Most hosts are tunnelled untouched
//!   to the checked addresses (TLS end to end; the first byte must start a TLS handshake, so
//!   ssh and other raw TCP get a named error). A host with a secret bound, or with a rule that
//!   limits its paths or methods, has its TLS ended here with a certificate of the
//!   container's own CA ([`ProxyCa`]), and each request inside goes through
//!   [`Egress::send`] like a plain one.

use std::io::{self, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::ca::ProxyCa;
use crate::client::{SendError, StreamBody};
use crate::egress::{ConnectPlan, Egress, redacted};
use crate::error::NetError;
use crate::http1::{self, Bad, Head};

/// The most connections one proxy serves at once.
pub const PROXY_MAX_CONNECTIONS: usize = 64;
/// How long a connection may sit without a byte of its next request.
pub const PROXY_IDLE_TIMEOUT: Duration = Duration::from_secs(120);
/// The largest request or response body the proxy passes outside a tunnel (streamed, a few
/// buffers at a time: never held whole).
pub const PROXY_MAX_BODY_BYTES: u64 = 8 << 30;
/// The longest the proxy waits for a host: to send it a request (its body included) and
/// get the response's head, and then for each next part of the response's body.
pub const PROXY_REQUEST_TIMEOUT: Duration = Duration::from_secs(3600);
/// How many buffers of a request body may wait between the client and the host.
const BODY_BUFFERS: usize = 4;
/// The size of those buffers.
const BODY_BUFFER_BYTES: usize = 64 << 10;
/// How long the connection to a tunnelled host may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// The egress a proxy sends through, replaced while it runs (new secrets, a new policy
/// source): each request takes the one in place when it arrives.
#[derive(Debug, Clone, Default)]
pub struct EgressSlot(Arc<Mutex<Option<Egress>>>);

impl EgressSlot {
    /// Puts `egress` in place (`None`: every request is refused).
    pub fn set(&self, egress: Option<Egress>) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = egress;
    }

    /// The egress in place.
    pub fn get(&self) -> Option<Egress> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// A container's proxy: its egress and its CA.
#[derive(Debug)]
pub struct Proxy {
    slot: EgressSlot,
    ca: ProxyCa,
    live: AtomicUsize,
    stopped: AtomicBool,
}

/// A proxy serving one listener; dropping it stops the listener (the connections it
/// serves end with their peers).
#[derive(Debug)]
pub struct ProxyServer {
    proxy: Arc<Proxy>,
    listener: Arc<TcpListener>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for ProxyServer {
    fn drop(&mut self) {
        self.proxy.stopped.store(true, Ordering::SeqCst);
        // Wakes the blocked accept (Linux answers it with EINVAL).
        let _ =
            nix::sys::socket::shutdown(self.listener.as_raw_fd(), nix::sys::socket::Shutdown::Both);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl ProxyServer {
    /// The proxy it serves.
    pub fn proxy(&self) -> &Arc<Proxy> {
        &self.proxy
    }
}

/// Counts a connection while it lives.
struct Live(Arc<Proxy>);

impl Drop for Live {
    fn drop(&mut self) {
        self.0.live.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Proxy {
    /// A proxy sending through what `slot` holds, with a new CA.
    pub fn new(slot: EgressSlot) -> Result<Arc<Proxy>, NetError> {
        Ok(Arc::new(Proxy {
            slot,
            ca: ProxyCa::new()?,
            live: AtomicUsize::new(0),
            stopped: AtomicBool::new(false),
        }))
    }

    /// Its CA's certificate (PEM): the container trusts it.
    pub fn ca_pem(&self) -> &str {
        self.ca.cert_pem()
    }

    /// Its CA.
    pub fn ca(&self) -> &ProxyCa {
        &self.ca
    }

    /// Serves `listener` from a thread of its own, each connection on its own thread.
    pub fn serve(self: &Arc<Self>, listener: TcpListener) -> io::Result<ProxyServer> {
        let listener = Arc::new(listener);
        let proxy = Arc::clone(self);
        let accepting = Arc::clone(&listener);
        let thread = std::thread::Builder::new()
            .name("computer-egress-proxy".into())
            .spawn(move || {
                while !proxy.stopped.load(Ordering::SeqCst) {
                    let Ok((stream, _)) = accepting.accept() else {
                        if proxy.stopped.load(Ordering::SeqCst) {
                            return;
                        }
                        std::thread::sleep(Duration::from_millis(10));
                        continue;
                    };
                    proxy.accepted(stream);
                }
            })?;
        Ok(ProxyServer {
            proxy: Arc::clone(self),
            listener,
            thread: Some(thread),
        })
    }

    fn accepted(self: &Arc<Self>, mut stream: TcpStream) {
        if self.live.fetch_add(1, Ordering::SeqCst) >= PROXY_MAX_CONNECTIONS {
            self.live.fetch_sub(1, Ordering::SeqCst);
            let _ = http1::write_error(
                &mut stream,
                503,
                &format!(
                    "network proxy: more than {PROXY_MAX_CONNECTIONS} connections at once \
                     (PROXY_MAX_CONNECTIONS)"
                ),
            );
            return;
        }
        let live = Live(Arc::clone(self));
        let spawned = std::thread::Builder::new()
            .name("computer-egress-conn".into())
            .spawn(move || {
                let proxy = Arc::clone(&live.0);
                proxy.connection(stream);
                drop(live);
            });
        drop(spawned);
    }

    /// One client connection: requests until it closes, or a CONNECT that takes it over.
    fn connection(self: &Arc<Self>, stream: TcpStream) {
        let _ = stream.set_read_timeout(Some(PROXY_IDLE_TIMEOUT));
        let _ = stream.set_nodelay(true);
        let mut reader = BufReader::new(stream);
        let Some(head) = self.requests(&mut reader, None) else {
            return;
        };
        let leftover = reader.buffer().to_vec();
        self.connect(reader.into_inner(), head, leftover);
    }

    /// Answers requests on `reader` until the connection ends; gives back a CONNECT (only
    /// outside TLS, `origin` being `None`). `origin` is the host and port of a CONNECT whose
    /// TLS ended here: its requests name paths on it.
    fn requests<S: Read + Write + Send>(
        &self,
        reader: &mut BufReader<S>,
        origin: Option<(&str, u16)>,
    ) -> Option<Head> {
        loop {
            let head = match http1::read_head(reader) {
                Ok(Some(head)) => head,
                Ok(None) => return None,
                Err(bad) => {
                    let _ = http1::write_error(reader.get_mut(), bad.status, &bad.why);
                    return None;
                }
            };
            if head.method.eq_ignore_ascii_case("CONNECT") {
                if origin.is_none() {
                    return Some(head);
                }
                let _ = http1::write_error(
                    reader.get_mut(),
                    400,
                    "network proxy: CONNECT inside a tunnel",
                );
                return None;
            }
            let url = match (origin, head.target.as_str()) {
                (Some((host, port)), path) if path.starts_with('/') => {
                    let host = if host.contains(':') {
                        format!("[{host}]")
                    } else {
                        host.to_string()
                    };
                    if port == 443 {
                        format!("https://{host}{path}")
                    } else {
                        format!("https://{host}:{port}{path}")
                    }
                }
                (None, target)
                    if target.starts_with("http://") || target.starts_with("https://") =>
                {
                    target.to_string()
                }
                _ => {
                    let _ = http1::write_error(
                        reader.get_mut(),
                        400,
                        "network proxy: this is the egress proxy of the workspace's container; \
                         send it requests for absolute URLs (HTTP_PROXY, HTTPS_PROXY)",
                    );
                    return None;
                }
            };
            let Some(egress) = self.slot.get() else {
                let _ = http1::write_error(reader.get_mut(), 403, NO_EGRESS);
                return None;
            };
            if !self.exchange(&egress, reader, &head, &url) || head.close {
                return None;
            }
        }
    }

    /// Passes one request on and its response back, both bodies streamed; whether the
    /// connection can carry another request.
    fn exchange<S: Read + Write + Send>(
        &self,
        egress: &Egress,
        reader: &mut BufReader<S>,
        head: &Head,
        url: &str,
    ) -> bool {
        let framing = match http1::request_framing(head) {
            Ok(framing) => framing,
            Err(Bad { status, why }) => {
                let _ = http1::write_error(reader.get_mut(), status, &why);
                return false;
            }
        };
        if let Some(http1::Framing::Length(n)) = framing
            && n > PROXY_MAX_BODY_BYTES
        {
            let why = format!(
                "network: the request body is larger than the limit of {PROXY_MAX_BODY_BYTES} \
                 bytes (PROXY_MAX_BODY_BYTES)"
            );
            let _ = http1::write_error(reader.get_mut(), 413, &why);
            return false;
        }
        let headers = head
            .headers
            .iter()
            .filter(|(name, _)| !http1::is_hop_by_hop(name))
            .cloned()
            .collect();
        // Decided before a byte of the body is read: the host reads none for a host it would
        // not send it to.
        let prepared = match egress.prepare(&head.method.to_ascii_uppercase(), url, headers) {
            Ok(prepared) => prepared,
            Err(e) => {
                let _ = http1::write_error(reader.get_mut(), status_of(&e), &e.to_string());
                return false;
            }
        };
        let (sent, fed) = match framing {
            None => (prepared.send(None, PROXY_REQUEST_TIMEOUT), Ok(true)),
            Some(framing) => std::thread::scope(|s| {
                // The body passes from the client to the host a few buffers at a time,
                // through a thread of its own (the sending side reads from a channel).
                let (tx, rx) = std::sync::mpsc::sync_channel(BODY_BUFFERS);
                let client = &mut *reader;
                let feeder = s.spawn(move || feed(client, head, framing, tx));
                let body = StreamBody {
                    reader: Box::new(ChannelReader {
                        rx,
                        pending: Vec::new(),
                        at: 0,
                    }),
                    length: match framing {
                        http1::Framing::Length(n) => Some(n),
                        _ => None,
                    },
                };
                let sent = prepared.send(Some(body), PROXY_REQUEST_TIMEOUT);
                let fed = feeder.join().unwrap_or_else(|_| {
                    Err(Bad {
                        status: 500,
                        why: "network proxy: reading the request body panicked".into(),
                    })
                });
                (sent, fed)
            }),
        };
        // A bad body is the client's error, whatever the host made of what it got.
        let whole_body = match fed {
            Ok(whole) => whole,
            Err(Bad { status, why }) => {
                let _ = http1::write_error(reader.get_mut(), status, &why);
                return false;
            }
        };
        let mut incoming = match sent {
            Ok(incoming) => incoming,
            Err(SendError::Timeout(why)) => {
                let why = format!("{why} (PROXY_REQUEST_TIMEOUT)");
                let _ = http1::write_error(reader.get_mut(), 504, &why);
                return false;
            }
            Err(e) => {
                let _ = http1::write_error(reader.get_mut(), status_of(&e), &e.to_string());
                return false;
            }
        };
        let status = incoming.head().status;
        let bodyless = head.method.eq_ignore_ascii_case("HEAD")
            || status < 200
            || status == 204
            || status == 304;
        let framing = if bodyless {
            None
        } else {
            Some(match incoming.content_length() {
                Some(n) if n > PROXY_MAX_BODY_BYTES => {
                    let why = format!(
                        "network: {}: the response is larger than the limit of \
                         {PROXY_MAX_BODY_BYTES} bytes (PROXY_MAX_BODY_BYTES)",
                        redacted(url)
                    );
                    incoming.abandon(&why);
                    let _ = http1::write_error(reader.get_mut(), 502, &why);
                    return false;
                }
                Some(n) => http1::Framing::Length(n),
                None if head.http10 => http1::Framing::Close,
                None => http1::Framing::Chunked,
            })
        };
        // A body the host answered before reading whole leaves the connection's next
        // request unknown: it ends after this response.
        let close = head.close || !whole_body;
        let out = reader.get_mut();
        let mut written = http1::write_head(out, incoming.head(), framing, close);
        if written.is_ok() {
            written = match framing {
                Some(framing) => {
                    http1::copy_body(&mut incoming, out, framing, PROXY_MAX_BODY_BYTES, &|| {
                        self.stopped.load(Ordering::SeqCst)
                    })
                }
                None => out.flush(),
            };
        }
        if let Err(e) = &written {
            incoming.abandon(&format!(
                "network proxy: {}: passing the response on: {e}",
                redacted(url)
            ));
        }
        written.is_ok() && !close && framing != Some(http1::Framing::Close)
    }

    /// A CONNECT: refused, tunnelled, or with TLS ended here.
    fn connect(&self, mut client: TcpStream, head: Head, leftover: Vec<u8>) {
        let Some((host, port)) = authority(&head.target) else {
            let _ = http1::write_error(
                &mut client,
                400,
                &format!(
                    "network proxy: CONNECT {}: not host:port",
                    head.target.escape_debug()
                ),
            );
            return;
        };
        let Some(egress) = self.slot.get() else {
            let _ = http1::write_error(&mut client, 403, NO_EGRESS);
            return;
        };
        match egress.connect(&host, port) {
            Err(e) => {
                let e = SendError::from(e);
                let _ = http1::write_error(&mut client, status_of(&e), &e.to_string());
            }
            Ok(ConnectPlan::Tunnel(allowed)) => {
                let server = allowed
                    .addrs
                    .iter()
                    .find_map(|addr| TcpStream::connect_timeout(addr, CONNECT_TIMEOUT).ok());
                let Some(server) = server else {
                    let _ = http1::write_error(
                        &mut client,
                        502,
                        &format!("network: {host}:{port}: could not connect"),
                    );
                    return;
                };
                if client
                    .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
                    .is_err()
                {
                    return;
                }
                tunnel(&egress, client, server, leftover, &host, port);
            }
            Ok(ConnectPlan::Intercept) => {
                if !leftover.is_empty() {
                    return;
                }
                let config = match self.ca.server_config(&host) {
                    Ok(config) => config,
                    Err(e) => {
                        let _ = http1::write_error(&mut client, 502, &e.to_string());
                        return;
                    }
                };
                let Ok(tls) = rustls::ServerConnection::new(config) else {
                    return;
                };
                if client
                    .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
                    .is_err()
                {
                    return;
                }
                let mut reader = BufReader::new(rustls::StreamOwned::new(tls, client));
                self.requests(&mut reader, Some((&host, port)));
                let stream = reader.get_mut();
                stream.conn.send_close_notify();
                let _ = stream.conn.complete_io(&mut stream.sock);
            }
        }
    }
}

/// Reads a request's body from the client into `tx`, a buffer at a time (answering
/// `Expect: 100-continue` first); whether it was read whole (not when the sending side
/// stopped taking it).
fn feed<S: Read + Write>(
    reader: &mut BufReader<S>,
    head: &Head,
    framing: http1::Framing,
    tx: std::sync::mpsc::SyncSender<io::Result<Vec<u8>>>,
) -> Result<bool, Bad> {
    http1::continue_if_expected(reader.get_mut(), head)?;
    let mut body = http1::BodyReader::new(&mut *reader, framing, PROXY_MAX_BODY_BYTES);
    loop {
        let mut buf = vec![0u8; BODY_BUFFER_BYTES];
        match body.read(&mut buf) {
            Ok(0) => return Ok(true),
            Ok(n) => {
                buf.truncate(n);
                if tx.send(Ok(buf)).is_err() {
                    return Ok(body.done());
                }
            }
            Err(e) => {
                let status = if e.kind() == io::ErrorKind::FileTooLarge {
                    413
                } else {
                    400
                };
                let why = e.to_string();
                let _ = tx.send(Err(e));
                return Err(Bad { status, why });
            }
        }
    }
}

/// The sending side of a streamed request body: the buffers [`feed`] passes.
struct ChannelReader {
    rx: std::sync::mpsc::Receiver<io::Result<Vec<u8>>>,
    pending: Vec<u8>,
    at: usize,
}

impl Read for ChannelReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.at == self.pending.len() {
            match self.rx.recv() {
                Ok(Ok(next)) => {
                    self.pending = next;
                    self.at = 0;
                }
                Ok(Err(e)) => return Err(e),
                // The feeder is done: the body ended.
                Err(_) => return Ok(0),
            }
        }
        let n = buf.len().min(self.pending.len() - self.at);
        buf[..n].copy_from_slice(&self.pending[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// What a request meets when the host gave the proxy no egress.
const NO_EGRESS: &str = "network: the workspace's network is not available to this container";

/// The status a proxy answers a failed request with.
fn status_of(e: &SendError) -> u16 {
    match e {
        SendError::Invalid(_) => 400,
        SendError::Refused(_) => 403,
        SendError::Timeout(_) => 504,
        SendError::Resolve(_)
        | SendError::Connect(_)
        | SendError::Tls(_)
        | SendError::TooLarge(_)
        | SendError::TooManyRedirects(_)
        | SendError::Failed(_) => 502,
    }
}

/// `host:port` of a CONNECT (an IPv6 address in brackets); the host without brackets.
fn authority(target: &str) -> Option<(String, u16)> {
    let (host, port) = target.rsplit_once(':')?;
    let port = port.parse::<u16>().ok().filter(|p| *p != 0)?;
    let host = host
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host);
    let valid = !host.is_empty()
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b".-_:".contains(&b));
    valid.then(|| (host.to_ascii_lowercase(), port))
}

/// Passes bytes both ways between a client and the host it asked for, once the client's
/// first byte shows a TLS handshake (a tunnel carries HTTPS, not ssh or other raw TCP).
fn tunnel(
    egress: &Egress,
    mut client: TcpStream,
    mut server: TcpStream,
    mut first: Vec<u8>,
    host: &str,
    port: u16,
) {
    let _ = client.set_read_timeout(Some(PROXY_IDLE_TIMEOUT));
    if first.is_empty() {
        let mut byte = [0u8; 1];
        match client.read(&mut byte) {
            Ok(1) => first.push(byte[0]),
            _ => return,
        }
    }
    // A TLS record of the handshake starts with 0x16.
    if first[0] != 0x16 {
        let why = format!(
            "network: the tunnel to {host}:{port} carries something other than TLS: only HTTP \
             and HTTPS leave a container (ssh and other raw TCP do not)"
        );
        egress.audit(
            "CONNECT",
            &format!("https://{host}:{port}/"),
            std::time::Instant::now(),
            "refused".into(),
            Some(why.clone()),
        );
        let _ = client.write_all(format!("{why}\n").as_bytes());
        return;
    }
    let _ = client.set_read_timeout(None);
    let _ = client.set_nodelay(true);
    let _ = server.set_nodelay(true);
    if server.write_all(&first).is_err() {
        return;
    }
    let (Ok(mut client_read), Ok(mut server_write)) = (client.try_clone(), server.try_clone())
    else {
        return;
    };
    let upstream = std::thread::Builder::new()
        .name("computer-egress-tunnel".into())
        .spawn(move || {
            let _ = io::copy(&mut client_read, &mut server_write);
            let _ = server_write.shutdown(Shutdown::Write);
        });
    let _ = io::copy(&mut server, &mut client);
    // The host is done: the client's side ends too (its reader above returns).
    let _ = client.shutdown(Shutdown::Both);
    if let Ok(upstream) = upstream {
        let _ = upstream.join();
    }
}

#[cfg(test)]
mod tests {
    use super::authority;

    #[test]
    fn connect_targets_are_host_and_port() {
        assert_eq!(
            authority("Docs.Test:443"),
            Some(("docs.test".to_string(), 443))
        );
        assert_eq!(authority("[::1]:8443"), Some(("::1".to_string(), 8443)));
        assert_eq!(authority("docs.test"), None);
        assert_eq!(authority("docs.test:0"), None);
        assert_eq!(authority("a/b:443"), None);
        assert_eq!(authority(":443"), None);
    }
}
