//! What a request must look like before any route sees it, so that a web page in the user's
//! browser cannot use a server on the same machine: a browser lets any page send requests to
//! `localhost`, and with DNS rebinding a page's own name can point at 127.0.0.1.
//!
//! - `Host` must name this server (a loopback name or address) when it listens on loopback:
//!   a rebound name is refused.
//! - `Origin`, which browsers add to every cross-site request and to every POST, must be one
//!   the operator allowed (`--allow-origin`); clients that are not browsers send none.
//! - A POST carries `Content-Type: application/json` (or no body), and no request carries a
//!   type an HTML form can send (`text/plain`, `application/x-www-form-urlencoded`,
//!   `multipart/form-data`): those are the only bodies a page can send without asking first.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::{ApiError, AppState};

/// Refuses requests from web pages and rebound host names (403, saying which check failed).
pub(crate) async fn guard(
    State(state): State<Arc<AppState>>,
    request: Request,
    next: Next,
) -> Response {
    if let Err(why) = check(&state.config, &request) {
        return ApiError::new(StatusCode::FORBIDDEN, why).into_response();
    }
    next.run(request).await
}

fn check(config: &super::ServerConfig, request: &Request) -> Result<(), String> {
    let headers = request.headers();
    if config.listen.ip().is_loopback() {
        let host = headers
            .get(header::HOST)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
            .or_else(|| request.uri().authority().map(|a| a.to_string()))
            .unwrap_or_default();
        if !is_loopback_host(&host) {
            return Err(format!(
                "Host '{host}' is not this server: a server on loopback answers only \
                 localhost, 127.0.0.1 and [::1] (a page whose name was rebound to this \
                 machine is refused)"
            ));
        }
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or("?").trim_end_matches('/');
        if !config
            .allow_origins
            .iter()
            .any(|o| o.trim_end_matches('/').eq_ignore_ascii_case(origin))
        {
            return Err(format!(
                "Origin '{origin}' is not allowed: requests from web pages are refused \
                 unless the server was started with --allow-origin {origin}"
            ));
        }
    }
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .map(|v| v.to_str().unwrap_or("?").to_ascii_lowercase());
    let essence = content_type
        .as_deref()
        .map(|t| t.split(';').next().unwrap_or("").trim().to_string());
    if let Some(t) = essence.as_deref()
        && matches!(
            t,
            "text/plain" | "application/x-www-form-urlencoded" | "multipart/form-data"
        )
    {
        return Err(format!(
            "Content-Type '{t}' is refused (it is what an HTML form sends); send \
             application/json, or application/octet-stream for file contents"
        ));
    }
    if request.method() == Method::POST {
        let empty = headers
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .is_none_or(|v| v.trim() == "0")
            && !headers.contains_key(header::TRANSFER_ENCODING);
        let json = essence.as_deref() == Some("application/json");
        let bodiless = empty && essence.is_none();
        if !(json || bodiless) {
            return Err(format!(
                "Content-Type must be application/json for a POST (got {})",
                essence.as_deref().unwrap_or("none")
            ));
        }
    }
    Ok(())
}

/// `localhost`, a 127.x address or `[::1]`, with or without a port.
fn is_loopback_host(host: &str) -> bool {
    let name = if let Some(rest) = host.strip_prefix('[') {
        rest.split(']').next().unwrap_or("")
    } else {
        host.rsplit_once(':').map_or(host, |(name, port)| {
            if port.chars().all(|c| c.is_ascii_digit()) {
                name
            } else {
                host
            }
        })
    };
    name.eq_ignore_ascii_case("localhost")
        || name
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::is_loopback_host;

    #[test]
    fn loopback_hosts() {
        for ok in [
            "localhost",
            "LOCALHOST:8420",
            "127.0.0.1",
            "127.0.0.1:1",
            "[::1]:80",
            "[::1]",
        ] {
            assert!(is_loopback_host(ok), "{ok}");
        }
        for bad in [
            "",
            "evil.example",
            "evil.example:8420",
            "127.0.0.1.evil",
            "10.0.0.1:80",
            "localhost.evil:1",
        ] {
            assert!(!is_loopback_host(bad), "{bad}");
        }
    }
}
