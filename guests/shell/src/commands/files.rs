//! File commands that change the tree: `touch`, `mkdir`, `rm`; and `yes`.

use super::stream::{complain, invalid_option, split_flags};
use crate::exec::{Interp, io_message};

/// `yes [STRING]`: writes the line until the reader goes away (then 141, as SIGPIPE).
pub async fn yes(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let line = if argv.len() > 1 {
        argv[1..].join(" ")
    } else {
        "y".into()
    };
    // Batch lines so that each write moves a useful amount.
    let block = format!("{line}\n").repeat((8192 / (line.len() + 1)).max(1));
    loop {
        if sh.io.stdout.write_all(block.as_bytes()).await.is_err() {
            return 141;
        }
    }
}

/// `touch [-c] [-a|-m] [-d DATE | -r FILE | -t STAMP] FILE...`: creates missing files (not
/// with `-c`) and sets times to now or to the given time.
pub async fn touch(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let mut no_create = false;
    let mut when: Option<std::time::SystemTime> = None;
    let mut files = Vec::new();
    let mut i = 1;
    let now = std::time::SystemTime::now();
    let now_secs = now
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    let at = |secs: i64| std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs.max(0) as u64);
    while i < argv.len() {
        let a = argv[i].as_str();
        match a {
            "-c" | "--no-create" => no_create = true,
            "-a" | "-m" | "-f" | "-h" | "--no-dereference" => {}
            "-d" | "--date" | "-r" | "--reference" | "-t" => {
                i += 1;
                let Some(v) = argv.get(i) else {
                    let flag = a.trim_start_matches('-').chars().next().unwrap_or('d');
                    return complain(
                        sh,
                        &format!("touch: option requires an argument -- '{flag}'"),
                    )
                    .await;
                };
                let parsed = match a {
                    "-d" | "--date" => super::date::parse(v, now_secs).map(at),
                    "-t" => stamp(v, now_secs).map(at),
                    _ => match std::fs::metadata(sh.shell.path(v)).and_then(|m| m.modified()) {
                        Ok(t) => Some(t),
                        Err(e) => {
                            return complain(
                                sh,
                                &format!(
                                    "touch: failed to get attributes of '{v}': {}",
                                    io_message(&e)
                                ),
                            )
                            .await;
                        }
                    },
                };
                match parsed {
                    Some(t) => when = Some(t),
                    None if a == "-t" => {
                        return complain(sh, &format!("touch: invalid date format '{v}'")).await;
                    }
                    None if a.starts_with("-d") || a == "--date" => {
                        return complain(sh, &format!("touch: invalid date format '{v}'")).await;
                    }
                    None => {}
                }
            }
            s if s.starts_with('-') && s.len() > 1 => {
                return invalid_option(sh, "touch", &s[1..]).await;
            }
            s => files.push(s.to_string()),
        }
        i += 1;
    }
    if files.is_empty() {
        return complain(
            sh,
            "touch: missing file operand\nTry 'touch --help' for more information.",
        )
        .await;
    }
    let mut status = 0;
    for f in files {
        let path = sh.shell.path(&f);
        if no_create && std::fs::symlink_metadata(&path).is_err() {
            continue;
        }
        let result = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .and_then(|file| file.set_modified(when.unwrap_or(now)));
        if let Err(e) = result {
            status = complain(
                sh,
                &format!("touch: cannot touch '{f}': {}", io_message(&e)),
            )
            .await;
        }
    }
    status
}

/// `touch -t`'s `[[CC]YY]MMDDhhmm[.ss]` (UTC), as seconds since the epoch (`now` gives the
/// year when it is left out).
fn stamp(text: &str, now: i64) -> Option<i64> {
    let (main, secs) = match text.split_once('.') {
        Some((m, s)) => (m, s.parse::<i64>().ok()?),
        None => (text, 0),
    };
    if !main.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let (year, rest) = match main.len() {
        12 => (main[..4].parse::<i64>().ok()?, &main[4..]),
        10 => {
            let yy: i64 = main[..2].parse().ok()?;
            (if yy < 69 { 2000 + yy } else { 1900 + yy }, &main[2..])
        }
        8 => (super::date::civil(now.div_euclid(86_400)).0, main),
        _ => return None,
    };
    let num = |k: usize| rest[k..k + 2].parse::<i64>().ok();
    let text = format!(
        "{year:04}-{:02}-{:02} {:02}:{:02}:{secs:02}",
        num(0)?,
        num(2)?,
        num(4)?,
        num(6)?
    );
    super::date::parse(&text, 0)
}

/// What `rm -rv` removes under `path` (shown as `shown`), in the order it goes: (name,
/// whether a directory).
fn removal_order(path: &std::path::Path, shown: &str, out: &mut Vec<(String, bool)>) {
    let mut names: Vec<(String, bool)> = std::fs::read_dir(path)
        .map(|d| {
            d.flatten()
                .map(|e| {
                    let dir = e.file_type().is_ok_and(|t| t.is_dir());
                    (e.file_name().to_string_lossy().into_owned(), dir)
                })
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    for (name, dir) in names {
        let child = format!("{}/{name}", shown.trim_end_matches('/'));
        if dir {
            removal_order(&path.join(&name), &child, out);
        } else {
            out.push((child, false));
        }
    }
    out.push((shown.to_string(), true));
}

/// `mkdir [-pv] DIR...`.
pub async fn mkdir(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let (flags, dirs) = split_flags(argv);
    if dirs.is_empty() {
        return complain(sh, "mkdir: missing operand").await;
    }
    let parents = flags.contains('p');
    let verbose = flags.contains('v');
    let mut status = 0;
    for d in dirs {
        let path = sh.shell.path(&d);
        let result = if parents {
            // Each missing level, so that `-v` can name it.
            let mut made = Vec::new();
            let mut prefix = String::new();
            let mut r = Ok(());
            for (k, part) in d.split('/').enumerate() {
                if k > 0 {
                    prefix.push('/');
                }
                prefix.push_str(part);
                if part.is_empty() || part == "." {
                    continue;
                }
                let p = sh.shell.path(&prefix);
                if p.is_dir() {
                    continue;
                }
                match std::fs::create_dir(&p) {
                    Ok(()) => made.push(prefix.clone()),
                    Err(e) => {
                        r = Err(e);
                        break;
                    }
                }
            }
            if verbose {
                for m in made {
                    crate::builtins::out(sh, &format!("mkdir: created directory '{m}'\n")).await;
                }
            }
            r
        } else {
            let r = std::fs::create_dir(&path);
            if r.is_ok() && verbose {
                crate::builtins::out(sh, &format!("mkdir: created directory '{d}'\n")).await;
            }
            r
        };
        if let Err(e) = result {
            status = complain(
                sh,
                &format!("mkdir: cannot create directory '{d}': {}", io_message(&e)),
            )
            .await;
        }
    }
    status
}

/// `rm [-rf] FILE...`.
pub async fn rm(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let (flags, files) = split_flags(argv);
    let recursive = flags.contains('r') || flags.contains('R');
    let force = flags.contains('f');
    // `-d`: empty directories too.
    let empty_dirs = flags.contains('d');
    let verbose = flags.contains('v');
    if files.is_empty() && !force {
        return complain(sh, "rm: missing operand").await;
    }
    // `-i`: ask on standard error, read the answer from standard input (as GNU rm does).
    let interactive = flags.rfind('i') > flags.rfind('f');
    let mut answers = interactive.then(|| super::stream::Lines::new(sh.io.stdin.clone()));
    let mut status = 0;
    for f in files {
        let path = sh.shell.path(&f);
        if let Some(lines) = answers.as_mut() {
            if std::fs::symlink_metadata(&path).is_err() {
                let msg = format!("rm: cannot remove '{f}': No such file or directory");
                status = complain(sh, &msg).await;
                continue;
            }
            if let Err(msg) = Box::pin(ask_and_remove(sh, lines, &path, &f, recursive)).await {
                status = complain(sh, &msg).await;
            }
            continue;
        }
        let result = match std::fs::symlink_metadata(&path) {
            Ok(m) if m.is_dir() && !recursive && empty_dirs => std::fs::remove_dir(&path),
            Ok(m) if m.is_dir() && !recursive => {
                status = complain(sh, &format!("rm: cannot remove '{f}': Is a directory")).await;
                continue;
            }
            Ok(m) if m.is_dir() && verbose => {
                // `-v` names each file as it goes, deepest first.
                let mut listing = Vec::new();
                removal_order(&path, &f, &mut listing);
                let text: String = listing
                    .iter()
                    .map(|(shown, dir)| {
                        if *dir {
                            format!("removed directory '{shown}'\n")
                        } else {
                            format!("removed '{shown}'\n")
                        }
                    })
                    .collect();
                let r = std::fs::remove_dir_all(&path);
                if r.is_ok() {
                    crate::builtins::out(sh, &text).await;
                }
                r
            }
            Ok(m) if m.is_dir() => std::fs::remove_dir_all(&path),
            Ok(_) => {
                let r = std::fs::remove_file(&path);
                if r.is_ok() && verbose {
                    crate::builtins::out(sh, &format!("removed '{f}'\n")).await;
                }
                r
            }
            Err(e) => Err(e),
        };
        match result {
            Err(e) if force && e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                status =
                    complain(sh, &format!("rm: cannot remove '{f}': {}", io_message(&e))).await;
            }
            Ok(()) => {}
        }
    }
    status
}

/// `rm -i`: asks for `path` (and, for a directory with `-r`, for everything in it, deepest
/// first, as GNU rm does) and removes what was agreed to.
async fn ask_and_remove(
    sh: &mut Interp<'_>,
    lines: &mut super::stream::Lines,
    path: &std::path::Path,
    shown: &str,
    recursive: bool,
) -> Result<(), String> {
    let meta = std::fs::symlink_metadata(path)
        .map_err(|e| format!("rm: cannot remove '{shown}': {}", io_message(&e)))?;
    if meta.is_dir() && !recursive {
        return Err(format!("rm: cannot remove '{shown}': Is a directory"));
    }
    let what = if meta.is_dir() {
        "descend into directory"
    } else if meta.file_type().is_symlink() {
        "remove symbolic link"
    } else if meta.len() == 0 {
        "remove regular empty file"
    } else {
        "remove regular file"
    };
    if !confirm(sh, lines, what, shown).await {
        return Ok(());
    }
    if !meta.is_dir() {
        return std::fs::remove_file(path)
            .map_err(|e| format!("rm: cannot remove '{shown}': {}", io_message(&e)));
    }
    for n in super::stream::sorted_names(path).unwrap_or_default() {
        let child = format!("{}/{n}", shown.trim_end_matches('/'));
        Box::pin(ask_and_remove(sh, lines, &path.join(&n), &child, recursive)).await?;
    }
    if confirm(sh, lines, "remove directory", shown).await {
        std::fs::remove_dir(path)
            .map_err(|e| format!("rm: cannot remove '{shown}': {}", io_message(&e)))?;
    }
    Ok(())
}

/// Asks `rm: WHAT 'NAME'? ` and reads the answer: yes when it starts with `y`.
async fn confirm(
    sh: &mut Interp<'_>,
    lines: &mut super::stream::Lines,
    what: &str,
    shown: &str,
) -> bool {
    let question = format!("rm: {what} '{shown}'? ");
    let _ = sh.io.stderr.write_all(question.as_bytes()).await;
    matches!(lines.next().await, Ok(Some(l)) if matches!(l.first(), Some(b'y' | b'Y')))
}
