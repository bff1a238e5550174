//! `touch`: change file times, creating files.

use super::stream::complain;
use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{bad_usage, parser, string, value};
use shell_base::errno::io_message;

/// `touch [-c] [-a|-m] [-d DATE | -r FILE | -t STAMP] FILE...`: creates missing files (not
/// with `-c`) and sets times to now or to the given time.
pub async fn touch(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let mut no_create = false;
    // The last of `-d DATE`, `-t STAMP`, `-r FILE`: which, and its value.
    let mut given: Option<(char, String)> = None;
    let mut files = Vec::new();
    let mut p = parser(argv);
    let parsed: Result<(), lexopt::Error> = (|| {
        while let Some(arg) = p.next()? {
            match arg {
                Short('c') | Long("no-create") => no_create = true,
                // Both times are set; links are never followed by a workspace write anyway.
                Short('a' | 'm' | 'f' | 'h') | Long("no-dereference") => {}
                Short('d') | Long("date") => given = Some(('d', value(&mut p)?)),
                Short('t') => given = Some(('t', value(&mut p)?)),
                Short('r') | Long("reference") => given = Some(('r', value(&mut p)?)),
                Value(v) => files.push(string(v)),
                _ => return Err(arg.unexpected()),
            }
        }
        Ok(())
    })();
    if let Err(e) = parsed {
        return bad_usage(sh, "touch", e, 1).await;
    }
    let now = std::time::SystemTime::now();
    let now_secs = now
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    let at = |secs: i64| std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs.max(0) as u64);
    let when = match given {
        None => None,
        Some(('r', v)) => match std::fs::metadata(sh.path(&v)).and_then(|m| m.modified()) {
            Ok(t) => Some(t),
            Err(e) => {
                let msg = format!(
                    "touch: failed to get attributes of '{v}': {}",
                    io_message(&e)
                );
                return complain(sh, &msg).await;
            }
        },
        Some((kind, v)) => {
            let parsed = match kind {
                'd' => super::date::parse(&v, now_secs),
                _ => stamp(&v, now_secs),
            };
            match parsed {
                Some(secs) => Some(at(secs)),
                None => return complain(sh, &format!("touch: invalid date format '{v}'")).await,
            }
        }
    };
    if files.is_empty() {
        return complain(
            sh,
            "touch: missing file operand\nTry 'touch --help' for more information.",
        )
        .await;
    }
    let mut status = 0;
    for f in files {
        let path = sh.path(&f);
        if no_create && std::fs::symlink_metadata(&path).is_err() {
            continue;
        }
        // A directory is opened to read (it cannot be for appending); anything else is made
        // when missing.
        let opened = if path.is_dir() {
            std::fs::File::open(&path)
        } else {
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&path)
        };
        let result = opened.and_then(|file| file.set_modified(when.unwrap_or(now)));
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

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::Native;

    #[test]
    fn creates_and_sets_times() {
        let mut ctx = Native::new();
        assert_eq!(
            ctx.run(&["touch", "-d", "2001-02-03 04:05:06", "f"], "")
                .status,
            0
        );
        let m = std::fs::metadata(ctx.dir().join("f")).unwrap();
        let secs = m
            .modified()
            .unwrap()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs();
        assert_eq!(secs, 981_173_106);
    }
}
