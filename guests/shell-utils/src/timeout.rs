//! `timeout`: run a command with a time limit (status 124 when it is hit).

use super::stream::{complain, invalid_option};
use crate::sleep::*;
use shell_base::Context;

/// `timeout [-s SIGNAL] [-k DURATION] [--preserve-status] DURATION COMMAND [ARG]...`.
///
/// There are no processes to kill: the command is stopped before its next command (a
/// script's next step) once the time is up, and `sleep` wakes at the deadline; a single
/// long-running built-in command finishes its work. Past the deadline the status is 124.
pub async fn timeout(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let mut i = 1;
    let mut preserve = false;
    while let Some(a) = argv.get(i) {
        match a.as_str() {
            "-s" | "--signal" | "-k" | "--kill-after" => i += 1,
            "--preserve-status" => preserve = true,
            "--foreground" | "-v" | "--verbose" => {}
            "--" => {
                i += 1;
                break;
            }
            s if s.starts_with("--signal=") || s.starts_with("--kill-after=") => {}
            s if s.starts_with("-s") || s.starts_with("-k") => {}
            s if s.starts_with('-')
                && s.len() > 1
                && !s[1..].starts_with(|c: char| c.is_ascii_digit()) =>
            {
                return invalid_option(sh, "timeout", &s[1..]).await + 124;
            }
            _ => break,
        }
        i += 1;
    }
    let Some(duration) = argv.get(i) else {
        return complain(
            sh,
            "timeout: missing operand\nTry 'timeout --help' for more information.",
        )
        .await
            + 124;
    };
    let Some(seconds) = parse_duration(duration) else {
        return complain(sh, &format!("timeout: invalid time interval '{duration}'\nTry 'timeout --help' for more information.")).await + 124;
    };
    let command = argv[i + 1..].to_vec();
    if command.is_empty() {
        return complain(sh, "Try 'timeout --help' for more information.").await + 124;
    }
    let saved = sh.deadline();
    let start = std::time::Instant::now();
    if seconds > 0.0 {
        let mine = start + std::time::Duration::from_secs_f64(seconds.min(1e9));
        sh.set_deadline(Some(saved.map_or(mine, |d| d.min(mine))));
    }
    // The command runs as a child would: its `exit` ends only it.
    let status = sh.run(command).await;
    sh.set_deadline(saved);
    let timed_out = seconds > 0.0 && start.elapsed().as_secs_f64() >= seconds;
    if timed_out && !preserve {
        shell_base::context::TIMED_OUT
    } else if timed_out {
        128 + 15
    } else {
        status
    }
}

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::Native;

    #[test]
    fn runs_the_command_and_passes_its_status() {
        let ran = Native::new().run(&["timeout", "5", "basename", "a/b"], "");
        assert_eq!((ran.status, ran.stdout.as_str()), (0, "b\n"));
        assert_eq!(Native::new().run(&["timeout", "5", "nope"], "").status, 127);
        assert_eq!(Native::new().run(&["timeout"], "").status, 125);
    }
}
