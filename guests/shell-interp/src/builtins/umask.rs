//! `umask`: the file mode creation mask, octal or symbolic (`-S`, `u=rwx,g+w,o-rwx`).

use crate::builtins::out;
use crate::interp::Builtin;
use crate::interp::Interp;

/// `umask [-p] [-S] [MODE]` (kept for scripts that read it; WASI files have no modes to apply
/// it to).
pub async fn umask(sh: &mut Interp<'_>, args: &[String]) -> i32 {
    let (mut symbolic, mut reusable) = (false, false);
    let (letters, rest) = crate::builtins::leading_options(args);
    for c in letters {
        match c {
            'S' => symbolic = true,
            'p' => reusable = true,
            _ => {
                sh.error(&format!("umask: -{c}: invalid option")).await;
                sh.raw_error("umask: usage: umask [-p] [-S] [mode]").await;
                return 2;
            }
        }
    }
    if let Some(mode) = rest.first() {
        let set = if mode.starts_with(|c: char| c.is_ascii_digit()) {
            match u32::from_str_radix(mode, 8) {
                Ok(m) if m <= 0o777 => Ok(m),
                _ => Err(format!("{mode}: octal number out of range")),
            }
        } else {
            symbolic_mask(sh.shell.umask, mode)
        };
        match set {
            Ok(m) => sh.shell.umask = m,
            Err(msg) => {
                sh.error(&format!("umask: {msg}")).await;
                return 1;
            }
        }
        // bash shows the new mask after a symbolic mode only under `-S`.
        if !symbolic {
            return 0;
        }
    }
    let mask = sh.shell.umask;
    let mut text = match (reusable, symbolic) {
        (true, true) => "umask -S ".to_string(),
        (true, false) => "umask ".to_string(),
        _ => String::new(),
    };
    if symbolic {
        let allowed = !mask & 0o777;
        let part = |shift: u32| {
            let bits = (allowed >> shift) & 7;
            [(4, 'r'), (2, 'w'), (1, 'x')]
                .iter()
                .filter(|(b, _)| bits & b != 0)
                .map(|(_, c)| *c)
                .collect::<String>()
        };
        text.push_str(&format!("u={},g={},o={}\n", part(6), part(3), part(0)));
    } else {
        text.push_str(&format!("{mask:04o}\n"));
    }
    out(sh, &text).await
}

/// The mask after a symbolic MODE (`[ugoa]*[+-=][rwx]*`, clauses separated by commas), which
/// names the permissions allowed, not the bits masked.
fn symbolic_mask(mask: u32, mode: &str) -> Result<u32, String> {
    let mut allowed = !mask & 0o777;
    for clause in mode.split(',') {
        let who_len = clause
            .find(|c: char| !matches!(c, 'u' | 'g' | 'o' | 'a'))
            .unwrap_or(clause.len());
        let who = clause[..who_len].chars().fold(0, |w, c| {
            w | match c {
                'u' => 0o700,
                'g' => 0o070,
                'o' => 0o007,
                _ => 0o777,
            }
        });
        let who = if who == 0 { 0o777 } else { who };
        let mut rest = &clause[who_len..];
        if rest.is_empty() {
            return Err(format!("`{}': invalid symbolic mode operator", ""));
        }
        while let Some(op) = rest.chars().next() {
            if !matches!(op, '+' | '-' | '=') {
                return Err(format!("`{op}': invalid symbolic mode operator"));
            }
            rest = &rest[1..];
            let perms_len = rest.find(['+', '-', '=']).unwrap_or(rest.len());
            let mut bits = 0;
            for c in rest[..perms_len].chars() {
                bits |= match c {
                    'r' => 0o444,
                    'w' => 0o222,
                    'x' => 0o111,
                    other => return Err(format!("`{other}': invalid symbolic mode character")),
                };
            }
            rest = &rest[perms_len..];
            let bits = bits & who;
            match op {
                '+' => allowed |= bits,
                '-' => allowed &= !bits,
                _ => allowed = (allowed & !who) | bits,
            }
        }
    }
    Ok(!allowed & 0o777)
}

/// `umask`'s registration.
pub const BUILTIN: Builtin = Builtin {
    name: "umask",
    run: status!(umask),
    usage: "[-p] [-S] [mode]",
    about: "Display or set file mode mask",
    special: false,
    declaration: None,
};

#[cfg(test)]
mod tests {
    use super::symbolic_mask;

    #[test]
    fn symbolic_modes_name_what_is_allowed() {
        assert_eq!(symbolic_mask(0o022, "u=rwx,g=rx,o="), Ok(0o027));
        assert_eq!(symbolic_mask(0o777, "a+r"), Ok(0o333));
        assert_eq!(symbolic_mask(0o027, "+x"), Ok(0o026));
        assert_eq!(symbolic_mask(0o000, "a=rw,u+x"), Ok(0o011));
        assert_eq!(symbolic_mask(0o022, "="), Ok(0o777));
        assert!(symbolic_mask(0o022, "u=g").is_err());
        assert!(symbolic_mask(0o022, "q=r").is_err());
    }
}
