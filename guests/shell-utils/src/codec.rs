//! The compressed formats `gzip`, `xz`, `bzip2`, `zstd` and `tar` read and write, each on a
//! pure-Rust crate (flate2, lzma-rust2, bzip2 on libbz2-rs-sys, ruzstd), with their magic
//! numbers. Decompression stops at a limit, so a small bomb cannot take the instance's
//! memory.

use std::io::{Read, Write};

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

    /// `data` compressed at `level` (1 to 9; zstd compresses at its level 1 whatever the
    /// level, the only one ruzstd has).
    pub fn compress(self, data: &[u8], level: u32) -> std::io::Result<Vec<u8>> {
        match self {
            Codec::Gzip => gzip_bytes(data),
            Codec::Xz => {
                let mut options = lzma_rust2::XzOptions::with_preset(level.min(9));
                // A dictionary larger than the data buys nothing, and one over 16 MiB (-8,
                // -9) costs the encoder more memory than the isolate gives an instance.
                let fits = (data.len().max(4096) as u32).checked_next_power_of_two();
                let dict = &mut options.lzma_options.dict_size;
                *dict = (*dict).min(fits.unwrap_or(u32::MAX)).min(16 << 20);
                let mut w = lzma_rust2::XzWriter::new(Vec::new(), options)?;
                w.write_all(data)?;
                w.finish()
            }
            Codec::Bzip2 => {
                let level = bzip2::Compression::new(level.clamp(1, 9));
                let mut w = bzip2::write::BzEncoder::new(Vec::new(), level);
                w.write_all(data)?;
                w.finish()
            }
            Codec::Zstd => Ok(ruzstd::encoding::compress_to_vec(
                data,
                ruzstd::encoding::CompressionLevel::Fastest,
            )),
        }
    }

    /// `data` decompressed (every stream or frame of it, one after another), failing past
    /// `limit` bytes with a message that names the limit.
    pub fn decompress(self, data: &[u8], limit: usize) -> std::io::Result<Vec<u8>> {
        let mut out = Vec::new();
        let too_big = || {
            std::io::Error::other(format!(
                "the data decompresses to more than the {} MiB a command may hold in memory",
                limit >> 20
            ))
        };
        // The instance's memory may end first: that is a limit too, not bad data.
        let out_of_memory = |e: std::io::Error| {
            if e.kind() == std::io::ErrorKind::OutOfMemory {
                std::io::Error::other(
                    "the data decompresses to more than the isolate's memory limit holds",
                )
            } else {
                e
            }
        };
        let read = |r: &mut dyn Read, out: &mut Vec<u8>| -> std::io::Result<()> {
            let room = (limit + 1).saturating_sub(out.len()) as u64;
            r.take(room).read_to_end(out).map_err(out_of_memory)?;
            if out.len() > limit {
                return Err(too_big());
            }
            Ok(())
        };
        match self {
            Codec::Gzip => {
                out = gunzip_bytes(data).map_err(out_of_memory)?;
                if out.len() > limit {
                    return Err(too_big());
                }
            }
            Codec::Xz => read(&mut lzma_rust2::XzReader::new(data, true), &mut out)?,
            Codec::Bzip2 => read(&mut bzip2::read::MultiBzDecoder::new(data), &mut out)?,
            Codec::Zstd => {
                let mut input = data;
                while !input.is_empty() {
                    let mut frame = ruzstd::decoding::StreamingDecoder::new(&mut input)
                        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
                    read(&mut frame, &mut out)?;
                }
            }
        }
        Ok(out)
    }
}

fn gunzip_bytes(data: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(data).read_to_end(&mut out)?;
    Ok(out)
}

fn gzip_bytes(data: &[u8]) -> std::io::Result<Vec<u8>> {
    // OS 3: Unix, as gzip writes it.
    let mut e = flate2::GzBuilder::new()
        .operating_system(3)
        .write(Vec::new(), flate2::Compression::default());
    e.write_all(data)?;
    e.finish()
}

#[cfg(test)]
mod tests {
    use super::Codec;

    #[test]
    fn each_format_round_trips_and_is_recognised() {
        let text = b"hello hello hello hello world\n".repeat(50);
        for codec in [Codec::Gzip, Codec::Xz, Codec::Bzip2, Codec::Zstd] {
            let packed = codec.compress(&text, 6).unwrap();
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
