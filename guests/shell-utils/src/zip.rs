//! `zip`, with Info-ZIP's messages, over the `zip` crate. Files are deflated unless that
//! does not make them smaller (then stored, as Info-ZIP does); modes are kept.

use super::stream::{Stop, Writer, complain};
use crate::fileinfo::info;
use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{parser, plain, string};
use shell_base::errno::io_message;
use shell_base::pattern::{MatchOptions, Pattern};
use std::io::{Cursor, Write};
use std::path::Path;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, DateTime, ZipArchive, ZipWriter};

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
pub async fn zip(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let (mut recursive, mut quiet, mut junk, mut delete) = (false, false, false, false);
    let mut level = 6;
    let mut operands = Vec::new();
    let mut p = parser(argv);
    let parsed: Result<(), lexopt::Error> = (|| {
        while let Some(arg) = p.next()? {
            match arg {
                Short('r' | 'R') | Long("recurse-paths") => recursive = true,
                Short('q') | Long("quiet") => quiet = true,
                Short('j') | Long("junk-paths") => junk = true,
                Short('d') | Long("delete") => delete = true,
                Short(c @ '0'..='9') => level = c as i64 - '0' as i64,
                // Links, extra attributes and directory entries: as Info-ZIP's defaults.
                Short('v' | 'y' | 'X' | 'o' | 'D') => {}
                Short(other) => {
                    return Err(plain(format!(
                        "Invalid command arguments (short option '{other}' not supported)"
                    )));
                }
                Value(v) => operands.push(string(v)),
                _ => return Err(arg.unexpected()),
            }
        }
        Ok(())
    })();
    if let Err(e) = parsed {
        complain(sh, &format!("\nzip error: {e}")).await;
        return 16;
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
    let archive_path = sh.path(&archive_name);
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
    let mut out = Writer::new(&sh.io().stdout);
    let mut writer = ZipWriter::new(Cursor::new(Vec::new()));
    let mut names: Vec<(String, std::path::PathBuf)> = Vec::new();
    let mut warnings = Vec::new();
    if !delete {
        for f in &operands[1..] {
            let path = sh.path(f);
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
pub(crate) fn collect(
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

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::Native;

    #[test]
    fn zips_and_unzips() {
        let mut ctx = Native::new();
        ctx.write("d/a", "x");
        assert_eq!(ctx.run(&["zip", "-qr", "z.zip", "d"], "").status, 0);
        std::fs::remove_dir_all(ctx.dir().join("d")).unwrap();
        assert_eq!(ctx.run(&["unzip", "-q", "z.zip"], "").status, 0);
        assert_eq!(ctx.read("d/a"), "x");
    }
}
