//! `cmp`: compare two files byte by byte.

use super::stream::{MEMORY_LIMIT, complain, open, read_all_limited};
use crate::stream::out;
use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{bad_usage, parser, string};

/// `cmp [-s] FILE1 FILE2`.
pub async fn cmp(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let (mut silent, mut verbose) = (false, false);
    let mut files = Vec::new();
    let mut p = parser(argv);
    let parsed: Result<(), lexopt::Error> = (|| {
        while let Some(arg) = p.next()? {
            match arg {
                Short('s') | Long("quiet" | "silent") => silent = true,
                Short('l') | Long("verbose") => verbose = true,
                Value(v) => files.push(string(v)),
                _ => return Err(arg.unexpected()),
            }
        }
        Ok(())
    })();
    if let Err(e) = parsed {
        return bad_usage(sh, "cmp", e, 2).await;
    }
    if files.len() < 2 {
        complain(
            sh,
            &format!(
                "cmp: missing operand after '{}'\nTry 'cmp --help' for more information.",
                files.first().map_or("cmp", String::as_str)
            ),
        )
        .await;
        return 2;
    }
    let mut data = Vec::new();
    for f in &files[..2] {
        let input = match open(sh, f) {
            Ok(i) => i,
            Err(m) => {
                complain(sh, &format!("cmp: {m}")).await;
                return 2;
            }
        };
        match read_all_limited(&input, MEMORY_LIMIT, "cmp").await {
            Ok(d) => data.push(d),
            Err(m) => {
                complain(sh, &m).await;
                return 2;
            }
        }
    }
    let (a, b) = (&data[0], &data[1]);
    if verbose {
        // `-l`: every differing byte: position, then both values in octal.
        let width = a.len().max(b.len()).to_string().len();
        let mut text = String::new();
        for k in 0..a.len().min(b.len()) {
            if a[k] != b[k] {
                text.push_str(&format!("{:>width$} {:>3o} {:>3o}\n", k + 1, a[k], b[k]));
            }
        }
        let status = out(sh, &text).await;
        if status != 0 {
            return status;
        }
        if a.len() != b.len() {
            let (short, n) = if a.len() < b.len() {
                (&files[0], a.len())
            } else {
                (&files[1], b.len())
            };
            complain(sh, &format!("cmp: EOF on {short} after byte {n}")).await;
        }
        return i32::from(!text.is_empty() || a.len() != b.len());
    }
    let mut line = 1;
    for k in 0..a.len().min(b.len()) {
        if a[k] != b[k] {
            if !silent {
                return match out(
                    sh,
                    &format!(
                        "{} {} differ: char {}, line {line}\n",
                        files[0],
                        files[1],
                        k + 1
                    ),
                )
                .await
                {
                    0 => 1,
                    s => s,
                };
            }
            return 1;
        }
        if a[k] == b'\n' {
            line += 1;
        }
    }
    if a.len() != b.len() {
        if !silent {
            let (short, n) = if a.len() < b.len() {
                (&files[0], a.len())
            } else {
                (&files[1], b.len())
            };
            let after = if n == 0 {
                "empty file".to_string()
            } else {
                format!(
                    "byte {n}, in line {}",
                    line - if a.get(n.saturating_sub(1)) == Some(&b'\n') {
                        1
                    } else {
                        0
                    }
                )
            };
            let msg = if n == 0 {
                format!("cmp: EOF on {short} which is empty")
            } else {
                format!("cmp: EOF on {short} after {after}")
            };
            complain(sh, &msg).await;
        }
        return 1;
    }
    0
}

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::Native;

    #[test]
    fn first_difference() {
        let mut ctx = Native::new();
        ctx.write("a", "abc").write("b", "abd");
        let ran = ctx.run(&["cmp", "a", "b"], "");
        assert_eq!(
            (ran.status, ran.stdout.as_str()),
            (1, "a b differ: char 3, line 1\n")
        );
    }
}
