//! `hostname`: print the machine's name.

use super::stream::{complain, out};
use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{bad_usage, parser, string};

/// `hostname`.
pub async fn hostname(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let mut operands = Vec::new();
    let mut p = parser(argv);
    let parsed: Result<(), lexopt::Error> = (|| {
        while let Some(arg) = p.next()? {
            match arg {
                // The workspace's name has no domain: short, long and full are the same.
                Short('s' | 'f') | Long("short" | "fqdn" | "long") => {}
                Value(v) => operands.push(string(v)),
                _ => return Err(arg.unexpected()),
            }
        }
        Ok(())
    })();
    if let Err(e) = parsed {
        return bad_usage(sh, "hostname", e, 1).await;
    }
    if !operands.is_empty() {
        return complain(sh, "hostname: you must be root to change the host name").await;
    }
    let host = sh.var("HOSTNAME").unwrap_or("computer").to_string();
    out(sh, &format!("{host}\n")).await
}

#[cfg(all(test, unix))]
mod tests {

    use crate::testing::stdout_of;

    #[test]
    fn a_default_name() {
        assert_eq!(stdout_of(&["hostname"], ""), "computer\n");
    }
}
