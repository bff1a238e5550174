//! `tar`: `c x t`, `z`/`J`/`j`/`--zstd` (and any of them recognised when reading), `f`, `C`,
//! `--strip-components`, `--exclude`, `v` (names, and with `t` GNU's long listing), over
//! the `tar` crate.

use super::stream::{MEMORY_LIMIT, Stop, Writer, complain, read_all_limited};
use crate::codec::Codec;
use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{number, parser, string, value, wording};
use shell_base::errno::io_message;
use shell_base::pattern::{MatchOptions, Pattern};
use std::io::Read;
use std::path::{Path, PathBuf};

/// `--exclude` patterns, as GNU tar matches them by default: against the whole name or any
/// part of it after a `/`, a match on a leading directory excluding what is under it, and
/// `*` matching `/` too.
struct Excludes(Vec<Pattern>);

impl Excludes {
    fn excludes(&self, name: &str) -> bool {
        let name = name.trim_end_matches('/');
        let mut tails = vec![name];
        tails.extend(name.match_indices('/').map(|(i, _)| &name[i + 1..]));
        self.0.iter().any(|p| {
            tails.iter().any(|tail| {
                p.matches(tail) || tail.match_indices('/').any(|(i, _)| p.matches(&tail[..i]))
            })
        })
    }
}

/// What `tar c` adds files with.
struct Adding<'a> {
    builder: tar::Builder<Vec<u8>>,
    base: &'a Path,
    /// The names added, for `v`.
    names: Vec<String>,
    excludes: &'a Excludes,
    /// The shell's user, the name of uid 1000.
    user: &'a str,
}

/// Adds `rel` (and, for a directory, everything under it, in name order) to the archive,
/// unless it is excluded.
fn add(a: &mut Adding, rel: &str) -> std::io::Result<()> {
    if a.excludes.excludes(rel) {
        return Ok(());
    }
    let base = a.base;
    let full = base.join(rel);
    let meta = std::fs::symlink_metadata(&full)?;
    if meta.is_dir() {
        let shown = format!("{}/", rel.trim_end_matches('/'));
        let mut header = tar::Header::new_gnu();
        header.set_entry_type(tar::EntryType::Directory);
        owner(&mut header, &full, a.user);
        header.set_mode(permissions(&full, 0o755));
        header.set_size(0);
        header.set_mtime(mtime(&meta));
        a.builder
            .append_data(&mut header, &shown, std::io::empty())?;
        a.names.push(shown);
        for c in super::stream::sorted_names(&full)? {
            add(a, &format!("{}/{c}", rel.trim_end_matches('/')))?;
        }
    } else if meta.file_type().is_symlink() {
        let target = std::fs::read_link(&full)?;
        let mut header = tar::Header::new_gnu();
        header.set_entry_type(tar::EntryType::Symlink);
        owner(&mut header, &full, a.user);
        header.set_size(0);
        header.set_mode(0o777);
        header.set_mtime(mtime(&meta));
        a.builder.append_link(&mut header, rel, target)?;
        a.names.push(rel.to_string());
    } else {
        let data = std::fs::read(&full)?;
        let mut header = tar::Header::new_gnu();
        header.set_entry_type(tar::EntryType::Regular);
        owner(&mut header, &full, a.user);
        header.set_mode(permissions(&full, 0o644));
        header.set_size(data.len() as u64);
        header.set_mtime(mtime(&meta));
        a.builder.append_data(&mut header, rel, &data[..])?;
        a.names.push(rel.to_string());
    }
    Ok(())
}

/// The owner and group of `path` as the workspace records them, by number and by name (as
/// `ls -l` names them).
fn owner(header: &mut tar::Header, path: &Path, user: &str) {
    let Ok(i) = crate::fileinfo::info(path, false) else {
        return;
    };
    header.set_uid(u64::from(i.uid));
    header.set_gid(u64::from(i.gid));
    let _ = header.set_username(&crate::fileinfo::owner_name(i.uid, user));
    let _ = header.set_groupname(&crate::fileinfo::owner_name(i.gid, user));
}

/// `tar tv`'s line for an entry, GNU's: mode, owner/group and size (in a field that only
/// grows, from 19 wide), time, name, and a link's target.
fn long_listing(entry: &tar::Entry<&[u8]>, shown: &str, width: &mut usize) -> String {
    let h = entry.header();
    let kind = h.entry_type();
    let type_bits = if kind.is_dir() {
        0o040000
    } else if kind.is_symlink() {
        0o120000
    } else {
        0o100000
    };
    let mode = crate::fileinfo::mode_string(type_bits | (h.mode().unwrap_or(0) & 0o7777));
    let name_or = |name: Option<&str>, id: u64| match name {
        Some(n) if !n.is_empty() => n.to_string(),
        _ => id.to_string(),
    };
    let user = name_or(h.username().ok().flatten(), h.uid().unwrap_or(0));
    let group = name_or(h.groupname().ok().flatten(), h.gid().unwrap_or(0));
    let owners = format!("{user}/{group}");
    let size = h.size().unwrap_or(0).to_string();
    *width = (*width).max(owners.len() + 1 + size.len());
    let pad = *width - owners.len() - size.len();
    let secs = h.mtime().unwrap_or(0) as i64;
    let time = shell_base::clock::format(secs, 0, "%Y-%m-%d %H:%M");
    let mut line = format!("{mode} {owners}{}{size} {time} {shown}", " ".repeat(pad));
    if let Ok(Some(target)) = entry.link_name() {
        let how = if kind.is_symlink() { "->" } else { "link to" };
        line.push_str(&format!(" {how} {}", target.to_string_lossy()));
    }
    line.push('\n');
    line
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
    let mut excludes = Vec::new();
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
                Long("exclude") => excludes.push(value(&mut p)?),
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
    let excludes = Excludes(
        excludes
            .iter()
            .map(|e| Pattern::new(e, MatchOptions::default()))
            .collect(),
    );
    let base: PathBuf = match &dir {
        Some(d) => sh.path(d),
        None => sh.path("."),
    };
    let mut out = Writer::new(&sh.io().stdout);
    if mode == 'c' {
        if paths.is_empty() {
            return complain(sh, "tar: Cowardly refusing to create an empty archive\nTry 'tar --help' or 'tar --usage' for more information.").await + 1;
        }
        let user = sh.var("USER").unwrap_or("user").to_string();
        let mut adding = Adding {
            builder: tar::Builder::new(Vec::new()),
            base: &base,
            names: Vec::new(),
            excludes: &excludes,
            user: &user,
        };
        let mut status = 0;
        for p in &paths {
            if let Err(e) = add(&mut adding, p) {
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
        let Adding { builder, names, .. } = adding;
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
    let mut width = 19;
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
        if excludes.excludes(&name)
            || (!paths.is_empty()
                && !paths.iter().any(|p| {
                    name.trim_end_matches('/') == p.trim_end_matches('/')
                        || name.starts_with(&format!("{}/", p.trim_end_matches('/')))
                }))
        {
            continue;
        }
        let line = match (mode, verbose) {
            ('t', true) => long_listing(&entry, &shown, &mut width),
            ('t', false) | (_, true) => format!("{shown}\n"),
            _ => String::new(),
        };
        if let Err(Stop(s)) = out.write_str(&line).await {
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
    #[test]
    fn excludes_match_any_tail_and_leading_directories() {
        use shell_base::pattern::{MatchOptions, Pattern};
        let ex = |p: &[&str]| {
            super::Excludes(
                p.iter()
                    .map(|p| Pattern::new(p, MatchOptions::default()))
                    .collect(),
            )
        };
        let nm = ex(&["node_modules"]);
        assert!(nm.excludes("p/node_modules/"));
        assert!(nm.excludes("p/node_modules/m/g"));
        assert!(!nm.excludes("p/node_modules_x"));
        let logs = ex(&["*.log"]);
        assert!(logs.excludes("a/b/x.log") && !logs.excludes("a/b/x.txt"));
        assert!(ex(&["p/a/*"]).excludes("p/a/f") && !ex(&["p/a/*"]).excludes("p/a/"));
    }

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
