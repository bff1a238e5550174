//! `which`: locate a command.

use crate::stream::out;
use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{bad_usage, parser, string};

/// `which [-a] NAME...`: the shell's commands live in `/usr/bin`.
pub async fn which(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let mut names = Vec::new();
    let mut p = parser(argv);
    let parsed: Result<(), lexopt::Error> = (|| {
        while let Some(arg) = p.next()? {
            match arg {
                // Every command has one place, /usr/bin, so `-a` finds no more.
                Short('a') | Short('s') => {}
                Value(v) => names.push(string(v)),
                _ => return Err(arg.unexpected()),
            }
        }
        Ok(())
    })();
    if let Err(e) = parsed {
        return bad_usage(sh, "which", e, 2).await;
    }
    let mut status = 0;
    let mut text = String::new();
    for name in &names {
        if sh.has_command(name) {
            text.push_str(&format!("/usr/bin/{name}\n"));
        } else if name.contains('/') && sh.path(name).is_file() {
            text.push_str(&format!("{name}\n"));
        } else {
            status = 1;
        }
    }
    match out(sh, &text).await {
        0 => status,
        s => s,
    }
}

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::Native;

    #[test]
    fn built_in_commands_live_in_usr_bin() {
        let ran = Native::new().run(&["which", "grep", "nope"], "");
        assert_eq!((ran.status, ran.stdout.as_str()), (1, "/usr/bin/grep\n"));
    }
}
