//! `dirs`, and the directory stack that `cd`, `pushd` and `popd` share.

use crate::builtins::out;
use crate::interp::Builtin;
use crate::interp::Interp;
use shell_base::errno::io_message;

/// `dirs [-c] [-l] [-p] [-v]`.
pub async fn dirs(sh: &mut Interp<'_>, args: &[String]) -> i32 {
    let flags: String = args.iter().filter_map(|a| a.strip_prefix('-')).collect();
    if flags.contains('c') {
        sh.shell.dir_stack.clear();
        return 0;
    }
    let long = flags.contains('l');
    let stack: Vec<String> = sh
        .stack()
        .iter()
        .map(|d| if long { d.clone() } else { sh.tilde(d) })
        .collect();
    let text = if flags.contains('v') {
        stack
            .iter()
            .enumerate()
            .map(|(i, d)| format!("{i:2}  {d}\n"))
            .collect()
    } else if flags.contains('p') {
        stack.iter().map(|d| format!("{d}\n")).collect()
    } else {
        format!("{}\n", stack.join(" "))
    };
    out(sh, &text).await
}

impl Interp<'_> {
    /// Changes to `path` (absolute, normalized) if it is a directory; the error otherwise.
    pub(crate) fn change_dir(&mut self, shown: &str, path: String) -> Result<(), String> {
        match std::fs::metadata(&path) {
            Ok(m) if m.is_dir() => {
                let old = std::mem::replace(&mut self.shell.cwd, path.clone());
                self.shell.set("OLDPWD", old);
                self.shell.set("PWD", path);
                Ok(())
            }
            Ok(_) => Err(format!("{shown}: Not a directory")),
            Err(e) => Err(format!("{shown}: {}", io_message(&e))),
        }
    }

    /// `~`-abbreviated directory, as `dirs` shows it.
    pub(crate) fn tilde(&self, dir: &str) -> String {
        match self.shell.get("HOME") {
            Some(home)
                if !home.is_empty() && (dir == home || dir.starts_with(&format!("{home}/"))) =>
            {
                format!("~{}", &dir[home.len()..])
            }
            _ => dir.to_string(),
        }
    }

    pub(crate) fn stack(&self) -> Vec<String> {
        std::iter::once(self.shell.cwd.clone())
            .chain(self.shell.dir_stack.iter().cloned())
            .collect()
    }

    pub(crate) async fn print_stack(&mut self) -> i32 {
        let line: Vec<String> = self.stack().iter().map(|d| self.tilde(d)).collect();
        out(self, &format!("{}\n", line.join(" "))).await
    }
}

/// `dirs`'s registration.
pub const BUILTIN: Builtin = Builtin {
    name: "dirs",
    run: status!(dirs),
    usage: "[-clpv]",
    about: "Display directory stack",
    special: false,
    declaration: None,
};
