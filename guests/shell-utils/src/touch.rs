//! `touch`: change file times, creating files.

use super::stream::{complain, invalid_option};
use shell_base::Context;
use shell_base::errno::io_message;

/// `touch [-c] [-a|-m] [-d DATE | -r FILE | -t STAMP] FILE...`: creates missing files (not
/// with `-c`) and sets times to now or to the given time.
pub async fn touch(sh: &mut dyn Context, argv: &[String]) -> i32 {
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
                    _ => match std::fs::metadata(sh.path(v)).and_then(|m| m.modified()) {
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
        let path = sh.path(&f);
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
