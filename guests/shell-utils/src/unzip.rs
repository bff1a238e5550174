//! `unzip`, with Info-ZIP's messages, over the `zip` crate; modes are kept.

use super::stream::{MEMORY_LIMIT, Stop, Writer, complain};
use crate::fileinfo::set_mode;
use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{parser, plain, string, value};
use shell_base::errno::io_message;
use shell_base::pattern::{MatchOptions, Pattern};
use std::io::{Cursor, Read};
use std::path::Path;
use zip::{CompressionMethod, ZipArchive};

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
pub async fn unzip(sh: &mut dyn Context, argv: &[String]) -> i32 {
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
    let mut p = parser(argv);
    let parsed: Result<(), lexopt::Error> = (|| {
        while let Some(arg) = p.next()? {
            match arg {
                // `-Z1`: zipinfo's names only.
                Short('Z') => o.names_only = true,
                Short('1') if o.names_only => {}
                // `-x PATTERN...`: every later operand is a pattern to leave out.
                Short('x') => excluding = true,
                Short('d') => o.dir = Some(value(&mut p)?),
                Short('l' | 'v') => o.list = true,
                Short('t') => o.test = true,
                Short('p') => o.pipe = true,
                Short('o') => o.overwrite = Some(true),
                Short('n') => o.overwrite = Some(false),
                Short('q') => o.quiet += 1,
                Short('j') => o.junk = true,
                // Text conversion, case and ownership: nothing to change in a workspace.
                Short('a' | 'b' | 'C' | 'L' | 'X' | 'D' | 'K') => {}
                Value(v) if excluding => {
                    excluded.push(Pattern::new(&string(v), MatchOptions::default()))
                }
                Value(v) => operands.push(string(v)),
                Short(other) => return Err(plain(format!("invalid option -{other}"))),
                _ => return Err(arg.unexpected()),
            }
        }
        Ok(())
    })();
    if let Err(e) = parsed {
        let msg = format!("unzip:  error in command line: {e}");
        return complain(sh, &msg).await * 10;
    }
    let Some(name) = operands.first().cloned() else {
        return complain(sh, UNZIP_USAGE).await * 10;
    };
    let candidates = [name.clone(), format!("{name}.zip"), format!("{name}.ZIP")];
    let Some(data) = candidates.iter().find_map(|c| {
        let p = sh.path(c);
        std::fs::metadata(&p)
            .ok()
            .filter(|m| m.is_file() && m.len() <= MEMORY_LIMIT as u64)
            .and_then(|_| std::fs::read(&p).ok())
    }) else {
        let msg = format!("unzip:  cannot find or open {name}, {name}.zip or {name}.ZIP.");
        return complain(sh, &msg).await * 9;
    };
    let mut out = Writer::new(&sh.io().stdout);
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
        Some(d) => sh.path(d),
        None => sh.path("."),
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

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::Native;

    #[test]
    fn lists_names_and_refuses_a_non_archive() {
        let mut ctx = Native::new();
        ctx.write("d/a", "x")
            .write("d/b", "y")
            .write("not.zip", "plain");
        assert_eq!(ctx.run(&["zip", "-qr", "z.zip", "d"], "").status, 0);
        assert_eq!(
            ctx.run(&["unzip", "-Z1", "z.zip"], "").stdout,
            "d/\nd/a\nd/b\n"
        );
        assert_ne!(ctx.run(&["unzip", "not.zip"], "").status, 0);
    }
}
