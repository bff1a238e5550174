//! `uname`: print system information.

use crate::stream::out;
use shell_base::Context;

/// `uname [-asnrvmo]`: the isolate is a WASI machine.
pub async fn uname(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let flags: String = argv[1..]
        .iter()
        .filter_map(|a| a.strip_prefix('-'))
        .collect();
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
