//! `cksum` (POSIX's CRC, or `-a` a digest as `md5sum` and friends compute it) and `sum` (BSD's
//! and System V's 16-bit checksums), with GNU's output.

use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{bad_usage, parser, plain, string, usage, value};

use super::md5sum::{Algo, Options, blake_bits, check};
use super::stream::{Stop, Writer, complain, files_or_stdin, read_file};

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

/// Prints a line for each file (stdin when none is named: its line has no name).
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
        let data = match read_file(sh, cmd, f).await {
            Ok(d) => d,
            Err(m) => {
                status = complain(sh, &m).await;
                continue;
            }
        };
        let name = if named {
            format!(" {f}")
        } else {
            String::new()
        };
        let line = match kind {
            Kind::Crc => format!("{} {}{name}\n", crc(&data), data.len()),
            Kind::Bsd => format!("{:05} {:5}{name}\n", bsd(&data), data.len().div_ceil(1024)),
            Kind::Sysv => format!("{} {}{name}\n", sysv(&data), data.len().div_ceil(512)),
            Kind::Digest(algo) if opts.tagged => {
                format!("{} ({f}) = {}\n", algo.tag(), algo.hex(&data))
            }
            Kind::Digest(algo) => format!("{}  {f}\n", algo.hex(&data)),
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

/// POSIX `cksum`'s CRC: CRC-32 (polynomial 0x04C11DB7, most significant bit first) over the
/// data and then its length, least significant byte first and without trailing zeros,
/// complemented.
fn crc(data: &[u8]) -> u32 {
    let table: [u32; 256] = std::array::from_fn(|i| {
        let mut c = (i as u32) << 24;
        for _ in 0..8 {
            c = if c & 0x8000_0000 != 0 {
                (c << 1) ^ 0x04C1_1DB7
            } else {
                c << 1
            };
        }
        c
    });
    let step = |crc: u32, byte: u8| (crc << 8) ^ table[((crc >> 24) as u8 ^ byte) as usize];
    let mut crc = data.iter().fold(0, |c, &b| step(c, b));
    let mut len = data.len();
    while len > 0 {
        crc = step(crc, len as u8);
        len >>= 8;
    }
    !crc
}

/// BSD `sum`: a 16-bit checksum rotated right before each byte is added.
fn bsd(data: &[u8]) -> u16 {
    data.iter()
        .fold(0u16, |c, &b| c.rotate_right(1).wrapping_add(u16::from(b)))
}

/// System V `sum`: the byte total folded into 16 bits.
fn sysv(data: &[u8]) -> u32 {
    let total: u64 = data.iter().map(|&b| u64::from(b)).sum();
    let r = (total & 0xffff) + ((total & 0xffff_ffff) >> 16);
    ((r & 0xffff) + (r >> 16)) as u32
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
