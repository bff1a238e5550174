//! `sleep`: wait a while.

use shell_base::Context;
use shell_base::args::{bad_usage, operands, usage};

/// `sleep DURATION...` (`s m h d` suffixes); the run's time limit still applies.
pub async fn sleep(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let intervals = match operands(argv) {
        Ok(o) => o,
        Err(e) => return bad_usage(sh, "sleep", e, 1).await,
    };
    if intervals.is_empty() {
        return bad_usage(sh, "sleep", usage("missing operand"), 1).await;
    }
    let mut total = 0.0f64;
    for a in &intervals {
        match parse_duration(a) {
            Some(v) => total += v,
            None => {
                let e = usage(format!("invalid time interval '{a}'"));
                return bad_usage(sh, "sleep", e, 1).await;
            }
        }
    }
    let mut wait = std::time::Duration::from_secs_f64(total.min(1e9));
    if let Some(deadline) = sh.deadline() {
        // Under `timeout`, sleep only until the deadline.
        wait = wait.min(deadline.saturating_duration_since(std::time::Instant::now()));
    }
    std::thread::sleep(wait);
    0
}

/// A duration as `sleep` and `timeout` read it: a number with `s`, `m`, `h` or `d`.
pub(crate) fn parse_duration(text: &str) -> Option<f64> {
    let (num, mult) = match text.chars().last()? {
        's' => (&text[..text.len() - 1], 1.0),
        'm' => (&text[..text.len() - 1], 60.0),
        'h' => (&text[..text.len() - 1], 3600.0),
        'd' => (&text[..text.len() - 1], 86400.0),
        _ => (text, 1.0),
    };
    num.parse::<f64>()
        .ok()
        .filter(|v| *v >= 0.0)
        .map(|v| v * mult)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::testing::Native;

    #[test]
    fn durations_and_bad_ones() {
        assert_eq!(parse_duration("1.5m"), Some(90.0));
        assert_eq!(parse_duration("2d"), Some(172_800.0));
        assert_eq!(parse_duration("x"), None);
        assert_eq!(Native::new().run(&["sleep", "0"], "").status, 0);
        assert_eq!(Native::new().run(&["sleep", "x"], "").status, 1);
    }
}
