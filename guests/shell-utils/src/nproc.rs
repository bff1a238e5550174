//! `nproc`: the number of processors a command may use.

use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{bad_usage, parser, plain, string, usage, value};

use crate::stream::out;

/// `nproc [--all] [--ignore=N]`: 1, since the isolate runs one command at a time, unless
/// `OMP_NUM_THREADS` (within `OMP_THREAD_LIMIT`) says otherwise, as GNU's honours them.
pub async fn nproc(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let mut all = false;
    let mut ignore = 0u64;
    let mut p = parser(argv);
    let parsed: Result<(), lexopt::Error> = (|| {
        while let Some(arg) = p.next()? {
            match arg {
                Long("all") => all = true,
                Long("ignore") => {
                    let text = value(&mut p)?;
                    ignore = text
                        .trim()
                        .parse()
                        .map_err(|_| plain(format!("invalid number: '{text}'")))?;
                }
                Value(v) => return Err(usage(format!("extra operand '{}'", string(v)))),
                _ => return Err(arg.unexpected()),
            }
        }
        Ok(())
    })();
    if let Err(e) = parsed {
        return bad_usage(sh, "nproc", e, 1).await;
    }
    let env = |name: &str| {
        sh.var(name)
            .and_then(|v| v.split(',').next()?.trim().parse::<u64>().ok())
            .filter(|n| *n > 0)
    };
    let mut n = 1;
    if !all {
        if let Some(threads) = env("OMP_NUM_THREADS") {
            n = threads;
        }
        if let Some(limit) = env("OMP_THREAD_LIMIT") {
            n = n.min(limit);
        }
    }
    let n = n.saturating_sub(ignore).max(1);
    out(sh, &format!("{n}\n")).await
}

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::stdout_of;

    #[test]
    fn one_processor_at_least() {
        assert_eq!(stdout_of(&["nproc"], ""), "1\n");
        assert_eq!(stdout_of(&["nproc", "--ignore=3"], ""), "1\n");
    }
}
