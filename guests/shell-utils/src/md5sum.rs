//! `md5sum`, `sha1sum`, `sha224sum`, `sha256sum`, `sha384sum`, `sha512sum`, `b2sum`: digests of
//! files (or stdin), `--tag` for BSD's form, and `-c` to check a list of them (either form),
//! with GNU's output and messages. The RustCrypto crates do the hashing; `cksum -a` uses the
//! same [`Algo`].

use blake2::digest::{Update, VariableOutput};
use sha2::Digest;
use sha2::digest::DynDigest;
use shell_base::args::{bad_usage, parser, plain, string, value};

use super::stream::{Stop, Writer, complain, files_or_stdin, read_chunks, read_file};
use lexopt::prelude::*;
use shell_base::Context;

/// A digest algorithm; BLAKE2b carries its length in bits (`b2sum -l`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Algo {
    Md5,
    Sha1,
    Sha224,
    Sha256,
    Sha384,
    Sha512,
    Sm3,
    Blake2b(usize),
}

impl Algo {
    /// The algorithm a `*sum` command computes.
    pub fn of_command(name: &str) -> Algo {
        match name {
            "md5sum" => Algo::Md5,
            "sha1sum" => Algo::Sha1,
            "sha224sum" => Algo::Sha224,
            "sha384sum" => Algo::Sha384,
            "sha512sum" => Algo::Sha512,
            "b2sum" => Algo::Blake2b(512),
            _ => Algo::Sha256,
        }
    }

    /// The algorithm `cksum -a NAME` names.
    pub fn of_name(name: &str) -> Option<Algo> {
        Some(match name {
            "md5" => Algo::Md5,
            "sha1" => Algo::Sha1,
            "sha224" => Algo::Sha224,
            "sha256" => Algo::Sha256,
            "sha384" => Algo::Sha384,
            "sha512" => Algo::Sha512,
            "sm3" => Algo::Sm3,
            "blake2b" => Algo::Blake2b(512),
            _ => return None,
        })
    }

    /// The name BSD's tagged lines start with (`SHA256 (file) = ...`).
    pub fn tag(self) -> String {
        match self {
            Algo::Md5 => "MD5".into(),
            Algo::Sha1 => "SHA1".into(),
            Algo::Sha224 => "SHA224".into(),
            Algo::Sha256 => "SHA256".into(),
            Algo::Sha384 => "SHA384".into(),
            Algo::Sha512 => "SHA512".into(),
            Algo::Sm3 => "SM3".into(),
            Algo::Blake2b(512) => "BLAKE2b".into(),
            Algo::Blake2b(bits) => format!("BLAKE2b-{bits}"),
        }
    }

    /// The algorithm a tagged line names.
    fn of_tag(tag: &str) -> Option<Algo> {
        Some(match tag {
            "MD5" => Algo::Md5,
            "SHA1" => Algo::Sha1,
            "SHA224" => Algo::Sha224,
            "SHA256" => Algo::Sha256,
            "SHA384" => Algo::Sha384,
            "SHA512" => Algo::Sha512,
            "SM3" => Algo::Sm3,
            "BLAKE2b" => Algo::Blake2b(512),
            _ => Algo::Blake2b(blake_bits(tag.strip_prefix("BLAKE2b-")?, "").ok()?),
        })
    }

    /// A digest of this algorithm to feed.
    pub fn hasher(self) -> Hasher {
        let fixed = |d: Box<dyn DynDigest>| Hasher::Fixed(d);
        match self {
            Algo::Md5 => fixed(Box::new(md5::Md5::new())),
            Algo::Sha1 => fixed(Box::new(sha1::Sha1::new())),
            Algo::Sha224 => fixed(Box::new(sha2::Sha224::new())),
            Algo::Sha256 => fixed(Box::new(sha2::Sha256::new())),
            Algo::Sha384 => fixed(Box::new(sha2::Sha384::new())),
            Algo::Sha512 => fixed(Box::new(sha2::Sha512::new())),
            Algo::Sm3 => fixed(Box::new(sm3::Sm3::new())),
            // `blake_bits` keeps the length within 8..=512 bits, whole bytes.
            Algo::Blake2b(bits) => Hasher::Blake2b(
                blake2::Blake2bVar::new(bits / 8).ok().map(Box::new),
                bits / 8,
            ),
        }
    }

    /// The digest of `data` in lower-case hex.
    pub fn hex(self, data: &[u8]) -> String {
        let mut h = self.hasher();
        h.update(data);
        h.hex()
    }

    /// The length of its digest in hex digits.
    fn hex_len(self) -> usize {
        self.hex(b"").len()
    }
}

/// A digest being computed, fed a chunk at a time, so a file of any size is read through.
pub enum Hasher {
    Fixed(Box<dyn DynDigest>),
    /// BLAKE2b and its length in bytes.
    Blake2b(Option<Box<blake2::Blake2bVar>>, usize),
}

impl Hasher {
    pub fn update(&mut self, data: &[u8]) {
        match self {
            Hasher::Fixed(d) => d.update(data),
            Hasher::Blake2b(h, _) => {
                if let Some(h) = h {
                    h.update(data);
                }
            }
        }
    }

    /// The digest in lower-case hex.
    pub fn hex(self) -> String {
        let bytes: Vec<u8> = match self {
            Hasher::Fixed(d) => d.finalize().into_vec(),
            Hasher::Blake2b(h, len) => {
                let mut out = vec![0; len];
                if let Some(h) = h {
                    h.finalize_variable(&mut out).ok();
                }
                out
            }
        };
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// The digest of file `name` (stdin for `-`), read through; a message starts `cmd: `.
pub async fn digest_of(
    sh: &dyn Context,
    cmd: &str,
    name: &str,
    algo: Algo,
) -> Result<String, String> {
    let mut h = algo.hasher();
    read_chunks(sh, cmd, name, |chunk| h.update(chunk)).await?;
    Ok(h.hex())
}

/// A BLAKE2b length in bits as `-l` takes it (a multiple of 8 up to 512; 0 is the default), or
/// GNU's message, whose second line `cmd` starts.
pub fn blake_bits(text: &str, cmd: &str) -> Result<usize, String> {
    let why = match text.parse::<usize>() {
        Ok(0) => return Ok(512),
        Ok(b) if b > 512 => "maximum digest length for 'BLAKE2b' is 512 bits",
        Ok(b) if b % 8 != 0 => "length is not a multiple of 8",
        Ok(b) => return Ok(b),
        Err(_) => return Err(format!("invalid length: '{text}'")),
    };
    Err(format!("invalid length: '{text}'\n{cmd}: {why}"))
}

/// `md5sum [-c] [--tag] [FILE...]`, the SHA variants and `b2sum [-l BITS]`.
pub async fn sum(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let cmd = argv[0].clone();
    let mut algo = Algo::of_command(&cmd);
    let mut opts = Options::default();
    let mut files = Vec::new();
    let mut p = parser(argv);
    let parsed: Result<(), lexopt::Error> = (|| {
        while let Some(arg) = p.next()? {
            match arg {
                Short('l') | Long("length") if cmd == "b2sum" => {
                    let bits = blake_bits(&value(&mut p)?, "b2sum").map_err(plain)?;
                    algo = Algo::Blake2b(bits);
                }
                Long("tag") => opts.tagged = true,
                Short('b' | 't') | Long("binary" | "text") => {}
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
        return bad_usage(sh, &cmd, e, 1).await;
    }
    let files = files_or_stdin(files);
    if opts.check {
        return check(sh, &cmd, Some(algo), &opts, &files).await;
    }
    let mut out = Writer::new(&sh.io().stdout);
    let mut status = 0;
    for f in &files {
        match digest_of(sh, &cmd, f, algo).await {
            Ok(hex) => {
                let line = if opts.tagged {
                    format!("{} ({f}) = {hex}\n", algo.tag())
                } else {
                    format!("{hex}  {f}\n")
                };
                if let Err(Stop(s)) = out.write_str(&line).await {
                    return s;
                }
            }
            Err(m) => status = complain(sh, &m).await,
        }
    }
    match out.flush().await {
        Ok(()) => status,
        Err(Stop(s)) => s,
    }
}

/// The options of a checksum command that shape its output and its checking.
#[derive(Default)]
pub struct Options {
    pub tagged: bool,
    pub check: bool,
    quiet: bool,
    status_only: bool,
}

impl Options {
    /// Takes `-c` and the options that go with it; false when `arg` is none of them.
    pub fn parse_check(&mut self, arg: &lexopt::Arg<'_>) -> bool {
        match arg {
            Short('c') | Long("check") => self.check = true,
            Long("quiet") => self.quiet = true,
            Long("status") => self.status_only = true,
            Short('w') | Long("warn" | "strict" | "ignore-missing") => {}
            _ => return false,
        }
        true
    }
}

/// One line of a checksum list: `HEX  NAME`, `HEX *NAME` or `TAG (NAME) = HEX`, for the
/// algorithm `algo` (any the tag names, when none is given).
fn parse_line(line: &str, algo: Option<Algo>) -> Option<(Algo, String, String)> {
    if let Some((head, hex)) = line.rsplit_once(") = ")
        && let Some((tag, name)) = head.split_once(" (")
        && let Some(named) = Algo::of_tag(tag)
        && algo.is_none_or(|a| a == named)
    {
        return valid(named, hex, name);
    }
    let algo = algo?;
    let (hex, name) = line.split_once("  ").or_else(|| line.split_once(" *"))?;
    valid(algo, hex, name)
}

fn valid(algo: Algo, hex: &str, name: &str) -> Option<(Algo, String, String)> {
    (hex.len() == algo.hex_len() && hex.chars().all(|c| c.is_ascii_hexdigit()))
        .then(|| (algo, hex.to_string(), name.to_string()))
}

/// `-c`: reads each list and checks the files it names, as GNU's tools report it.
pub async fn check(
    sh: &mut dyn Context,
    cmd: &str,
    algo: Option<Algo>,
    opts: &Options,
    lists: &[String],
) -> i32 {
    let mut out = Writer::new(&sh.io().stdout);
    let mut status = 0;
    let (mut failed, mut unreadable) = (0, 0);
    for list in lists {
        let text = match read_file(sh, cmd, list).await {
            Ok(d) => String::from_utf8_lossy(&d).into_owned(),
            Err(m) => {
                status = complain(sh, &m).await;
                continue;
            }
        };
        let mut proper = 0;
        for line in text.lines() {
            let Some((algo, want, name)) = parse_line(line, algo) else {
                continue;
            };
            proper += 1;
            let got = match digest_of(sh, cmd, &name, algo).await {
                Ok(hex) => hex,
                Err(m) => {
                    unreadable += 1;
                    if !opts.status_only {
                        out.flush().await.ok();
                        complain(sh, &m).await;
                        out.write_str(&format!("{name}: FAILED open or read\n"))
                            .await
                            .ok();
                    }
                    continue;
                }
            };
            let ok = got.eq_ignore_ascii_case(want.trim());
            if !ok {
                failed += 1;
            }
            if !(opts.status_only || ok && opts.quiet) {
                let word = if ok { "OK" } else { "FAILED" };
                if let Err(Stop(s)) = out.write_str(&format!("{name}: {word}\n")).await {
                    return s;
                }
            }
        }
        if proper == 0 {
            status = complain(
                sh,
                &format!("{cmd}: {list}: no properly formatted checksum lines found"),
            )
            .await;
        }
    }
    if let Err(Stop(s)) = out.flush().await {
        return s;
    }
    if !opts.status_only {
        if unreadable > 0 {
            let s = if unreadable == 1 { "" } else { "s" };
            complain(
                sh,
                &format!("{cmd}: WARNING: {unreadable} listed file{s} could not be read"),
            )
            .await;
        }
        if failed > 0 {
            let s = if failed == 1 { "" } else { "s" };
            complain(
                sh,
                &format!("{cmd}: WARNING: {failed} computed checksum{s} did NOT match"),
            )
            .await;
        }
    }
    if failed > 0 || unreadable > 0 {
        1
    } else {
        status
    }
}

#[cfg(all(test, unix))]
mod tests {

    use crate::testing::stdout_of;

    #[test]
    fn digests_of_stdin() {
        assert_eq!(
            stdout_of(&["md5sum"], "abc"),
            "900150983cd24fb0d6963f7d28e17f72  -\n"
        );
        assert_eq!(
            stdout_of(&["sha256sum"], "abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  -\n"
        );
    }
}
