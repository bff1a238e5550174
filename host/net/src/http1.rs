//! Just enough HTTP/1.1 for the egress proxy: a request's head (parsed by `httparse`), its
//! body (sized or chunked, under the request limit), and a response written back whole.

use std::io::{self, BufRead, Read, Write};

use crate::client::{MAX_REQUEST_BYTES, MAX_REQUEST_HEADERS, Response};

/// The longest request head the proxy reads.
pub const PROXY_MAX_HEAD_BYTES: usize = 64 << 10;

/// Headers of one connection, not of the request: never passed on.
const HOP_BY_HOP: &[&str] = &[
    "connection",
    "proxy-connection",
    "keep-alive",
    "proxy-authorization",
    "proxy-authenticate",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "expect",
    "host",
    "content-length",
];

/// Whether `name` belongs to the connection rather than to the request or response.
pub(crate) fn is_hop_by_hop(name: &str) -> bool {
    HOP_BY_HOP.iter().any(|h| name.eq_ignore_ascii_case(h))
}

/// A request line and its headers.
#[derive(Debug, Clone)]
pub(crate) struct Head {
    pub method: String,
    /// The request target: an absolute URL, `host:port` (CONNECT) or a path.
    pub target: String,
    pub headers: Vec<(String, String)>,
    /// HTTP/1.0 without keep-alive, or `Connection: close`.
    pub close: bool,
}

impl Head {
    /// Whether a body follows the head (chunked, or a length above 0).
    pub fn has_body(&self) -> bool {
        self.header("transfer-encoding").is_some()
            || self
                .header("content-length")
                .is_some_and(|v| v.trim() != "0")
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// A request the proxy cannot take, with the status to answer.
#[derive(Debug)]
pub(crate) struct Bad {
    pub status: u16,
    pub why: String,
}

fn bad(status: u16, why: impl Into<String>) -> Bad {
    Bad {
        status,
        why: why.into(),
    }
}

impl From<io::Error> for Bad {
    fn from(e: io::Error) -> Bad {
        bad(400, format!("network proxy: reading the request: {e}"))
    }
}

/// Reads the next request head; `None` at the end of the connection.
pub(crate) fn read_head(reader: &mut impl BufRead) -> Result<Option<Head>, Bad> {
    let mut raw: Vec<u8> = Vec::new();
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            if raw.iter().all(|b| b.is_ascii_whitespace()) {
                return Ok(None);
            }
            return Err(bad(400, "network proxy: the request head was cut short"));
        }
        let mut used = buf.len();
        let mut done = false;
        for (i, b) in buf.iter().enumerate() {
            // Empty lines before a request are allowed (RFC 9112, 2.2).
            if raw.is_empty() && (*b == b'\r' || *b == b'\n') {
                continue;
            }
            raw.push(*b);
            if raw.ends_with(b"\r\n\r\n") || raw.ends_with(b"\n\n") {
                used = i + 1;
                done = true;
                break;
            }
        }
        reader.consume(used);
        if raw.len() > PROXY_MAX_HEAD_BYTES {
            return Err(bad(
                431,
                format!(
                    "network proxy: the request head is larger than {PROXY_MAX_HEAD_BYTES} bytes \
                     (PROXY_MAX_HEAD_BYTES)"
                ),
            ));
        }
        if done {
            return parse_head(&raw).map(Some);
        }
    }
}

fn parse_head(raw: &[u8]) -> Result<Head, Bad> {
    let mut slots = vec![httparse::EMPTY_HEADER; MAX_REQUEST_HEADERS + 8];
    let mut req = httparse::Request::new(&mut slots);
    match req.parse(raw) {
        Ok(httparse::Status::Complete(_)) => {}
        Ok(httparse::Status::Partial) => {
            return Err(bad(400, "network proxy: the request head was cut short"));
        }
        Err(httparse::Error::TooManyHeaders) => {
            return Err(bad(
                431,
                format!("network: more than {MAX_REQUEST_HEADERS} headers (MAX_REQUEST_HEADERS)"),
            ));
        }
        Err(e) => return Err(bad(400, format!("network proxy: a bad request: {e}"))),
    }
    let headers: Vec<(String, String)> = req
        .headers
        .iter()
        .map(|h| {
            (
                h.name.to_string(),
                String::from_utf8_lossy(h.value).into_owned(),
            )
        })
        .collect();
    let connection = |token: &str| {
        headers.iter().any(|(k, v)| {
            (k.eq_ignore_ascii_case("connection") || k.eq_ignore_ascii_case("proxy-connection"))
                && v.split(',').any(|t| t.trim().eq_ignore_ascii_case(token))
        })
    };
    let close = connection("close") || (req.version == Some(0) && !connection("keep-alive"));
    Ok(Head {
        method: req.method.unwrap_or_default().to_string(),
        target: req.path.unwrap_or_default().to_string(),
        headers,
        close,
    })
}

/// Reads the body `head` announces (answering `Expect: 100-continue` on `reply` first).
pub(crate) fn read_body<S: Read + Write>(
    reader: &mut io::BufReader<S>,
    head: &Head,
) -> Result<Vec<u8>, Bad> {
    let too_large = || {
        bad(
            413,
            format!(
                "network: the request body is larger than the limit of {MAX_REQUEST_BYTES} bytes \
                 (MAX_REQUEST_BYTES)"
            ),
        )
    };
    let chunked = head
        .header("transfer-encoding")
        .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"));
    let length = match head.header("content-length") {
        Some(v) => Some(
            v.trim()
                .parse::<u64>()
                .map_err(|_| bad(400, "network proxy: a bad Content-Length"))?,
        ),
        None => None,
    };
    if !chunked && length.unwrap_or(0) == 0 {
        return Ok(Vec::new());
    }
    if length.is_some_and(|n| n > MAX_REQUEST_BYTES as u64) {
        return Err(too_large());
    }
    if head
        .header("expect")
        .is_some_and(|v| v.eq_ignore_ascii_case("100-continue"))
    {
        reader
            .get_mut()
            .write_all(b"HTTP/1.1 100 Continue\r\n\r\n")?;
    }
    if !chunked {
        let mut body = vec![0u8; length.unwrap_or(0) as usize];
        reader.read_exact(&mut body)?;
        return Ok(body);
    }
    let mut body = Vec::new();
    let mut line = String::new();
    loop {
        line.clear();
        reader.by_ref().take(4096).read_line(&mut line)?;
        let size = line.trim_end().split(';').next().unwrap_or("").trim();
        let size = usize::from_str_radix(size, 16)
            .map_err(|_| bad(400, "network proxy: a bad chunk size"))?;
        if size == 0 {
            // Trailers, dropped, up to the empty line.
            loop {
                line.clear();
                let n = reader.by_ref().take(8192).read_line(&mut line)?;
                if n == 0 || line.trim_end().is_empty() {
                    return Ok(body);
                }
            }
        }
        if body.len() + size > MAX_REQUEST_BYTES {
            return Err(too_large());
        }
        let start = body.len();
        body.resize(start + size, 0);
        reader.read_exact(&mut body[start..])?;
        let mut crlf = [0u8; 2];
        reader.read_exact(&mut crlf)?;
    }
}

/// Writes `response` whole, sized by `Content-Length` (a HEAD's, a 204's or a 304's head
/// keeps the length the server gave).
pub(crate) fn write_response(
    out: &mut impl Write,
    response: &Response,
    head_only: bool,
    close: bool,
) -> io::Result<()> {
    let status = response.head.status;
    let bodyless = head_only || status < 200 || status == 204 || status == 304;
    let mut text = format!("HTTP/1.1 {status} {}\r\n", response.head.reason);
    for (name, value) in &response.head.headers {
        let length = name.eq_ignore_ascii_case("content-length");
        if (is_hop_by_hop(name) && !(length && bodyless)) || name.contains(['\r', '\n']) {
            continue;
        }
        if value.contains(['\r', '\n']) {
            continue;
        }
        text.push_str(&format!("{name}: {value}\r\n"));
    }
    if !bodyless {
        text.push_str(&format!("content-length: {}\r\n", response.body.len()));
    }
    if close {
        text.push_str("connection: close\r\n");
    }
    text.push_str("\r\n");
    out.write_all(text.as_bytes())?;
    if !bodyless {
        out.write_all(&response.body)?;
    }
    out.flush()
}

/// Writes an error of the proxy itself: `why` as the body, and (short, printable) as the
/// reason phrase too, which clients show for a refused `CONNECT` where they drop the body.
pub(crate) fn write_error(out: &mut impl Write, status: u16, why: &str) -> io::Result<()> {
    let reason: String = why
        .chars()
        .map(|c| if c.is_ascii_graphic() { c } else { ' ' })
        .take(300)
        .collect();
    let body = format!("{why}\n");
    let text = format!(
        "HTTP/1.1 {status} {reason}\r\ncontent-type: text/plain; charset=utf-8\r\n\
         content-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    out.write_all(text.as_bytes())?;
    out.flush()
}
