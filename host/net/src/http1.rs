//! Just enough HTTP/1.1 for the egress proxy: a request's head (parsed by `httparse`), its
//! body decoded as it arrives (sized or chunked, under a limit), and a response's head and
//! body passed on as they come (sized, chunked, or to the end of the connection).

use std::io::{self, BufRead, Read, Write};

use crate::client::MAX_REQUEST_HEADERS;

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
    /// An HTTP/1.0 request (its response may not be chunked).
    pub http10: bool,
}

impl Head {
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
        http10: req.version == Some(0),
    })
}

/// How a request's body is framed, from its head: `None` without a body.
pub(crate) fn request_framing(head: &Head) -> Result<Option<Framing>, Bad> {
    let chunked = head
        .header("transfer-encoding")
        .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"));
    if chunked {
        return Ok(Some(Framing::Chunked));
    }
    match head.header("content-length") {
        Some(v) => match v.trim().parse::<u64>() {
            Ok(0) => Ok(None),
            Ok(n) => Ok(Some(Framing::Length(n))),
            Err(_) => Err(bad(400, "network proxy: a bad Content-Length")),
        },
        None => Ok(None),
    }
}

/// How a body's end is found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Framing {
    /// `Content-Length`.
    Length(u64),
    /// `Transfer-Encoding: chunked`.
    Chunked,
    /// The end of the connection (a response to an HTTP/1.0 client of unknown length).
    Close,
}

/// A request's body as it arrives on the connection, decoded (sized or chunked), failing
/// past `limit` bytes with [`io::ErrorKind::FileTooLarge`] and on bad framing with
/// [`io::ErrorKind::InvalidData`].
pub(crate) struct BodyReader<R> {
    inner: R,
    chunked: bool,
    /// Bytes left of the body (sized) or of the current chunk.
    left: u64,
    /// A chunk was read, and its line break is still to come.
    after_chunk: bool,
    done: bool,
    read: u64,
    limit: u64,
}

impl<R: BufRead> BodyReader<R> {
    /// The body framed by `framing` (not [`Framing::Close`]: a request has no such body).
    pub fn new(inner: R, framing: Framing, limit: u64) -> BodyReader<R> {
        let (chunked, left) = match framing {
            Framing::Length(n) => (false, n),
            Framing::Chunked | Framing::Close => (true, 0),
        };
        BodyReader {
            inner,
            chunked,
            left,
            after_chunk: false,
            done: false,
            read: 0,
            limit,
        }
    }

    /// Whether the whole body was read.
    pub fn done(&self) -> bool {
        self.done
    }

    fn invalid(why: &str) -> io::Error {
        io::Error::new(io::ErrorKind::InvalidData, format!("network proxy: {why}"))
    }

    /// Reads the next chunk's size line (and the trailers after the last).
    fn next_chunk(&mut self) -> io::Result<()> {
        let mut line = String::new();
        if self.after_chunk {
            self.inner.by_ref().take(2).read_line(&mut line)?;
            if !line.trim_end_matches(['\r', '\n']).is_empty() {
                return Err(Self::invalid("a chunk longer than its size"));
            }
            line.clear();
            self.after_chunk = false;
        }
        self.inner.by_ref().take(4096).read_line(&mut line)?;
        if !line.ends_with('\n') {
            return Err(Self::invalid("a chunk size line cut short or too long"));
        }
        let size = line.trim_end().split(';').next().unwrap_or("").trim();
        let size = u64::from_str_radix(size, 16).map_err(|_| Self::invalid("a bad chunk size"))?;
        if size > 0 {
            self.left = size;
            return Ok(());
        }
        // Trailers, dropped, up to the empty line.
        loop {
            line.clear();
            let n = self.inner.by_ref().take(8192).read_line(&mut line)?;
            if n == 0 || line.trim_end().is_empty() {
                self.done = true;
                return Ok(());
            }
        }
    }
}

impl<R: BufRead> Read for BodyReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        if self.left == 0 && !self.done {
            if self.chunked {
                self.next_chunk()?;
            } else {
                self.done = true;
            }
        }
        if self.done {
            return Ok(0);
        }
        let want = buf
            .len()
            .min(usize::try_from(self.left).unwrap_or(usize::MAX));
        let n = self.inner.read(&mut buf[..want])?;
        if n == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "network proxy: the request body was cut short",
            ));
        }
        self.left -= n as u64;
        self.after_chunk = self.chunked && self.left == 0;
        self.read += n as u64;
        if self.read > self.limit {
            return Err(io::Error::new(
                io::ErrorKind::FileTooLarge,
                format!(
                    "network: the request body is larger than the limit of {} bytes \
                     (PROXY_MAX_BODY_BYTES)",
                    self.limit
                ),
            ));
        }
        Ok(n)
    }
}

/// Answers `Expect: 100-continue` on `out`, when the head asks for it.
pub(crate) fn continue_if_expected(out: &mut impl Write, head: &Head) -> io::Result<()> {
    if head
        .header("expect")
        .is_some_and(|v| v.eq_ignore_ascii_case("100-continue"))
    {
        out.write_all(b"HTTP/1.1 100 Continue\r\n\r\n")?;
        out.flush()?;
    }
    Ok(())
}

/// Writes a response's head as the proxy passes it on: the host's headers but those of the
/// connection, then the framing of the body to follow (`None`: no body, a HEAD's, a 204's or
/// a 304's head keeps the length the server gave).
pub(crate) fn write_head(
    out: &mut impl Write,
    head: &crate::client::Head,
    framing: Option<Framing>,
    close: bool,
) -> io::Result<()> {
    let mut text = format!("HTTP/1.1 {} {}\r\n", head.status, head.reason);
    for (name, value) in &head.headers {
        let length = name.eq_ignore_ascii_case("content-length");
        if (is_hop_by_hop(name) && !(length && framing.is_none()))
            || name.contains(['\r', '\n'])
            || value.contains(['\r', '\n'])
        {
            continue;
        }
        text.push_str(&format!("{name}: {value}\r\n"));
    }
    match framing {
        Some(Framing::Length(n)) => text.push_str(&format!("content-length: {n}\r\n")),
        Some(Framing::Chunked) => text.push_str("transfer-encoding: chunked\r\n"),
        Some(Framing::Close) | None => {}
    }
    if close || framing == Some(Framing::Close) {
        text.push_str("connection: close\r\n");
    }
    text.push_str("\r\n");
    out.write_all(text.as_bytes())
}

/// Copies a body from `from` to `out` in `framing` as it comes, a buffer at a time, up to
/// `limit` bytes; `stop` is polled between buffers. An error leaves the body cut short: the
/// connection must end.
pub(crate) fn copy_body(
    from: &mut impl Read,
    out: &mut impl Write,
    framing: Framing,
    limit: u64,
    stop: &dyn Fn() -> bool,
) -> io::Result<()> {
    let mut buf = vec![0u8; 64 << 10];
    let mut sent = 0u64;
    loop {
        if stop() {
            return Err(io::Error::other("network proxy: stopped"));
        }
        let n = from.read(&mut buf)?;
        if n == 0 {
            break;
        }
        sent += n as u64;
        if sent > limit {
            return Err(io::Error::new(
                io::ErrorKind::FileTooLarge,
                format!(
                    "the response is larger than the limit of {limit} bytes (PROXY_MAX_BODY_BYTES)"
                ),
            ));
        }
        match framing {
            Framing::Length(length) if sent > length => {
                return Err(io::Error::other("network: the host sent more than it said"));
            }
            Framing::Chunked => {
                out.write_all(format!("{n:x}\r\n").as_bytes())?;
                out.write_all(&buf[..n])?;
                out.write_all(b"\r\n")?;
            }
            _ => out.write_all(&buf[..n])?,
        }
    }
    match framing {
        Framing::Length(length) if sent != length => {
            return Err(io::Error::other("network: the host's body was cut short"));
        }
        Framing::Chunked => out.write_all(b"0\r\n\r\n")?,
        _ => {}
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

#[cfg(test)]
mod tests {
    use std::io::{self, Read};

    use super::{BodyReader, Framing, copy_body};

    fn decode(raw: &str, framing: Framing, limit: u64) -> (io::Result<String>, bool) {
        let mut body = BodyReader::new(raw.as_bytes(), framing, limit);
        let mut out = Vec::new();
        let mut buf = [0u8; 3];
        let result = loop {
            match body.read(&mut buf) {
                Ok(0) => break Ok(String::from_utf8(out).unwrap()),
                Ok(n) => out.extend_from_slice(&buf[..n]),
                Err(e) => break Err(e),
            }
        };
        (result, body.done())
    }

    #[test]
    fn bodies_are_decoded_as_they_are_framed() {
        let (body, done) = decode("hello world", Framing::Length(5), 100);
        assert_eq!((body.unwrap().as_str(), done), ("hello", true));
        let chunked = "5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nTrailer: x\r\n\r\nNEXT";
        let (body, done) = decode(chunked, Framing::Chunked, 100);
        assert_eq!((body.unwrap().as_str(), done), ("hello world", true));
        // Cut short, badly framed, too large: each a named error, the body not done.
        let (body, done) = decode("hel", Framing::Length(5), 100);
        assert_eq!(body.unwrap_err().kind(), io::ErrorKind::UnexpectedEof);
        assert!(!done);
        let (body, _) = decode("zz\r\nhello\r\n0\r\n\r\n", Framing::Chunked, 100);
        assert_eq!(body.unwrap_err().kind(), io::ErrorKind::InvalidData);
        let (body, _) = decode("3\r\nhello\r\n0\r\n\r\n", Framing::Chunked, 100);
        assert!(
            body.unwrap_err()
                .to_string()
                .contains("longer than its size")
        );
        let (body, _) = decode("5\r\nhello\r\n0\r\n\r\n", Framing::Chunked, 4);
        let e = body.unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::FileTooLarge);
        assert!(e.to_string().contains("PROXY_MAX_BODY_BYTES"), "{e}");
    }

    #[test]
    fn bodies_are_passed_on_in_their_framing_up_to_the_limit() {
        let mut out = Vec::new();
        copy_body(&mut &b"hello"[..], &mut out, Framing::Chunked, 10, &|| {
            false
        })
        .unwrap();
        assert_eq!(out, b"5\r\nhello\r\n0\r\n\r\n");
        let mut out = Vec::new();
        copy_body(
            &mut &b"hello"[..],
            &mut out,
            Framing::Length(5),
            10,
            &|| false,
        )
        .unwrap();
        assert_eq!(out, b"hello");
        // Shorter or longer than the host said, past the limit, stopped: errors.
        let short = copy_body(
            &mut &b"hel"[..],
            &mut Vec::new(),
            Framing::Length(5),
            10,
            &|| false,
        );
        assert!(short.unwrap_err().to_string().contains("cut short"));
        let long = copy_body(
            &mut &b"hello!"[..],
            &mut Vec::new(),
            Framing::Length(5),
            10,
            &|| false,
        );
        assert!(long.is_err());
        let e = copy_body(
            &mut &b"hello"[..],
            &mut Vec::new(),
            Framing::Close,
            4,
            &|| false,
        )
        .unwrap_err();
        assert!(e.to_string().contains("PROXY_MAX_BODY_BYTES"), "{e}");
        assert!(
            copy_body(
                &mut &b"hello"[..],
                &mut Vec::new(),
                Framing::Close,
                9,
                &|| true
            )
            .is_err()
        );
    }
}
