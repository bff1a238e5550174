//! `zip` and `unzip`, with Info-ZIP's messages, over the `zip` crate. Files are deflated
//! unless that does not make them smaller (then stored, as Info-ZIP does); modes are kept.

use std::io::{Cursor, Read, Write};
use std::path::Path;

use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, DateTime, ZipArchive, ZipWriter};

use super::meta::{info, set_mode};
use super::stream::{MEMORY_LIMIT, Stop, Writer, complain};
use crate::exec::{Interp, io_message};
use crate::pattern::{MatchOptions, Pattern};

/// Info-ZIP's percentage saved, rounded as its `percent()` does.
fn percent(size: u64, packed: u64) -> u64 {
    if size > packed {
        1 + (200 * (size - packed) / size).saturating_sub(1) / 2
    } else {
        0
    }
}

/// The archive time for an mtime (UTC; DOS times carry no zone).
fn dos_time(secs: i64) -> DateTime {
    let (y, mo, d) = super::date::civil(secs.div_euclid(86_400));
    let s = secs.rem_euclid(86_400);
    DateTime::from_date_and_time(
        y.clamp(1980, 2107) as u16,
        mo as u8,
        d as u8,
        (s / 3600) as u8,
        (s / 60 % 60) as u8,
        (s % 60) as u8,
    )
    .unwrap_or_default()
}

/// `zip [-rqj0-9] [-d] ARCHIVE FILE...`.
pub async fn zip(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let (mut recursive, mut quiet, mut junk, mut delete) = (false, false, false, false);
    let mut level = 6;
    let mut operands = Vec::new();
    let mut options_done = false;
    for a in &argv[1..] {
        if !options_done && a == "--" {
            options_done = true;
        } else if !options_done && a.starts_with('-') && a.len() > 1 {
            for c in a[1..].chars() {
                match c {
                    'r' | 'R' => recursive = true,
                    'q' => quiet = true,
                    'j' => junk = true,
                    'd' => delete = true,
                    '0'..='9' => level = c as i64 - '0' as i64,
                    'v' | 'y' | 'X' | 'o' | 'D' => {}
                    other => {
                        let msg = format!(
                            "\nzip error: Invalid command arguments (short option '{other}' not supported)"
                        );
                        complain(sh, &msg).await;
                        return 16;
                    }
                }
            }
        } else {
            operands.push(a.clone());
        }
    }
    let Some(archive_name) = operands.first().cloned() else {
        return complain(
            sh,
            "\nzip error: Invalid command arguments (nothing to select from)",
        )
        .await
            * 16;
    };
    let archive_name = if Path::new(&archive_name).extension().is_none() {
        format!("{archive_name}.zip")
    } else {
        archive_name
    };
    let archive_path = sh.shell.path(&archive_name);
    // An existing archive is read whole and rewritten with the changes.
    let existing = std::fs::read(&archive_path).ok();
    let mut old = match existing.map(|d| ZipArchive::new(Cursor::new(d))) {
        Some(Ok(a)) => Some(a),
        Some(Err(e)) => {
            let msg = format!("\nzip error: Zip file structure invalid ({archive_name}): {e}");
            complain(sh, &msg).await;
            return 3;
        }
        None => None,
    };
    let mut out = Writer::new(&sh.io.stdout);
    let mut writer = ZipWriter::new(Cursor::new(Vec::new()));
    let mut names: Vec<(String, std::path::PathBuf)> = Vec::new();
    let mut warnings = Vec::new();
    if !delete {
        for f in &operands[1..] {
            let path = sh.shell.path(f);
            if std::fs::symlink_metadata(&path).is_err() {
                warnings.push(format!("\tzip warning: name not matched: {f}"));
                continue;
            }
            collect(f, &path, recursive, &mut names);
        }
    }
    if junk {
        for (n, _) in names.iter_mut() {
            *n = n.rsplit('/').next().unwrap_or(n).to_string();
        }
        names.retain(|(n, _)| !n.is_empty());
    }
    // Info-ZIP writes its warnings and errors to standard output.
    for w in &warnings {
        if let Err(Stop(s)) = out.write_str(&format!("{w}\n")).await {
            return s;
        }
    }
    let patterns: Vec<Pattern> = operands[1..]
        .iter()
        .map(|p| Pattern::new(p, MatchOptions::default()))
        .collect();
    let mut changed = false;
    // Entries already in the archive stay, unless replaced or deleted.
    if let Some(old) = old.as_mut() {
        for k in 0..old.len() {
            let Ok(entry) = old.by_index_raw(k) else {
                continue;
            };
            let name = entry.name().map(|n| n.into_owned()).unwrap_or_default();
            if delete && patterns.iter().any(|p| p.matches(&name)) {
                if !quiet {
                    let line = format!("deleting: {name}\n");
                    if let Err(Stop(s)) = out.write_str(&line).await {
                        return s;
                    }
                }
                changed = true;
                continue;
            }
            if names.iter().any(|(n, _)| *n == name) {
                continue;
            }
            if let Err(e) = writer.raw_copy_file(entry) {
                return complain(sh, &format!("zip error: {e}")).await * 2;
            }
        }
    }
    for (name, path) in &names {
        let verb = if old
            .as_ref()
            .is_some_and(|o| o.file_names().any(|n| n.is_ok_and(|n| n == name.as_str())))
        {
            "updating"
        } else {
            "  adding"
        };
        let meta = info(path, false);
        let mode = meta.as_ref().map_or(0o644, |i| i.mode & 0o7777);
        let mtime = meta.as_ref().map_or(0, |i| i.mtime / 1_000_000_000);
        let options = SimpleFileOptions::default()
            .unix_permissions(mode)
            .last_modified_time(dos_time(mtime));
        let result = if name.ends_with('/') {
            writer
                .add_directory(name.as_str(), options)
                .map(|()| "stored 0%".to_string())
        } else {
            match std::fs::read(path) {
                Err(e) => {
                    let msg = format!(
                        "\tzip warning: could not open for reading: {name}: {}",
                        io_message(&e)
                    );
                    complain(sh, &msg).await;
                    continue;
                }
                Ok(data) => add_file(&mut writer, name, &data, options, level),
            }
        };
        match result {
            Ok(how) => {
                changed = true;
                if !quiet {
                    let line = format!("{verb}: {name} ({how})\n");
                    if let Err(Stop(s)) = out.write_str(&line).await {
                        return s;
                    }
                }
            }
            Err(e) => return complain(sh, &format!("zip error: {e}")).await * 2,
        }
    }
    if !changed {
        let msg = format!("\nzip error: Nothing to do! ({archive_name})\n");
        let _ = out.write_str(&msg).await;
        let _ = out.flush().await;
        return 12;
    }
    let _ = out.flush().await;
    match writer.finish() {
        Ok(cursor) => match std::fs::write(&archive_path, cursor.into_inner()) {
            Ok(()) => 0,
            Err(e) => {
                let msg = format!(
                    "zip I/O error: {}\nzip error: Could not create output file ({archive_name})",
                    io_message(&e)
                );
                complain(sh, &msg).await * 15
            }
        },
        Err(e) => complain(sh, &format!("zip error: {e}")).await * 2,
    }
}

/// Deflates `data` into the archive, or stores it when deflating does not help.
fn add_file(
    writer: &mut ZipWriter<Cursor<Vec<u8>>>,
    name: &str,
    data: &[u8],
    options: SimpleFileOptions,
    level: i64,
) -> zip::result::ZipResult<String> {
    let packed = if level == 0 || data.is_empty() {
        None
    } else {
        let mut e =
            flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::new(level as u32));
        e.write_all(data)
            .and_then(|()| e.finish())
            .ok()
            .map(|v| v.len() as u64)
            .filter(|&n| n < data.len() as u64)
    };
    let (method, how) = match packed {
        Some(n) => (
            CompressionMethod::Deflated,
            format!("deflated {}%", percent(data.len() as u64, n)),
        ),
        None => (CompressionMethod::Stored, "stored 0%".to_string()),
    };
    let options = match method {
        CompressionMethod::Deflated => options
            .compression_method(method)
            .compression_level(Some(level)),
        _ => options.compression_method(method),
    };
    writer.start_file(name, options)?;
    writer.write_all(data)?;
    Ok(how)
}

/// The archive names under `shown` (directories end with `/`), in name order.
fn collect(
    shown: &str,
    path: &Path,
    recursive: bool,
    names: &mut Vec<(String, std::path::PathBuf)>,
) {
    let is_dir = std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir());
    let clean = shown.trim_start_matches("./").trim_end_matches('/');
    if is_dir {
        names.push((format!("{clean}/"), path.to_path_buf()));
        if !recursive {
            return;
        }
        for c in super::stream::sorted_names(path).unwrap_or_default() {
            collect(&format!("{clean}/{c}"), &path.join(&c), recursive, names);
        }
    } else {
        names.push((clean.to_string(), path.to_path_buf()));
    }
}

struct UnzipOptions {
    list: bool,
    test: bool,
    pipe: bool,
    names_only: bool,
    overwrite: Option<bool>,
    quiet: u8,
    junk: bool,
    dir: Option<String>,
    /// A file was not replaced because nobody could say yes (status 1, as unzip's).
    declined: bool,
}

/// `unzip [-lqtopjn] [-Z1] [-d DIR] ARCHIVE [MEMBER...] [-x MEMBER...]`.
pub async fn unzip(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let mut o = UnzipOptions {
        list: false,
        test: false,
        pipe: false,
        names_only: false,
        overwrite: None,
        quiet: 0,
        junk: false,
        dir: None,
        declined: false,
    };
    let mut operands = Vec::new();
    let mut excluded = Vec::new();
    let mut excluding = false;
    let mut i = 1;
    while i < argv.len() {
        let a = &argv[i];
        if a == "-Z1" {
            o.names_only = true;
        } else if a == "-x" {
            excluding = true;
        } else if a == "-d" {
            i += 1;
            o.dir = argv.get(i).cloned();
        } else if a.starts_with('-') && a.len() > 1 {
            for c in a[1..].chars() {
                match c {
                    'l' | 'v' => o.list = true,
                    't' => o.test = true,
                    'p' => o.pipe = true,
                    'o' => o.overwrite = Some(true),
                    'n' => o.overwrite = Some(false),
                    'q' => o.quiet += 1,
                    'j' => o.junk = true,
                    'a' | 'b' | 'C' | 'L' | 'X' | 'D' | 'K' => {}
                    other => {
                        let msg = format!("unzip:  error in command line: invalid option -{other}");
                        return complain(sh, &msg).await * 10;
                    }
                }
            }
        } else if excluding {
            excluded.push(Pattern::new(a, MatchOptions::default()));
        } else {
            operands.push(a.clone());
        }
        i += 1;
    }
    let Some(name) = operands.first().cloned() else {
        return complain(sh, UNZIP_USAGE).await * 10;
    };
    let candidates = [name.clone(), format!("{name}.zip"), format!("{name}.ZIP")];
    let Some(data) = candidates.iter().find_map(|c| {
        let p = sh.shell.path(c);
        std::fs::metadata(&p)
            .ok()
            .filter(|m| m.is_file() && m.len() <= MEMORY_LIMIT as u64)
            .and_then(|_| std::fs::read(&p).ok())
    }) else {
        let msg = format!("unzip:  cannot find or open {name}, {name}.zip or {name}.ZIP.");
        return complain(sh, &msg).await * 9;
    };
    let mut out = Writer::new(&sh.io.stdout);
    let banner = format!("Archive:  {name}\n");
    if o.quiet == 0
        && !o.pipe
        && !o.names_only
        && let Err(Stop(s)) = out.write_str(&banner).await
    {
        return s;
    }
    let mut archive = match ZipArchive::new(Cursor::new(data)) {
        Ok(a) => a,
        Err(_) => {
            let _ = out.flush().await;
            let msg = format!(
                "  End-of-central-directory signature not found.  Either this file is not\n  a zipfile, or it constitutes one disk of a multi-part archive.  In the\n  latter case the central directory and zipfile comment will be found on\n  the last disk(s) of this archive.\nunzip:  cannot find zipfile directory in one of {name} or\n        {name}.zip, and cannot find {name}.ZIP, period."
            );
            return complain(sh, &msg).await * 9;
        }
    };
    let members: Vec<Pattern> = operands[1..]
        .iter()
        .map(|p| Pattern::new(p, MatchOptions::default()))
        .collect();
    let mut matched = vec![false; members.len()];
    let base = match &o.dir {
        Some(d) => sh.shell.path(d),
        None => sh.shell.path("."),
    };
    let mut status = 0;
    let (mut total_size, mut count) = (0u64, 0usize);
    if o.list && o.quiet == 0 {
        let head = "  Length      Date    Time    Name\n---------  ---------- -----   ----\n";
        if let Err(Stop(s)) = out.write_str(head).await {
            return s;
        }
    }
    let mut deferred = Vec::new();
    for k in 0..archive.len() {
        let mut entry = match archive.by_index(k) {
            Ok(e) => e,
            Err(e) => {
                deferred.push(format!("unzip: bad entry {k}: {e}"));
                status = 2;
                continue;
            }
        };
        let entry_name = entry.name().map(|n| n.into_owned()).unwrap_or_default();
        if !members.is_empty() {
            let hit = members.iter().position(|p| p.matches(&entry_name));
            match hit {
                Some(h) => matched[h] = true,
                None => continue,
            }
        }
        if excluded.iter().any(|p| p.matches(&entry_name)) {
            continue;
        }
        total_size += entry.size();
        count += 1;
        let line = if o.names_only {
            format!("{entry_name}\n")
        } else if o.list {
            let when = entry.last_modified().unwrap_or_default();
            format!(
                "{:>9}  {:04}-{:02}-{:02} {:02}:{:02}   {entry_name}\n",
                entry.size(),
                when.year(),
                when.month(),
                when.day(),
                when.hour(),
                when.minute()
            )
        } else if o.test {
            let mut sink = Vec::new();
            let ok = entry.read_to_end(&mut sink).is_ok();
            if !ok {
                status = 2;
            }
            format!(
                "    testing: {entry_name:<24} {}\n",
                if ok { "OK" } else { "bad CRC" }
            )
        } else if o.pipe {
            // In pieces: an entry may inflate to far more than its archive's size.
            let mut chunk = vec![0; 64 * 1024];
            loop {
                match entry.read(&mut chunk) {
                    Ok(0) => break,
                    Ok(n) => {
                        if let Err(Stop(s)) = out.write(&chunk[..n]).await {
                            return s;
                        }
                    }
                    Err(_) => {
                        status = 2;
                        break;
                    }
                }
            }
            continue;
        } else {
            match extract(&mut entry, &entry_name, &base, &mut o, &mut deferred) {
                Ok(Some(l)) => l,
                Ok(None) => continue,
                Err(e) => {
                    deferred.push(e);
                    status = status.max(1);
                    continue;
                }
            }
        };
        if (o.quiet == 0 || o.names_only || (o.list && o.quiet < 2))
            && let Err(Stop(s)) = out.write_str(&line).await
        {
            return s;
        }
    }
    if o.list && o.quiet == 0 {
        let files = if count == 1 { "file" } else { "files" };
        let tail = format!(
            "---------                     -------\n{total_size:>9}                     {count} {files}\n"
        );
        if let Err(Stop(s)) = out.write_str(&tail).await {
            return s;
        }
    }
    if o.test && o.quiet < 2 && status == 0 {
        let text = format!("No errors detected in compressed data of {name}.\n");
        if let Err(Stop(s)) = out.write_str(&text).await {
            return s;
        }
    }
    if let Err(Stop(s)) = out.flush().await {
        return s;
    }
    for msg in deferred {
        complain(sh, &msg).await;
    }
    if o.declined {
        status = status.max(1);
    }
    for (k, hit) in matched.iter().enumerate() {
        if !hit {
            complain(
                sh,
                &format!("caution: filename not matched:  {}", operands[k + 1]),
            )
            .await;
            status = 11;
        }
    }
    status
}

/// Extracts one entry below `base`: the line unzip prints (`None` when skipped).
fn extract(
    entry: &mut zip::read::ZipFile<'_, Cursor<Vec<u8>>>,
    name: &str,
    base: &Path,
    o: &mut UnzipOptions,
    notes: &mut Vec<String>,
) -> Result<Option<String>, String> {
    // Names with `..` or a leading `/` never leave the destination.
    let Some(rel) = entry.enclosed_name() else {
        return Err(format!(
            "warning:  skipped \"{name}\": the name leaves the destination directory"
        ));
    };
    let rel = if o.junk {
        match rel.file_name() {
            Some(f) => std::path::PathBuf::from(f),
            None => return Ok(None),
        }
    } else {
        rel
    };
    let target = base.join(&rel);
    if entry.is_dir() {
        if o.junk {
            return Ok(None);
        }
        std::fs::create_dir_all(&target).map_err(|e| format!("{name}: {}", io_message(&e)))?;
        return Ok(Some(format!("   creating: {name}\n")));
    }
    if target.exists() {
        match o.overwrite {
            Some(true) => {}
            Some(false) => return Ok(None),
            None => {
                // unzip asks; with no terminal to answer, it takes "[N]one" for the rest.
                notes.push(format!(
                    "replace {name}? [y]es, [n]o, [A]ll, [N]one, [r]ename:  NULL\n(EOF or read error, treating as \"[N]one\" ...)"
                ));
                o.overwrite = Some(false);
                o.declined = true;
                return Ok(None);
            }
        }
    }
    if let Some(parent) = target.parent() {
        std::fs::create_dir_all(parent).map_err(|e| format!("{name}: {}", io_message(&e)))?;
    }
    let stored = entry.compression() == CompressionMethod::Stored;
    // Streamed to the file: the workspace's file size limit stops a zip bomb.
    let mut file = std::fs::File::create(&target)
        .map_err(|e| format!("error:  cannot create {name}\n        {}", io_message(&e)))?;
    std::io::copy(entry, &mut file)
        .map_err(|e| format!("error:  cannot write {name}: {}", io_message(&e)))?;
    if let Some(mode) = entry.unix_mode() {
        let _ = set_mode(&target, mode & 0o7777);
    }
    let verb = if stored { " extracting" } else { "  inflating" };
    let shown = rel.to_string_lossy();
    Ok(Some(format!("{verb}: {shown:<22}  \n")))
}

/// What unzip prints when it is given nothing to do.
const UNZIP_USAGE: &str = r#"UnZip 6.00 of 20 April 2009, by Debian. Original by Info-ZIP.

Usage: unzip [-Z] [-opts[modifiers]] file[.zip] [list] [-x xlist] [-d exdir]
  Default action is to extract files in list, except those in xlist, to exdir;
  file[.zip] may be a wildcard.  -Z => ZipInfo mode ("unzip -Z" for usage).

  -p  extract files to pipe, no messages     -l  list files (short format)
  -f  freshen existing files, create none    -t  test compressed archive data
  -u  update files, create if necessary      -z  display archive comment only
  -v  list verbosely/show version info       -T  timestamp archive to latest
  -x  exclude files that follow (in xlist)   -d  extract files into exdir
modifiers:
  -n  never overwrite existing files         -q  quiet mode (-qq => quieter)
  -o  overwrite files WITHOUT prompting      -a  auto-convert any text files
  -j  junk paths (do not make directories)   -aa treat ALL files as text
  -U  use escapes for all non-ASCII Unicode  -UU ignore any Unicode fields
  -C  match filenames case-insensitively     -L  make (some) names lowercase
  -X  restore UID/GID info                   -V  retain VMS version numbers
  -K  keep setuid/setgid/tacky permissions   -M  pipe through "more" pager
See "unzip -hh" or unzip.txt for more help.  Examples:
  unzip data1 -x joe   => extract all files except joe from zipfile data1.zip
  unzip -p foo | more  => send contents of foo.zip via pipe into program more
  unzip -fo foo ReadMe => quietly replace existing ReadMe if archive file newer"#;
