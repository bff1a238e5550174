//! `tar`: `c x t`, `z`/`J`/`j`/`--zstd` (and any of them recognised when reading), `f`, `C`,
//! `--strip-components`, `--exclude`, `v` (names, and with `t` GNU's long listing), over
//! the `tar` crate.

use super::stream::{Stop, Writer, complain};
use crate::codec::{Codec, Encoder, TrailingGarbage, decoder};
use crate::pack;
use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{number, parser, string, value, wording};
use shell_base::dir::{FileInfo, Kind};
use shell_base::errno::io_message;
use shell_base::io::READ_SIZE;
use shell_base::path::normalize;
use shell_base::pattern::{MatchOptions, Pattern};
use std::cell::Cell;
use std::io::{BufRead, Read, Write};
use std::path::{Path, PathBuf};
use std::rc::Rc;

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
    builder: tar::Builder<Packing>,
    base: &'a Path,
    /// The names added, for `v`.
    names: Vec<String>,
    /// The shell's user, the name of uid 1000.
    user: &'a str,
}

/// `rel` and, for a directory, everything under it, in name order, unless excluded: the
/// entries of the archive, each with what `lstat` said of it.
fn walk(
    base: &Path,
    rel: &str,
    excludes: &Excludes,
    found: &mut Vec<(String, FileInfo)>,
) -> std::io::Result<()> {
    if excludes.excludes(rel) {
        return Ok(());
    }
    let full = base.join(rel);
    let meta = std::fs::symlink_metadata(&full)?;
    let info = shell_base::dir::info(&full, false).unwrap_or(FileInfo::from_std(&meta));
    found.push((rel.to_string(), info));
    if info.kind().is_dir() {
        below(&full, rel, excludes, found)?;
    }
    Ok(())
}

/// What lies below directory `rel` (at `full`), as [`walk`] finds it: each directory's
/// entries with their inodes in one listing.
fn below(
    full: &Path,
    rel: &str,
    excludes: &Excludes,
    found: &mut Vec<(String, FileInfo)>,
) -> std::io::Result<()> {
    for (c, info) in shell_base::dir::list_info(full)? {
        let rel = format!("{}/{c}", rel.trim_end_matches('/'));
        if excludes.excludes(&rel) {
            continue;
        }
        found.push((rel.clone(), info));
        if info.kind().is_dir() {
            below(&full.join(&c), &rel, excludes, found)?;
        }
    }
    Ok(())
}

/// Why an entry did not go in.
enum Trouble {
    /// Its file could not be read: the others still go in.
    Source(std::io::Error),
    /// The archive could not be written: nothing more can go in.
    Archive(std::io::Error),
}

/// Adds the entry `rel` (a file's bytes go through as they are read).
fn add(a: &mut Adding, rel: &str, info: &FileInfo) -> Result<(), Trouble> {
    let full = a.base.join(rel);
    // Members are relative, as GNU tar makes them (`tar cf x.tar /etc/f` holds `etc/f`);
    // `v` still shows the name given.
    let (rel, given) = (member_name(rel), rel);
    let mut header = tar::Header::new_gnu();
    header.set_uid(u64::from(info.uid));
    header.set_gid(u64::from(info.gid));
    let _ = header.set_username(&crate::fileinfo::owner_name(info.uid, a.user));
    let _ = header.set_groupname(&crate::fileinfo::owner_name(info.gid, a.user));
    header.set_mtime(u64::try_from(info.mtime.div_euclid(1_000_000_000)).unwrap_or(0));
    let kind = info.kind();
    if kind.is_dir() {
        let shown = format!("{}/", rel.trim_end_matches('/'));
        header.set_entry_type(tar::EntryType::Directory);
        header.set_mode(info.mode & 0o7777);
        header.set_size(0);
        append(&mut a.builder, &mut header, &shown, std::io::empty()).map_err(Trouble::Archive)?;
        a.names.push(format!("{}/", given.trim_end_matches('/')));
    } else if kind.is_symlink() {
        let target = std::fs::read_link(&full).map_err(Trouble::Source)?;
        header.set_entry_type(tar::EntryType::Symlink);
        header.set_size(0);
        header.set_mode(0o777);
        let appended = if keeps_dot(rel) && header.set_link_name(&target).is_ok() {
            append(&mut a.builder, &mut header, rel, std::io::empty())
        } else {
            a.builder.append_link(&mut header, rel, target)
        };
        appended.map_err(Trouble::Archive)?;
        a.names.push(given.to_string());
    } else {
        let file = std::fs::File::open(&full).map_err(Trouble::Source)?;
        // The size of the file opened: the header must say what follows it.
        let size = file.metadata().map_err(Trouble::Source)?.len();
        header.set_entry_type(tar::EntryType::Regular);
        header.set_mode(info.mode & 0o7777);
        header.set_size(size);
        // A file that shrank since is padded with zeros, as GNU tar pads it.
        let data = file.take(size).chain(std::io::repeat(0)).take(size);
        append(&mut a.builder, &mut header, rel, data).map_err(Trouble::Archive)?;
        a.names.push(given.to_string());
    }
    Ok(())
}

/// The member name for path `rel`: without leading slashes (`/` itself is `.`).
fn member_name(rel: &str) -> &str {
    match rel.trim_start_matches('/') {
        "" if rel.starts_with('/') => ".",
        name => name,
    }
}

/// Whether `name` is a `./` name the header holds as it is: the tar crate drops a leading
/// `./`, which GNU tar keeps (`tar cf x.tar .` lists `./f`).
fn keeps_dot(name: &str) -> bool {
    name.len() > 2 && name.len() <= 100 && name.starts_with("./") && !name.contains("/../")
}

/// Appends an entry named `name`, a `./` kept (see [`keeps_dot`]).
fn append(
    builder: &mut tar::Builder<Packing>,
    header: &mut tar::Header,
    name: &str,
    data: impl Read,
) -> std::io::Result<()> {
    if !keeps_dot(name) {
        return builder.append_data(header, name, data);
    }
    let slot = &mut header.as_old_mut().name;
    slot.fill(0);
    slot[..name.len()].copy_from_slice(name.as_bytes());
    header.set_cksum();
    builder.append(header, data)
}

/// Where `tar c` writes the archive: compressed (or not) as it is built, into a file, or
/// held for standard output until the entry is whole, since standard output may be a pipe
/// to a command in this same instance, which a write inside the builder cannot wait for.
struct Packing {
    encoder: Option<Encoder>,
    to: Packed,
}

enum Packed {
    File(std::io::BufWriter<std::fs::File>),
    Held(Vec<u8>),
}

impl Packing {
    fn put(&mut self, data: &[u8]) -> std::io::Result<()> {
        match &mut self.to {
            Packed::File(f) => f.write_all(data),
            Packed::Held(v) => {
                v.extend_from_slice(data);
                Ok(())
            }
        }
    }

    /// What is held for standard output, taken out.
    fn take(&mut self) -> Vec<u8> {
        match &mut self.to {
            Packed::File(_) => Vec::new(),
            Packed::Held(v) => std::mem::take(v),
        }
    }

    /// The end of the archive: the compressor's last bytes, and a file's last block.
    fn finish(&mut self) -> std::io::Result<()> {
        if let Some(e) = self.encoder.take() {
            let rest = e.finish()?;
            self.put(&rest)?;
        }
        match &mut self.to {
            Packed::File(f) => f.flush(),
            Packed::Held(_) => Ok(()),
        }
    }
}

impl Write for Packing {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        match &mut self.encoder {
            Some(e) => {
                e.write(data)?;
                let packed = e.take();
                self.put(&packed)?;
            }
            None => self.put(data)?,
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A decompressor that tells when it failed (and whether its input ended early), since the
/// archive reader's error does not.
struct Decoding {
    inner: Box<dyn Read>,
    failed: Rc<Cell<Option<bool>>>,
}

impl Read for Decoding {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self.inner.read(buf) {
            // The archive's end came before it: GNU tar ignores it too.
            Err(e) if TrailingGarbage::is(&e) => Ok(0),
            Err(e) => {
                self.failed.set(Some(pack::ends_early(&e)));
                Err(e)
            }
            read => read,
        }
    }
}

/// `tar tv`'s line for an entry, GNU's: mode, owner/group and size (in a field that only
/// grows, from 19 wide), time, name, and a link's target.
fn long_listing(entry: &tar::Entry<impl Read>, shown: &str, width: &mut usize) -> String {
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
        let archive = file.as_deref().filter(|f| *f != "-");
        let to = match archive {
            None => Packed::Held(Vec::new()),
            Some(f) => match std::fs::File::create(sh.path(f)) {
                Ok(made) => Packed::File(std::io::BufWriter::with_capacity(READ_SIZE, made)),
                Err(e) => {
                    let msg = format!("tar: {f}: Cannot open: {}", io_message(&e));
                    return complain(sh, &msg).await + 1;
                }
            },
        };
        // The archive is not put in itself.
        let itself = archive.map(|f| normalize(&sh.path(f).to_string_lossy()));
        let mut status = 0;
        // The entries first: their size bounds xz's dictionary (a small archive needs a
        // small one, and little memory).
        let mut found = Vec::new();
        for p in &paths {
            if let Err(e) = walk(&base, p, &excludes, &mut found) {
                status = 2;
                complain(sh, &format!("tar: {p}: Cannot stat: {}", io_message(&e))).await;
            }
        }
        let size: u64 = (found.iter())
            .map(|(_, info)| {
                1024 + if info.kind() == Kind::File {
                    info.size
                } else {
                    0
                }
            })
            .sum();
        let encoder = match codec.map(|c| Encoder::new(c, 6, Some(size))).transpose() {
            Ok(e) => e,
            Err(e) => return complain(sh, &format!("tar: {}", io_message(&e))).await + 1,
        };
        let mut adding = Adding {
            builder: tar::Builder::new(Packing { encoder, to }),
            base: &base,
            names: Vec::new(),
            user: &user,
        };
        let failed = |e: std::io::Error| format!("tar: {}", io_message(&e));
        if paths.iter().any(|p| p.starts_with('/')) {
            complain(sh, "tar: Removing leading `/' from member names").await;
        }
        for (rel, info) in found {
            let full = normalize(&base.join(&rel).to_string_lossy());
            if itself.as_ref() == Some(&full) {
                let msg = format!("tar: {rel}: file is the archive; not dumped");
                complain(sh, &msg).await;
                continue;
            }
            match add(&mut adding, &rel, &info) {
                Ok(()) => {}
                Err(Trouble::Source(e)) => {
                    status = 2;
                    let msg = format!("tar: {rel}: Cannot open: {}", io_message(&e));
                    complain(sh, &msg).await;
                }
                Err(Trouble::Archive(e)) => return complain(sh, &failed(e)).await + 1,
            }
            let held = adding.builder.get_mut().take();
            if let Err(Stop(s)) = out.write(&held).await {
                return s;
            }
            if verbose && archive.is_some() {
                for name in adding.names.drain(..) {
                    if let Err(Stop(s)) = out.write_str(&format!("{name}\n")).await {
                        return s;
                    }
                }
            }
        }
        if status != 0 {
            complain(
                sh,
                "tar: Exiting with failure status due to previous errors",
            )
            .await;
        }
        let mut packing = match adding.builder.into_inner() {
            Ok(p) => p,
            Err(e) => return complain(sh, &failed(e)).await + 1,
        };
        if let Err(e) = packing.finish() {
            return complain(sh, &failed(e)).await + 1;
        }
        if let Err(Stop(s)) = out.write(&packing.take()).await {
            return s;
        }
        return match out.flush().await {
            Ok(()) => status,
            Err(Stop(s)) => s,
        };
    }
    // Reading: from the file or stdin, a compressor recognised by its magic number.
    let source: Box<dyn Read> = match file.as_deref() {
        None | Some("-") => match pack::reader(&sh.io().stdin.clone(), "tar").await {
            Ok(r) => r,
            Err(msg) => return complain(sh, &msg).await + 1,
        },
        Some(f) => match std::fs::File::open(sh.path(f)) {
            Ok(file) => Box::new(file),
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
    let mut source = std::io::BufReader::with_capacity(READ_SIZE, source);
    let codec = codec.or_else(|| source.fill_buf().ok().and_then(Codec::detect));
    let decoding = Rc::new(Cell::new(None));
    let input: Box<dyn Read> = match codec {
        Some(c) => Box::new(Decoding {
            inner: decoder(c, source),
            failed: decoding.clone(),
        }),
        None => Box::new(source),
    };
    // The compressor's words when it failed, as GNU tar passes them on from its child.
    let decoder_failed = || {
        let (codec, ends_early) = (codec?, decoding.get()?);
        let why = match codec {
            Codec::Gzip if ends_early => "\ngzip: stdin: unexpected end of file",
            Codec::Gzip => "\ngzip: stdin: not in gzip format",
            Codec::Xz if ends_early => "xz: (stdin): Unexpected end of input",
            Codec::Xz => "xz: (stdin): File format not recognized",
            Codec::Bzip2 => "bzip2: (stdin) is not a bzip2 file.",
            Codec::Zstd => "zstd: /*stdin*\\: unsupported format ",
        };
        Some(format!(
            "{why}\ntar: Child returned status 1\ntar: Error is not recoverable: exiting now"
        ))
    };
    let mut archive = tar::Archive::new(input);
    let entries = match archive.entries() {
        Ok(e) => e,
        Err(e) => return complain(sh, &format!("tar: {}", io_message(&e))).await + 1,
    };
    let mut status = 0;
    let mut width = 19;
    for entry in entries {
        let mut entry = match entry {
            Ok(e) => e,
            Err(_) if let Some(msg) = decoder_failed() => return complain(sh, &msg).await + 1,
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
            if is_dir {
                continue;
            }
            let mut buf = vec![0; READ_SIZE];
            loop {
                match entry.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => {
                        if let Err(Stop(s)) = out.write(&buf[..n]).await {
                            return s;
                        }
                    }
                    Err(_) if let Some(msg) = decoder_failed() => {
                        return complain(sh, &msg).await + 1;
                    }
                    Err(e) => {
                        status = 2;
                        complain(sh, &format!("tar: {name}: {}", io_message(&e))).await;
                        break;
                    }
                }
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
            let mode = entry.header().mode().unwrap_or(0o644) & 0o7777;
            std::fs::File::create(&target)
                .and_then(|mut made| std::io::copy(&mut entry, &mut made))
                .and_then(|_| crate::fileinfo::set_mode(&target, mode))
        };
        if r.is_err()
            && let Some(msg) = decoder_failed()
        {
            return complain(sh, &msg).await + 1;
        }
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
