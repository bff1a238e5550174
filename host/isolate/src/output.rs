//! A guest's stdout and stderr: streamed to the caller as they are written, collected up to
//! the output limit, and the guest stopped (trapped) when it writes past the limit.

use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use bytes::Bytes;
use computer_exec::{OutputSink, Stream};
use wasmtime_wasi::cli::{IsTerminal, StdoutStream};
use wasmtime_wasi_io::poll::Pollable;
use wasmtime_wasi_io::streams::{OutputStream, StreamError, StreamResult};

#[derive(Default)]
pub(crate) struct Collected {
    pub(crate) bytes: Vec<u8>,
    pub(crate) limit_hit: bool,
}

/// One of the two output streams of a run.
#[derive(Clone)]
pub(crate) struct Capture {
    stream: Stream,
    limit: u64,
    sink: Option<OutputSink>,
    pub(crate) collected: Arc<Mutex<Collected>>,
}

/// The trap a write past the limit raises (recognised by the runner).
#[derive(Debug)]
pub(crate) struct OutputLimit;

impl std::fmt::Display for OutputLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("output limit exceeded")
    }
}

impl std::error::Error for OutputLimit {}

impl Capture {
    pub(crate) fn new(stream: Stream, limit: u64, sink: Option<OutputSink>) -> Capture {
        Capture {
            stream,
            limit,
            sink,
            collected: Arc::default(),
        }
    }

    fn push(&self, bytes: &[u8]) -> Result<(), OutputLimit> {
        let mut collected = self.collected.lock().unwrap_or_else(|e| e.into_inner());
        let room = (self.limit as usize).saturating_sub(collected.bytes.len());
        let take = room.min(bytes.len());
        collected.bytes.extend_from_slice(&bytes[..take]);
        if let Some(sink) = &self.sink {
            sink(self.stream, &bytes[..take]);
        }
        if take < bytes.len() {
            collected.limit_hit = true;
            return Err(OutputLimit);
        }
        Ok(())
    }

    pub(crate) fn take(&self) -> Collected {
        std::mem::take(&mut *self.collected.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

impl IsTerminal for Capture {
    fn is_terminal(&self) -> bool {
        false
    }
}

impl StdoutStream for Capture {
    fn p2_stream(&self) -> Box<dyn OutputStream> {
        Box::new(self.clone())
    }

    fn async_stream(&self) -> Box<dyn tokio::io::AsyncWrite + Send + Sync> {
        Box::new(self.clone())
    }
}

#[async_trait::async_trait]
impl Pollable for Capture {
    async fn ready(&mut self) {}
}

impl OutputStream for Capture {
    fn write(&mut self, bytes: Bytes) -> StreamResult<()> {
        self.push(&bytes)
            .map_err(|e| StreamError::Trap(wasmtime::Error::new(e)))
    }

    fn flush(&mut self) -> StreamResult<()> {
        Ok(())
    }

    fn check_write(&mut self) -> StreamResult<usize> {
        Ok(64 * 1024)
    }
}

impl tokio::io::AsyncWrite for Capture {
    fn poll_write(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Poll::Ready(
            self.push(buf)
                .map(|()| buf.len())
                .map_err(std::io::Error::other),
        )
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}
