//! `curl`: HTTP requests sent by the host, through the workspace's network policy (nothing
//! is reachable until the policy allows a host: `computer net allow URL`). The flags agents
//! use, with curl 7.88's output, messages and exit codes; TLS is always verified (`-k` is
//! refused).

use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{parser, string};
use shell_base::host::{HttpError, HttpHead, HttpRequest, HttpResponse};

use crate::stream::read_file;

/// What `curl` sends as its `User-Agent` (the version its cases were recorded with).
const USER_AGENT: &str = "curl/7.88.1";

/// A body part of `-d`, `--data-binary`, `--data-raw` or `--data-urlencode`.
enum Data {
    Ascii(String),
    Binary(String),
    Raw(String),
    UrlEncode(String),
}

#[derive(Default)]
struct Options {
    urls: Vec<String>,
    outputs: Vec<Output>,
    silent: bool,
    no_meter: bool,
    show_error: bool,
    fail: bool,
    fail_with_body: bool,
    location: bool,
    max_redirs: Option<u32>,
    method: Option<String>,
    headers: Vec<String>,
    data: Vec<Data>,
    form: Vec<String>,
    get: bool,
    user: Option<String>,
    head: bool,
    include: bool,
    dump_header: Option<String>,
    write_out: Option<String>,
    max_time: Option<f64>,
    retry: u32,
    retry_delay: Option<f64>,
    compressed: bool,
    user_agent: Option<String>,
    referer: Option<String>,
    verbose: bool,
    create_dirs: bool,
}

/// Where one URL's body goes: `-o FILE` or `-O` (the URL's last path segment).
enum Output {
    File(String),
    RemoteName,
}

/// curl's exit status and message for a failure (the message is shown unless `-s` without `-S`).
struct Failure {
    code: i32,
    message: String,
}

fn failure(code: i32, message: impl Into<String>) -> Failure {
    Failure {
        code,
        message: message.into(),
    }
}

pub async fn curl(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let o = match options(argv) {
        Ok(o) => o,
        Err(message) => {
            // curl 7.88 says nothing more than the hint when no URL was given.
            let text = if message.is_empty() {
                String::new()
            } else {
                format!("curl: {message}\n")
            };
            let _ = sh
                .io()
                .stderr
                .write_all(
                    format!(
                        "{text}curl: try 'curl --help' or 'curl --manual' for more information\n"
                    )
                    .as_bytes(),
                )
                .await;
            return 2;
        }
    };
    let mut status = 0;
    for (i, url) in o.urls.iter().enumerate() {
        let output = o.outputs.get(i);
        status = transfer(sh, &o, url, output).await;
    }
    status
}

fn options(argv: &[String]) -> Result<Options, String> {
    let mut o = Options::default();
    let mut p = parser(argv);
    let value = |p: &mut lexopt::Parser, name: &str| -> Result<String, String> {
        p.value()
            .map(string)
            .map_err(|_| format!("option {name}: requires parameter"))
    };
    loop {
        let arg = match p.next() {
            Ok(Some(arg)) => arg,
            Ok(None) => break,
            Err(e) => return Err(format!("option {e}: is unknown")),
        };
        match arg {
            Short('s') | Long("silent") => o.silent = true,
            Short('S') | Long("show-error") => o.show_error = true,
            Short('f') | Long("fail") => o.fail = true,
            Long("fail-with-body") => o.fail_with_body = true,
            Short('L') | Long("location") => o.location = true,
            Long("max-redirs") => {
                let v = value(&mut p, "--max-redirs")?;
                o.max_redirs = Some(v.parse().map_err(|_| {
                    "option --max-redirs: expected a proper numerical parameter".to_string()
                })?);
            }
            Short('o') | Long("output") => o.outputs.push(Output::File(value(&mut p, "-o")?)),
            Short('O') | Long("remote-name") => o.outputs.push(Output::RemoteName),
            Short('X') | Long("request") => o.method = Some(value(&mut p, "-X")?),
            Short('H') | Long("header") => o.headers.push(value(&mut p, "-H")?),
            Short('d') | Long("data") | Long("data-ascii") => {
                o.data.push(Data::Ascii(value(&mut p, "-d")?))
            }
            Long("data-binary") => o.data.push(Data::Binary(value(&mut p, "--data-binary")?)),
            Long("data-raw") => o.data.push(Data::Raw(value(&mut p, "--data-raw")?)),
            Long("data-urlencode") => o
                .data
                .push(Data::UrlEncode(value(&mut p, "--data-urlencode")?)),
            Long("json") => {
                o.data.push(Data::Binary(value(&mut p, "--json")?));
                o.headers.push("Content-Type: application/json".into());
                o.headers.push("Accept: application/json".into());
            }
            Short('F') | Long("form") => o.form.push(value(&mut p, "-F")?),
            Short('G') | Long("get") => o.get = true,
            Short('u') | Long("user") => o.user = Some(value(&mut p, "-u")?),
            Short('I') | Long("head") => o.head = true,
            Short('i') | Long("include") => o.include = true,
            Short('D') | Long("dump-header") => o.dump_header = Some(value(&mut p, "-D")?),
            Short('w') | Long("write-out") => o.write_out = Some(value(&mut p, "-w")?),
            Short('m') | Long("max-time") => {
                let v = value(&mut p, "-m")?;
                o.max_time =
                    Some(seconds(&v).ok_or("option -m: expected a proper numerical parameter")?);
            }
            Long("connect-timeout") => {
                let v = value(&mut p, "--connect-timeout")?;
                seconds(&v)
                    .ok_or("option --connect-timeout: expected a proper numerical parameter")?;
            }
            Long("retry") => {
                let v = value(&mut p, "--retry")?;
                o.retry = v.parse().map_err(|_| {
                    "option --retry: expected a proper numerical parameter".to_string()
                })?;
            }
            Long("retry-delay") => {
                let v = value(&mut p, "--retry-delay")?;
                o.retry_delay = Some(
                    seconds(&v)
                        .ok_or("option --retry-delay: expected a proper numerical parameter")?,
                );
            }
            Long("retry-max-time") | Long("retry-connrefused") | Long("retry-all-errors") => {
                if matches!(arg, Long("retry-max-time")) {
                    value(&mut p, "--retry-max-time")?;
                }
            }
            Long("compressed") => o.compressed = true,
            Short('A') | Long("user-agent") => o.user_agent = Some(value(&mut p, "-A")?),
            Short('e') | Long("referer") => o.referer = Some(value(&mut p, "-e")?),
            Short('v') | Long("verbose") => o.verbose = true,
            Long("create-dirs") => o.create_dirs = true,
            Long("url") => o.urls.push(value(&mut p, "--url")?),
            Short('k') | Long("insecure") => {
                return Err(
                    "option -k/--insecure is refused: TLS is always verified here (a private CA is \
                     trusted on the host with COMPUTER_CA_FILE)"
                        .into(),
                );
            }
            Long("no-progress-meter") | Short('#') | Long("progress-bar") => o.no_meter = true,
            // Accepted and without effect here: the host's client decides these.
            Long("no-buffer") | Short('N') | Long("http1.1") | Long("tlsv1.2")
            | Long("ssl-reqd") | Long("globoff") | Short('g') | Long("no-keepalive")
            | Long("tcp-nodelay") => {}
            Value(v) => o.urls.push(string(v)),
            other => {
                let typed = shell_base::args::as_typed(&other);
                return Err(format!("option {typed}: is unknown"));
            }
        }
    }
    if o.urls.is_empty() {
        return Err(String::new());
    }
    Ok(o)
}

fn seconds(text: &str) -> Option<f64> {
    text.parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s >= 0.0)
}

/// One URL: the request (with its retries), the output, `-w`. Its exit status.
async fn transfer(sh: &mut dyn Context, o: &Options, url: &str, output: Option<&Output>) -> i32 {
    let started = std::time::Instant::now();
    let url = with_scheme(url);
    let result = match request(sh, o, &url).await {
        Ok(req) => send_with_retries(sh, o, &req).await.map(|r| (req, r)),
        Err(f) => Err(f),
    };
    let (req, mut response) = match result {
        Ok(done) => done,
        Err(f) => {
            report(sh, o, &f).await;
            write_out(sh, o, &url, None, "GET", f.code, started).await;
            return f.code;
        }
    };
    let mut status = 0;
    let code = response.head.status;
    let failed = (o.fail || o.fail_with_body) && code >= 400;
    // The heads: the redirects' and the final one's, for -i, -I, -D and -v.
    let mut heads = String::new();
    for head in response.redirects.iter().chain([&response.head]) {
        heads.push_str(&head_text(head));
    }
    if o.verbose {
        let _ = sh
            .io()
            .stderr
            .write_all(verbose_text(&req, &heads).as_bytes())
            .await;
    }
    if let Some(file) = &o.dump_header
        && let Err(f) = write_to(sh, file, heads.as_bytes(), o.create_dirs).await
    {
        report(sh, o, &f).await;
        return f.code;
    }
    let downloaded = response.body.len();
    let body = if o.compressed {
        match decompress(&response) {
            Ok(body) => body,
            Err(f) => {
                report(sh, o, &f).await;
                return f.code;
            }
        }
    } else {
        // The body can be large: moved, not copied.
        std::mem::take(&mut response.body)
    };
    if failed && !o.fail_with_body {
        let f = failure(22, format!("The requested URL returned error: {code}"));
        report(sh, o, &f).await;
        write_out(
            sh,
            o,
            &url,
            Some((&response, downloaded)),
            &req.method,
            22,
            started,
        )
        .await;
        return 22;
    }
    let shown_head = if o.include || o.head {
        heads.as_bytes()
    } else {
        &[]
    };
    let shown_body: &[u8] = if o.head { &[] } else { &body };
    let target = match output {
        Some(Output::File(f)) if f != "-" => Some(f.clone()),
        Some(Output::RemoteName) => match remote_name(&url) {
            Some(name) => Some(name),
            None => {
                let f = failure(23, "Failed writing received data to disk/application");
                report(sh, o, &f).await;
                return 23;
            }
        },
        _ => None,
    };
    match target {
        Some(file) => {
            let written = if shown_head.is_empty() {
                write_to(sh, &file, shown_body, o.create_dirs).await
            } else {
                write_to(sh, &file, &[shown_head, shown_body].concat(), o.create_dirs).await
            };
            if let Err(f) = written {
                report(sh, o, &f).await;
                return f.code;
            }
        }
        None => {
            if sh.io().stdout.write_all(shown_head).await.is_err()
                || sh.io().stdout.write_all(shown_body).await.is_err()
            {
                return 23;
            }
        }
    }
    if !o.silent && !o.no_meter {
        let _ = sh
            .io()
            .stderr
            .write_all(meter(downloaded, req.body.len()).as_bytes())
            .await;
    }
    if failed {
        let f = failure(22, format!("The requested URL returned error: {code}"));
        report(sh, o, &f).await;
        status = 22;
    }
    write_out(
        sh,
        o,
        &url,
        Some((&response, downloaded)),
        &req.method,
        status,
        started,
    )
    .await;
    status
}

/// curl takes `host/path` as `http://host/path`.
fn with_scheme(url: &str) -> String {
    if url.contains("://") {
        url.to_string()
    } else {
        format!("http://{url}")
    }
}

/// The request the options make for `url`.
async fn request(sh: &mut dyn Context, o: &Options, url: &str) -> Result<HttpRequest, Failure> {
    let scheme = url.split("://").next().unwrap_or("").to_ascii_lowercase();
    if scheme != "http" && scheme != "https" {
        return Err(failure(
            1,
            format!("Protocol \"{scheme}\" not supported or disabled in libcurl"),
        ));
    }
    let mut url = url.to_string();
    let mut headers: Vec<(String, String)> = Vec::new();
    let mut body = Vec::new();
    let mut method = if o.head { "HEAD" } else { "GET" }.to_string();
    let mut content_type = None;
    if !o.data.is_empty() {
        let joined = data_body(sh, &o.data).await?;
        if o.get {
            url.push(if url.contains('?') { '&' } else { '?' });
            url.push_str(&String::from_utf8_lossy(&joined));
        } else {
            body = joined;
            method = "POST".into();
            content_type = Some("application/x-www-form-urlencoded".to_string());
        }
    }
    if !o.form.is_empty() {
        let (form, boundary) = form_body(sh, &o.form).await?;
        body = form;
        method = "POST".into();
        content_type = Some(format!("multipart/form-data; boundary={boundary}"));
    }
    if let Some(m) = &o.method {
        method = m.clone();
    }
    let given = |name: &str| {
        o.headers.iter().any(|h| {
            h.split_once(':')
                .is_some_and(|(k, _)| k.trim().eq_ignore_ascii_case(name))
        })
    };
    if let Some(user) = &o.user {
        let pair = if user.contains(':') {
            user.clone()
        } else {
            format!("{user}:")
        };
        headers.push((
            "Authorization".into(),
            format!("Basic {}", base64(pair.as_bytes())),
        ));
    }
    if !given("user-agent") {
        headers.push((
            "User-Agent".into(),
            o.user_agent.clone().unwrap_or_else(|| USER_AGENT.into()),
        ));
    }
    if !given("accept") {
        headers.push(("Accept".into(), "*/*".into()));
    }
    if let Some(referer) = &o.referer {
        headers.push(("Referer".into(), referer.clone()));
    }
    if o.compressed && !given("accept-encoding") {
        headers.push(("Accept-Encoding".into(), "deflate, gzip, zstd".into()));
    }
    if let Some(ct) = content_type.filter(|_| !given("content-type")) {
        headers.push(("Content-Type".into(), ct));
    }
    for h in &o.headers {
        // `Name:` removes a header curl would send; `Name;` sends it empty.
        if let Some((name, value)) = h.split_once(':') {
            let name = name.trim();
            headers.retain(|(k, _)| !k.eq_ignore_ascii_case(name));
            let value = value.trim();
            if !value.is_empty() {
                headers.push((name.to_string(), value.to_string()));
            }
        } else if let Some(name) = h.strip_suffix(';') {
            headers.push((name.trim().to_string(), String::new()));
        }
    }
    let max_redirects = if o.location {
        o.max_redirs.unwrap_or(50)
    } else {
        0
    };
    Ok(HttpRequest {
        method,
        url,
        headers,
        body,
        max_redirects,
        timeout_ms: o.max_time.map(|s| (s * 1000.0) as u64),
        max_bytes: None,
    })
}

/// The body of the `-d` family, joined with `&` as curl does.
async fn data_body(sh: &mut dyn Context, data: &[Data]) -> Result<Vec<u8>, Failure> {
    let mut parts: Vec<Vec<u8>> = Vec::new();
    for d in data {
        let part = match d {
            Data::Raw(text) => text.as_bytes().to_vec(),
            Data::Ascii(text) => match text.strip_prefix('@') {
                Some(file) => {
                    let mut bytes = read(sh, file).await?;
                    bytes.retain(|b| *b != b'\n' && *b != b'\r');
                    bytes
                }
                None => text.as_bytes().to_vec(),
            },
            Data::Binary(text) => match text.strip_prefix('@') {
                Some(file) => read(sh, file).await?,
                None => text.as_bytes().to_vec(),
            },
            Data::UrlEncode(text) => {
                // `content`, `=content`, `name=content`, `@file`, `name@file`.
                let (name, content) = if let Some(rest) = text.strip_prefix('=') {
                    (None, rest.as_bytes().to_vec())
                } else if let Some((name, content)) = text.split_once('=') {
                    (Some(name), content.as_bytes().to_vec())
                } else if let Some((name, file)) = text.split_once('@') {
                    let name = (!name.is_empty()).then_some(name);
                    (name, read(sh, file).await?)
                } else {
                    (None, text.as_bytes().to_vec())
                };
                let mut part = Vec::new();
                if let Some(name) = name {
                    part.extend_from_slice(name.as_bytes());
                    part.push(b'=');
                }
                part.extend_from_slice(url_encode(&content).as_bytes());
                part
            }
        };
        parts.push(part);
    }
    Ok(parts.join(&b'&'))
}

/// A file (`-` for stdin) a body part names.
async fn read(sh: &mut dyn Context, file: &str) -> Result<Vec<u8>, Failure> {
    read_file(sh, "curl", file)
        .await
        .map_err(|_| failure(26, "Failed to open/read local data from file/application"))
}

/// `-F` fields as `multipart/form-data`, and the boundary.
async fn form_body(sh: &mut dyn Context, fields: &[String]) -> Result<(Vec<u8>, String), Failure> {
    let boundary = format!("------------------------{}", random_hex(8));
    let mut body = Vec::new();
    for field in fields {
        let Some((name, value)) = field.split_once('=') else {
            return Err(failure(26, "Illegally formatted input field!"));
        };
        body.extend_from_slice(format!("--{boundary}\r\n").as_bytes());
        if let Some(file) = value.strip_prefix('@') {
            let (file, given_type) = match file.split_once(";type=") {
                Some((f, t)) => (f, Some(t.to_string())),
                None => (file, None),
            };
            let content = read(sh, file).await?;
            let base = file.rsplit('/').next().unwrap_or(file);
            body.extend_from_slice(
                format!(
                    "Content-Disposition: form-data; name=\"{name}\"; filename=\"{base}\"\r\nContent-Type: {}\r\n\r\n",
                    given_type.unwrap_or_else(|| mime_type(base).to_string())
                )
                .as_bytes(),
            );
            body.extend_from_slice(&content);
        } else if let Some(file) = value.strip_prefix('<') {
            let content = read(sh, file).await?;
            body.extend_from_slice(
                format!("Content-Disposition: form-data; name=\"{name}\"\r\n\r\n").as_bytes(),
            );
            body.extend_from_slice(&content);
        } else {
            body.extend_from_slice(
                format!("Content-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}")
                    .as_bytes(),
            );
        }
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    Ok((body, boundary))
}

/// curl's guess of a file's type by its extension.
fn mime_type(name: &str) -> &'static str {
    let ext = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
    match ext.as_deref() {
        Some("gif") => "image/gif",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("png") => "image/png",
        Some("svg") => "image/svg+xml",
        Some("txt") => "text/plain",
        Some("htm" | "html") => "text/html",
        Some("pdf") => "application/pdf",
        Some("xml") => "application/xml",
        _ => "application/octet-stream",
    }
}

fn random_hex(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    // The boundary only needs to be unlikely in the body; the clock is enough entropy.
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    for (i, b) in buf.iter_mut().enumerate() {
        *b = (seed >> ((i % 16) * 8)) as u8 ^ (i as u8).wrapping_mul(151);
    }
    buf.iter().map(|b| format!("{b:02x}")).collect()
}

/// Sends `req`, again after a transient failure while `--retry` allows.
async fn send_with_retries(
    sh: &mut dyn Context,
    o: &Options,
    req: &HttpRequest,
) -> Result<HttpResponse, Failure> {
    let mut left = o.retry;
    let mut delay = o.retry_delay.unwrap_or(1.0);
    loop {
        let started = std::time::Instant::now();
        let result = sh.host().http(req);
        let transient = match &result {
            Ok(r) => matches!(r.head.status, 408 | 429 | 500 | 502 | 503 | 504),
            Err(HttpError::Timeout(_) | HttpError::Connect(_)) => true,
            Err(_) => false,
        };
        if !transient || left == 0 {
            return result.map_err(|e| http_failure(req, &e, started));
        }
        if !o.silent {
            let what = if result.is_ok() {
                "HTTP error"
            } else {
                "Timeout"
            };
            let _ = sh
                .io()
                .stderr
                .write_all(
                    format!(
                        "Warning: Problem : {what}. Will retry in {} seconds. {left} retries left.\n",
                        delay as u64
                    )
                    .as_bytes(),
                )
                .await;
        }
        std::thread::sleep(std::time::Duration::from_secs_f64(delay));
        left -= 1;
        if o.retry_delay.is_none() {
            delay = (delay * 2.0).min(600.0);
        }
    }
}

/// A host's error as curl reports it.
fn http_failure(req: &HttpRequest, e: &HttpError, started: std::time::Instant) -> Failure {
    let host = host_of(&req.url);
    match e {
        // A header or method the host will not send is a bad argument (43), not a bad URL.
        HttpError::InvalidUrl(m) if m.contains("header") || m.contains("method") => {
            failure(43, m.clone())
        }
        HttpError::InvalidUrl(m) => failure(
            3,
            format!("URL using bad/illegal format or missing URL ({m})"),
        ),
        HttpError::Refused(m) => failure(7, m.clone()),
        HttpError::Resolve(_) => failure(6, format!("Could not resolve host: {}", host.0)),
        HttpError::Connect(_) => failure(
            7,
            format!(
                "Failed to connect to {} port {} after {} ms: Couldn't connect to server",
                host.0,
                host.1,
                started.elapsed().as_millis()
            ),
        ),
        HttpError::Tls(m) => failure(60, format!("SSL certificate problem: {m}")),
        HttpError::Timeout(m) => failure(28, format!("Operation timed out ({m})")),
        HttpError::TooLarge(m) => {
            failure(63, format!("Exceeded the maximum allowed file size ({m})"))
        }
        HttpError::TooManyRedirects(_) => failure(
            47,
            format!("Maximum ({}) redirects followed", req.max_redirects),
        ),
        HttpError::Limit(m) | HttpError::Failed(m) => failure(56, m.clone()),
    }
}

/// The host and port of `url`, for messages.
fn host_of(url: &str) -> (String, u16) {
    let (scheme, rest) = url.split_once("://").unwrap_or(("http", url));
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let authority = authority.rsplit('@').next().unwrap_or(authority);
    let default = if scheme.eq_ignore_ascii_case("https") {
        443
    } else {
        80
    };
    if let Some(v6) = authority.strip_prefix('[') {
        let (host, rest) = v6.split_once(']').unwrap_or((v6, ""));
        let port = rest
            .strip_prefix(':')
            .and_then(|p| p.parse().ok())
            .unwrap_or(default);
        return (host.to_string(), port);
    }
    match authority.rsplit_once(':') {
        Some((host, port)) => (host.to_string(), port.parse().unwrap_or(default)),
        None => (authority.to_string(), default),
    }
}

async fn report(sh: &mut dyn Context, o: &Options, f: &Failure) {
    if !o.silent || o.show_error {
        let _ = sh
            .io()
            .stderr
            .write_all(format!("curl: ({}) {}\n", f.code, f.message).as_bytes())
            .await;
    }
}

/// A head as curl prints it: the status line and headers with CRLF, then an empty line.
fn head_text(head: &HttpHead) -> String {
    let http2 = head.version.starts_with("HTTP/2") || head.version.starts_with("HTTP/3");
    let mut out = if http2 {
        format!("{} {} \r\n", head.version, head.status)
    } else {
        format!("{} {} {}\r\n", head.version, head.status, head.reason)
    };
    for (name, value) in &head.headers {
        let name = if http2 {
            name.clone()
        } else {
            title_case(name)
        };
        out.push_str(&format!("{name}: {value}\r\n"));
    }
    out.push_str("\r\n");
    out
}

/// `content-type` as `Content-Type` (the host's HTTP/1 client gives names in lower case).
fn title_case(name: &str) -> String {
    name.split('-')
        .map(|w| {
            let mut c = w.chars();
            match c.next() {
                Some(f) => f.to_ascii_uppercase().to_string() + c.as_str(),
                None => String::new(),
            }
        })
        .collect::<Vec<_>>()
        .join("-")
}

fn verbose_text(req: &HttpRequest, heads: &str) -> String {
    let (host, port) = host_of(&req.url);
    let after = req.url.split_once("://").map_or("", |(_, r)| r);
    let path = after.find('/').map_or("/", |i| &after[i..]);
    let path = path.split('#').next().unwrap_or(path);
    let mut out = format!("> {} {path} HTTP/1.1\n> Host: {host}:{port}\n", req.method);
    for (k, v) in &req.headers {
        if k.eq_ignore_ascii_case("authorization") {
            out.push_str(&format!("> {k}: [hidden]\n"));
        } else {
            out.push_str(&format!("> {k}: {v}\n"));
        }
    }
    out.push_str(">\n");
    for line in heads.split("\r\n") {
        out.push_str(&format!("< {line}\n"));
    }
    out
}

/// The body, decompressed as its `Content-Encoding` says (`--compressed`).
fn decompress(r: &HttpResponse) -> Result<Vec<u8>, Failure> {
    use std::io::Read;
    let encoding = r
        .head
        .header("content-encoding")
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    let bad = |e: std::io::Error| {
        failure(
            61,
            format!("Error while processing content unencoding: {e}"),
        )
    };
    let limit = crate::stream::MEMORY_LIMIT;
    match encoding.as_str() {
        "gzip" | "x-gzip" => crate::codec::Codec::Gzip
            .decompress(&r.body, limit)
            .map_err(bad),
        "zstd" => crate::codec::Codec::Zstd
            .decompress(&r.body, limit)
            .map_err(bad),
        "deflate" => {
            let mut out = Vec::new();
            flate2::read::ZlibDecoder::new(r.body.as_slice())
                .take(limit as u64 + 1)
                .read_to_end(&mut out)
                .map_err(bad)?;
            Ok(out)
        }
        "" | "identity" => Ok(r.body.clone()),
        other => Err(failure(
            61,
            format!("Unrecognized content encoding type: {other}"),
        )),
    }
}

/// The last segment of the URL's path (`-O`).
fn remote_name(url: &str) -> Option<String> {
    let after = url.split_once("://").map_or(url, |(_, r)| r);
    let path = after.split(['?', '#']).next().unwrap_or(after);
    let path = path.find('/').map_or("", |i| &path[i..]);
    let name = path.rsplit('/').next().unwrap_or("");
    (!name.is_empty()).then(|| name.to_string())
}

async fn write_to(
    sh: &mut dyn Context,
    file: &str,
    data: &[u8],
    create_dirs: bool,
) -> Result<(), Failure> {
    if file == "-" {
        let _ = sh.io().stdout.write_all(data).await;
        return Ok(());
    }
    if file == "/dev/null" {
        return Ok(());
    }
    let path = sh.path(file);
    if create_dirs && let Some(parent) = path.parent() {
        let _ = std::fs::create_dir_all(parent);
    }
    std::fs::write(&path, data).map_err(|e| {
        failure(
            23,
            format!(
                "Failure writing output to destination ({file}: {})",
                shell_base::errno::io_message(&e)
            ),
        )
    })
}

/// curl's progress meter as it stands at the end of a transfer (shown without `-s`).
fn meter(down: usize, up: usize) -> String {
    let total = down.max(up);
    format!(
        "  % Total    % Received % Xferd  Average Speed   Time    Time     Time  Current\n                                 Dload  Upload   Total   Spent    Left  Speed\n{:>3} {:>5}  {:>3} {:>5}  {:>3} {:>5}    0      0 --:--:-- --:--:-- --:--:--     0\n",
        if total == 0 { 0 } else { 100 },
        size(total as u64),
        if down == 0 { 0 } else { 100 },
        size(down as u64),
        if up == 0 { 0 } else { 100 },
        size(up as u64),
    )
}

/// A size as curl's meter shows it (`1234`, `12345`, `120k`, `15.2M`).
fn size(n: u64) -> String {
    if n < 100_000 {
        n.to_string()
    } else if n < 10_000 << 10 {
        format!("{}k", n >> 10)
    } else if n < 100 << 20 {
        format!("{:.1}M", n as f64 / (1 << 20) as f64)
    } else {
        format!("{}M", n >> 20)
    }
}

/// `-w FORMAT` after a transfer: `%{http_code}`, `%{url_effective}`, `%header{name}`, ...
async fn write_out(
    sh: &mut dyn Context,
    o: &Options,
    url: &str,
    response: Option<(&HttpResponse, usize)>,
    method: &str,
    exit: i32,
    started: std::time::Instant,
) {
    let Some(format) = &o.write_out else { return };
    let format = match format.strip_prefix('@') {
        Some(file) => match read_file(sh, "curl", file).await {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(_) => return,
        },
        None => format.clone(),
    };
    let (mut out, mut err) = (String::new(), String::new());
    let mut to_stderr = false;
    let mut chars = format.chars().peekable();
    let mut warnings = Vec::new();
    while let Some(c) = chars.next() {
        let target = if to_stderr { &mut err } else { &mut out };
        match c {
            '\\' => match chars.next() {
                Some('n') => target.push('\n'),
                Some('r') => target.push('\r'),
                Some('t') => target.push('\t'),
                Some('\\') => target.push('\\'),
                Some(other) => {
                    target.push('\\');
                    target.push(other);
                }
                None => target.push('\\'),
            },
            '%' if chars.peek() == Some(&'%') => {
                chars.next();
                target.push('%');
            }
            '%' if chars.peek() == Some(&'{') => {
                chars.next();
                let name: String = chars.by_ref().take_while(|c| *c != '}').collect();
                match name.as_str() {
                    "stdout" => to_stderr = false,
                    "stderr" => to_stderr = true,
                    _ => match variable(&name, url, response, method, exit, started) {
                        Some(v) => target.push_str(&v),
                        None => warnings.push(name),
                    },
                }
            }
            '%' if format_has_header(&mut chars) => {
                let name: String = chars.by_ref().take_while(|c| *c != '}').collect();
                if let Some(v) = response.and_then(|(r, _)| r.head.header(&name)) {
                    target.push_str(v);
                }
            }
            other => target.push(other),
        }
    }
    for name in warnings {
        let _ = sh
            .io()
            .stderr
            .write_all(format!("curl: unknown --write-out variable: '{name}'\n").as_bytes())
            .await;
    }
    let _ = sh.io().stdout.write_all(out.as_bytes()).await;
    let _ = sh.io().stderr.write_all(err.as_bytes()).await;
}

/// Whether `%` starts `%header{`: consumes `header{` if so.
fn format_has_header(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> bool {
    let ahead: String = chars.clone().take(7).collect();
    if ahead == "header{" {
        for _ in 0..7 {
            chars.next();
        }
        true
    } else {
        false
    }
}

fn variable(
    name: &str,
    url: &str,
    response: Option<(&HttpResponse, usize)>,
    method: &str,
    exit: i32,
    started: std::time::Instant,
) -> Option<String> {
    let r = response.map(|(r, _)| r);
    let status = r.map_or(0, |r| r.head.status);
    Some(match name {
        "http_code" | "response_code" => format!("{status:03}"),
        "url_effective" => r.map_or(url.to_string(), |r| r.url.clone()),
        "url" => url.to_string(),
        "size_download" => response.map_or(0, |(_, size)| size).to_string(),
        "size_upload" => "0".into(),
        "size_header" => r.map_or(0, |r| head_text(&r.head).len()).to_string(),
        "content_type" => r
            .and_then(|r| r.head.header("content-type"))
            .unwrap_or("")
            .to_string(),
        "num_redirects" => r.map_or(0, |r| r.redirects.len()).to_string(),
        "redirect_url" => r
            .filter(|r| (300..400).contains(&r.head.status))
            .and_then(|r| r.head.header("location").map(|l| join_url(&r.url, l)))
            .unwrap_or_default(),
        "method" => method.to_string(),
        "scheme" => url.split("://").next().unwrap_or("").to_ascii_uppercase(),
        "http_version" => r
            .map(|r| r.head.version.trim_start_matches("HTTP/").to_string())
            .unwrap_or_else(|| "0".into()),
        "exitcode" => exit.to_string(),
        "errormsg" => String::new(),
        "remote_ip" | "local_ip" => String::new(),
        "time_total" | "time_starttransfer" => format!("{:.6}", started.elapsed().as_secs_f64()),
        "time_namelookup" | "time_connect" | "time_appconnect" | "time_pretransfer"
        | "time_redirect" => format!("{:.6}", 0.0),
        "speed_download" | "speed_upload" => "0".into(),
        _ => return None,
    })
}

/// `location` (a redirect's target) as an absolute URL against `base`.
fn join_url(base: &str, location: &str) -> String {
    if location.contains("://") {
        return location.to_string();
    }
    let (scheme, rest) = base.split_once("://").unwrap_or(("http", base));
    if let Some(net) = location.strip_prefix("//") {
        return format!("{scheme}://{net}");
    }
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, path) = (&rest[..end], &rest[end..]);
    if location.starts_with('/') {
        return format!("{scheme}://{authority}{location}");
    }
    let path = path.split(['?', '#']).next().unwrap_or("");
    let dir = path.rfind('/').map_or("/", |i| &path[..=i]);
    format!("{scheme}://{authority}{dir}{location}")
}

/// `--data-urlencode`'s encoding: everything but unreserved characters as `%XX`.
fn url_encode(bytes: &[u8]) -> String {
    let mut out = String::new();
    for &b in bytes {
        if b == b' ' {
            out.push('+');
        } else if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn base64(bytes: &[u8]) -> String {
    data_encoding::BASE64.encode(bytes)
}

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::Native;

    #[test]
    fn usage_errors_are_curls() {
        let ran = Native::new().run(&["curl"], "");
        assert_eq!(ran.status, 2);
        assert_eq!(
            ran.stderr,
            "curl: try 'curl --help' or 'curl --manual' for more information\n"
        );
        let ran = Native::new().run(&["curl", "-k", "https://x.test"], "");
        assert_eq!(ran.status, 2);
        assert!(
            ran.stderr.contains("--insecure is refused"),
            "{}",
            ran.stderr
        );
        let ran = Native::new().run(&["curl", "--bogus", "x"], "");
        assert_eq!(ran.status, 2);
        assert!(
            ran.stderr.starts_with("curl: option --bogus: is unknown"),
            "{}",
            ran.stderr
        );
    }

    #[test]
    fn without_a_network_the_failure_is_curls_and_write_out_still_prints() {
        let ran = Native::new().run(
            &["curl", "-sS", "-w", "%{http_code}\\n", "http://x.test/"],
            "",
        );
        assert_eq!(ran.status, 7);
        assert_eq!(ran.stdout, "000\n");
        assert!(
            ran.stderr.starts_with("curl: (7) network:"),
            "{}",
            ran.stderr
        );
        let ran = Native::new().run(&["curl", "-s", "ftp://x.test/"], "");
        assert_eq!((ran.status, ran.stderr.as_str()), (1, ""));
    }

    #[test]
    fn pieces() {
        assert_eq!(
            super::url_encode(b"a b&c=d/\xc3\xa9"),
            "a+b%26c%3Dd%2F%C3%A9"
        );
        assert_eq!(
            super::remote_name("http://h/a/b.tar.gz?x=1").as_deref(),
            Some("b.tar.gz")
        );
        assert_eq!(super::remote_name("http://h/"), None);
        assert_eq!(
            super::host_of("https://u@[::1]:8443/x"),
            ("::1".to_string(), 8443)
        );
        assert_eq!(
            super::host_of("http://h.test/x"),
            ("h.test".to_string(), 80)
        );
        assert_eq!(super::title_case("content-type"), "Content-Type");
        assert_eq!(super::size(123_456), "120k");
        assert_eq!(super::join_url("http://h:1/a/b?q", "/c"), "http://h:1/c");
        assert_eq!(super::join_url("http://h/a/b", "c"), "http://h/a/c");
        assert_eq!(super::join_url("https://h/a", "//g/x"), "https://g/x");
        assert_eq!(super::join_url("http://h", "https://o/"), "https://o/");
    }
}
