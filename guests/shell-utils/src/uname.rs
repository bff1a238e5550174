//! `uname`: print system information.

use crate::stream::out;
use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{bad_usage, parser};

/// `uname [-asnrvmo]`: the isolate is a WASI machine.
pub async fn uname(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let mut flags = String::new();
    let mut p = parser(argv);
    let parsed: Result<(), lexopt::Error> = (|| {
        while let Some(arg) = p.next()? {
            match arg {
                Short(c) if "asnrvmpio".contains(c) => flags.push(c),
                Long("all") => flags.push('a'),
                Long("kernel-name") => flags.push('s'),
                Long("nodename") => flags.push('n'),
                Long("kernel-release") => flags.push('r'),
                Long("kernel-version") => flags.push('v'),
                Long("machine") => flags.push('m'),
                Long("operating-system") => flags.push('o'),
                _ => return Err(arg.unexpected()),
            }
        }
        Ok(())
    })();
    if let Err(e) = parsed {
        return bad_usage(sh, "uname", e, 1).await;
    }
    let host = sh.var("HOSTNAME").unwrap_or("computer").to_string();
    let all = flags.contains('a');
    let mut parts = Vec::new();
    if flags.is_empty() || all || flags.contains('s') {
        parts.push("WASI".to_string());
    }
    if all || flags.contains('n') {
        parts.push(host);
    }
    if all || flags.contains('r') {
        parts.push("0.2".into());
    }
    if all || flags.contains('v') {
        parts.push("computer".into());
    }
    if all || flags.contains('m') {
        parts.push("wasm32".into());
    }
    // GNU prints `unknown` for these when asked by name, and leaves them out of `-a`.
    for c in ['p', 'i'] {
        if flags.contains(c) {
            parts.push("unknown".into());
        }
    }
    if all || flags.contains('o') {
        parts.push("WASI".into());
    }
    out(sh, &format!("{}\n", parts.join(" "))).await
}

#[cfg(all(test, unix))]
mod tests {

    use crate::testing::stdout_of;

    #[test]
    fn the_kernel_is_wasi() {
        assert_eq!(stdout_of(&["uname"], ""), "WASI\n");
    }
}
