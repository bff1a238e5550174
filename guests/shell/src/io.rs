//! Where a command's standard streams go: the guest's own stdio, pipes, files, a capture
//! buffer (command substitution) or nothing. Cloning an endpoint shares it (`2>&1`).

use std::cell::RefCell;
use std::fs::File;
use std::io::{Read, Write};
use std::rc::Rc;

use crate::runtime::{PipeReader, PipeWriter};

/// An input endpoint.
#[derive(Clone)]
pub enum Input {
    /// The shell's own standard input.
    Stdin,
    /// A pipe from the previous stage.
    Pipe(Rc<PipeReader>),
    /// A file opened by a redirection.
    File(Rc<RefCell<File>>),
    /// Bytes (here-documents and here-strings).
    Bytes(Rc<RefCell<std::io::Cursor<Vec<u8>>>>),
    /// Nothing (end of file at once).
    Null,
}

/// An output endpoint.
#[derive(Clone)]
pub enum Output {
    /// The shell's standard output.
    Stdout,
    /// The shell's standard error.
    Stderr,
    /// A pipe to the next stage.
    Pipe(Rc<PipeWriter>),
    /// A file opened by a redirection.
    File(Rc<RefCell<File>>),
    /// Collected in memory (command substitution).
    Capture(Rc<RefCell<Vec<u8>>>),
    /// Discarded.
    Null,
}

/// How much one read asks for.
pub const READ_SIZE: usize = 64 * 1024;

impl Input {
    /// Up to `READ_SIZE` bytes; empty at end of file.
    pub async fn read(&self) -> std::io::Result<Vec<u8>> {
        let mut buf = vec![0u8; READ_SIZE];
        let n = match self {
            Input::Stdin => std::io::stdin().read(&mut buf)?,
            Input::Pipe(p) => return Ok(p.read(READ_SIZE).await),
            Input::File(f) => f.borrow_mut().read(&mut buf)?,
            Input::Bytes(c) => c.borrow_mut().read(&mut buf)?,
            Input::Null => 0,
        };
        buf.truncate(n);
        Ok(buf)
    }

    /// Everything until end of file.
    pub async fn read_all(&self) -> std::io::Result<Vec<u8>> {
        let mut all = Vec::new();
        loop {
            let chunk = self.read().await?;
            if chunk.is_empty() {
                return Ok(all);
            }
            all.extend(chunk);
        }
    }
}

impl Output {
    /// Writes all of `data`; EPIPE when a pipe's reader is gone.
    pub async fn write_all(&self, data: &[u8]) -> std::io::Result<()> {
        match self {
            Output::Stdout => std::io::stdout().write_all(data),
            Output::Stderr => std::io::stderr().write_all(data),
            Output::Pipe(p) => p.write_all(data).await,
            Output::File(f) => f.borrow_mut().write_all(data),
            Output::Capture(c) => {
                c.borrow_mut().extend_from_slice(data);
                Ok(())
            }
            Output::Null => Ok(()),
        }
    }
}

/// The three standard streams of a command.
#[derive(Clone)]
pub struct Io {
    /// Standard input.
    pub stdin: Input,
    /// Standard output.
    pub stdout: Output,
    /// Standard error.
    pub stderr: Output,
}

impl Io {
    /// The shell's own stdio.
    pub fn standard() -> Io {
        Io {
            stdin: Input::Stdin,
            stdout: Output::Stdout,
            stderr: Output::Stderr,
        }
    }
}
