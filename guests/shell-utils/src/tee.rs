//! `tee`: copy standard input to files and standard output.

use super::stream::complain;
use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{bad_usage, parser, string};

/// `tee [-a] [FILE...]`: copies stdin to stdout and to each file.
pub async fn tee(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let mut append = false;
    let mut files = Vec::new();
    let mut p = parser(argv);
    loop {
        match p.next() {
            Ok(Some(Short('a') | Long("append"))) => append = true,
            Ok(Some(Short('i') | Long("ignore-interrupts"))) => {}
            Ok(Some(Value(v))) => files.push(string(v)),
            Ok(Some(other)) => return bad_usage(sh, "tee", other.unexpected(), 1).await,
            Ok(None) => break,
            Err(e) => return bad_usage(sh, "tee", e, 1).await,
        }
    }
    let mut status = 0;
    let mut sinks = Vec::new();
    for f in &files {
        let mut o = std::fs::OpenOptions::new();
        o.write(true).create(true);
        if append {
            o.append(true);
        } else {
            o.truncate(true);
        }
        match o.open(sh.path(f)) {
            Ok(file) => sinks.push(file),
            Err(e) => {
                status = complain(
                    sh,
                    &format!("tee: {f}: {}", shell_base::errno::io_message(&e)),
                )
                .await
            }
        }
    }
    let input = sh.io().stdin.clone();
    loop {
        let chunk = match input.read().await {
            Ok(c) if !c.is_empty() => c,
            _ => break,
        };
        for s in &mut sinks {
            use std::io::Write;
            let _ = s.write_all(&chunk);
        }
        if let Err(e) = sh.io().stdout.write_all(&chunk).await
            && e.kind() == std::io::ErrorKind::BrokenPipe
        {
            return 141;
        }
    }
    status
}

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::Native;

    #[test]
    fn copies_to_files_and_stdout() {
        let mut ctx = Native::new();
        let ran = ctx.run(&["tee", "out"], "x\n");
        assert_eq!(ran.stdout, "x\n");
        assert_eq!(ctx.read("out"), "x\n");
        ctx.run(&["tee", "-a", "out"], "y\n");
        assert_eq!(ctx.read("out"), "x\ny\n");
    }
}
