//! `tty`, `stty`, `tput` and `clear`. The isolate has no terminal: `tty` says so, as GNU's
//! does off one, and the others answer as a dumb 80x24 terminal would and change nothing, so
//! that scripts written for a terminal run (where GNU's fail without one).

use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{bad_usage, flags, parser, string, usage, value};

use crate::stream::{complain, out};

/// `tty [-s]`: "not a tty" and status 1.
pub async fn tty(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let (flags, operands) = match flags(argv, "s", &[("silent", 's'), ("quiet", 's')]) {
        Ok(o) => o,
        Err(e) => return bad_usage(sh, "tty", e, 2).await,
    };
    if let Some(extra) = operands.first() {
        return bad_usage(sh, "tty", usage(format!("extra operand '{extra}'")), 2).await;
    }
    if !flags.contains('s') {
        out(sh, "not a tty\n").await;
    }
    1
}

/// The terminal's size: `$LINES` and `$COLUMNS` where set, else 24 by 80.
fn size(sh: &dyn Context) -> (u32, u32) {
    let get = |name: &str, default: u32| {
        sh.var(name)
            .and_then(|v| v.parse().ok())
            .filter(|n| *n > 0)
            .unwrap_or(default)
    };
    (get("LINES", 24), get("COLUMNS", 80))
}

/// `stty [-a | -g | size | SETTING...]`: prints the size and settings of the dumb terminal;
/// settings are accepted and change nothing.
pub async fn stty(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let (rows, cols) = size(sh);
    let words = &argv[1..];
    let text = match words.first().map(String::as_str) {
        None | Some("-a" | "--all") => {
            format!("speed 38400 baud; rows {rows}; columns {cols}; line = 0;\n")
        }
        Some("-g" | "--save") => {
            "500:5:bf:8a3b:3:1c:7f:15:4:0:1:0:11:13:1a:0:12:f:17:16:0:0:0\n".into()
        }
        Some("size") => format!("{rows} {cols}\n"),
        Some("speed") => "38400\n".into(),
        Some(_) => String::new(),
    };
    out(sh, &text).await
}

/// Numeric capabilities of the dumb terminal (`tput cols`); `colors` is -1: no colours.
fn number(sh: &dyn Context, cap: &str) -> Option<i64> {
    let (rows, cols) = size(sh);
    Some(match cap {
        "cols" | "co" => i64::from(cols),
        "lines" | "li" => i64::from(rows),
        "colors" | "Co" | "pairs" | "pa" => -1,
        "it" => 8,
        _ => return None,
    })
}

/// Capabilities that send a terminal a sequence (or ask if it has a feature): the dumb
/// terminal takes them all and sends nothing.
const SEQUENCES: &[&str] = &[
    "bel", "blink", "bold", "civis", "clear", "cnorm", "cr", "cub", "cub1", "cud", "cud1", "cuf",
    "cuf1", "cup", "cuu", "cuu1", "cvvis", "dch", "dch1", "dim", "dl", "dl1", "ed", "el", "el1",
    "home", "hpa", "ich", "il", "il1", "ind", "init", "invis", "kbs", "op", "reset", "rev", "ri",
    "rmam", "rmcup", "rmir", "rmkx", "rmso", "rmul", "sc", "rc", "setab", "setaf", "setb", "setf",
    "sgr", "sgr0", "sitm", "ritm", "smam", "smcup", "smir", "smkx", "smso", "smul", "tsl", "fsl",
    "vpa", "am", "bce", "hs", "km", "xenl",
];

/// `tput [-T TERM] CAPABILITY [PARAM]...`: the dumb terminal's numbers, and nothing for
/// sequences (status 0, so that `tput bold` is harmless).
pub async fn tput(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let mut words = Vec::new();
    let mut p = parser(argv);
    let parsed: Result<(), lexopt::Error> = (|| {
        while let Some(arg) = p.next()? {
            match arg {
                Short('T') => {
                    value(&mut p)?;
                }
                Short('S') | Short('x') | Short('V') => {}
                Value(v) => {
                    words.push(string(v));
                    words.extend(p.raw_args()?.map(string));
                }
                _ => return Err(arg.unexpected()),
            }
        }
        Ok(())
    })();
    if let Err(e) = parsed {
        return bad_usage(sh, "tput", e, 2).await;
    }
    let Some(cap) = words.first() else {
        complain(sh, "usage: tput [-T TERM] CAPABILITY [PARAM]...").await;
        return 2;
    };
    if let Some(n) = number(sh, cap) {
        return out(sh, &format!("{n}\n")).await;
    }
    match cap.as_str() {
        "longname" => out(sh, "80-column dumb tty").await,
        c if SEQUENCES.contains(&c) => 0,
        c => {
            complain(sh, &format!("tput: unknown terminfo capability '{c}'")).await;
            4
        }
    }
}

/// `clear`: a dumb terminal has no way to clear, so it prints nothing.
pub async fn clear(sh: &mut dyn Context, argv: &[String]) -> i32 {
    match flags(argv, "x", &[]) {
        Ok(_) => 0,
        Err(e) => bad_usage(sh, "clear", e, 1).await,
    }
}

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::Native;

    #[test]
    fn a_dumb_terminal_of_80_by_24() {
        let mut ctx = Native::new();
        assert_eq!(ctx.run(&["tty"], "").status, 1);
        assert_eq!(ctx.run(&["tput", "cols"], "").stdout, "80\n");
        let bold = ctx.run(&["tput", "bold"], "");
        assert_eq!((bold.status, bold.stdout.as_str()), (0, ""));
        assert_eq!(ctx.run(&["stty", "size"], "").stdout, "24 80\n");
        assert_eq!(ctx.run(&["tput", "nonsense"], "").status, 4);
    }
}
