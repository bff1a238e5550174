//! `cksum` (POSIX's CRC, or `-a` a digest as `md5sum` and friends compute it) and `sum` (BSD's
//! and System V's 16-bit checksums), with GNU's output.

use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{bad_usage, parser, plain, string, usage, value};

use super::md5sum::{Algo, Options, blake_bits, check, digest_of};
use super::stream::{Stop, Writer, complain, files_or_stdin, read_chunks};

/// What a checksum line is made of.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Crc,
    Bsd,
    Sysv,
    Digest(Algo),
}

/// The names `cksum -a` takes, in GNU's order (for its message).
const ALGORITHMS: &[&str] = &[
    "bsd", "sysv", "crc", "md5", "sha1", "sha224", "sha256", "sha384", "sha512", "blake2b", "sm3",
];

/// `cksum [-a ALGO] [-l BITS] [--untagged] [-c] [FILE]...`.
pub async fn cksum(sh: &mut dyn Context, argv: &[String]) -> i32 {
    // None until `-a` names one: `-c` then takes any tagged line.
    let mut named = None;
    let mut bits = None;
    let mut untagged = false;
    let mut opts = Options::default();
    let mut files = Vec::new();
    let mut p = parser(argv);
    let parsed: Result<(), lexopt::Error> = (|| {
        while let Some(arg) = p.next()? {
            match arg {
                Short('a') | Long("algorithm") => {
                    let name = value(&mut p)?;
                    named = Some(match name.as_str() {
                        "crc" => Kind::Crc,
                        "bsd" => Kind::Bsd,
                        "sysv" => Kind::Sysv,
                        other => match Algo::of_name(other) {
                            Some(a) => Kind::Digest(a),
                            None => {
                                let valid: String =
                                    ALGORITHMS.iter().map(|a| format!("\n  - '{a}'")).collect();
                                return Err(usage(format!(
                                    "invalid argument '{name}' for '--algorithm'\nValid arguments are:{valid}"
                                )));
                            }
                        },
                    });
                }
                Short('l') | Long("length") => {
                    bits = Some(blake_bits(&value(&mut p)?, "cksum").map_err(plain)?);
                }
                Long("untagged") => untagged = true,
                Long("tag") => untagged = false,
                Long("debug") => {}
                Value(v) => files.push(string(v)),
                _ => {
                    if !opts.parse_check(&arg) {
                        return Err(arg.unexpected());
                    }
                }
            }
        }
        Ok(())
    })();
    if let Err(e) = parsed {
        return bad_usage(sh, "cksum", e, 1).await;
    }
    if let Some(bits) = bits {
        if named != Some(Kind::Digest(Algo::Blake2b(512))) {
            return complain(
                sh,
                "cksum: --length is only supported with --algorithm=blake2b",
            )
            .await;
        }
        named = Some(Kind::Digest(Algo::Blake2b(bits)));
    }
    if opts.check {
        let algo = match named {
            None => None,
            Some(Kind::Digest(a)) => Some(a),
            Some(_) => {
                let msg = "cksum: --check is not supported with --algorithm={bsd,sysv,crc}";
                return complain(sh, msg).await;
            }
        };
        let lists = files_or_stdin(files);
        return check(sh, "cksum", algo, &opts, &lists).await;
    }
    opts.tagged = !untagged;
    checksums(sh, "cksum", named.unwrap_or(Kind::Crc), &opts, files).await
}

/// `sum [-r | -s] [FILE]...`.
pub async fn sum(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let mut kind = Kind::Bsd;
    let mut files = Vec::new();
    let mut p = parser(argv);
    let parsed: Result<(), lexopt::Error> = (|| {
        while let Some(arg) = p.next()? {
            match arg {
                Short('r') => kind = Kind::Bsd,
                Short('s') | Long("sysv") => kind = Kind::Sysv,
                Value(v) => files.push(string(v)),
                _ => return Err(arg.unexpected()),
            }
        }
        Ok(())
    })();
    if let Err(e) = parsed {
        return bad_usage(sh, "sum", e, 1).await;
    }
    checksums(sh, "sum", kind, &Options::default(), files).await
}

/// Prints a line for each file (stdin when none is named: its line has no name). Each file
/// is read through, a chunk at a time.
async fn checksums(
    sh: &mut dyn Context,
    cmd: &str,
    kind: Kind,
    opts: &Options,
    files: Vec<String>,
) -> i32 {
    let named = !files.is_empty();
    let files = if named { files } else { vec!["-".to_string()] };
    let mut out = Writer::new(&sh.io().stdout);
    let mut status = 0;
    for f in &files {
        let name = if named {
            format!(" {f}")
        } else {
            String::new()
        };
        let line = match kind {
            Kind::Digest(algo) => digest_of(sh, cmd, f, algo).await.map(|hex| {
                if opts.tagged {
                    format!("{} ({f}) = {hex}\n", algo.tag())
                } else {
                    format!("{hex}  {f}\n")
                }
            }),
            _ => {
                let mut sums = Sums::default();
                read_chunks(sh, cmd, f, |chunk| sums.add(kind, chunk))
                    .await
                    .map(|()| sums.line(kind) + &name + "\n")
            }
        };
        let line = match line {
            Ok(line) => line,
            Err(m) => {
                status = complain(sh, &m).await;
                continue;
            }
        };
        if let Err(Stop(s)) = out.write_str(&line).await {
            return s;
        }
    }
    match out.flush().await {
        Ok(()) => status,
        Err(Stop(s)) => s,
    }
}

/// POSIX `cksum`'s CRC table: CRC-32, polynomial 0x04C11DB7, most significant bit first.
const CRC_TABLE: [u32; 256] = {
    let mut table = [0; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = (i as u32) << 24;
        let mut bit = 0;
        while bit < 8 {
            c = if c & 0x8000_0000 != 0 {
                (c << 1) ^ 0x04C1_1DB7
            } else {
                c << 1
            };
            bit += 1;
        }
        table[i] = c;
        i += 1;
    }
    table
};

fn crc_step(crc: u32, byte: u8) -> u32 {
    (crc << 8) ^ CRC_TABLE[((crc >> 24) as u8 ^ byte) as usize]
}

/// `cksum`'s and `sum`'s checksums of what was read so far.
#[derive(Default)]
struct Sums {
    crc: u32,
    /// BSD `sum`: a 16-bit checksum rotated right before each byte is added.
    bsd: u16,
    /// System V `sum`: the byte total.
    total: u64,
    len: u64,
}

impl Sums {
    fn add(&mut self, kind: Kind, data: &[u8]) {
        match kind {
            Kind::Crc => self.crc = data.iter().fold(self.crc, |c, &b| crc_step(c, b)),
            Kind::Bsd => {
                self.bsd = data.iter().fold(self.bsd, |c, &b| {
                    c.rotate_right(1).wrapping_add(u16::from(b))
                });
            }
            Kind::Sysv => self.total += data.iter().map(|&b| u64::from(b)).sum::<u64>(),
            Kind::Digest(_) => {}
        }
        self.len += data.len() as u64;
    }

    /// The line for `kind`, less the file's name: the checksum and the length (in bytes,
    /// KiB or 512-byte blocks).
    fn line(&self, kind: Kind) -> String {
        match kind {
            Kind::Bsd => format!("{:05} {:5}", self.bsd, self.len.div_ceil(1024)),
            Kind::Sysv => {
                let r = (self.total & 0xffff) + ((self.total & 0xffff_ffff) >> 16);
                let sum = (r & 0xffff) + (r >> 16);
                format!("{sum} {}", self.len.div_ceil(512))
            }
            // POSIX's CRC goes on over the length, least significant byte first and
            // without trailing zeros, and is complemented.
            _ => {
                let (mut crc, mut len) = (self.crc, self.len);
                while len > 0 {
                    crc = crc_step(crc, len as u8);
                    len >>= 8;
                }
                format!("{} {}", !crc, self.len)
            }
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::stdout_of;

    #[test]
    fn the_three_checksums_of_a_line() {
        assert_eq!(stdout_of(&["cksum"], "hello\n"), "3015617425 6\n");
        assert_eq!(stdout_of(&["cksum"], ""), "4294967295 0\n");
        assert_eq!(stdout_of(&["sum"], "hello\n"), "36979     1\n");
        assert_eq!(stdout_of(&["sum", "-s"], "hello\n"), "542 1\n");
    }
}
