//! `timeout`: run a command with a time limit (status 124 when it is hit).

use super::stream::complain;
use crate::sleep::*;
use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{bad_usage, parser, string, usage};

/// `timeout [-s SIGNAL] [-k DURATION] [--preserve-status] DURATION COMMAND [ARG]...`.
///
/// There are no processes to kill: the command is stopped before its next command (a
/// script's next step) once the time is up, and `sleep` wakes at the deadline; a single
/// long-running built-in command finishes its work. Past the deadline the status is 124.
pub async fn timeout(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let mut preserve = false;
    let mut operands: Vec<String> = Vec::new();
    let mut p = parser(argv);
    let parsed: Result<(), lexopt::Error> = (|| {
        while let Some(arg) = p.next()? {
            match arg {
                // No processes, so no signals: the names are taken and not used.
                Short('s') | Long("signal") | Short('k') | Long("kill-after") => {
                    p.value()?;
                }
                Long("preserve-status") => preserve = true,
                Long("foreground") | Short('v') | Long("verbose") => {}
                // The duration, then the command and its arguments, which are its own.
                Value(v) => {
                    operands.push(string(v));
                    operands.extend(p.raw_args()?.map(string));
                }
                _ => return Err(arg.unexpected()),
            }
        }
        Ok(())
    })();
    if let Err(e) = parsed {
        return bad_usage(sh, "timeout", e, 125).await;
    }
    let Some(duration) = operands.first() else {
        return bad_usage(sh, "timeout", usage("missing operand"), 125).await;
    };
    let Some(seconds) = parse_duration(duration) else {
        let e = usage(format!("invalid time interval '{duration}'"));
        return bad_usage(sh, "timeout", e, 125).await;
    };
    let command = operands[1..].to_vec();
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
