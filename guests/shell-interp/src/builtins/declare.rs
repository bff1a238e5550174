//! The declaration builtins: `declare`/`typeset`, `local`, `export`, `readonly` (their flags,
//! `-p` listings and attributes).

use crate::builtins::out;
use crate::interp::Interp;
use crate::interp::assign::Pending;
use crate::interp::{Builtin, DeclArg};
use crate::vars::{Assoc, Value, is_name};

/// Runs `declare`, `typeset`, `local`, `export` or `readonly`; returns the status.
pub async fn declare(sh: &mut Interp<'_>, cmd: &str, args: Vec<DeclArg>) -> i32 {
    let mut flags = Flags::default();
    let mut operands = Vec::new();
    let mut options_done = false;
    for a in args {
        match a {
            DeclArg::Word(w) if !options_done && w == "--" => options_done = true,
            DeclArg::Word(w)
                if !options_done && w.len() > 1 && (w.starts_with('-') || w.starts_with('+')) =>
            {
                let target = if w.starts_with('-') {
                    &mut flags.on
                } else {
                    &mut flags.off
                };
                for c in w[1..].chars() {
                    if !"aAfFgilnprtuxn".contains(c) {
                        sh.error(&format!("{cmd}: {}{c}: invalid option", &w[..1]))
                            .await;
                        return 2;
                    }
                    target.push(c);
                }
            }
            other => {
                options_done = true;
                operands.push(other);
            }
        }
    }
    // `export -n` removes the export flag; `export`/`readonly` set their attribute.
    match cmd {
        "export" if flags.on.contains('n') => {
            flags.on = flags.on.replace('n', "");
            flags.off.push('x');
        }
        "export" => flags.on.push('x'),
        "readonly" => flags.on.push('r'),
        _ => {}
    }
    if cmd == "local" && sh.shell.locals.is_empty() {
        sh.error("local: can only be used in a function").await;
        return 1;
    }
    if flags.has('f') || flags.has('F') {
        return functions(sh, &flags, &operands).await;
    }
    if operands.is_empty() {
        return list(sh, cmd, &flags).await;
    }
    if flags.has('p') {
        return print(sh, cmd, &operands).await;
    }
    let make_local = match cmd {
        "local" => true,
        "declare" | "typeset" => !sh.shell.locals.is_empty() && !flags.has('g'),
        _ => false,
    };
    let mut status = 0;
    for operand in operands {
        let pending = match operand {
            DeclArg::Assign(p) => Some(p),
            DeclArg::Word(w) if w.contains('=') => match Pending::from_text(&w) {
                Some(p) => Some(p),
                None => {
                    sh.error(&format!("{cmd}: `{w}': not a valid identifier"))
                        .await;
                    status = 1;
                    continue;
                }
            },
            // `local -`: the function's `set` options are its own from here on.
            DeclArg::Word(w) if w == "-" && cmd == "local" => {
                sh.shell.make_options_local();
                None
            }
            DeclArg::Word(w) => {
                if !is_name(&w) {
                    sh.error(&format!("{cmd}: `{w}': not a valid identifier"))
                        .await;
                    status = 1;
                    continue;
                }
                if make_local {
                    if let Err(msg) = shadow_readonly(sh, &w) {
                        sh.error(&format!("{cmd}: {msg}")).await;
                        status = 1;
                        continue;
                    }
                    sh.shell.make_local(&w);
                }
                if let Err(msg) = set_attributes(sh, &w, &flags, false) {
                    sh.error(&format!("{cmd}: {msg}")).await;
                    status = 1;
                }
                None
            }
        };
        let Some(p) = pending else { continue };
        let name = p.name.clone();
        if make_local {
            if let Err(msg) = shadow_readonly(sh, &name) {
                sh.error(&format!("{cmd}: {msg}")).await;
                status = 1;
                continue;
            }
            sh.shell.make_local(&name);
        }
        if flags.has('n') && p.subscript.is_none() {
            // `declare -n ref=target`: the value is the name referred to.
            if let crate::interp::assign::Assigned::Scalar(target) = &p.value {
                let refused = if *target == name {
                    Some(format!(
                        "{name}: nameref variable self references not allowed"
                    ))
                } else if !target.is_empty() && !is_reference(target) {
                    Some(format!(
                        "`{target}': invalid variable name for name reference"
                    ))
                } else {
                    None
                };
                if let Some(msg) = refused {
                    sh.error(&format!("{cmd}: {msg}")).await;
                    status = 1;
                    continue;
                }
                let var = sh.shell.vars.entry(name.clone()).or_default();
                var.value = Value::Scalar(target.clone());
                var.attrs.nameref = true;
                continue;
            }
        }
        let result = match set_attributes(sh, &name, &flags, true) {
            Ok(()) => sh.apply_assignment(p),
            Err(m) => Err(m),
        };
        let result = result.and_then(|()| {
            if flags.has('r') {
                set_attributes(sh, &name, &flags, false)
            } else {
                Ok(())
            }
        });
        if let Err(msg) = result {
            // bash's `export` and `readonly` assign as a bare assignment does, whose error
            // names no builtin.
            if matches!(cmd, "export" | "readonly") && msg.ends_with(": readonly variable") {
                sh.error(&msg).await;
            } else {
                sh.error(&format!("{cmd}: {msg}")).await;
            }
            status = 1;
        }
    }
    status
}

/// Applies `-aAilnrux` (and `+...`) to a variable, creating it (unset) if needed. Before an
/// assignment `readonly` waits, so the value can still be set.
fn set_attributes(
    sh: &mut Interp<'_>,
    name: &str,
    flags: &Flags,
    before_value: bool,
) -> Result<(), String> {
    let target = if flags.has('n') || flags.off.contains('n') {
        name.to_string()
    } else {
        sh.shell.resolve(name)
    };
    let var = sh.shell.vars.entry(target.clone()).or_default();
    if var.attrs.readonly && !flags.off.is_empty() {
        return Err(format!("{target}: readonly variable"));
    }
    if flags.has('A') {
        match &var.value {
            Value::Assoc(_) => {}
            Value::Array(_) => {
                return Err(format!(
                    "{target}: cannot convert indexed to associative array"
                ));
            }
            old => {
                var.attrs.declared_only = matches!(old, Value::Unset);
                var.value = Value::Assoc(Assoc::default());
            }
        }
    } else if flags.has('a') {
        match &var.value {
            Value::Array(_) => {}
            Value::Assoc(_) => {
                return Err(format!(
                    "{target}: cannot convert associative to indexed array"
                ));
            }
            Value::Scalar(s) => var.value = Value::Array([(0, s.clone())].into_iter().collect()),
            Value::Unset => {
                var.value = Value::Array(Default::default());
                var.attrs.declared_only = true;
            }
        }
    }
    let a = &mut var.attrs;
    // bash gives neither case when both are asked for (`declare -lu`).
    let both_cases = flags.has('l') && flags.has('u');
    for (c, on) in flags
        .on
        .chars()
        .map(|c| (c, true))
        .chain(flags.off.chars().map(|c| (c, false)))
    {
        match c {
            'l' | 'u' if on && both_cases => {}
            'x' => a.exported = on,
            'r' if on && !before_value => a.readonly = true,
            'i' => a.integer = on,
            'l' => {
                a.lower = on;
                if on {
                    a.upper = false;
                }
            }
            'u' => {
                a.upper = on;
                if on {
                    a.lower = false;
                }
            }
            'n' => a.nameref = on,
            't' => a.trace = on,
            _ => {}
        }
    }
    if !before_value && (a.lower || a.upper) {
        let (lower, upper) = (a.lower, a.upper);
        if let Value::Scalar(s) = &mut var.value {
            if lower {
                *s = s.to_lowercase();
            } else if upper {
                *s = s.to_uppercase();
            }
        }
    }
    Ok(())
}

/// `declare`/`export`/`readonly` without names: the variables with the asked-for
/// attributes (all of them for plain `declare`), sorted.
async fn list(sh: &mut Interp<'_>, cmd: &str, flags: &Flags) -> i32 {
    let mut names: Vec<&String> = sh.shell.vars.keys().collect();
    names.sort();
    let mut text = String::new();
    for name in names {
        let var = &sh.shell.vars[name];
        let wanted = flags
            .on
            .chars()
            .filter(|c| *c != 'p' && *c != 'g')
            .all(|c| match c {
                'x' => var.attrs.exported,
                'r' => var.attrs.readonly,
                'i' => var.attrs.integer,
                'a' => matches!(var.value, Value::Array(_)),
                'A' => matches!(var.value, Value::Assoc(_)),
                'n' => var.attrs.nameref,
                'l' => var.attrs.lower,
                'u' => var.attrs.upper,
                _ => true,
            });
        if !wanted {
            continue;
        }
        if cmd == "declare" && !flags.has('p') && flags.on.is_empty() {
            // Plain `declare`: `name=value` lines, as `set` prints them.
            if let Some(line) = crate::builtins::set::set_line(name, var, sh.shell.utf8()) {
                text.push_str(&line);
            }
        } else if let Some(line) = sh.shell.declaration(name) {
            text.push_str(&line);
            text.push('\n');
        }
    }
    out(sh, &text).await
}

/// Attribute changes asked for with `-x` / `+x` and friends.
#[derive(Default)]
pub(crate) struct Flags {
    on: String,
    off: String,
}

impl Flags {
    fn has(&self, c: char) -> bool {
        self.on.contains(c)
    }
}

/// A readonly variable cannot be made local either (bash refuses it).
fn shadow_readonly(sh: &Interp<'_>, name: &str) -> Result<(), String> {
    match sh.shell.vars.get(name) {
        Some(var) if var.attrs.readonly => Err(format!("{name}: readonly variable")),
        _ => Ok(()),
    }
}

/// What a nameref may name: a variable, or an array's element (`a[1]`).
fn is_reference(target: &str) -> bool {
    match target.split_once('[') {
        Some((name, rest)) => is_name(name) && rest.ends_with(']'),
        None => is_name(target),
    }
}

/// `declare -p NAME...`.
pub(crate) async fn print(sh: &mut Interp<'_>, cmd: &str, operands: &[DeclArg]) -> i32 {
    let mut status = 0;
    for o in operands {
        let name = match o {
            DeclArg::Word(w) => w.clone(),
            DeclArg::Assign(p) => p.name.clone(),
        };
        match sh.shell.declaration(&name) {
            Some(line) => status |= out(sh, &format!("{line}\n")).await,
            None => {
                sh.error(&format!("{cmd}: {name}: not found")).await;
                status = 1;
            }
        }
    }
    status
}

/// `declare -f [NAME...]` (definitions) and `declare -F [NAME...]` (names).
pub(crate) async fn functions(sh: &mut Interp<'_>, flags: &Flags, operands: &[DeclArg]) -> i32 {
    // bash lists every function as `declare -f NAME`, and names asked for alone.
    let listing = operands.is_empty();
    let names: Vec<String> = if listing {
        let mut all: Vec<String> = sh.shell.functions.keys().cloned().collect();
        all.sort();
        all
    } else {
        operands
            .iter()
            .map(|o| match o {
                DeclArg::Word(w) => w.clone(),
                DeclArg::Assign(p) => p.name.clone(),
            })
            .collect()
    };
    let mut status = 0;
    let mut text = String::new();
    for name in names {
        match sh.shell.functions.get(&name) {
            Some(_) if flags.has('F') && listing => text.push_str(&format!("declare -f {name}\n")),
            Some(_) if flags.has('F') => text.push_str(&format!("{name}\n")),
            Some(body) => text.push_str(&crate::unparse::function(&name, body)),
            None => status = 1,
        }
    }
    status | out(sh, &text).await
}

/// `declare`'s registration.
pub const DECLARE: Builtin = Builtin {
    name: "declare",
    run: |sh, args| {
        Box::pin(async move {
            let words = args.iter().cloned().map(DeclArg::Word).collect();
            sh.shell.status = declare(sh, "declare", words).await;
            Ok(())
        })
    },
    usage: "[-aAfFgilnrux] [-p] [name[=value] ...]",
    about: "Set variable values and attributes",
    special: false,
    declaration: Some(|sh, name, args| Box::pin(declare(sh, name, args))),
};

/// `export`'s registration.
pub const EXPORT: Builtin = Builtin {
    name: "export",
    run: |sh, args| {
        Box::pin(async move {
            let words = args.iter().cloned().map(DeclArg::Word).collect();
            sh.shell.status = declare(sh, "export", words).await;
            Ok(())
        })
    },
    usage: "[-fn] [name[=value] ...] or export -p",
    about: "Set export attribute for shell variables",
    special: true,
    declaration: Some(|sh, name, args| Box::pin(declare(sh, name, args))),
};

/// `local`'s registration.
pub const LOCAL: Builtin = Builtin {
    name: "local",
    run: |sh, args| {
        Box::pin(async move {
            let words = args.iter().cloned().map(DeclArg::Word).collect();
            sh.shell.status = declare(sh, "local", words).await;
            Ok(())
        })
    },
    usage: "[option] name[=value] ...",
    about: "Define local variables",
    special: false,
    declaration: Some(|sh, name, args| Box::pin(declare(sh, name, args))),
};

/// `readonly`'s registration.
pub const READONLY: Builtin = Builtin {
    name: "readonly",
    run: |sh, args| {
        Box::pin(async move {
            let words = args.iter().cloned().map(DeclArg::Word).collect();
            sh.shell.status = declare(sh, "readonly", words).await;
            Ok(())
        })
    },
    usage: "[-aAf] [name[=value] ...] or readonly -p",
    about: "Mark shell variables as unchangeable",
    special: true,
    declaration: Some(|sh, name, args| Box::pin(declare(sh, name, args))),
};

/// `typeset`'s registration.
pub const TYPESET: Builtin = Builtin {
    name: "typeset",
    run: |sh, args| {
        Box::pin(async move {
            let words = args.iter().cloned().map(DeclArg::Word).collect();
            sh.shell.status = declare(sh, "typeset", words).await;
            Ok(())
        })
    },
    usage: "[-aAfFgilnrux] name[=value] ...",
    about: "Set variable values and attributes",
    special: false,
    declaration: Some(|sh, name, args| Box::pin(declare(sh, name, args))),
};
