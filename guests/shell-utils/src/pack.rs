//! Compressing and decompressing a stream a block at a time into a file, standard output or
//! nowhere (`-t`), for `gzip` and the `xz`/`bzip2`/`zstd` tools: neither side is held whole,
//! so a file of any size goes through in memory that does not grow with it.

use std::io::{BufRead, BufReader, BufWriter, Read, Write};

use shell_base::io::{Input, READ_SIZE};

use crate::codec::{Codec, Encoder, TrailingGarbage, decoder, out_of_memory};
use crate::stream::{MEMORY_LIMIT, Stop, Writer, read_all_limited};

/// Where the converted bytes go.
pub enum Sink<'a> {
    File(BufWriter<std::fs::File>),
    Out(&'a mut Writer),
    /// Counted and dropped (`-t`, `-l`).
    Nowhere,
}

impl Sink<'_> {
    /// A file written a block at a time.
    pub fn file(f: std::fs::File) -> Sink<'static> {
        Sink::File(BufWriter::with_capacity(READ_SIZE, f))
    }

    async fn put(&mut self, data: &[u8]) -> Result<(), Failure> {
        match self {
            Sink::File(f) => f.write_all(data).map_err(Failure::Write),
            Sink::Out(w) => w.write(data).await.map_err(|Stop(s)| Failure::Stop(s)),
            Sink::Nowhere => Ok(()),
        }
    }

    /// Everything written through: a file's last block, since its error is the command's.
    async fn end(&mut self) -> Result<(), Failure> {
        match self {
            Sink::File(f) => f.flush().map_err(Failure::Write),
            // Standard output is flushed once, at the end of the command.
            Sink::Out(_) | Sink::Nowhere => Ok(()),
        }
    }
}

/// What went wrong, and so whose message it is.
#[derive(Debug)]
pub enum Failure {
    /// Reading the input.
    Read(std::io::Error),
    /// The data is not in the format ([`ends_early`] tells a cut-short stream).
    Data(std::io::Error),
    /// The instance's memory ran out converting it.
    Limit(std::io::Error),
    /// Writing the output file.
    Write(std::io::Error),
    /// Standard output is closed or failed: the command stops with this status.
    Stop(i32),
    /// A whole message (a limit met reading a pipe).
    Said(String),
}

/// Bytes in and bytes out.
#[derive(Clone, Copy, Debug, Default)]
pub struct Counts {
    pub read: u64,
    pub written: u64,
    /// Decompressing: something not in the format followed the last whole stream.
    pub trailing_garbage: bool,
}

/// Opens the file at `path` to read, with its size; a directory is `IsADirectory`.
pub fn open(path: &std::path::Path) -> std::io::Result<(std::fs::File, u64)> {
    let file = std::fs::File::open(path)?;
    let meta = file.metadata()?;
    if meta.is_dir() {
        return Err(std::io::ErrorKind::IsADirectory.into());
    }
    Ok((file, meta.len()))
}

/// Compresses `input` into `sink` (`size`, when known, is how much `input` holds).
pub async fn compress(
    codec: Codec,
    level: u32,
    size: Option<u64>,
    input: &Input,
    sink: &mut Sink<'_>,
) -> Result<Counts, Failure> {
    let mut counts = Counts::default();
    let limit = |e| Failure::Limit(out_of_memory(e));
    let mut e = Encoder::new(codec, level, size).map_err(limit)?;
    loop {
        let chunk = input.read().await.map_err(Failure::Read)?;
        if chunk.is_empty() {
            break;
        }
        counts.read += chunk.len() as u64;
        e.write(&chunk).map_err(limit)?;
        let out = e.take();
        counts.written += out.len() as u64;
        sink.put(&out).await?;
    }
    let out = e.finish().map_err(limit)?;
    counts.written += out.len() as u64;
    sink.put(&out).await?;
    sink.end().await?;
    Ok(counts)
}

/// Decompresses `source` into `sink`: every stream or frame in it, one after another.
pub async fn decompress(
    codec: Codec,
    source: impl Read,
    sink: &mut Sink<'_>,
) -> Result<Counts, Failure> {
    let mut source = Watched {
        inner: source,
        read: 0,
        error: None,
    };
    let mut counts = Counts::default();
    let mut buf = vec![0; READ_SIZE];
    let result = {
        let mut input = BufReader::with_capacity(READ_SIZE, &mut source);
        // Input cut short of the format's magic number is not in the format at all.
        let started = input
            .fill_buf()
            .is_ok_and(|head| Codec::detect(head) == Some(codec));
        let mut d = decoder(codec, input);
        loop {
            match d.read(&mut buf) {
                Ok(0) => break sink.end().await,
                Ok(n) => {
                    counts.written += n as u64;
                    if let Err(f) = sink.put(&buf[..n]).await {
                        break Err(f);
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) if TrailingGarbage::is(&e) => {
                    counts.trailing_garbage = true;
                    break sink.end().await;
                }
                Err(e) if e.kind() == std::io::ErrorKind::OutOfMemory => {
                    break Err(Failure::Limit(out_of_memory(e)));
                }
                Err(e) if ends_early(&e) && !started => {
                    let not =
                        std::io::Error::new(std::io::ErrorKind::InvalidData, "not in the format");
                    break Err(Failure::Data(not));
                }
                Err(e) => break Err(Failure::Data(e)),
            }
        }
    };
    counts.read = source.read;
    match (result, source.error) {
        // The decoder saw the input fail: that is the input's error, not bad data.
        (Err(Failure::Data(_)), Some(e)) => Err(Failure::Read(e)),
        (result, _) => result.map(|()| counts),
    }
}

/// Whether a decoder's error `e` is its input ending inside a stream.
pub fn ends_early(e: &std::io::Error) -> bool {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(c) = cause {
        if c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::UnexpectedEof)
        {
            return true;
        }
        // An io::Error's own source skips its payload: look at the payload.
        cause = match c.downcast_ref::<std::io::Error>() {
            Some(io) => io
                .get_ref()
                .map(|p| p as &(dyn std::error::Error + 'static)),
            None => c.source(),
        };
    }
    false
}

/// A reader that keeps its source's error and counts what it read.
struct Watched<R> {
    inner: R,
    read: u64,
    error: Option<std::io::Error>,
}

impl<R: Read> Read for Watched<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self.inner.read(buf) {
            Ok(n) => {
                self.read += n as u64;
                Ok(n)
            }
            Err(e) => {
                let kind = e.kind();
                self.error = Some(e);
                Err(kind.into())
            }
        }
    }
}

/// `input` as a reader: a pipe is read whole first (its writer runs in this same
/// instance, so it cannot be waited for inside a decoder), held to [`MEMORY_LIMIT`]; the
/// rest are read as the decoder asks. A message starts `what: `.
pub async fn reader(input: &Input, what: &str) -> Result<Box<dyn Read>, String> {
    match input {
        Input::Pipe(_) => {
            let data = read_all_limited(input, MEMORY_LIMIT, what).await?;
            Ok(Box::new(std::io::Cursor::new(data)))
        }
        other => Ok(Box::new(Now(other.clone()))),
    }
}

/// An input that never waits: standard input, a redirected file, bytes.
struct Now(Input);

impl Read for Now {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match &self.0 {
            Input::Stdin => std::io::stdin().read(buf),
            Input::File(f) => f.borrow_mut().read(buf),
            Input::Bytes(c) => c.borrow_mut().read(buf),
            Input::Null | Input::Pipe(_) => Ok(0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Counts, Failure, Sink, compress, decompress, ends_early};
    use crate::codec::Codec;
    use shell_base::io::Input;

    fn run<T>(f: impl std::future::Future<Output = T>) -> T {
        shell_base::runtime::block_on(Box::pin(f))
    }

    /// Bytes that compress some but not to nothing, and cross several blocks and frames.
    fn text(len: usize) -> Vec<u8> {
        let mut x = 1u32;
        (0..len)
            .map(|i| {
                x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
                if i % 61 == 60 {
                    b'\n'
                } else {
                    b'a' + (x >> 16) as u8 % 8
                }
            })
            .collect()
    }

    fn pack(codec: Codec, data: &[u8]) -> (Vec<u8>, Counts) {
        let file = tempfile::NamedTempFile::new().unwrap();
        let mut sink = Sink::file(file.reopen().unwrap());
        let counts = run(compress(
            codec,
            6,
            None,
            &Input::bytes(data.to_vec()),
            &mut sink,
        ))
        .unwrap();
        drop(sink);
        let packed = std::fs::read(file.path()).unwrap();
        (packed, counts)
    }

    #[test]
    fn every_format_streams_both_ways_across_blocks_and_frames() {
        for codec in [Codec::Gzip, Codec::Xz, Codec::Bzip2, Codec::Zstd] {
            // Past bzip2's 900 kB block and zstd's 4 MiB frame, a multiple of neither.
            let data = text(
                if codec == Codec::Zstd {
                    4 << 20
                } else {
                    1 << 20
                } | 12345,
            );
            let (packed, counts) = pack(codec, &data);
            assert_eq!(counts.read, data.len() as u64, "{codec:?}");
            assert_eq!(counts.written, packed.len() as u64, "{codec:?}");
            assert!(packed.len() < data.len() / 2, "{codec:?} did not compress");
            // What the whole-buffer decoder reads, and what the stream decoder reads.
            assert!(
                codec.decompress(&packed, 64 << 20).unwrap() == data,
                "{codec:?}"
            );
            let counted = run(decompress(codec, &packed[..], &mut Sink::Nowhere)).unwrap();
            assert_eq!(counted.written, data.len() as u64, "{codec:?}");
            assert_eq!(counted.read, packed.len() as u64, "{codec:?}");
            // Two streams one after the other are one input.
            let twice = [packed.clone(), packed.clone()].concat();
            let counted = run(decompress(codec, &twice[..], &mut Sink::Nowhere)).unwrap();
            assert_eq!(counted.written, 2 * data.len() as u64, "{codec:?}");
            // Cut short, in the data or in the trailer, is bad data that ends early.
            for cut in [packed.len() / 2, packed.len() - 3] {
                let r = run(decompress(codec, &packed[..cut], &mut Sink::Nowhere));
                assert!(
                    matches!(&r, Err(Failure::Data(e)) if ends_early(e)),
                    "{codec:?} cut at {cut}: {r:?}"
                );
            }
        }
    }

    #[test]
    fn what_follows_the_last_stream_is_read_as_each_tool_reads_it() {
        let data = text(5000);
        let after = |codec, tail: &[u8]| {
            let (packed, _) = pack(codec, &data);
            let input = [packed, tail.to_vec()].concat();
            run(decompress(codec, &input[..], &mut Sink::Nowhere))
        };
        // gzip: zeros are padding; anything else a warning after the whole output.
        let padded = after(Codec::Gzip, &[0; 10]).unwrap();
        assert_eq!(padded.written, data.len() as u64);
        assert!(!padded.trailing_garbage);
        for codec in [Codec::Gzip, Codec::Bzip2] {
            let junk = after(codec, b"garbage!").unwrap();
            assert_eq!(junk.written, data.len() as u64, "{codec:?}");
            assert!(junk.trailing_garbage, "{codec:?}");
        }
        // bzip2 warns on zeros too; zstd takes anything as a frame, and fails.
        assert!(after(Codec::Bzip2, &[0; 10]).unwrap().trailing_garbage);
        let r = after(Codec::Zstd, b"garbage!");
        assert!(
            matches!(&r, Err(Failure::Data(e)) if !ends_early(e)),
            "{r:?}"
        );
    }

    #[test]
    fn an_empty_input_packs_to_a_stream_that_unpacks_to_nothing() {
        for codec in [Codec::Gzip, Codec::Xz, Codec::Bzip2, Codec::Zstd] {
            let (packed, _) = pack(codec, b"");
            assert_eq!(Codec::detect(&packed), Some(codec));
            let counted = run(decompress(codec, &packed[..], &mut Sink::Nowhere)).unwrap();
            assert_eq!(counted.written, 0, "{codec:?}");
        }
    }

    #[test]
    fn a_failing_input_is_a_read_error_not_bad_data() {
        struct Broken;
        impl std::io::Read for Broken {
            fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
                Err(std::io::ErrorKind::PermissionDenied.into())
            }
        }
        for codec in [Codec::Gzip, Codec::Xz, Codec::Bzip2, Codec::Zstd] {
            let r = run(decompress(codec, Broken, &mut Sink::Nowhere));
            assert!(
                matches!(&r, Err(Failure::Read(e)) if e.kind() == std::io::ErrorKind::PermissionDenied),
                "{codec:?}: {r:?}"
            );
        }
    }
}
