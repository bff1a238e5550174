//! `wget`: download URLs to files, through the host and the workspace's network policy (as
//! `curl`). The options agents use; the log on stderr is wget 1.21's in shape; TLS is always
//! verified (`--no-check-certificate` is refused).

use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{parser, string};
use shell_base::host::{HttpError, HttpRequest};

#[derive(Default)]
struct Options {
    urls: Vec<String>,
    quiet: bool,
    output: Option<String>,
    prefix: Option<String>,
    headers: Vec<(String, String)>,
    method: Option<String>,
    body: Option<Vec<u8>>,
    body_file: Option<String>,
    timeout: Option<f64>,
    tries: u32,
    max_redirect: u32,
    server_response: bool,
    user_agent: Option<String>,
    user: Option<String>,
    password: Option<String>,
}

pub async fn wget(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let mut o = match options(argv) {
        Ok(o) => o,
        Err(message) => {
            let _ = sh
                .io()
                .stderr
                .write_all(format!("wget: {message}\nUsage: wget [OPTION]... [URL]...\n\nTry `wget --help' for more options.\n").as_bytes())
                .await;
            // A missing URL is wget's generic failure; a bad option a parse error.
            return if message == "missing URL" { 1 } else { 2 };
        }
    };
    if let Some(file) = o.body_file.take() {
        match crate::stream::read_file(sh, "wget", &file).await {
            Ok(bytes) => o.body = Some(bytes),
            Err(m) => {
                let _ = sh.io().stderr.write_all(format!("{m}\n").as_bytes()).await;
                return 3;
            }
        }
    }
    let mut status = 0;
    // With -O, every document goes to the one file, one after another.
    let mut appended = false;
    for url in o.urls.clone() {
        let s = fetch(sh, &o, &url, &mut appended).await;
        if s != 0 {
            status = s;
        }
    }
    status
}

fn options(argv: &[String]) -> Result<Options, String> {
    let mut o = Options {
        tries: 20,
        max_redirect: 20,
        ..Options::default()
    };
    let mut p = parser(argv);
    let value = |p: &mut lexopt::Parser, name: &str| -> Result<String, String> {
        p.value()
            .map(string)
            .map_err(|_| format!("option requires an argument -- '{name}'"))
    };
    loop {
        let arg = match p.next() {
            Ok(Some(arg)) => arg,
            Ok(None) => break,
            Err(e) => return Err(e.to_string()),
        };
        match arg {
            Short('q') | Long("quiet") => o.quiet = true,
            Long("no-verbose") | Long("nv") | Short('v') | Long("verbose") => {}
            Short('O') | Long("output-document") => o.output = Some(value(&mut p, "O")?),
            Short('P') | Long("directory-prefix") => o.prefix = Some(value(&mut p, "P")?),
            Long("header") => {
                let h = value(&mut p, "header")?;
                match h.split_once(':') {
                    Some((k, v)) => o.headers.push((k.trim().into(), v.trim().into())),
                    None => return Err(format!("--header: Invalid header ‘{h}’.")),
                }
            }
            Long("method") => o.method = Some(value(&mut p, "method")?.to_ascii_uppercase()),
            Long("post-data") | Long("body-data") => {
                o.body = Some(value(&mut p, "post-data")?.into_bytes());
            }
            Long("post-file") | Long("body-file") => {
                o.body_file = Some(value(&mut p, "post-file")?)
            }
            Short('T') | Long("timeout") | Long("read-timeout") | Long("connect-timeout") => {
                let v = value(&mut p, "T")?;
                o.timeout = Some(
                    v.parse::<f64>()
                        .ok()
                        .filter(|t| t.is_finite() && *t >= 0.0)
                        .ok_or_else(|| format!("--timeout: Invalid time period ‘{v}’"))?,
                );
            }
            Short('t') | Long("tries") => {
                let v = value(&mut p, "t")?;
                o.tries = v
                    .parse()
                    .map_err(|_| format!("--tries: Invalid number ‘{v}’."))?;
            }
            Long("max-redirect") => {
                let v = value(&mut p, "max-redirect")?;
                o.max_redirect = v
                    .parse()
                    .map_err(|_| format!("--max-redirect: Invalid number ‘{v}’."))?;
            }
            Short('S') | Long("server-response") => o.server_response = true,
            Short('U') | Long("user-agent") => o.user_agent = Some(value(&mut p, "U")?),
            Long("user") | Long("http-user") => o.user = Some(value(&mut p, "user")?),
            Long("password") | Long("http-password") => {
                o.password = Some(value(&mut p, "password")?)
            }
            Long("no-check-certificate") => {
                return Err("--no-check-certificate is refused: TLS is always verified here (a private CA is trusted on the host with COMPUTER_CA_FILE)".into());
            }
            Short('c')
            | Long("continue")
            | Short('N')
            | Long("timestamping")
            | Long("no-clobber")
            | Short('n')
            | Long("show-progress")
            | Long("progress")
            | Long("no-cache") => {
                if matches!(arg, Long("progress")) {
                    value(&mut p, "progress")?;
                }
            }
            Value(v) => o.urls.push(string(v)),
            other => {
                let typed = shell_base::args::as_typed(&other);
                return Err(match typed.strip_prefix("--") {
                    Some(long) => format!("unrecognized option '--{long}'"),
                    None => format!("invalid option -- '{}'", typed.trim_start_matches('-')),
                });
            }
        }
    }
    if o.urls.is_empty() {
        return Err("missing URL".into());
    }
    Ok(o)
}

async fn fetch(sh: &mut dyn Context, o: &Options, url: &str, appended: &mut bool) -> i32 {
    let url = if url.contains("://") {
        url.to_string()
    } else {
        format!("http://{url}")
    };
    let mut headers = vec![
        (
            "User-Agent".to_string(),
            o.user_agent.clone().unwrap_or_else(|| "Wget/1.21.3".into()),
        ),
        ("Accept".into(), "*/*".into()),
        ("Accept-Encoding".into(), "identity".into()),
        ("Connection".into(), "Keep-Alive".into()),
    ];
    if let Some(user) = &o.user {
        let pair = format!("{user}:{}", o.password.as_deref().unwrap_or(""));
        headers.push((
            "Authorization".into(),
            format!("Basic {}", data_encoding::BASE64.encode(pair.as_bytes())),
        ));
    }
    for (k, v) in &o.headers {
        headers.retain(|(h, _)| !h.eq_ignore_ascii_case(k));
        headers.push((k.clone(), v.clone()));
    }
    let body = o.body.clone().unwrap_or_default();
    let method = o
        .method
        .clone()
        .unwrap_or_else(|| if o.body.is_some() { "POST" } else { "GET" }.into());
    if o.body.is_some()
        && !headers
            .iter()
            .any(|(k, _)| k.eq_ignore_ascii_case("content-type"))
    {
        headers.push((
            "Content-Type".into(),
            "application/x-www-form-urlencoded".into(),
        ));
    }
    let req = HttpRequest {
        method,
        url: url.clone(),
        headers,
        body,
        max_redirects: o.max_redirect,
        timeout_ms: o.timeout.map(|t| (t * 1000.0) as u64),
        max_bytes: None,
    };
    log(sh, o.quiet, format!("--{}--  {url}\n", now())).await;
    let mut tries = o.tries.max(1);
    let response = loop {
        match sh.host().http(&req) {
            Ok(r) => break r,
            Err(e) => {
                tries -= 1;
                let transient = matches!(e, HttpError::Timeout(_) | HttpError::Connect(_));
                if transient && tries > 0 {
                    log(sh, o.quiet, format!("{}  Retrying.\n\n", e.message())).await;
                    continue;
                }
                let (code, text) = match &e {
                    HttpError::Resolve(_) => {
                        let host = url
                            .split("://")
                            .nth(1)
                            .unwrap_or("")
                            .split(['/', ':'])
                            .next()
                            .unwrap_or("");
                        (
                            4,
                            format!("wget: unable to resolve host address ‘{host}’\n"),
                        )
                    }
                    HttpError::Tls(m) => {
                        (5, format!("ERROR: cannot verify the certificate: {m}\n"))
                    }
                    HttpError::InvalidUrl(m) => (1, format!("{m}\n")),
                    HttpError::TooManyRedirects(_) => {
                        (8, format!("{} redirections exceeded.\n", o.max_redirect))
                    }
                    other => (4, format!("{}\n", other.message())),
                };
                log(sh, o.quiet, text).await;
                return code;
            }
        }
    };
    for head in response.redirects.iter() {
        log(
            sh,
            o.quiet,
            format!(
                "HTTP request sent, awaiting response... {} {}\nLocation: {} [following]\n",
                head.status,
                head.reason,
                head.header("location").unwrap_or("")
            ),
        )
        .await;
    }
    let head = &response.head;
    log(
        sh,
        o.quiet,
        format!(
            "HTTP request sent, awaiting response... {} {}\n",
            head.status, head.reason
        ),
    )
    .await;
    if o.server_response {
        let mut text = format!("  {} {} {}\n", head.version, head.status, head.reason);
        for (k, v) in &head.headers {
            text.push_str(&format!("  {k}: {v}\n"));
        }
        log(sh, o.quiet, text).await;
    }
    if head.status >= 400 {
        log(
            sh,
            o.quiet,
            format!("{} ERROR {}: {}.\n\n", now(), head.status, head.reason),
        )
        .await;
        return 8;
    }
    let kind = head.header("content-type").unwrap_or("");
    log(
        sh,
        o.quiet,
        format!(
            "Length: {}{}\n",
            response.body.len(),
            if kind.is_empty() {
                String::new()
            } else {
                format!(" [{kind}]")
            }
        ),
    )
    .await;
    let to_stdout = o.output.as_deref() == Some("-");
    let name = match &o.output {
        Some(name) => name.clone(),
        None => {
            let base = local_name(&response.url);
            let dir = o
                .prefix
                .clone()
                .map(|p| format!("{p}/"))
                .unwrap_or_default();
            let mut name = format!("{dir}{base}");
            let mut n = 1;
            while sh.path(&name).exists() {
                name = format!("{dir}{base}.{n}");
                n += 1;
            }
            name
        }
    };
    if to_stdout {
        log(sh, o.quiet, "Saving to: ‘STDOUT’\n\n".into()).await;
        let _ = sh.io().stdout.write_all(&response.body).await;
    } else {
        log(sh, o.quiet, format!("Saving to: ‘{name}’\n\n")).await;
        let path = sh.path(&name);
        if let Some(parent) = path.parent().filter(|_| o.prefix.is_some()) {
            let _ = std::fs::create_dir_all(parent);
        }
        let written = if o.output.is_some() && *appended {
            use std::io::Write;
            std::fs::OpenOptions::new()
                .append(true)
                .open(&path)
                .and_then(|mut f| f.write_all(&response.body))
        } else {
            std::fs::write(&path, &response.body)
        };
        if let Err(e) = written {
            let _ = sh
                .io()
                .stderr
                .write_all(format!("{name}: {}\n", shell_base::errno::io_message(&e)).as_bytes())
                .await;
            return 3;
        }
        *appended = true;
    }
    let n = response.body.len();
    log(
        sh,
        o.quiet,
        format!(
            "     0K {:>54} 100%\n\n{} - ‘{}’ saved [{n}/{n}]\n\n",
            "",
            now(),
            if to_stdout { "STDOUT" } else { name.as_str() }
        ),
    )
    .await;
    0
}

/// Writes `text` to stderr unless `-q`.
async fn log(sh: &mut dyn Context, quiet: bool, text: String) {
    if !quiet {
        let _ = sh.io().stderr.write_all(text.as_bytes()).await;
    }
}

/// The file wget names a download after: the URL path's last segment, or `index.html`.
fn local_name(url: &str) -> String {
    let after = url.split_once("://").map_or(url, |(_, r)| r);
    let path = after.split(['?', '#']).next().unwrap_or(after);
    let path = path.find('/').map_or("", |i| &path[i..]);
    match path.rsplit('/').next() {
        Some(name) if !name.is_empty() => name.to_string(),
        _ => "index.html".into(),
    }
}

/// The time as wget's log shows it (`2026-12-05 20:40:01`, UTC).
fn now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    shell_base::clock::format(secs, 0, "%Y-%m-%d %H:%M:%S")
}

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::Native;

    #[test]
    fn usage_and_no_network() {
        let ran = Native::new().run(&["wget"], "");
        assert_eq!(ran.status, 1);
        assert!(
            ran.stderr.starts_with("wget: missing URL\n"),
            "{}",
            ran.stderr
        );
        let ran = Native::new().run(&["wget", "-q", "http://x.test/"], "");
        assert_eq!((ran.status, ran.stderr.as_str()), (4, ""));
        let ran = Native::new().run(&["wget", "http://x.test/"], "");
        assert_eq!(ran.status, 4);
        assert!(ran.stderr.contains("network:"), "{}", ran.stderr);
        assert_eq!(super::local_name("http://h/a/b.txt?x"), "b.txt");
        assert_eq!(super::local_name("http://h"), "index.html");
        assert_eq!(super::now().len(), 19);
    }
}
