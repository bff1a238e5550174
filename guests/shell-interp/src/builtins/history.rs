//! `history`: a script's shell records no history (bash's neither when not interactive), so
//! the list holds only what `history -s` added; `-c` and `-d` edit it, the file options
//! (`-anrw`) have nothing to read or write.

use crate::builtins::out;
use crate::interp::Builtin;
use crate::interp::Interp;

/// Entries `history -s` keeps at most (bash's `HISTSIZE` default).
const MAX_ENTRIES: usize = 500;

const USAGE: &str =
    "history [-c] [-d offset] [n] or history -anrw [filename] or history -ps arg [arg...]";

pub async fn history(sh: &mut Interp<'_>, args: &[String]) -> i32 {
    let (letters, rest) = crate::builtins::leading_options(args);
    let mut store = false;
    for c in letters {
        match c {
            'c' => sh.shell.history.clear(),
            's' => store = true,
            'p' => {
                // History expansion is off: the words come back as they are.
                let text: String = rest.iter().map(|a| format!("{a}\n")).collect();
                return out(sh, &text).await;
            }
            'a' | 'n' | 'r' | 'w' => return 0,
            'd' => {
                let Some(offset) = rest.first() else {
                    sh.error("history: -d: option requires an argument").await;
                    return 2;
                };
                let len = sh.shell.history.len() as i64;
                let at = match offset.parse::<i64>() {
                    Ok(n) if n < 0 => len + n,
                    Ok(n) => n - 1,
                    Err(_) => -1,
                };
                if at < 0 || at >= len {
                    sh.error(&format!("history: {offset}: history position out of range"))
                        .await;
                    return 1;
                }
                sh.shell.history.remove(at as usize);
                return 0;
            }
            _ => {
                sh.error(&format!("history: -{c}: invalid option")).await;
                sh.raw_error(&format!("history: usage: {USAGE}")).await;
                return 2;
            }
        }
    }
    if store {
        if !rest.is_empty() {
            if sh.shell.history.len() == MAX_ENTRIES {
                sh.shell.history.remove(0);
            }
            sh.shell.history.push(rest.join(" "));
        }
        return 0;
    }
    let count = match rest.first() {
        None => sh.shell.history.len(),
        Some(n) => match n.parse::<usize>() {
            Ok(n) => n.min(sh.shell.history.len()),
            Err(_) => {
                sh.error(&format!("history: {n}: numeric argument required"))
                    .await;
                return 1;
            }
        },
    };
    let skip = sh.shell.history.len() - count;
    let text: String = sh.shell.history[skip..]
        .iter()
        .enumerate()
        .map(|(i, line)| format!("{:5}  {line}\n", skip + i + 1))
        .collect();
    out(sh, &text).await
}

/// `history`'s registration.
pub const BUILTIN: Builtin = Builtin {
    name: "history",
    run: status!(history),
    usage: "[-c] [-d offset] [n] or history -anrw [filename] or history -ps arg [arg...]",
    about: "Display or manipulate the history list",
    special: false,
    declaration: None,
};
