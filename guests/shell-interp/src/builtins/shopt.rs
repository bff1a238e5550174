//! `shopt`: bash's optional behaviours (`extglob`, `nullglob`, `globstar`...).

use crate::builtins::out;
use crate::builtins::set::*;
use crate::cond::Conditions;
use crate::interp::Builtin;
use crate::interp::Interp;

/// Options bash has that `shopt` accepts here without effect.
const INERT_SHOPT: &[&str] = &[
    "autocd",
    "cdable_vars",
    "cdspell",
    "checkhash",
    "checkjobs",
    "checkwinsize",
    "cmdhist",
    "compat31",
    "compat32",
    "compat40",
    "compat41",
    "compat42",
    "compat43",
    "compat44",
    "complete_fullquote",
    "direxpand",
    "dirspell",
    "execfail",
    "extdebug",
    "extquote",
    "force_fignore",
    "globasciiranges",
    "globskipdots",
    "gnu_errfmt",
    "histappend",
    "histreedit",
    "histverify",
    "hostcomplete",
    "huponexit",
    "inherit_errexit",
    "interactive_comments",
    "lithist",
    "localvar_inherit",
    "localvar_unset",
    "login_shell",
    "mailwarn",
    "no_empty_cmd_completion",
    "noexpand_translation",
    "patsub_replacement",
    "progcomp",
    "progcomp_alias",
    "promptvars",
    "shift_verbose",
    "sourcepath",
    "varredir_close",
];

/// `shopt [-s|-u] [-q] [-p] [-o] [name ...]`.
pub async fn shopt(sh: &mut Interp<'_>, args: &[String]) -> i32 {
    let (mut set, mut unset, mut quiet, mut print, mut set_o) = (false, false, false, false, false);
    let mut names = Vec::new();
    for a in args {
        match a.as_str() {
            "-s" => set = true,
            "-u" => unset = true,
            "-q" => quiet = true,
            "-p" => print = true,
            "-o" => set_o = true,
            n => names.push(n.to_string()),
        }
    }
    if set_o {
        let mut status = 0;
        for n in &names {
            if set || unset {
                if !set_named(&mut sh.shell.options, n, set) {
                    sh.error(&format!("shopt: {n}: invalid option name")).await;
                    status = 1;
                }
            } else if !sh.option_enabled(n) {
                status = 1;
            }
        }
        return status;
    }
    if set || unset {
        let mut status = 0;
        for n in &names {
            if !sh.shell.shopt.set(n, set) && !INERT_SHOPT.contains(&n.as_str()) {
                sh.error(&format!("shopt: {n}: invalid shell option name"))
                    .await;
                status = 1;
            }
        }
        return status;
    }
    let all = sh.shell.shopt.all();
    let shown: Vec<(&str, bool)> = if names.is_empty() {
        all.to_vec()
    } else {
        let mut v = Vec::new();
        for n in &names {
            match all.iter().find(|(k, _)| k == n) {
                Some(&(k, on)) => v.push((k, on)),
                None if INERT_SHOPT.contains(&n.as_str()) => {}
                None => {
                    sh.error(&format!("shopt: {n}: invalid shell option name"))
                        .await;
                    return 1;
                }
            }
        }
        v
    };
    let status = if shown.iter().all(|(_, on)| *on) {
        0
    } else {
        1
    };
    if quiet {
        return status;
    }
    let text: String = shown
        .iter()
        .map(|(n, on)| {
            if print {
                format!("shopt {} {n}\n", if *on { "-s" } else { "-u" })
            } else {
                format!("{n:<15}\t{}\n", if *on { "on" } else { "off" })
            }
        })
        .collect();
    match out(sh, &text).await {
        0 if names.is_empty() => 0,
        0 => status,
        s => s,
    }
}

/// `shopt`'s registration.
pub const BUILTIN: Builtin = Builtin {
    name: "shopt",
    run: status!(shopt),
    usage: "[-pqsu] [-o] [optname ...]",
    about: "Set and unset shell options",
    special: false,
    declaration: None,
};
