//! `stat`: the inode as the host's workspace has it (mode, owner, links, times).

use super::stream::complain;
use crate::fileinfo::*;
use crate::stream::out;
use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{bad_usage, parser, string, value};
use shell_base::host::FileInfo;
use std::path::Path;

/// `stat [-c FORMAT] [-L] FILE...` (`--format`, `--printf`), or GNU's default report.
pub async fn stat(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let mut format: Option<String> = None;
    let mut follow = false;
    let mut files = Vec::new();
    let mut p = parser(argv);
    let parsed: Result<(), lexopt::Error> = (|| {
        while let Some(arg) = p.next()? {
            match arg {
                Short('c') | Long("format") => format = Some(value(&mut p)? + "\n"),
                Long("printf") => format = Some(value(&mut p)?),
                Short('L') | Long("dereference") => follow = true,
                Value(v) => files.push(string(v)),
                _ => return Err(arg.unexpected()),
            }
        }
        Ok(())
    })();
    if let Err(e) = parsed {
        return bad_usage(sh, "stat", e, 1).await;
    }
    if files.is_empty() {
        return complain(
            sh,
            "stat: missing operand\nTry 'stat --help' for more information.",
        )
        .await;
    }
    let user = sh.var("USER").unwrap_or("user").to_string();
    let mut text = String::new();
    let mut status = 0;
    for f in &files {
        let path = sh.path(f);
        let i = match std::fs::symlink_metadata(&path).and_then(|_| info(&path, follow)) {
            Ok(i) => i,
            Err(_) => {
                status = complain(
                    sh,
                    &format!("stat: cannot statx '{f}': No such file or directory"),
                )
                .await;
                continue;
            }
        };
        let fmt = format.clone().unwrap_or_else(|| {
            "  File: %N\n  Size: %s\tBlocks: %b          IO Block: 4096   %F\nDevice: 0h/0d\tInode: %i     Links: %h\nAccess: (%04a/%A)  Uid: (%5u/%8U)   Gid: (%5g/%8G)\nAccess: %x\nModify: %y\nChange: %z\n Birth: -\n".into()
        });
        text.push_str(&render(&fmt, f, &path, &i, &user));
    }
    match out(sh, &text).await {
        0 => status,
        s => s,
    }
}

fn render(fmt: &str, name: &str, path: &Path, i: &FileInfo, user: &str) -> String {
    let kind = match i.mode & 0o170000 {
        0o040000 => "directory",
        0o120000 => "symbolic link",
        0o010000 => "fifo",
        0o020000 => "character special file",
        0o060000 => "block special file",
        0o140000 => "socket",
        _ if i.size == 0 => "regular empty file",
        _ => "regular file",
    };
    let time = |ns: i64| {
        let secs = ns.div_euclid(1_000_000_000);
        let nanos = ns.rem_euclid(1_000_000_000) as u32;
        super::date::format(secs, nanos, "%Y-%m-%d %H:%M:%S.%N +0000")
    };
    let mut out = String::new();
    let mut chars = fmt.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('\\') => out.push('\\'),
                Some(o) => {
                    out.push('\\');
                    out.push(o);
                }
                None => out.push('\\'),
            }
            continue;
        }
        if c != '%' {
            out.push(c);
            continue;
        }
        // Zero padding and width (`%04a`).
        let mut spec = String::new();
        while let Some(&d) = chars.peek() {
            if d.is_ascii_digit() || d == '-' {
                spec.push(d);
                chars.next();
            } else {
                break;
            }
        }
        let Some(k) = chars.next() else {
            out.push('%');
            break;
        };
        let piece = match k {
            'n' => name.to_string(),
            'N' => {
                let mut s = format!("'{name}'");
                if i.mode & 0o170000 == 0o120000
                    && let Ok(t) = std::fs::read_link(path)
                {
                    s.push_str(&format!(" -> '{}'", t.to_string_lossy()));
                }
                s
            }
            's' => i.size.to_string(),
            'b' => (i.size.div_ceil(4096) * 8).to_string(),
            'B' => "512".into(),
            'o' => "4096".into(),
            'a' => format!("{:o}", i.mode & 0o7777),
            'A' => mode_string(i.mode),
            'f' => format!("{:x}", i.mode),
            'F' => kind.into(),
            'h' => i.nlink.to_string(),
            'i' => i.ino.to_string(),
            'u' => i.uid.to_string(),
            'g' => i.gid.to_string(),
            'U' => owner_name(i.uid, user),
            'G' => owner_name(i.gid, user),
            'x' => time(i.atime),
            'y' => time(i.mtime),
            'z' => time(i.ctime),
            'w' => "-".into(),
            'X' => i.atime.div_euclid(1_000_000_000).to_string(),
            'Y' => i.mtime.div_euclid(1_000_000_000).to_string(),
            'Z' => i.ctime.div_euclid(1_000_000_000).to_string(),
            'W' => "0".into(),
            'd' | 'D' => "0".into(),
            'm' => "/".into(),
            '%' => "%".into(),
            other => format!("%{other}"),
        };
        out.push_str(&pad(&piece, &spec));
    }
    out
}

/// Applies a `%5u`/`%-8U`/`%04a` width to a piece.
fn pad(piece: &str, spec: &str) -> String {
    let left = spec.starts_with('-');
    let zero = spec.trim_start_matches('-').starts_with('0');
    let width: usize = spec.trim_start_matches('-').parse().unwrap_or(0);
    let len = piece.chars().count();
    if len >= width {
        return piece.to_string();
    }
    let fill = width - len;
    if left {
        format!("{piece}{}", " ".repeat(fill))
    } else if zero {
        format!("{}{piece}", "0".repeat(fill))
    } else {
        format!("{}{piece}", " ".repeat(fill))
    }
}

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::Native;

    #[test]
    fn formats_size_and_name() {
        let mut ctx = Native::new();
        ctx.write("f", "abc");
        assert_eq!(ctx.run(&["stat", "-c", "%s %n", "f"], "").stdout, "3 f\n");
    }
}
