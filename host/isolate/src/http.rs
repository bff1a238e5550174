//! The `computer:host/http` import: a guest's HTTP requests (the shell's `curl` and `wget`),
//! sent by the host through the workspace's network policy ([`computer_net::Egress`]). A run
//! without egress ([`crate::RunRequest::network`] `None`) has every request refused.

use std::time::Duration;

use computer_net::{DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_REQUEST_TIMEOUT, SendError};

use crate::bindings::computer::host::http;
use crate::state::State;

/// The most HTTP requests one run may make (redirects count once, with their request).
pub const MAX_REQUESTS: u32 = 1000;

impl http::Host for State {
    fn send(
        &mut self,
        req: http::Request,
    ) -> wasmtime::Result<Result<http::Response, http::Error>> {
        let Some(egress) = self.host.network.clone() else {
            return Ok(Err(http::Error::Refused(
                "network: this run has no network (the embedder gave it no egress)".into(),
            )));
        };
        if self.host.requests >= MAX_REQUESTS {
            return Ok(Err(http::Error::Limit(format!(
                "network: more than {MAX_REQUESTS} requests in one command (MAX_REQUESTS)"
            ))));
        }
        self.host.requests += 1;
        self.before_blocking();
        let timeout = req
            .timeout_ms
            .map_or(DEFAULT_REQUEST_TIMEOUT, Duration::from_millis)
            .min(DEFAULT_REQUEST_TIMEOUT)
            .min(self.host.deadline.left());
        let request = computer_net::Request {
            method: req.method,
            url: req.url,
            headers: req.headers,
            body: req.body,
            max_redirects: req.max_redirects,
            timeout,
            max_bytes: req
                .max_bytes
                .unwrap_or(DEFAULT_MAX_RESPONSE_BYTES)
                .min(DEFAULT_MAX_RESPONSE_BYTES),
        };
        let (cancel, deadline) = (self.host.cancel.clone(), self.host.deadline.clone());
        let stop = move || cancel.is_cancelled() || deadline.passed();
        // reqwest's blocking client must not run on an async runtime's thread.
        let sent = std::thread::scope(|s| {
            s.spawn(|| egress.send(request, &stop))
                .join()
                .unwrap_or_else(|_| Err(SendError::Failed("network: the request panicked".into())))
        });
        Ok(sent.map(response).map_err(error))
    }
}

fn head(h: computer_net::Head) -> http::Head {
    http::Head {
        version: h.version,
        status: h.status,
        reason: h.reason,
        headers: h.headers,
    }
}

fn response(r: computer_net::Response) -> http::Response {
    http::Response {
        redirects: r.redirects.into_iter().map(head).collect(),
        head: head(r.head),
        body: r.body,
        url: r.url,
    }
}

fn error(e: SendError) -> http::Error {
    match e {
        SendError::Invalid(m) => http::Error::InvalidUrl(m),
        SendError::Refused(m) => http::Error::Refused(m),
        SendError::Resolve(m) => http::Error::Resolve(m),
        SendError::Connect(m) => http::Error::Connect(m),
        SendError::Tls(m) => http::Error::Tls(m),
        SendError::Timeout(m) => http::Error::Timeout(m),
        SendError::TooLarge(m) => http::Error::TooLarge(m),
        SendError::TooManyRedirects(m) => http::Error::TooManyRedirects(m),
        SendError::Failed(m) => http::Error::Failed(m),
    }
}
