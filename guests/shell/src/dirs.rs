//! The working directory: `cd` (with `-`, `OLDPWD`, `CDPATH`), `pwd`, and the directory
//! stack (`pushd`, `popd`, `dirs`).

use crate::builtins::out;
use crate::exec::{Interp, io_message};

/// `/a/./b/../c` → `/a/c` (logical, as `cd` keeps `PWD`).
pub fn normalize(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for p in path.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    format!("/{}", parts.join("/"))
}

impl Interp<'_> {
    /// Changes to `path` (absolute, normalized) if it is a directory; the error otherwise.
    fn change_dir(&mut self, shown: &str, path: String) -> Result<(), String> {
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
    fn tilde(&self, dir: &str) -> String {
        match self.shell.get("HOME") {
            Some(home)
                if !home.is_empty() && (dir == home || dir.starts_with(&format!("{home}/"))) =>
            {
                format!("~{}", &dir[home.len()..])
            }
            _ => dir.to_string(),
        }
    }

    fn stack(&self) -> Vec<String> {
        std::iter::once(self.shell.cwd.clone())
            .chain(self.shell.dir_stack.iter().cloned())
            .collect()
    }

    async fn print_stack(&mut self) -> i32 {
        let line: Vec<String> = self.stack().iter().map(|d| self.tilde(d)).collect();
        out(self, &format!("{}\n", line.join(" "))).await
    }
}

/// `cd [-L|-P] [DIR]`.
pub async fn cd(sh: &mut Interp<'_>, args: &[String]) -> i32 {
    let args: Vec<&String> = args
        .iter()
        .filter(|a| !matches!(a.as_str(), "-L" | "-P" | "--"))
        .collect();
    if args.len() > 1 {
        sh.error("cd: too many arguments").await;
        return 1;
    }
    let (target, print) = match args.first().map(|s| s.as_str()) {
        None => match sh.shell.get("HOME") {
            Some(h) => (h.to_string(), false),
            None => {
                sh.error("cd: HOME not set").await;
                return 1;
            }
        },
        Some("-") => match sh.shell.get("OLDPWD") {
            Some(old) => (old.to_string(), true),
            None => {
                sh.error("cd: OLDPWD not set").await;
                return 1;
            }
        },
        Some(dir) => (dir.to_string(), false),
    };
    // CDPATH applies to relative names not starting with `.`.
    if !target.starts_with('/')
        && !target.starts_with('.')
        && let Some(cdpath) = sh.shell.get("CDPATH").map(str::to_string)
    {
        for base in cdpath.split(':').filter(|b| !b.is_empty()) {
            let candidate =
                normalize(&sh.shell.path(&format!("{base}/{target}")).to_string_lossy());
            if std::fs::metadata(&candidate).is_ok_and(|m| m.is_dir()) {
                return match sh.change_dir(&target, candidate.clone()) {
                    Ok(()) => out(sh, &format!("{candidate}\n")).await,
                    Err(m) => {
                        sh.error(&format!("cd: {m}")).await;
                        1
                    }
                };
            }
        }
    }
    let path = normalize(&sh.shell.path(&target).to_string_lossy());
    match sh.change_dir(&target, path.clone()) {
        Ok(()) if print => out(sh, &format!("{path}\n")).await,
        Ok(()) => 0,
        Err(m) => {
            sh.error(&format!("cd: {m}")).await;
            1
        }
    }
}

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
