//! `date [-u] [-d DATE] [+FORMAT]`, in UTC (the isolate has no time zone database; `TZ` other
//! than UTC is reported, not silently ignored).

use super::stream::complain;
use crate::stream::out;
use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{bad_usage, parser, string, value};

/// Days since 1970-01-01 → (year, month, day) (Howard Hinnant's civil-from-days).
pub(super) fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + if m <= 2 { 1 } else { 0 };
    (y, m, d)
}

/// (year, month, day) → days since 1970-01-01.
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = if m > 2 { m - 3 } else { m + 9 } as i64;
    let doy = (153 * mp + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

const DAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];
const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// Formats seconds since the epoch (and nanoseconds) with strftime's conversions.
pub(super) fn format(secs: i64, nanos: u32, fmt: &str) -> String {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil(days);
    let (hh, mm, ss) = (rem / 3600, rem % 3600 / 60, rem % 60);
    let weekday = (days + 4).rem_euclid(7) as usize;
    let yday = days - days_from_civil(y, 1, 1) + 1;
    let mut out = String::new();
    let mut chars = fmt.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let Some(k) = chars.next() else {
            out.push('%');
            break;
        };
        let piece = match k {
            'Y' => y.to_string(),
            'C' => format!("{:02}", y / 100),
            'y' => format!("{:02}", y.rem_euclid(100)),
            'm' => format!("{m:02}"),
            'd' => format!("{d:02}"),
            'e' => format!("{d:>2}"),
            'H' => format!("{hh:02}"),
            'k' => format!("{hh:>2}"),
            'I' => format!("{:02}", if hh % 12 == 0 { 12 } else { hh % 12 }),
            'l' => format!("{:>2}", if hh % 12 == 0 { 12 } else { hh % 12 }),
            'M' => format!("{mm:02}"),
            'S' => format!("{ss:02}"),
            'N' => format!("{nanos:09}"),
            'p' => (if hh < 12 { "AM" } else { "PM" }).into(),
            'P' => (if hh < 12 { "am" } else { "pm" }).into(),
            'j' => format!("{yday:03}"),
            'a' => DAYS[weekday][..3].into(),
            'A' => DAYS[weekday].into(),
            'b' | 'h' => MONTHS[m as usize - 1][..3].into(),
            'B' => MONTHS[m as usize - 1].into(),
            'u' => (if weekday == 0 { 7 } else { weekday }).to_string(),
            'w' => weekday.to_string(),
            'U' => format!("{:02}", (yday - 1 + 7 - weekday as i64) / 7),
            'W' => format!("{:02}", (yday - 1 + 7 - ((weekday as i64 + 6) % 7)) / 7),
            'G' => iso_week(y, yday, weekday).0.to_string(),
            'g' => format!("{:02}", iso_week(y, yday, weekday).0.rem_euclid(100)),
            'V' => format!("{:02}", iso_week(y, yday, weekday).1),
            's' => secs.to_string(),
            'Z' => "UTC".into(),
            'z' => "+0000".into(),
            'F' => format!("{y}-{m:02}-{d:02}"),
            'T' => format!("{hh:02}:{mm:02}:{ss:02}"),
            'R' => format!("{hh:02}:{mm:02}"),
            'D' => format!("{m:02}/{d:02}/{:02}", y.rem_euclid(100)),
            'c' => format(secs, nanos, "%a %b %e %H:%M:%S %Y"),
            'x' => format(secs, nanos, "%m/%d/%y"),
            'X' => format(secs, nanos, "%H:%M:%S"),
            'n' => "\n".into(),
            't' => "\t".into(),
            '%' => "%".into(),
            other => format!("%{other}"),
        };
        out.push_str(&piece);
    }
    out
}

/// The ISO 8601 week-based year and week of a day (`%G`, `%V`).
fn iso_week(y: i64, yday: i64, weekday: usize) -> (i64, i64) {
    let weeks_in = |y: i64| {
        let p =
            |y: i64| (y + y.div_euclid(4) - y.div_euclid(100) + y.div_euclid(400)).rem_euclid(7);
        if p(y) == 4 || p(y - 1) == 3 { 53 } else { 52 }
    };
    let iso_day = (weekday as i64 + 6) % 7 + 1;
    let week = (yday - iso_day + 10) / 7;
    if week < 1 {
        (y - 1, weeks_in(y - 1))
    } else if week > weeks_in(y) {
        (y + 1, 1)
    } else {
        (y, week)
    }
}

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
