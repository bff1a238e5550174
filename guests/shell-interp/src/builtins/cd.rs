//! `cd` (with `-`, `OLDPWD`, `CDPATH`, `-L`/`-P`).

use crate::builtins::out;
use crate::interp::Builtin;
use crate::interp::Interp;
use shell_base::path::normalize;

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

/// `cd`'s registration.
pub const BUILTIN: Builtin = Builtin {
    name: "cd",
    run: status!(cd),
    usage: "[-L|-P] [dir]",
    about: "Change the shell working directory",
    special: false,
    declaration: None,
};
