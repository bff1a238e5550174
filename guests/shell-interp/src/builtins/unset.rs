//! `unset`: removes variables, array elements and functions (`-v`, `-f`, `-n`).

use crate::expand::Parameters;
use crate::interp::Builtin;
use crate::interp::Interp;
use crate::vars::is_name;

/// `unset [-v|-f|-n] NAME...`.
pub async fn unset(sh: &mut Interp<'_>, args: &[String]) -> i32 {
    let mut functions_only = false;
    let mut vars_only = false;
    let mut nameref = false;
    let mut status = 0;
    for a in args {
        match a.as_str() {
            "-f" => functions_only = true,
            "-v" => vars_only = true,
            "-n" => nameref = true,
            name => {
                if functions_only {
                    sh.shell.functions.remove(name);
                    continue;
                }
                let result = match name.split_once('[') {
                    Some((base, rest)) if rest.ends_with(']') => {
                        let index = &rest[..rest.len() - 1];
                        if index == "@" || index == "*" {
                            sh.shell.unset(base)
                        } else {
                            match sh.subscript(base, index).await {
                                Ok(key) => sh.shell.unset_element(base, &key),
                                Err(e) => Err(e.message),
                            }
                        }
                    }
                    // bash ignores names that cannot be variables, unless told they are.
                    _ if !is_name(name) && vars_only => {
                        Err(format!("`{name}': not a valid identifier"))
                    }
                    _ if !is_name(name) => Ok(()),
                    _ if nameref => {
                        sh.shell.vars.remove(name);
                        Ok(())
                    }
                    _ => {
                        let existed = sh.shell.var(name).is_some();
                        let r = sh.shell.unset(name);
                        if !existed && !vars_only {
                            sh.shell.functions.remove(name);
                        }
                        r
                    }
                };
                if let Err(msg) = result {
                    sh.error(&format!("unset: {msg}")).await;
                    status = 1;
                }
            }
        }
    }
    status
}

/// `unset`'s registration.
pub const BUILTIN: Builtin = Builtin {
    name: "unset",
    run: status!(unset),
    usage: "[-f] [-v] [-n] [name ...]",
    about: "Unset values and attributes of shell variables and functions",
    special: true,
    declaration: None,
};
