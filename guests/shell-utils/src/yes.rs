//! `yes`: output a string repeatedly.

use shell_base::Context;

/// `yes [STRING]`: writes the line until the reader goes away (then 141, as SIGPIPE).
pub async fn yes(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let line = if argv.len() > 1 {
        argv[1..].join(" ")
    } else {
        "y".into()
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
