//! `umask`: the file mode creation mask, octal or symbolic (`-S`).

use crate::builtins::out;
use crate::interp::Builtin;
use crate::interp::Interp;

/// `umask [-S] [MODE]` (kept for scripts that read it; WASI files have no modes to apply it to).
pub async fn umask(sh: &mut Interp<'_>, args: &[String]) -> i32 {
    let symbolic = args.iter().any(|a| a == "-S");
    match args.iter().find(|a| !a.starts_with('-')) {
        Some(mode) => match u32::from_str_radix(mode, 8) {
            Ok(m) if m <= 0o777 => {
                sh.shell.umask = m;
                0
            }
            _ => {
                sh.error(&format!("umask: {mode}: octal number out of range"))
                    .await;
                1
            }
        },
        None if symbolic => {
            let allowed = !sh.shell.umask & 0o777;
            let part = |shift: u32| {
                let bits = (allowed >> shift) & 7;
                [(4, 'r'), (2, 'w'), (1, 'x')]
                    .iter()
                    .filter(|(b, _)| bits & b != 0)
                    .map(|(_, c)| *c)
                    .collect::<String>()
            };
            let text = format!("u={},g={},o={}\n", part(6), part(3), part(0));
            out(sh, &text).await
        }
        None => {
            let text = format!("{:04o}\n", sh.shell.umask);
            out(sh, &text).await
        }
    }
}

/// `umask`'s registration.
pub const BUILTIN: Builtin = Builtin {
    name: "umask",
    run: status!(umask),
    usage: "[-S] [mode]",
    about: "Display or set file mode mask",
    special: false,
    declaration: None,
};
