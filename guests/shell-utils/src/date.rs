//! `date [-u] [-d DATE] [+FORMAT]`, in UTC (the isolate has no time zone database; `TZ` other
//! than UTC is reported, not silently ignored).

use super::stream::complain;
use crate::stream::out;
use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{bad_usage, parser, string, value};

use shell_base::clock::days_from_civil;
pub(super) use shell_base::clock::{civil, format};

/// Parses `-d`'s DATE: `@SECONDS`, `now`, `YYYY-MM-DD`, with ` HH:MM[:SS]` or `THH:MM:SS[Z]`.
pub(super) fn parse(text: &str, now: i64) -> Option<i64> {
    let t = text.trim();
    if let Some(s) = t.strip_prefix('@') {
        return s.parse().ok();
    }
    match t {
        "now" | "" => return Some(now),
        "today" => return Some(now),
        "yesterday" => return Some(now - 86_400),
        "tomorrow" => return Some(now + 86_400),
        _ => {}
    }
    let t = t.trim_end_matches('Z').trim_end_matches(" UTC");
    let (date, time) = match t.split_once(['T', ' ']) {
        Some((d, tm)) => (d, Some(tm)),
        None => (t, None),
    };
    let mut parts = date.split('-');
    let y: i64 = parts.next()?.parse().ok()?;
    let m: u32 = parts.next()?.parse().ok()?;
    let d: u32 = parts.next()?.parse().ok()?;
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    let month_days = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    if parts.next().is_some() || !(1..=12).contains(&m) || d == 0 || d > month_days[m as usize - 1]
    {
        return None;
    }
    let mut secs = days_from_civil(y, m, d) * 86_400;
    if let Some(tm) = time {
        let mut hms = tm.split(':');
        let h: i64 = hms.next()?.parse().ok()?;
        let mi: i64 = hms.next().unwrap_or("0").parse().ok()?;
        let s: f64 = hms.next().unwrap_or("0").parse().ok()?;
        secs += h * 3600 + mi * 60 + s as i64;
    }
    Some(secs)
}

/// `date [-u] [-d DATE] [-I] [-R] [+FORMAT]`.
pub async fn date(sh: &mut dyn Context, argv: &[String]) -> i32 {
    if let Some(tz) = sh
        .var("TZ")
        .filter(|t| !t.is_empty() && !matches!(*t, "UTC" | "UTC0" | "Etc/UTC" | ":UTC" | "GMT"))
    {
        let tz = tz.to_string();
        return complain(
            sh,
            &format!("date: time zone '{tz}' is not available here; times are UTC"),
        )
        .await;
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let (mut secs, mut nanos) = (now.as_secs() as i64, now.subsec_nanos());
    let mut fmt = "%a %b %e %H:%M:%S %Z %Y".to_string();
    // The last of `-d DATE` and `-r FILE`: which, and its value.
    let mut given: Option<(char, String)> = None;
    let mut operands = Vec::new();
    let mut p = parser(argv);
    let parsed: Result<(), lexopt::Error> = (|| {
        while let Some(arg) = p.next()? {
            match arg {
                // Times are UTC here anyway.
                Short('u') | Long("utc" | "universal") => {}
                Short('d') | Long("date") => given = Some(('d', value(&mut p)?)),
                Short('r') | Long("reference") => given = Some(('r', value(&mut p)?)),
                Short('I') | Long("iso-8601") => fmt = "%Y-%m-%d".into(),
                Short('R') | Long("rfc-email") => fmt = "%a, %d %b %Y %H:%M:%S +0000".into(),
                Value(v) => operands.push(string(v)),
                _ => return Err(arg.unexpected()),
            }
        }
        Ok(())
    })();
    if let Err(e) = parsed {
        return bad_usage(sh, "date", e, 1).await;
    }
    for operand in operands {
        match operand.strip_prefix('+') {
            Some(f) => fmt = f.to_string(),
            None => return complain(sh, &format!("date: invalid date '{operand}'")).await,
        }
    }
    match given {
        Some(('d', text)) => match parse(&text, secs) {
            Some(s) => (secs, nanos) = (s, 0),
            None => return complain(sh, &format!("date: invalid date '{text}'")).await,
        },
        // The file's modification time.
        Some((_, file)) => {
            let modified = std::fs::metadata(sh.path(&file))
                .and_then(|m| m.modified())
                .map(|t| t.duration_since(std::time::UNIX_EPOCH).unwrap_or_default());
            match modified {
                Ok(d) => (secs, nanos) = (d.as_secs() as i64, d.subsec_nanos()),
                Err(e) => {
                    let msg = shell_base::errno::io_message(&e);
                    return complain(sh, &format!("date: {file}: {msg}")).await;
                }
            }
        }
        None => {}
    }
    out(sh, &format!("{}\n", format(secs, nanos, &fmt))).await
}

#[cfg(all(test, unix))]
mod tests {

    use crate::testing::stdout_of;

    #[test]
    fn formats_a_given_time() {
        assert_eq!(
            stdout_of(&["date", "-u", "-d", "@86400", "+%Y-%m-%d %H:%M"], ""),
            "1970-01-02 00:00\n"
        );
    }
}
