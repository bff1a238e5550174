//! `env`: prints the environment, or runs a command in a copy of the shell with the
//! environment changed (so it needs the interpreter, not just a context).

use crate::builtins::out;
use crate::interp::Interp;

/// `env [-i] [-u NAME] [NAME=VALUE...] [COMMAND [ARGS...]]`.
pub async fn env(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let mut i = 1;
    let mut clear = false;
    let mut unset = Vec::new();
    let mut sets = Vec::new();
    while i < argv.len() {
        let a = &argv[i];
        match a.as_str() {
            "-i" | "-" | "--ignore-environment" => clear = true,
            "-u" => {
                i += 1;
                unset.extend(argv.get(i).cloned());
            }
            "--" => {
                i += 1;
                break;
            }
            _ if a.contains('=') && !a.starts_with('=') => sets.push(a.clone()),
            _ => break,
        }
        i += 1;
    }
    if i >= argv.len() {
        let mut vars: Vec<(String, String)> = if clear {
            Vec::new()
        } else {
            sh.shell.environment()
        };
        vars.retain(|(k, _)| !unset.contains(k));
        for s in &sets {
            if let Some((k, v)) = s.split_once('=') {
                vars.retain(|(x, _)| x != k);
                vars.push((k.to_string(), v.to_string()));
            }
        }
        let text: String = vars.iter().map(|(k, v)| format!("{k}={v}\n")).collect();
        return out(sh, &text).await;
    }
    // Run the command with the changed environment, in a copy of the shell.
    let mut sub = sh.shell.clone();
    if clear {
        for v in sub.vars.values_mut() {
            v.attrs.exported = false;
        }
    }
    for u in &unset {
        sub.vars.remove(u);
    }
    for s in &sets {
        if let Some((k, v)) = s.split_once('=') {
            sub.set(k, v.to_string());
            if let Some(var) = sub.vars.get_mut(k) {
                var.attrs.exported = true;
            }
        }
    }
    let io = sh.io.clone();
    let mut interp = Interp::new(&mut sub, io, sh.builtins);
    let _ = interp.run_argv(argv[i..].to_vec()).await;
    interp.shell.status
}
