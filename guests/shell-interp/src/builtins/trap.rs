//! `trap`: actions for `EXIT`, `ERR`, `RETURN`, `DEBUG` and the signals, and their listing.

use crate::builtins::out;
use crate::interp::Builtin;
use crate::interp::Interp;

/// Signal names `trap` accepts, by number (Linux's).
const SIGNALS: &[&str] = &[
    "EXIT", "HUP", "INT", "QUIT", "ILL", "TRAP", "ABRT", "BUS", "FPE", "KILL", "USR1", "SEGV",
    "USR2", "PIPE", "ALRM", "TERM", "STKFLT", "CHLD", "CONT", "STOP", "TSTP", "TTIN", "TTOU",
    "URG", "XCPU", "XFSZ", "VTALRM", "PROF", "WINCH", "IO", "PWR", "SYS",
];

/// Linux's real-time signals, as bash names them: 34 to 64.
fn realtime_signals() -> impl Iterator<Item = (usize, String)> {
    (34..=64).map(|n| {
        let name = match n {
            34 => "RTMIN".to_string(),
            35..=49 => format!("RTMIN+{}", n - 34),
            64 => "RTMAX".to_string(),
            _ => format!("RTMAX-{}", 64 - n),
        };
        (n, name)
    })
}

/// A condition's canonical name (`SIGINT`, `2`, `int` → `INT`).
fn condition(spec: &str) -> Option<String> {
    let upper = spec.to_ascii_uppercase();
    let name = upper.strip_prefix("SIG").unwrap_or(&upper);
    if let Ok(n) = name.parse::<usize>() {
        return SIGNALS.get(n).map(|s| s.to_string());
    }
    (SIGNALS.contains(&name) || matches!(name, "ERR" | "DEBUG" | "RETURN"))
        .then(|| name.to_string())
}

/// `trap [-lp] [[ACTION] CONDITION...]`. `EXIT`, `ERR` and `RETURN` run; signals are
/// accepted (no signal reaches a script here).
pub async fn trap(sh: &mut Interp<'_>, args: &[String]) -> i32 {
    let args: Vec<&String> = args.iter().filter(|a| *a != "--").collect();
    if args.first().is_some_and(|a| *a == "-l") {
        // bash's table: five to a line, tab-separated.
        let all = SIGNALS
            .iter()
            .enumerate()
            .skip(1)
            .map(|(i, s)| (i, s.to_string()))
            .chain(realtime_signals());
        let mut text = String::new();
        let mut column = 0;
        for (i, name) in all {
            text.push_str(&format!("{i:2}) SIG{name}"));
            column = (column + 1) % 5;
            text.push(if column == 0 { '\n' } else { '\t' });
        }
        if column != 0 {
            text.push('\n');
        }
        return out(sh, &text).await;
    }
    if args.is_empty() || args[0] == "-p" {
        let wanted: Vec<String> = args.iter().skip(1).filter_map(|a| condition(a)).collect();
        // A subshell lists its parent's traps until it sets one of its own.
        let traps = sh.shell.parent_traps.as_ref().unwrap_or(&sh.shell.traps);
        // Asked for by name: each in the order asked (again if asked twice); else all, the
        // signals by number, then bash's own conditions in its order.
        let names: Vec<&String> = if wanted.is_empty() {
            let order = |n: &str| match SIGNALS.iter().position(|s| *s == n) {
                Some(i) => i,
                None => ["DEBUG", "ERR", "RETURN"]
                    .iter()
                    .position(|s| *s == n)
                    .map_or(usize::MAX, |i| SIGNALS.len() + i),
            };
            let mut all: Vec<&String> = traps.keys().collect();
            all.sort_by_key(|n| order(n));
            all
        } else {
            wanted.iter().filter(|n| traps.contains_key(*n)).collect()
        };
        let text: String = names
            .into_iter()
            .map(|n| {
                // Signals are listed as `SIGINT`; `EXIT` and the shell's own conditions as
                // they are.
                let shown = match n.as_str() {
                    "EXIT" | "ERR" | "DEBUG" | "RETURN" => n.clone(),
                    _ => format!("SIG{n}"),
                };
                format!(
                    "trap -- {} {shown}\n",
                    crate::quote::single(&traps[n], true)
                )
            })
            .collect();
        return out(sh, &text).await;
    }
    let (action, specs) =
        if args.len() == 1 || condition(args[0]).is_some() && args[0].parse::<u32>().is_ok() {
            (None, &args[..])
        } else {
            (Some(args[0].as_str()), &args[1..])
        };
    let mut status = 0;
    sh.shell.parent_traps = None;
    for spec in specs {
        match condition(spec) {
            Some(name) => match action {
                None | Some("-") => {
                    sh.shell.traps.remove(&name);
                }
                Some(a) => {
                    if name == "RETURN" {
                        sh.shell.return_traps_set += 1;
                    }
                    sh.shell.traps.insert(name, a.to_string());
                }
            },
            None => {
                sh.error(&format!("trap: {spec}: invalid signal specification"))
                    .await;
                status = 1;
            }
        }
    }
    status
}

/// `trap`'s registration.
pub const BUILTIN: Builtin = Builtin {
    name: "trap",
    run: status!(trap),
    usage: "[-lp] [[arg] signal_spec ...]",
    about: "Trap signals and other events",
    special: true,
    declaration: None,
};
