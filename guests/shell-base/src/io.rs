//! Where a command's standard streams go: the guest's own stdio, pipes, files, a capture
//! buffer (command substitution) or nothing. Cloning an endpoint shares it (`2>&1`).

use std::cell::RefCell;
use std::fs::File;
use std::io::{Read, Seek, Write};
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
    /// Bytes to read (here-documents and here-strings).
    pub fn bytes(data: Vec<u8>) -> Input {
        Input::Bytes(Rc::new(RefCell::new(std::io::Cursor::new(data))))
    }

    /// Up to `READ_SIZE` bytes; empty at end of file.
    pub async fn read(&self) -> std::io::Result<Vec<u8>> {
        if let Input::Pipe(p) = self {
            return Ok(p.read(READ_SIZE).await);
        }
        // Read into one buffer zeroed once, and hand out only what came: a fresh zeroed
        // buffer per read cost `grep -r` a 64 KiB `memset` for every small file.
        thread_local! {
            static SCRATCH: RefCell<Vec<u8>> = RefCell::new(vec![0; READ_SIZE]);
        }
        SCRATCH.with_borrow_mut(|buf| {
            let n = match self {
                Input::Stdin => std::io::stdin().read(buf)?,
                Input::File(f) => f.borrow_mut().read(buf)?,
                Input::Bytes(c) => c.borrow_mut().read(buf)?,
                Input::Null | Input::Pipe(_) => 0,
            };
            Ok(buf[..n].to_vec())
        })
    }

    /// Puts back the last `n` bytes read from a redirected file (the descriptor's offset
    /// moves back), so that the next command reading the same descriptor starts there, as
    /// after GNU `head` in `{ head -n 1; cat; } < file`. Elsewhere they are gone, as from a
    /// pipe (bash gives small here-documents through a pipe too).
    pub fn unread(&self, n: usize) {
        if let Input::File(f) = self
            && n > 0
            && let Ok(back) = i64::try_from(n)
        {
            let _ = f.borrow_mut().seek(std::io::SeekFrom::Current(-back));
        }
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

/// An open descriptor beyond the standard three: readable, writable or both.
#[derive(Clone, Default)]
pub struct Fd {
    pub input: Option<Input>,
    pub output: Option<Output>,
}

impl Fd {
    pub fn input(i: Input) -> Fd {
        Fd {
            input: Some(i),
            output: None,
        }
    }

    pub fn output(o: Output) -> Fd {
        Fd {
            input: None,
            output: Some(o),
        }
    }
}

/// A command's descriptors: the standard streams and any others (`3>file`).
#[derive(Clone)]
pub struct Io {
    /// Standard input.
    pub stdin: Input,
    /// Standard output.
    pub stdout: Output,
    /// Standard error.
    pub stderr: Output,
    /// Descriptors 3 and up.
    pub extra: Vec<(i32, Fd)>,
}

impl Io {
    /// The shell's own stdio.
    pub fn standard() -> Io {
        Io {
            stdin: Input::Stdin,
            stdout: Output::Stdout,
            stderr: Output::Stderr,
            extra: Vec::new(),
        }
    }

    /// Descriptor `n`, if open.
    pub fn get(&self, n: i32) -> Option<Fd> {
        match n {
            0 => Some(Fd::input(self.stdin.clone())),
            1 => Some(Fd::output(self.stdout.clone())),
            2 => Some(Fd::output(self.stderr.clone())),
            _ => self
                .extra
                .iter()
                .find(|(k, _)| *k == n)
                .map(|(_, f)| f.clone()),
        }
    }

    /// Makes `n` refer to `fd`.
    pub fn set(&mut self, n: i32, fd: Fd) {
        match n {
            0 => self.stdin = fd.input.unwrap_or(Input::Null),
            1 => self.stdout = fd.output.unwrap_or(Output::Null),
            2 => self.stderr = fd.output.unwrap_or(Output::Null),
            _ => {
                self.extra.retain(|(k, _)| *k != n);
                self.extra.push((n, fd));
            }
        }
    }

    /// Closes `n`.
    pub fn close(&mut self, n: i32) {
        match n {
            0 => self.stdin = Input::Null,
            1 => self.stdout = Output::Null,
            2 => self.stderr = Output::Null,
            _ => self.extra.retain(|(k, _)| *k != n),
        }
    }
}

/// Most a command reads into memory at once (`sort`, `tac`, `sed -i`...).
pub const MEMORY_LIMIT: usize = 1 << 30;

/// Reads all of an input, failing past `limit` bytes with a message that names the limit.
pub async fn read_all_limited(input: &Input, limit: usize, what: &str) -> Result<Vec<u8>, String> {
    let mut all = Vec::new();
    loop {
        let chunk = input
            .read()
            .await
            .map_err(|e| format!("{what}: {}", crate::errno::io_message(&e)))?;
        if chunk.is_empty() {
            return Ok(all);
        }
        // Past the instance's memory, fail with a message rather than abort.
        if all.try_reserve(chunk.len()).is_err() {
            return Err(format!(
                "{what}: out of memory after reading {} MiB (the isolate's memory limit)",
                all.len() >> 20
            ));
        }
        all.extend(chunk);
        if all.len() > limit {
            return Err(format!(
                "{what}: input larger than the {} MiB a command may hold in memory",
                limit >> 20
            ));
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn unread_moves_a_files_offset_back_and_nothing_else() {
        let path = std::env::temp_dir().join(format!("shell-base-unread-{}", std::process::id()));
        std::fs::write(&path, "one\ntwo\n").unwrap();
        let file = Input::File(Rc::new(RefCell::new(File::open(&path).unwrap())));
        std::fs::remove_file(&path).unwrap();
        let read = |input: &Input| crate::runtime::block_on(Box::pin(input.read())).unwrap();
        assert_eq!(read(&file), b"one\ntwo\n");
        file.unread(4);
        assert_eq!(read(&file), b"two\n");
        let bytes = Input::bytes(b"one\ntwo\n".to_vec());
        assert_eq!(read(&bytes), b"one\ntwo\n");
        bytes.unread(4);
        assert_eq!(read(&bytes), b"");
    }
}
