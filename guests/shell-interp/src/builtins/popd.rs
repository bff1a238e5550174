//! `popd`: leaves the directory on top of the stack.

use crate::interp::Builtin;
use crate::interp::Interp;

/// `popd [+N | -N]`.
pub async fn popd(sh: &mut Interp<'_>, args: &[String]) -> i32 {
    if sh.shell.dir_stack.is_empty() {
        sh.error("popd: directory stack empty").await;
        return 1;
    }
    match args.first().map(String::as_str) {
        None | Some("+0") => {
            let top = sh.shell.dir_stack.remove(0);
            if let Err(m) = sh.change_dir(&top, top.clone()) {
                sh.error(&format!("popd: {m}")).await;
                return 1;
            }
        }
        Some(n) if n.starts_with(['+', '-']) && n[1..].parse::<usize>().is_ok() => {
            let len = sh.shell.dir_stack.len() + 1;
            let k: usize = n[1..].parse().unwrap_or(0);
            if k >= len {
                sh.error(&format!("popd: {n}: directory stack index out of range"))
                    .await;
                return 1;
            }
            let k = if n.starts_with('+') { k } else { len - 1 - k };
            sh.shell.dir_stack.remove(k - 1);
        }
        Some(other) => {
            sh.error(&format!("popd: {other}: invalid argument")).await;
            return 2;
        }
    }
    sh.print_stack().await
}

/// `popd`'s registration.
pub const BUILTIN: Builtin = Builtin {
    name: "popd",
    run: status!(popd),
    usage: "[+N | -N]",
    about: "Remove directories from stack",
    special: false,
    declaration: None,
};
