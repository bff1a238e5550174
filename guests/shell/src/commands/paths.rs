//! Path utilities: `readlink`, `realpath`, `mktemp`, `truncate`.

use super::stream::complain;
use crate::builtins::out;
use crate::exec::{Interp, io_message};

/// Resolves `path` (absolute) with every symbolic link followed, as `realpath` does.
fn canonical(path: &str) -> Result<String, std::io::Error> {
    let mut resolved: Vec<String> = Vec::new();
    let mut pending: Vec<String> = path.split('/').rev().map(str::to_string).collect();
    let mut hops = 0;
    while let Some(part) = pending.pop() {
        match part.as_str() {
            "" | "." => continue,
            ".." => {
                resolved.pop();
                continue;
            }
            _ => {}
        }
        let candidate = format!(
            "/{}",
            resolved
                .iter()
                .chain(std::iter::once(&part))
                .cloned()
                .collect::<Vec<_>>()
                .join("/")
        );
        let meta = std::fs::symlink_metadata(&candidate)?;
        if meta.file_type().is_symlink() {
            hops += 1;
            if hops > 40 {
                return Err(std::io::Error::other("Too many levels of symbolic links"));
            }
            let target = std::fs::read_link(&candidate)?
                .to_string_lossy()
                .into_owned();
            if target.starts_with('/') {
                resolved.clear();
            }
            pending.extend(target.split('/').rev().map(str::to_string));
        } else {
            resolved.push(part);
        }
    }
    Ok(format!("/{}", resolved.join("/")))
}

/// `readlink [-f|-e|-m] FILE...`.
pub async fn readlink(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let canonicalize = argv[1..]
        .iter()
        .any(|a| matches!(a.as_str(), "-f" | "-e" | "-m" | "--canonicalize"));
    let mut status = 0;
    let mut text = String::new();
    for f in argv[1..].iter().filter(|a| !a.starts_with('-')) {
        let path = sh.shell.path(f).to_string_lossy().into_owned();
        let r = if canonicalize {
            canonical(&path)
        } else {
            std::fs::read_link(&path).map(|t| t.to_string_lossy().into_owned())
        };
        match r {
            Ok(t) => {
                text.push_str(&t);
                text.push('\n');
            }
            Err(_) => status = 1,
        }
    }
    match out(sh, &text).await {
        0 => status,
        s => s,
    }
}

/// `realpath [-s] FILE...`.
pub async fn realpath(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    // `-m`: no part needs to exist (the path is only normalized).
    let no_symlinks = argv[1..].iter().any(|a| {
        matches!(
            a.as_str(),
            "-s" | "--no-symlinks" | "-m" | "--canonicalize-missing"
        )
    });
    let mut status = 0;
    let mut text = String::new();
    let files: Vec<&String> = argv[1..].iter().filter(|a| !a.starts_with('-')).collect();
    if files.is_empty() {
        return complain(
            sh,
            "realpath: missing operand\nTry 'realpath --help' for more information.",
        )
        .await;
    }
    for f in files {
        let path = sh.shell.path(f).to_string_lossy().into_owned();
        let r = if no_symlinks {
            Ok(crate::dirs::normalize(&path))
        } else {
            canonical(&path)
        };
        match r {
            Ok(t) => {
                text.push_str(&t);
                text.push('\n');
            }
            Err(e) => {
                status = complain(sh, &format!("realpath: {f}: {}", io_message(&e))).await;
            }
        }
    }
    match out(sh, &text).await {
        0 => status,
        s => s,
    }
}

/// `mktemp [-d] [-p DIR] [TEMPLATE]`: a new file (or directory) named from TEMPLATE's `X`s.
pub async fn mktemp(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let mut dir_mode = false;
    let mut in_tmpdir = false;
    let mut base: Option<String> = None;
    let mut template: Option<String> = None;
    let mut i = 1;
    while i < argv.len() {
        match argv[i].as_str() {
            "-d" | "--directory" => dir_mode = true,
            "-p" | "--tmpdir" => {
                i += 1;
                base = argv.get(i).cloned();
            }
            "-t" => in_tmpdir = true,
            "-q" | "-u" => {}
            s if s.starts_with("--tmpdir=") => base = Some(s[9..].to_string()),
            s => template = Some(s.to_string()),
        }
        i += 1;
    }
    // Without a template, or with `-p`/`-t`, the name goes in the temporary directory.
    in_tmpdir |= template.is_none() || base.is_some();
    let template = template.unwrap_or_else(|| "tmp.XXXXXXXXXX".into());
    // The last run of X's (in the last path component) is replaced; what follows stays.
    let last = template.rfind('/').map_or(0, |i| i + 1);
    let run_end = template[last..].rfind('X').map_or(0, |i| last + i + 1);
    let run_start = template[last..run_end]
        .rfind(|c| c != 'X')
        .map_or(last, |i| last + i + 1);
    let x = run_end - run_start;
    if x < 3 {
        return complain(sh, &format!("mktemp: too few X's in template '{template}'")).await;
    }
    let dir = if template.contains('/') || !in_tmpdir {
        String::new()
    } else {
        base.or_else(|| sh.shell.get("TMPDIR").map(str::to_string))
            .unwrap_or_else(|| "/tmp".into())
    };
    let _ = std::fs::create_dir_all(sh.shell.path(if dir.is_empty() { "." } else { &dir }));
    const CHARS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    for _ in 0..100 {
        let suffix: String = (0..x)
            .map(|_| CHARS[sh.shell.random() as usize % CHARS.len()] as char)
            .collect();
        let name = format!("{}{suffix}{}", &template[..run_start], &template[run_end..]);
        let full = if dir.is_empty() {
            name
        } else {
            format!("{}/{name}", dir.trim_end_matches('/'))
        };
        let path = sh.shell.path(&full);
        let made = if dir_mode {
            std::fs::create_dir(&path)
        } else {
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
                .map(|_| ())
        };
        match made {
            Ok(()) => return out(sh, &format!("{full}\n")).await,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                let what = if dir_mode { "directory" } else { "file" };
                return complain(
                    sh,
                    &format!(
                        "mktemp: failed to create {what} via template '{template}': {}",
                        io_message(&e)
                    ),
                )
                .await;
            }
        }
    }
    complain(
        sh,
        &format!("mktemp: failed to create file via template '{template}': File exists"),
    )
    .await
}

/// `truncate -s [+-]SIZE FILE...`.
pub async fn truncate(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let mut size: Option<String> = None;
    let mut files = Vec::new();
    let mut i = 1;
    while i < argv.len() {
        match argv[i].as_str() {
            "-s" | "--size" => {
                i += 1;
                size = argv.get(i).cloned();
            }
            s if s.starts_with("-s") => size = Some(s[2..].to_string()),
            s if s.starts_with("--size=") => size = Some(s[7..].to_string()),
            "-c" | "--no-create" => {}
            s => files.push(s.to_string()),
        }
        i += 1;
    }
    let Some(spec) = size else {
        return complain(sh, "truncate: you must specify either '--size' or '--reference'\nTry 'truncate --help' for more information.").await;
    };
    let (op, digits) = match spec.chars().next() {
        Some(c @ ('+' | '-')) => (Some(c), &spec[1..]),
        _ => (None, spec.as_str()),
    };
    let Some(n) = super::stream::parse_size(digits) else {
        return complain(sh, &format!("truncate: Invalid number: '{spec}'")).await;
    };
    let n = n as u64;
    let mut status = 0;
    for f in files {
        let path = sh.shell.path(&f);
        let r = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .and_then(|file| {
                let cur = file.metadata()?.len();
                let new = match op {
                    Some('+') => cur.saturating_add(n),
                    Some('-') => cur.saturating_sub(n),
                    _ => n,
                };
                file.set_len(new)
            });
        if let Err(e) = r {
            status = complain(
                sh,
                &format!(
                    "truncate: cannot open '{f}' for writing: {}",
                    io_message(&e)
                ),
            )
            .await;
        }
    }
    status
}
