//! `pushd`: changes directory, keeping the old one on the stack.

use crate::interp::Builtin;
use crate::interp::Interp;
use shell_base::path::normalize;

/// `pushd [DIR | +N | -N]`.
pub async fn pushd(sh: &mut Interp<'_>, args: &[String]) -> i32 {
    match args.first().map(String::as_str) {
        None => {
            let Some(top) = sh.shell.dir_stack.first().cloned() else {
                sh.error("pushd: no other directory").await;
                return 1;
            };
            let here = sh.shell.cwd.clone();
            if let Err(m) = sh.change_dir(&top, top.clone()) {
                sh.error(&format!("pushd: {m}")).await;
                return 1;
            }
            sh.shell.dir_stack[0] = here;
        }
        Some(n) if n.starts_with(['+', '-']) && n[1..].parse::<usize>().is_ok() => {
            let mut stack = sh.stack();
            let k: usize = n[1..].parse().unwrap_or(0);
            if k >= stack.len() {
                sh.error(&format!("pushd: {n}: directory stack index out of range"))
                    .await;
                return 1;
            }
            let k = if n.starts_with('+') {
                k
            } else {
                stack.len() - 1 - k
            };
            stack.rotate_left(k);
            let top = stack.remove(0);
            if let Err(m) = sh.change_dir(&top, top.clone()) {
                sh.error(&format!("pushd: {m}")).await;
                return 1;
            }
            sh.shell.dir_stack = stack;
        }
        Some(dir) => {
            let here = sh.shell.cwd.clone();
            let path = normalize(&sh.shell.path(dir).to_string_lossy());
            if let Err(m) = sh.change_dir(dir, path) {
                sh.error(&format!("pushd: {m}")).await;
                return 1;
            }
            sh.shell.dir_stack.insert(0, here);
        }
    }
    sh.print_stack().await
}

/// `pushd`'s registration.
pub const BUILTIN: Builtin = Builtin {
    name: "pushd",
    run: status!(pushd),
    usage: "[dir | +N | -N]",
    about: "Add directories to stack",
    special: false,
    declaration: None,
};
