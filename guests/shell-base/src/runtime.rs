//! Concurrency without threads: pipeline stages are futures polled round-robin by one
//! executor, joined by bounded in-memory pipes. wasm32-wasip2 has no threads, fork or pipe(2),
//! and running stages one after another would break `yes | head -1` and buffer whole files.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

/// A boxed future that may borrow (stages borrow the AST).
pub type Task<'a, T> = Pin<Box<dyn Future<Output = T> + 'a>>;

/// Runs a future to completion. Everything that can wait is an in-memory pipe, so a waiting
/// task simply lets the others run; the loop never sleeps.
pub fn block_on<T>(mut fut: Task<'_, T>) -> T {
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(v) = fut.as_mut().poll(&mut cx) {
            return v;
        }
    }
}

/// Gives the other tasks a turn.
pub fn yield_now() -> impl Future<Output = ()> {
    let mut yielded = false;
    std::future::poll_fn(move |_| {
        if yielded {
            Poll::Ready(())
        } else {
            yielded = true;
            Poll::Pending
        }
    })
}

/// Runs all tasks concurrently; the results in order.
pub async fn join_all<'a, T>(tasks: Vec<Task<'a, T>>) -> Vec<T> {
    let mut slots: Vec<(Option<Task<'a, T>>, Option<T>)> =
        tasks.into_iter().map(|t| (Some(t), None)).collect();
    std::future::poll_fn(move |cx| {
        let mut pending = false;
        for (task, result) in slots.iter_mut() {
            if let Some(t) = task {
                match t.as_mut().poll(cx) {
                    Poll::Ready(v) => {
                        *result = Some(v);
                        *task = None;
                    }
                    Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            Poll::Pending
        } else {
            Poll::Ready(slots.iter_mut().filter_map(|(_, r)| r.take()).collect())
        }
    })
    .await
}

/// Bytes a pipe holds before its writer waits (Linux's default pipe size).
const PIPE_CAPACITY: usize = 64 * 1024;

#[derive(Default)]
struct PipeState {
    buf: VecDeque<u8>,
    readers: usize,
    writers: usize,
}

/// The writing end of a pipe; the reader sees end-of-file when every writer is dropped.
pub struct PipeWriter(Rc<RefCell<PipeState>>);

/// The reading end of a pipe; writers get EPIPE once every reader is dropped.
pub struct PipeReader(Rc<RefCell<PipeState>>);

/// A new pipe.
pub fn pipe() -> (PipeWriter, PipeReader) {
    let state = Rc::new(RefCell::new(PipeState {
        buf: VecDeque::new(),
        readers: 1,
        writers: 1,
    }));
    (PipeWriter(Rc::clone(&state)), PipeReader(state))
}

impl PipeWriter {
    /// Writes everything, waiting while the pipe is full; EPIPE when nobody reads any more.
    pub async fn write_all(&self, mut data: &[u8]) -> std::io::Result<()> {
        loop {
            {
                let mut p = self.0.borrow_mut();
                if p.readers == 0 {
                    return Err(std::io::ErrorKind::BrokenPipe.into());
                }
                let room = PIPE_CAPACITY.saturating_sub(p.buf.len());
                let n = room.min(data.len());
                p.buf.extend(&data[..n]);
                data = &data[n..];
            }
            if data.is_empty() {
                return Ok(());
            }
            yield_now().await;
        }
    }
}

impl PipeReader {
    /// Up to `max` bytes, waiting for a writer; empty at end of file.
    pub async fn read(&self, max: usize) -> Vec<u8> {
        loop {
            {
                let mut p = self.0.borrow_mut();
                if !p.buf.is_empty() {
                    let n = max.min(p.buf.len());
                    return p.buf.drain(..n).collect();
                }
                if p.writers == 0 {
                    return Vec::new();
                }
            }
            yield_now().await;
        }
    }
}

impl Drop for PipeWriter {
    fn drop(&mut self) {
        self.0.borrow_mut().writers -= 1;
    }
}

impl Drop for PipeReader {
    fn drop(&mut self) {
        self.0.borrow_mut().readers -= 1;
    }
}
