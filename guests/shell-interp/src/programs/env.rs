//! `env`: prints the environment, or runs a command in a copy of the shell with the
//! environment changed (so it needs the interpreter, not just a context).

use lexopt::prelude::*;
use shell_base::args::{bad_usage, parser, string, value};

use crate::builtins::out;
use crate::interp::Interp;

/// `env [-i] [-u NAME] [NAME=VALUE...] [COMMAND [ARGS...]]`.
pub async fn env(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let mut clear = false;
    let mut unset = Vec::new();
    let mut sets = Vec::new();
    let mut command = Vec::new();
    let mut p = parser(argv);
    let parsed: Result<(), lexopt::Error> = (|| {
        while let Some(arg) = p.next()? {
            match arg {
                Short('i') | Long("ignore-environment") => clear = true,
                Short('u') | Long("unset") => unset.push(value(&mut p)?),
                // `env -`: the old spelling of `-i`.
                Value(v) if v == "-" && sets.is_empty() => clear = true,
                Value(v) => {
                    let v = string(v);
                    if v.contains('=') && !v.starts_with('=') {
                        sets.push(v);
                    } else {
                        // The command and its arguments: the rest is theirs.
                        command.push(v);
                        command.extend(p.raw_args()?.map(string));
                    }
                }
                _ => return Err(arg.unexpected()),
            }
        }
        Ok(())
    })();
    if let Err(e) = parsed {
        return bad_usage(sh, "env", e, 125).await;
    }
    if command.is_empty() {
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
    let _ = interp.run_argv(command).await;
    interp.shell.status
}
