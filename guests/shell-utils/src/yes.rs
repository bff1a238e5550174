//! `yes`: output a string repeatedly.

use shell_base::Context;
use shell_base::args::{bad_usage, operands};

/// `yes [STRING]`: writes the line until the reader goes away (then 141, as SIGPIPE).
pub async fn yes(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let words = match operands(argv) {
        Ok(o) => o,
        Err(e) => return bad_usage(sh, "yes", e, 1).await,
    };
    let line = if words.is_empty() {
        "y".to_string()
    } else {
        words.join(" ")
    };
    // Batch lines so that each write moves a useful amount.
    let block = format!("{line}\n").repeat((8192 / (line.len() + 1)).max(1));
    loop {
        if sh.io().stdout.write_all(block.as_bytes()).await.is_err() {
            return 141;
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::Native;

    #[test]
    fn stops_with_141_when_the_reader_is_gone() {
        let mut ctx = Native::new();
        let (writer, reader) = shell_base::runtime::pipe();
        drop(reader);
        ctx.set_stdout(shell_base::io::Output::Pipe(std::rc::Rc::new(writer)));
        assert_eq!(ctx.run(&["yes", "y"], "").status, 141);
    }
}
