//! A command's standard input: the bytes known when it starts, then, for a command started
//! with its input open ([`Stdin::piped`]), whatever its caller writes while it runs. The
//! caller's writes wait while the command is [`PIPE_CHUNKS`] chunks behind, as a writer to a
//! full pipe does, so `yes | python3 ...` neither hangs nor fills the host's memory.

use std::fmt;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, ReadBuf};
use tokio::sync::mpsc;

/// Chunks a caller may write ahead of the command before its writes wait.
pub const PIPE_CHUNKS: usize = 16;

/// The caller's end of an open standard input: each chunk sent reaches the command in order,
/// and dropping it ends the input. Sending fails once the command stopped reading.
pub type StdinWriter = mpsc::Sender<Vec<u8>>;

/// The rest of an open input, waiting for the backend that runs the command to take it.
type Rest = Arc<Mutex<Option<mpsc::Receiver<Vec<u8>>>>>;

/// Standard input for a command. Cloning shares the open part: the backend that runs the
/// command takes it ([`Stdin::reader`]), once.
#[derive(Clone, Default)]
pub struct Stdin {
    head: Vec<u8>,
    rest: Option<Rest>,
}

impl fmt::Debug for Stdin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Stdin")
            .field("head", &self.head.len())
            .field("open", &self.rest.is_some())
            .finish()
    }
}

impl From<Vec<u8>> for Stdin {
    fn from(bytes: Vec<u8>) -> Stdin {
        Stdin::bytes(bytes)
    }
}

impl Stdin {
    /// These bytes, then end of file.
    pub fn bytes(head: Vec<u8>) -> Stdin {
        Stdin { head, rest: None }
    }

    /// `head`, then what is written to the returned writer until it is dropped.
    pub fn piped(head: Vec<u8>) -> (StdinWriter, Stdin) {
        let (tx, rx) = mpsc::channel(PIPE_CHUNKS);
        let stdin = Stdin {
            head,
            rest: Some(Arc::new(Mutex::new(Some(rx)))),
        };
        (tx, stdin)
    }

    /// Whether the input is known whole now (no writer may add to it).
    pub fn is_closed(&self) -> bool {
        self.rest.is_none()
    }

    /// The bytes known up front, taken (all of a closed input).
    pub fn into_head(self) -> Vec<u8> {
        self.head
    }

    /// The input as a reader. The open part goes to the first caller: a second reader of an
    /// open input sees only its head.
    pub fn reader(&self) -> StdinReader {
        let rest = self
            .rest
            .as_ref()
            .and_then(|r| r.lock().unwrap_or_else(|e| e.into_inner()).take());
        StdinReader {
            chunk: self.head.clone(),
            at: 0,
            rest,
        }
    }
}

/// Reads a [`Stdin`]: its head, then each chunk its writer sends, then end of file.
pub struct StdinReader {
    chunk: Vec<u8>,
    at: usize,
    rest: Option<mpsc::Receiver<Vec<u8>>>,
}

impl StdinReader {
    /// The next bytes, waiting for the writer; `None` at end of file.
    pub async fn next_chunk(&mut self) -> Option<Vec<u8>> {
        if self.at < self.chunk.len() {
            let chunk = std::mem::take(&mut self.chunk);
            let at = std::mem::take(&mut self.at);
            return Some(if at == 0 { chunk } else { chunk[at..].to_vec() });
        }
        loop {
            let chunk = self.rest.as_mut()?.recv().await?;
            if !chunk.is_empty() {
                return Some(chunk);
            }
        }
    }
}

impl AsyncRead for StdinReader {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = &mut *self;
        while this.at == this.chunk.len() {
            let Some(rx) = this.rest.as_mut() else {
                return Poll::Ready(Ok(()));
            };
            match rx.poll_recv(cx) {
                Poll::Ready(Some(chunk)) => {
                    this.chunk = chunk;
                    this.at = 0;
                }
                Poll::Ready(None) => {
                    this.rest = None;
                    return Poll::Ready(Ok(()));
                }
                Poll::Pending => return Poll::Pending,
            }
        }
        let n = buf.remaining().min(this.chunk.len() - this.at);
        buf.put_slice(&this.chunk[this.at..this.at + n]);
        this.at += n;
        Poll::Ready(Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    fn block_on<T>(f: impl std::future::Future<Output = T>) -> T {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(f)
    }

    #[test]
    fn bytes_then_end_of_file() {
        let mut all = Vec::new();
        block_on(Stdin::bytes(b"abc".to_vec()).reader().read_to_end(&mut all)).unwrap();
        assert_eq!(all, b"abc");
    }

    #[test]
    fn head_then_what_the_writer_sends_until_it_is_dropped() {
        let (tx, stdin) = Stdin::piped(b"head ".to_vec());
        let mut reader = stdin.reader();
        let all = block_on(async move {
            let writer = tokio::spawn(async move {
                for part in ["one ", "", "two"] {
                    tx.send(part.as_bytes().to_vec()).await.unwrap();
                }
            });
            let mut all = Vec::new();
            reader.read_to_end(&mut all).await.unwrap();
            writer.await.unwrap();
            all
        });
        assert_eq!(all, b"head one two");
    }

    #[test]
    fn the_open_part_goes_to_one_reader_and_a_gone_reader_fails_the_writer() {
        let (tx, stdin) = Stdin::piped(Vec::new());
        let copy = stdin.clone();
        let first = stdin.reader();
        let mut second = copy.reader();
        assert_eq!(block_on(second.next_chunk()), None);
        drop(first);
        assert!(tx.try_send(b"x".to_vec()).is_err());
    }
}
