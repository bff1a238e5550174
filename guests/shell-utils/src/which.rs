//! `which`: locate a command.

use crate::stream::out;
use shell_base::Context;

/// `which [-a] NAME...`: the shell's commands live in `/usr/bin`.
pub async fn which(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let mut status = 0;
    let mut text = String::new();
    for name in argv[1..].iter().filter(|a| !a.starts_with('-')) {
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
