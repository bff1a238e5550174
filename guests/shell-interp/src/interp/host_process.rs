//! A command on another backend as a stage of the shell: its standard input fed from the
//! command's while it runs, its output passed on as it comes, as a process joined by pipes
//! would be. `yes | python3 -c 'print(input())'` ends when python3 does, and
//! `python3 gen.py | head -1` stops python3 once `head` has its line.

use std::cell::RefCell;
use std::future::Future;
use std::pin::pin;
use std::time::Duration;

use shell_base::host::{ExecError, Process};
use shell_base::io::{Input, Io};
use shell_base::runtime::yield_now;

/// Longest a stage waits on the host before the shell's other stages get a turn.
const HOST_WAIT: Duration = Duration::from_millis(1);

/// Status of a command stopped because nobody reads its output any more (as SIGPIPE).
const BROKEN_PIPE: i32 = 141;

/// Runs `process` with `io` until it exits; its status, or why it could not run.
pub async fn join(process: Box<dyn Process>, io: &Io) -> Result<i32, ExecError> {
    let process = RefCell::new(process);
    let mut feed = pin!(feed(&process, &io.stdin));
    let mut drain = pin!(drain(&process, io));
    let mut fed = false;
    // Once the command has exited, its input is no longer read: what is left stays unread.
    let broken = std::future::poll_fn(|cx| {
        if !fed && feed.as_mut().poll(cx).is_ready() {
            fed = true;
        }
        drain.as_mut().poll(cx)
    })
    .await;
    let mut process = process.borrow_mut();
    if broken {
        process.kill();
        let _ = process.finish();
        return Ok(BROKEN_PIPE);
    }
    process.finish()
}

/// Copies `input` to the command's standard input, then closes it.
async fn feed(process: &RefCell<Box<dyn Process>>, input: &Input) {
    if !matches!(input, Input::Null) {
        while let Ok(chunk) = input.read().await
            && !chunk.is_empty()
        {
            let mut rest = &chunk[..];
            while !rest.is_empty() {
                let took = process.borrow_mut().write(rest);
                match took {
                    Ok(0) => yield_now().await,
                    Ok(n) => rest = &rest[n..],
                    // It exited without reading it all.
                    Err(_) => return,
                }
            }
        }
    }
    process.borrow_mut().close_stdin();
}

/// Passes the command's output on until both its streams end; whether the output's reader
/// went away first.
async fn drain(process: &RefCell<Box<dyn Process>>, io: &Io) -> bool {
    loop {
        let written = process.borrow_mut().read();
        if !written.stdout.is_empty() && io.stdout.write_all(&written.stdout).await.is_err() {
            return true;
        }
        if !written.stderr.is_empty() {
            let _ = io.stderr.write_all(&written.stderr).await;
        }
        if written.ended {
            return false;
        }
        if written.stdout.is_empty() && written.stderr.is_empty() {
            process.borrow_mut().wait(HOST_WAIT);
            yield_now().await;
        }
    }
}
