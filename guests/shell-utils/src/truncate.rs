//! `truncate`: shrink or extend files to a size.

use super::stream::complain;
use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{bad_usage, parser, string, value};
use shell_base::errno::io_message;

/// `truncate -s [+-]SIZE FILE...`.
pub async fn truncate(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let mut size: Option<String> = None;
    let mut files = Vec::new();
    let mut p = parser(argv);
    let parsed: Result<(), lexopt::Error> = (|| {
        while let Some(arg) = p.next()? {
            match arg {
                Short('s') | Long("size") => size = Some(value(&mut p)?),
                Short('c') | Long("no-create") => {}
                Value(v) => files.push(string(v)),
                _ => return Err(arg.unexpected()),
            }
        }
        Ok(())
    })();
    if let Err(e) = parsed {
        return bad_usage(sh, "truncate", e, 1).await;
    }
    let Some(spec) = size else {
        return complain(sh, "truncate: you must specify either '--size' or '--reference'\nTry 'truncate --help' for more information.").await;
    };
    let (op, digits) = match spec.chars().next() {
        Some(c @ ('+' | '-')) => (Some(c), &spec[1..]),
        _ => (None, spec.as_str()),
    };
    let Some(n) = super::stream::parse_count(digits) else {
        return complain(sh, &format!("truncate: Invalid number: '{spec}'")).await;
    };
    let mut status = 0;
    for f in files {
        let path = sh.path(&f);
        let r = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .and_then(|file| {
                let cur = file.metadata()?.len();
                let new = match op {
                    Some('+') => cur.saturating_add(n),
                    Some('-') => cur.saturating_sub(n),
                    _ => n,
                };
                file.set_len(new)
            });
        if let Err(e) = r {
            status = complain(
                sh,
                &format!(
                    "truncate: cannot open '{f}' for writing: {}",
                    io_message(&e)
                ),
            )
            .await;
        }
    }
    status
}

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::Native;

    #[test]
    fn sets_the_size() {
        let mut ctx = Native::new();
        ctx.write("f", "hello");
        assert_eq!(ctx.run(&["truncate", "-s", "2", "f"], "").status, 0);
        assert_eq!(ctx.read("f"), "he");
    }
}
