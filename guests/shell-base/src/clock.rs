//! Calendar arithmetic and strftime's conversions, in UTC (the isolate has no time zone
//! database): shared by `date`, `stat`, `ls`, awk's `strftime` and `printf %(fmt)T`.

/// Days since 1970-01-01 → (year, month, day) (Howard Hinnant's civil-from-days).
pub fn civil(days: i64) -> (i64, u32, u32) {
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
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
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
pub fn format(secs: i64, nanos: u32, fmt: &str) -> String {
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
