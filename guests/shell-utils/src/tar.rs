//! `tar`: `c x t`, `z`/`J`/`j`/`--zstd` (and any of them recognised when reading), `f`, `C`,
//! `--strip-components`, `v` for names, over the `tar` crate.

use super::stream::{MEMORY_LIMIT, Stop, Writer, complain, read_all_limited};
use crate::codec::Codec;
use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{number, parser, string, value, wording};
use shell_base::errno::io_message;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Adds `rel` (and, for a directory, everything under it, in name order) to the archive.
fn add(
    builder: &mut tar::Builder<Vec<u8>>,
    base: &Path,
    rel: &str,
    names: &mut Vec<String>,
) -> std::io::Result<()> {
    let full = base.join(rel);
    let meta = std::fs::symlink_metadata(&full)?;
    if meta.is_dir() {
        let shown = format!("{}/", rel.trim_end_matches('/'));
        let mut header = tar::Header::new_gnu();
        header.set_entry_type(tar::EntryType::Directory);
        header.set_mode(permissions(&full, 0o755));
        header.set_size(0);
        header.set_mtime(mtime(&meta));
        builder.append_data(&mut header, &shown, std::io::empty())?;
        names.push(shown);
        for c in super::stream::sorted_names(&full)? {
            add(
                builder,
                base,
                &format!("{}/{c}", rel.trim_end_matches('/')),
                names,
            )?;
        }
    } else if meta.file_type().is_symlink() {
        let target = std::fs::read_link(&full)?;
        let mut header = tar::Header::new_gnu();
        header.set_entry_type(tar::EntryType::Symlink);
        header.set_size(0);
        header.set_mode(0o777);
        header.set_mtime(mtime(&meta));
        builder.append_link(&mut header, rel, target)?;
        names.push(rel.to_string());
    } else {
        let data = std::fs::read(&full)?;
        let mut header = tar::Header::new_gnu();
        header.set_entry_type(tar::EntryType::Regular);
        header.set_mode(permissions(&full, 0o644));
        header.set_size(data.len() as u64);
        header.set_mtime(mtime(&meta));
        builder.append_data(&mut header, rel, &data[..])?;
        names.push(rel.to_string());
    }
    Ok(())
}

/// The permission bits of `path` (`fallback` when the workspace cannot say).
fn permissions(path: &Path, fallback: u32) -> u32 {
    crate::fileinfo::info(path, false).map_or(fallback, |i| i.mode & 0o7777)
}

fn mtime(meta: &std::fs::Metadata) -> u64 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// `tar [-]{c|x|t}[zvf...] [ARCHIVE] [-C DIR] [--strip-components N] [PATH...]`.
pub async fn tar(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let mut mode: Option<char> = None;
    let mut codec: Option<Codec> = None;
    let mut verbose = false;
    // `-O`: extract to standard output.
    let mut to_stdout = false;
    let mut file: Option<String> = None;
    let mut dir: Option<String> = None;
    let mut strip = 0usize;
    let mut paths = Vec::new();
    let mut args: Vec<String> = argv.to_vec();
    // The old form: a first word of letters without a dash.
    if let Some(first) = args.get(1).cloned()
        && !first.starts_with('-')
        && first.chars().all(|c| "cxtzvfjJpPO".contains(c))
    {
        args[1] = format!("-{first}");
    }
    let mut p = parser(&args);
    let parsed: Result<(), lexopt::Error> = (|| {
        while let Some(arg) = p.next()? {
            match arg {
                Short(c @ ('c' | 'x' | 't')) => mode = Some(c),
                Long("create") => mode = Some('c'),
                Long("extract" | "get") => mode = Some('x'),
                Long("list") => mode = Some('t'),
                Short('z') | Long("gzip" | "gunzip") => codec = Some(Codec::Gzip),
                Short('J') | Long("xz") => codec = Some(Codec::Xz),
                Short('j') | Long("bzip2") => codec = Some(Codec::Bzip2),
                Long("zstd") => codec = Some(Codec::Zstd),
                Short('v') | Long("verbose") => verbose = true,
                Short('O') | Long("to-stdout") => to_stdout = true,
                // Modes and owners are always kept as the workspace has them.
                Short('p' | 'P' | 'o') => {}
                Short('f') | Long("file") => file = Some(value(&mut p)?),
                Short('C') | Long("directory") => dir = Some(value(&mut p)?),
                Long("strip-components") => {
                    strip = number(&value(&mut p)?, "number of components")?
                }
                Value(v) => paths.push(string(v)),
                _ => return Err(arg.unexpected()),
            }
        }
        Ok(())
    })();
    if let Err(e) = parsed {
        let (msg, _) = wording("tar", &e);
        let hint = "Try 'tar --help' or 'tar --usage' for more information.";
        return complain(sh, &format!("{msg}\n{hint}")).await + 1;
    }
    let Some(mode) = mode else {
        return complain(sh, "tar: You must specify one of the '-Acdtrux', '--delete' or '--test-label' options\nTry 'tar --help' or 'tar --usage' for more information.").await + 1;
    };
    let base: PathBuf = match &dir {
        Some(d) => sh.path(d),
        None => sh.path("."),
    };
    let mut out = Writer::new(&sh.io().stdout);
    if mode == 'c' {
        if paths.is_empty() {
            return complain(sh, "tar: Cowardly refusing to create an empty archive\nTry 'tar --help' or 'tar --usage' for more information.").await + 1;
        }
        let mut builder = tar::Builder::new(Vec::new());
        let mut names = Vec::new();
        let mut status = 0;
        for p in &paths {
            if let Err(e) = add(&mut builder, &base, p, &mut names) {
                status = 2;
                complain(sh, &format!("tar: {p}: Cannot stat: {}", io_message(&e))).await;
            }
        }
        if status != 0 {
            complain(
                sh,
                "tar: Exiting with failure status due to previous errors",
            )
            .await;
        }
        let data = match builder.into_inner() {
            Ok(d) => d,
            Err(e) => return complain(sh, &format!("tar: {}", io_message(&e))).await + 1,
        };
        let data = match codec {
            Some(c) => match c.compress(&data, 6) {
                Ok(d) => d,
                Err(e) => return complain(sh, &format!("tar: {}", io_message(&e))).await + 1,
            },
            None => data,
        };
        match file.as_deref() {
            None | Some("-") => {
                if let Err(Stop(s)) = out.write(&data).await {
                    return s;
                }
            }
            Some(f) => {
                if let Err(e) = std::fs::write(sh.path(f), &data) {
                    return complain(sh, &format!("tar: {f}: Cannot open: {}", io_message(&e)))
                        .await
                        + 1;
                }
                if verbose {
                    let text: String = names.iter().map(|n| format!("{n}\n")).collect();
                    if let Err(Stop(s)) = out.write_str(&text).await {
                        return s;
                    }
                }
            }
        }
        return match out.flush().await {
            Ok(()) => status,
            Err(Stop(s)) => s,
        };
    }
    // Reading: from the file or stdin, gzip detected by its magic number.
    let raw = match file.as_deref() {
        None | Some("-") => {
            match read_all_limited(&sh.io().stdin.clone(), MEMORY_LIMIT, "tar").await {
                Ok(d) => d,
                Err(m) => return complain(sh, &m).await + 1,
            }
        }
        Some(f) => match std::fs::read(sh.path(f)) {
            Ok(d) => d,
            Err(e) => {
                return complain(
                    sh,
                    &format!(
                        "tar: {f}: Cannot open: {}\ntar: Error is not recoverable: exiting now",
                        io_message(&e)
                    ),
                )
                .await
                    + 1;
            }
        },
    };
    let data = match codec.or(Codec::detect(&raw)) {
        Some(c) => match c.decompress(&raw, MEMORY_LIMIT) {
            Ok(d) => d,
            Err(e) => {
                let why = match c {
                    _ if e.kind() == std::io::ErrorKind::Other => format!("tar: {e}"),
                    Codec::Gzip => "\ngzip: stdin: not in gzip format".to_string(),
                    Codec::Xz => "xz: (stdin): File format not recognized".to_string(),
                    Codec::Bzip2 => "bzip2: (stdin) is not a bzip2 file.".to_string(),
                    Codec::Zstd => "zstd: /*stdin*\\: unsupported format ".to_string(),
                };
                let msg = format!(
                    "{why}\ntar: Child returned status 1\ntar: Error is not recoverable: exiting now"
                );
                return complain(sh, &msg).await + 1;
            }
        },
        None => raw,
    };
    let mut archive = tar::Archive::new(&data[..]);
    let entries = match archive.entries() {
        Ok(e) => e,
        Err(e) => return complain(sh, &format!("tar: {}", io_message(&e))).await + 1,
    };
    let mut status = 0;
    for entry in entries {
        let mut entry = match entry {
            Ok(e) => e,
            Err(_) => {
                complain(sh, "tar: This does not look like a tar archive\ntar: Exiting with failure status due to previous errors").await;
                return 2;
            }
        };
        let name = entry
            .path()
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_default();
        let is_dir = entry.header().entry_type().is_dir();
        let shown = if is_dir && !name.ends_with('/') {
            format!("{name}/")
        } else {
            name.clone()
        };
        if !paths.is_empty()
            && !paths.iter().any(|p| {
                name.trim_end_matches('/') == p.trim_end_matches('/')
                    || name.starts_with(&format!("{}/", p.trim_end_matches('/')))
            })
        {
            continue;
        }
        if (mode == 't' || verbose)
            && let Err(Stop(s)) = out.write_str(&format!("{shown}\n")).await
        {
            return s;
        }
        if mode != 'x' {
            continue;
        }
        let parts: Vec<&str> = name
            .split('/')
            .filter(|p| !p.is_empty() && *p != ".")
            .collect();
        if parts.len() <= strip {
            continue;
        }
        if parts.contains(&"..") {
            status = 2;
            complain(sh, &format!("tar: {name}: Member name contains '..'")).await;
            continue;
        }
        let target = base.join(parts[strip..].join("/"));
        if to_stdout {
            let mut bytes = Vec::new();
            if !is_dir
                && entry.read_to_end(&mut bytes).is_ok()
                && let Err(Stop(s)) = out.write(&bytes).await
            {
                return s;
            }
            continue;
        }
        let r = if is_dir {
            std::fs::create_dir_all(&target)
        } else if entry.header().entry_type().is_symlink() {
            match entry.link_name() {
                Ok(Some(to)) => {
                    let _ = std::fs::remove_file(&target);
                    crate::ln::symlink(&to.to_string_lossy(), &target)
                }
                Ok(None) => Err(std::io::Error::other("symbolic link without a target")),
                Err(e) => Err(e),
            }
        } else {
            if let Some(parent) = target.parent() {
                let _ = std::fs::create_dir_all(parent);
            }
            let mut bytes = Vec::new();
            let mode = entry.header().mode().unwrap_or(0o644) & 0o7777;
            entry
                .read_to_end(&mut bytes)
                .and_then(|_| std::fs::write(&target, &bytes))
                .and_then(|()| crate::fileinfo::set_mode(&target, mode))
        };
        if let Err(e) = r {
            status = 2;
            complain(sh, &format!("tar: {name}: Cannot open: {}", io_message(&e))).await;
        }
    }
    match out.flush().await {
        Ok(()) => status,
        Err(Stop(s)) => s,
    }
}

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::Native;

    #[test]
    fn creates_lists_and_extracts() {
        let mut ctx = Native::new();
        ctx.write("src/a", "x").write("src/b/c", "y");
        assert_eq!(ctx.run(&["tar", "czf", "t.tgz", "src"], "").status, 0);
        assert_eq!(
            ctx.run(&["tar", "tzf", "t.tgz"], "").stdout,
            "src/\nsrc/a\nsrc/b/\nsrc/b/c\n"
        );
        std::fs::create_dir(ctx.dir().join("out")).unwrap();
        assert_eq!(ctx.run(&["tar", "xzf", "t.tgz", "-C", "out"], "").status, 0);
        assert_eq!(ctx.read("out/src/b/c"), "y");
    }
}
