//! `sleep`: wait a while.

use super::stream::complain;
use shell_base::Context;

/// `sleep DURATION...` (`s m h d` suffixes); the run's time limit still applies.
pub async fn sleep(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let mut total = 0.0f64;
    if argv.len() < 2 {
        return complain(
            sh,
            "sleep: missing operand\nTry 'sleep --help' for more information.",
        )
        .await;
    }
    for a in &argv[1..] {
        match parse_duration(a) {
            Some(v) => total += v,
            None => {
                return complain(sh, &format!("sleep: invalid time interval '{a}'\nTry 'sleep --help' for more information.")).await;
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
