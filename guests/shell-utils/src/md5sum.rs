//! `md5sum`, `sha1sum`, `sha224sum`, `sha256sum`, `sha384sum`, `sha512sum`, `b2sum`: digests of
//! files (or stdin), and `-c` to check a list of them, with GNU's output and messages. The
//! RustCrypto crates do the hashing.

use sha2::Digest;
use shell_base::args::{bad_usage, parser, string};

use super::stream::{MEMORY_LIMIT, Stop, Writer, complain, files_or_stdin, open, read_all_limited};
use lexopt::prelude::*;
use shell_base::Context;

fn hex_digest(algo: &str, data: &[u8]) -> String {
    let bytes: Vec<u8> = match algo {
        "md5sum" => md5::Md5::digest(data).to_vec(),
        "sha1sum" => sha1::Sha1::digest(data).to_vec(),
        "sha224sum" => sha2::Sha224::digest(data).to_vec(),
        "sha384sum" => sha2::Sha384::digest(data).to_vec(),
        "sha512sum" => sha2::Sha512::digest(data).to_vec(),
        "b2sum" => blake2::Blake2b512::digest(data).to_vec(),
        _ => sha2::Sha256::digest(data).to_vec(),
    };
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

async fn contents(sh: &mut dyn Context, algo: &str, f: &str) -> Result<Vec<u8>, String> {
    let input = open(sh, f).map_err(|m| format!("{algo}: {m}"))?;
    read_all_limited(&input, MEMORY_LIMIT, algo).await
}

/// `md5sum [-c] [FILE...]` and the SHA variants.
pub async fn sum(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let algo = argv[0].clone();
    let mut check = false;
    let mut quiet = false;
    let mut status_only = false;
    let mut files = Vec::new();
    let mut p = parser(argv);
    let parsed: Result<(), lexopt::Error> = (|| {
        while let Some(arg) = p.next()? {
            match arg {
                Short('c') | Long("check") => check = true,
                Long("quiet") => quiet = true,
                Long("status") => status_only = true,
                // Binary and text mode are the same on this system.
                Short('b' | 't') | Long("binary" | "text") => {}
                Value(v) => files.push(string(v)),
                _ => return Err(arg.unexpected()),
            }
        }
        Ok(())
    })();
    if let Err(e) = parsed {
        return bad_usage(sh, &algo, e, 1).await;
    }
    let files = files_or_stdin(files);
    let mut out = Writer::new(&sh.io().stdout);
    let mut status = 0;
    if !check {
        for f in &files {
            match contents(sh, &algo, f).await {
                Ok(data) => {
                    if let Err(Stop(s)) = out
                        .write_str(&format!("{}  {f}\n", hex_digest(&algo, &data)))
                        .await
                    {
                        return s;
                    }
                }
                Err(m) => status = complain(sh, &m).await,
            }
        }
        return match out.flush().await {
            Ok(()) => status,
            Err(Stop(s)) => s,
        };
    }
    let (mut failed, mut unreadable) = (0, 0);
    for list in &files {
        let text = match contents(sh, &algo, list).await {
            Ok(d) => String::from_utf8_lossy(&d).into_owned(),
            Err(m) => {
                status = complain(sh, &m).await;
                continue;
            }
        };
        let digest_len = hex_digest(&algo, b"").len();
        let mut proper = 0;
        for line in text.lines() {
            let Some((want, name)) = line.split_once("  ").or_else(|| line.split_once(" *")) else {
                continue;
            };
            if want.len() != digest_len || !want.chars().all(|c| c.is_ascii_hexdigit()) {
                continue;
            }
            proper += 1;
            let got = match contents(sh, &algo, name).await {
                Ok(d) => hex_digest(&algo, &d),
                Err(m) => {
                    unreadable += 1;
                    if !status_only {
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
            if !(status_only || ok && quiet) {
                let word = if ok { "OK" } else { "FAILED" };
                if let Err(Stop(s)) = out.write_str(&format!("{name}: {word}\n")).await {
                    return s;
                }
            }
        }
        if proper == 0 {
            status = complain(
                sh,
                &format!("{algo}: {list}: no properly formatted checksum lines found"),
            )
            .await;
        }
    }
    if let Err(Stop(s)) = out.flush().await {
        return s;
    }
    if !status_only {
        if unreadable > 0 {
            let s = if unreadable == 1 { "" } else { "s" };
            complain(
                sh,
                &format!("{algo}: WARNING: {unreadable} listed file{s} could not be read"),
            )
            .await;
        }
        if failed > 0 {
            let s = if failed == 1 { "" } else { "s" };
            complain(
                sh,
                &format!("{algo}: WARNING: {failed} computed checksum{s} did NOT match"),
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
