//! A deterministic HTTP/1.1 server on 127.0.0.1 for the `curl` and `wget` cases: the real
//! tools (when recording) and our shell talk to the same one, and its answers carry no date
//! or server name, so a case's output is the same every run. One per test process.
//!
//! Routes: `/hello` (text), `/json`, `/headers` (a few response headers), `/echo` (the
//! request's method, target, headers but `Host`, sorted, and body), `/status/N` (status N),
//! `/redirect/N` (N redirects, then `/hello`), `/to?url=U` (302 to U), `/gzip` (gzip-encoded
//! when asked for), `/big/N` (N bytes), anything else 404.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::OnceLock;

/// The server's port (started on first use).
pub fn port() -> u16 {
    static PORT: OnceLock<u16> = OnceLock::new();
    *PORT.get_or_init(|| {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                std::thread::spawn(move || serve(stream));
            }
        });
        port
    })
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        201 => "Created",
        204 => "No Content",
        301 => "Moved Permanently",
        302 => "Found",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        418 => "I'm a teapot",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

fn serve(stream: TcpStream) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).unwrap_or(0) == 0 {
        return;
    }
    let mut headers = Vec::new();
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
            break;
        }
        let line = line.trim_end().to_string();
        if let Some((k, v)) = line.split_once(':') {
            let (k, v) = (k.trim().to_ascii_lowercase(), v.trim().to_string());
            if k == "content-length" {
                length = v.parse().unwrap_or(0);
            }
            headers.push((k, v));
        }
    }
    let mut body = vec![0u8; length];
    let _ = reader.read_exact(&mut body);
    let mut parts = request_line.split_whitespace();
    let method = parts.next().unwrap_or("").to_string();
    let target = parts.next().unwrap_or("/").to_string();
    let path = target.split('?').next().unwrap_or("").to_string();
    let header = |name: &str| {
        headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    };
    let mut stream = stream;
    let mut reply = |status: u16, extra: &[(&str, String)], body: &[u8]| {
        let mut head = format!("HTTP/1.1 {status} {}\r\n", reason(status));
        for (k, v) in extra {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        head.push_str(&format!(
            "Content-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        ));
        let _ = stream.write_all(head.as_bytes());
        if method != "HEAD" {
            let _ = stream.write_all(body);
        }
    };
    let text = ("Content-Type", "text/plain".to_string());
    if path == "/hello" {
        reply(200, &[text], b"hello\n");
    } else if path == "/json" {
        reply(
            200,
            &[("Content-Type", "application/json".into())],
            b"{\"name\":\"computer\",\"tags\":[\"a\",\"b\"],\"n\":3}\n",
        );
    } else if path == "/headers" {
        reply(
            200,
            &[
                text,
                ("X-Test", "yes".into()),
                ("Cache-Control", "no-store".into()),
            ],
            b"hi\n",
        );
    } else if path == "/echo" {
        let mut lines: Vec<String> = headers
            .iter()
            .filter(|(k, _)| k != "host")
            .map(|(k, v)| format!("{k}: {v}"))
            .collect();
        lines.sort();
        let mut out = format!("{method} {target}\n{}\n\n", lines.join("\n")).into_bytes();
        out.extend_from_slice(&body);
        reply(200, &[text], &out);
    } else if let Some(n) = path.strip_prefix("/status/") {
        let status = n.parse().unwrap_or(500);
        reply(status, &[text], format!("status {status}\n").as_bytes());
    } else if let Some(n) = path.strip_prefix("/redirect/") {
        let n: u32 = n.parse().unwrap_or(0);
        let next = if n <= 1 {
            "/hello".to_string()
        } else {
            format!("/redirect/{}", n - 1)
        };
        reply(302, &[("Location", next)], b"");
    } else if path == "/to" {
        let url = target
            .split_once("?url=")
            .map_or("", |(_, u)| u)
            .to_string();
        reply(302, &[("Location", url)], b"");
    } else if path == "/gzip" {
        let wants = header("accept-encoding").is_some_and(|v| v.contains("gzip"));
        if wants {
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            gz.write_all(b"compressed hello\n").unwrap();
            let data = gz.finish().unwrap();
            reply(200, &[text, ("Content-Encoding", "gzip".into())], &data);
        } else {
            reply(200, &[text], b"compressed hello\n");
        }
    } else if let Some(n) = path.strip_prefix("/big/") {
        let n: usize = n.parse().unwrap_or(0).min(64 << 20);
        reply(
            200,
            &[("Content-Type", "application/octet-stream".into())],
            &vec![b'x'; n],
        );
    } else {
        reply(404, &[text], b"not found\n");
    }
}
