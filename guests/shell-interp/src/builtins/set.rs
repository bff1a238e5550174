//! `set`: flags, `-o` options, positional parameters, listing variables.

use crate::builtins::out;
use crate::interp::Builtin;
use crate::interp::Interp;
use crate::state::Options;
use crate::vars::{Value, Var};

fn set_letter(o: &mut Options, c: char, on: bool) -> bool {
    let name = match c {
        'a' => "allexport",
        'e' => "errexit",
        'C' => "noclobber",
        'n' => "noexec",
        'f' => "noglob",
        'u' => "nounset",
        'v' => "verbose",
        'x' => "xtrace",
        'E' => "errtrace",
        'T' => "functrace",
        'h' | 'B' | 'H' | 'm' | 'b' | 'k' | 'p' | 'P' => "hashall",
        _ => return false,
    };
    set_named(o, name, on)
}

/// `set [-+abefhkmnptuvxBCHP] [-+o name] [--] [arg ...]`.
pub async fn set(sh: &mut Interp<'_>, args: &[String]) -> i32 {
    if args.is_empty() {
        let mut names: Vec<&String> = sh.shell.vars.keys().collect();
        names.sort();
        let text: String = names
            .into_iter()
            .filter_map(|n| set_line(n, &sh.shell.vars[n], sh.shell.utf8()))
            .collect();
        return out(sh, &text).await;
    }
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        if a == "--" || a == "-" {
            sh.shell.positional = args[i + 1..].to_vec();
            return 0;
        }
        let (on, flags) = match (a.strip_prefix('-'), a.strip_prefix('+')) {
            (Some(f), _) => (true, f),
            (_, Some(f)) => (false, f),
            _ => {
                sh.shell.positional = args[i..].to_vec();
                return 0;
            }
        };
        for f in flags.chars() {
            if f == 'o' {
                i += 1;
                match args.get(i) {
                    None => return list_options(sh, on).await,
                    Some(name) => {
                        if !set_named(&mut sh.shell.options, name, on) {
                            sh.error(&format!("set: {name}: invalid option name")).await;
                            return 2;
                        }
                    }
                }
            } else if !set_letter(&mut sh.shell.options, f, on) {
                sh.error(&format!(
                    "set: {}{f}: invalid option",
                    if on { '-' } else { '+' }
                ))
                .await;
                sh.raw_error(
                    "set: usage: set [-abefhkmnptuvxBCEHPT] [-o option-name] [--] [-] [arg ...]",
                )
                .await;
                return 2;
            }
        }
        i += 1;
    }
    0
}

async fn list_options(sh: &mut Interp<'_>, minus: bool) -> i32 {
    let text: String = sh
        .shell
        .options
        .listed()
        .into_iter()
        .map(|(name, on)| {
            if minus {
                format!("{name:<15}\t{}\n", if on { "on" } else { "off" })
            } else {
                format!("set {}o {name}\n", if on { '-' } else { '+' })
            }
        })
        .collect();
    out(sh, &text).await
}

/// One variable as `set` lists it: `name=value`, quoted when needed.
pub fn set_line(name: &str, var: &Var, utf8: bool) -> Option<String> {
    let value = match &var.value {
        Value::Unset => return None,
        Value::Scalar(s) => maybe_quote(s),
        other => crate::vars::compound_literal(other, utf8)?,
    };
    Some(format!("{name}={value}\n"))
}

fn maybe_quote(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./:,+@%=".contains(c))
    {
        s.to_string()
    } else {
        crate::quote::single(s, false)
    }
}

pub(crate) fn set_named(o: &mut Options, name: &str, on: bool) -> bool {
    let slot = match name {
        "allexport" => &mut o.allexport,
        "errexit" => &mut o.errexit,
        "errtrace" => &mut o.errtrace,
        "functrace" => &mut o.functrace,
        "noclobber" => &mut o.noclobber,
        "noexec" => &mut o.noexec,
        "noglob" => &mut o.noglob,
        "nounset" => &mut o.nounset,
        "pipefail" => &mut o.pipefail,
        "verbose" => &mut o.verbose,
        "xtrace" => &mut o.xtrace,
        "posix" => &mut o.posix,
        // Accepted, with nothing to change here.
        "braceexpand"
        | "hashall"
        | "interactive-comments"
        | "emacs"
        | "vi"
        | "monitor"
        | "history"
        | "histexpand"
        | "notify"
        | "ignoreeof"
        | "physical"
        | "keyword"
        | "nolog"
        | "onecmd"
        | "privileged" => {
            return true;
        }
        _ => return false,
    };
    *slot = on;
    true
}

/// `set`'s registration.
pub const BUILTIN: Builtin = Builtin {
    name: "set",
    run: status!(set),
    usage: "[-abefhkmnptuvxBCHP] [-o option-name] [--] [arg ...]",
    about: "Set or unset values of shell options and positional parameters",
    special: true,
    declaration: None,
};
