//! `wait`: the status of background jobs (which ran to completion when started).

use crate::interp::Builtin;
use crate::interp::Interp;

/// `wait [-n] [ID...]`: background commands have already run to completion, so this returns
/// their statuses.
pub async fn wait(sh: &mut Interp<'_>, args: &[String]) -> i32 {
    let ids: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
    if ids.is_empty() {
        if args.iter().any(|a| a == "-n") {
            return sh.shell.jobs.last().map(|(_, s)| *s).unwrap_or(127);
        }
        return 0;
    }
    let mut status = 0;
    for id in ids {
        let job = id.trim_start_matches('%').parse::<u32>().ok();
        match job.and_then(|j| sh.shell.jobs.iter().find(|(k, _)| *k == j)) {
            Some((_, s)) => status = *s,
            None => {
                sh.error(&format!("wait: pid {id} is not a child of this shell"))
                    .await;
                status = 127;
            }
        }
    }
    status
}

/// `wait`'s registration.
pub const BUILTIN: Builtin = Builtin {
    name: "wait",
    run: status!(wait),
    usage: "[id ...]",
    about: "Wait for job completion and return exit status",
    special: false,
    declaration: None,
};
