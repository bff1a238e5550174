//! The compressed formats `gzip`, `xz`, `bzip2`, `zstd` and `tar` read and write, each on a
//! pure-Rust crate (flate2, lzma-rust2, bzip2 on libbz2-rs-sys, ruzstd), with their magic
//! numbers: an [`Encoder`] and [`decoder`] that stream, and [`Codec::decompress`] into
//! memory (for `rg -z` and `curl`), which stops at a limit so a small bomb cannot take the
//! instance's memory.

use std::io::{BufRead, Read, Write};

/// A compressed format.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Codec {
    Gzip,
    Xz,
    Bzip2,
    Zstd,
}

impl Codec {
    /// The format `data` starts with, by its magic number.
    pub fn detect(data: &[u8]) -> Option<Codec> {
        if data.starts_with(&[0x1f, 0x8b]) {
            Some(Codec::Gzip)
        } else if data.starts_with(b"\xfd7zXZ\0") {
            Some(Codec::Xz)
        } else if data.starts_with(b"BZh") {
            Some(Codec::Bzip2)
        } else if data.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            Some(Codec::Zstd)
        } else {
            None
        }
    }

    /// The file name suffix of the format.
    pub fn suffix(self) -> &'static str {
        match self {
            Codec::Gzip => ".gz",
            Codec::Xz => ".xz",
            Codec::Bzip2 => ".bz2",
            Codec::Zstd => ".zst",
        }
    }

    /// `data` decompressed (every stream or frame of it, one after another), failing past
    /// `limit` bytes with a message that names the limit.
    pub fn decompress(self, data: &[u8], limit: usize) -> std::io::Result<Vec<u8>> {
        let mut out = Vec::new();
        let room = (limit + 1) as u64;
        decoder(self, data)
            .take(room)
            .read_to_end(&mut out)
            .map_err(out_of_memory)?;
        if out.len() > limit {
            return Err(std::io::Error::other(format!(
                "the data decompresses to more than the {} MiB a command may hold in memory",
                limit >> 20
            )));
        }
        Ok(out)
    }
}

/// The instance's memory may end first: that is a limit too, not bad data.
pub fn out_of_memory(e: std::io::Error) -> std::io::Error {
    if e.kind() == std::io::ErrorKind::OutOfMemory {
        std::io::Error::other("the data decompresses to more than the isolate's memory limit holds")
    } else {
        e
    }
}

/// Compresses a stream a piece at a time: bytes go in with [`Encoder::write`], what is
/// compressed so far comes out with [`Encoder::take`], the rest with [`Encoder::finish`].
pub struct Encoder(Packing);

enum Packing {
    Gzip(flate2::write::GzEncoder<Vec<u8>>),
    Xz(Box<lzma_rust2::XzWriter<Vec<u8>>>),
    Bzip2(bzip2::write::BzEncoder<Vec<u8>>),
    /// ruzstd compresses a frame from a whole input, so the stream is a run of frames of
    /// [`ZSTD_FRAME`] bytes each (its window is 128 KiB: little is lost between them),
    /// which every zstd decoder reads as one stream.
    Zstd {
        pending: Vec<u8>,
        out: Vec<u8>,
    },
}

/// The input one zstd frame holds.
const ZSTD_FRAME: usize = 4 << 20;

impl Encoder {
    /// An encoder at `level` (1 to 9; zstd compresses at its level 1 whatever the level,
    /// the only one ruzstd has). `size`, when known, is what will be written: it bounds
    /// xz's dictionary.
    pub fn new(codec: Codec, level: u32, size: Option<u64>) -> std::io::Result<Encoder> {
        Ok(Encoder(match codec {
            // OS 3: Unix, as gzip writes it.
            Codec::Gzip => Packing::Gzip(
                flate2::GzBuilder::new()
                    .operating_system(3)
                    .write(Vec::new(), flate2::Compression::default()),
            ),
            Codec::Xz => {
                let mut options = lzma_rust2::XzOptions::with_preset(level.min(9));
                // A dictionary larger than the data buys nothing, and one over 16 MiB (-8,
                // -9) costs the encoder more memory than the isolate gives an instance.
                let dict = &mut options.lzma_options.dict_size;
                if let Some(size) = size {
                    let fits = u32::try_from(size.max(4096))
                        .ok()
                        .and_then(u32::checked_next_power_of_two);
                    *dict = (*dict).min(fits.unwrap_or(u32::MAX));
                }
                *dict = (*dict).min(16 << 20);
                Packing::Xz(Box::new(lzma_rust2::XzWriter::new(Vec::new(), options)?))
            }
            Codec::Bzip2 => Packing::Bzip2(bzip2::write::BzEncoder::new(
                Vec::new(),
                bzip2::Compression::new(level.clamp(1, 9)),
            )),
            Codec::Zstd => Packing::Zstd {
                pending: Vec::new(),
                out: Vec::new(),
            },
        }))
    }

    /// Compresses `data`.
    pub fn write(&mut self, data: &[u8]) -> std::io::Result<()> {
        match &mut self.0 {
            Packing::Gzip(w) => w.write_all(data),
            Packing::Xz(w) => w.write_all(data),
            Packing::Bzip2(w) => w.write_all(data),
            Packing::Zstd { pending, out } => {
                let mut data = data;
                while !data.is_empty() {
                    let n = (ZSTD_FRAME - pending.len()).min(data.len());
                    pending.extend_from_slice(&data[..n]);
                    data = &data[n..];
                    if pending.len() == ZSTD_FRAME {
                        out.extend(zstd_frame(pending));
                        pending.clear();
                    }
                }
                Ok(())
            }
        }
    }

    /// What is compressed so far, taken out.
    pub fn take(&mut self) -> Vec<u8> {
        std::mem::take(match &mut self.0 {
            Packing::Gzip(w) => w.get_mut(),
            Packing::Xz(w) => w.inner_mut(),
            Packing::Bzip2(w) => w.get_mut(),
            Packing::Zstd { out, .. } => out,
        })
    }

    /// The end of the stream: what is left.
    pub fn finish(self) -> std::io::Result<Vec<u8>> {
        match self.0 {
            Packing::Gzip(w) => w.finish(),
            Packing::Xz(w) => w.finish(),
            Packing::Bzip2(w) => w.finish(),
            Packing::Zstd { pending, mut out } => {
                // An empty input is one empty frame, as zstd writes it.
                if !pending.is_empty() || out.is_empty() {
                    out.extend(zstd_frame(&pending));
                }
                Ok(out)
            }
        }
    }
}

fn zstd_frame(data: &[u8]) -> Vec<u8> {
    ruzstd::encoding::compress_to_vec(data, ruzstd::encoding::CompressionLevel::Fastest)
}

/// A reader of `source` decompressed: every stream or frame of it, one after another. What
/// follows the last is read as each tool does: xz reads its own stream padding; gzip skips
/// zeros and bzip2 anything, and both end with [`TrailingGarbage`] after something else;
/// zstd takes anything as one more frame (and so fails on it).
pub fn decoder<'a>(codec: Codec, source: impl BufRead + 'a) -> Box<dyn Read + 'a> {
    match codec {
        Codec::Gzip => Box::new(Members::<_, flate2::bufread::GzDecoder<_>>::new(source)),
        Codec::Xz => Box::new(lzma_rust2::XzReader::new(source, true)),
        Codec::Bzip2 => Box::new(Members::<_, bzip2::bufread::BzDecoder<_>>::new(source)),
        Codec::Zstd => Box::new(Members::<_, Zstd<_>>::new(source)),
    }
}

/// The error a decoder ends with when something not in the format follows a whole stream:
/// what came before it is all there.
#[derive(Debug)]
pub struct TrailingGarbage;

impl std::fmt::Display for TrailingGarbage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("trailing garbage")
    }
}

impl std::error::Error for TrailingGarbage {}

impl TrailingGarbage {
    /// Whether `e` is this.
    pub fn is(e: &std::io::Error) -> bool {
        e.get_ref()
            .is_some_and(|inner| inner.is::<TrailingGarbage>())
    }
}

/// A decoder of one stream (a gzip member, a bzip2 stream, a zstd frame), which leaves the
/// source just past it.
trait Single<R: BufRead>: Read + Sized {
    /// The stream's first bytes.
    const MAGIC: &'static [u8];
    /// Whether anything but another stream after the first ends the input.
    const STRICT: bool;
    /// Whether zeros after a stream are padding.
    const ZEROS_PAD: bool = false;
    fn start(source: R) -> std::io::Result<Self>;
    fn rest(self) -> R;
}

impl<R: BufRead> Single<R> for flate2::bufread::GzDecoder<R> {
    const MAGIC: &'static [u8] = &[0x1f, 0x8b];
    const STRICT: bool = false;
    const ZEROS_PAD: bool = true;
    fn start(source: R) -> std::io::Result<Self> {
        Ok(Self::new(source))
    }
    fn rest(self) -> R {
        self.into_inner()
    }
}

impl<R: BufRead> Single<R> for bzip2::bufread::BzDecoder<R> {
    const MAGIC: &'static [u8] = b"BZh";
    const STRICT: bool = false;
    fn start(source: R) -> std::io::Result<Self> {
        Ok(Self::new(source))
    }
    fn rest(self) -> R {
        self.into_inner()
    }
}

/// ruzstd's frame decoder, whose errors are its own.
struct Zstd<R: BufRead>(ruzstd::decoding::StreamingDecoder<R, ruzstd::decoding::FrameDecoder>);

impl<R: BufRead> Read for Zstd<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.0.read(buf)
    }
}

impl<R: BufRead> Single<R> for Zstd<R> {
    const MAGIC: &'static [u8] = &[0x28, 0xb5, 0x2f, 0xfd];
    const STRICT: bool = true;
    fn start(source: R) -> std::io::Result<Self> {
        ruzstd::decoding::StreamingDecoder::new(source)
            .map(Zstd)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
    }
    fn rest(self) -> R {
        self.0.into_inner()
    }
}

/// Streams one after another.
enum Members<R: BufRead, D: Single<R>> {
    Between {
        source: R,
        first: bool,
    },
    In(D),
    /// After an error, or after the end.
    Gone,
}

impl<R: BufRead, D: Single<R>> Members<R, D> {
    fn new(source: R) -> Self {
        Members::Between {
            source,
            first: true,
        }
    }
}

impl<R: BufRead, D: Single<R>> Read for Members<R, D> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        loop {
            match std::mem::replace(self, Members::Gone) {
                Members::In(mut stream) => {
                    let n = stream.read(buf)?;
                    if n > 0 || buf.is_empty() {
                        *self = Members::In(stream);
                        return Ok(n);
                    }
                    *self = Members::Between {
                        source: stream.rest(),
                        first: false,
                    };
                }
                Members::Between { mut source, first } => {
                    let next = source.fill_buf()?;
                    if next.is_empty() {
                        return Ok(0);
                    }
                    let magic = D::MAGIC;
                    let another = next.starts_with(magic) || magic.starts_with(next);
                    if first || another || D::STRICT {
                        *self = Members::In(D::start(source)?);
                    } else if !D::ZEROS_PAD || !only_zeros(&mut source)? {
                        return Err(std::io::Error::new(
                            std::io::ErrorKind::InvalidData,
                            TrailingGarbage,
                        ));
                    } else {
                        return Ok(0);
                    }
                }
                Members::Gone => return Ok(0),
            }
        }
    }
}

/// Whether all that is left of `source` is zero bytes (gzip's padding).
fn only_zeros(source: &mut impl BufRead) -> std::io::Result<bool> {
    loop {
        let next = source.fill_buf()?;
        if next.is_empty() {
            return Ok(true);
        }
        if next.iter().any(|&b| b != 0) {
            return Ok(false);
        }
        let n = next.len();
        source.consume(n);
    }
}

#[cfg(test)]
mod tests {
    use super::{Codec, Encoder};

    fn compress(codec: Codec, data: &[u8]) -> Vec<u8> {
        let mut e = Encoder::new(codec, 6, Some(data.len() as u64)).unwrap();
        e.write(data).unwrap();
        let mut out = e.take();
        out.extend(e.finish().unwrap());
        out
    }

    #[test]
    fn each_format_round_trips_and_is_recognised() {
        let text = b"hello hello hello hello world\n".repeat(50);
        for codec in [Codec::Gzip, Codec::Xz, Codec::Bzip2, Codec::Zstd] {
            let packed = compress(codec, &text);
            assert_eq!(Codec::detect(&packed), Some(codec));
            assert!(packed.len() < text.len(), "{codec:?} did not compress");
            assert_eq!(codec.decompress(&packed, 1 << 20).unwrap(), text);
            assert!(
                codec.decompress(&packed, 100).is_err(),
                "{codec:?} ignored the limit"
            );
            assert!(codec.decompress(b"not compressed", 1 << 20).is_err());
        }
    }
}
