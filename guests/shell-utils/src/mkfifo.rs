//! `mkfifo`: named pipes, kept in the workspace as FIFO inodes. A container sees them as
//! FIFOs through the mount; in the isolate, opening one fails ("No such device or address"),
//! since no second process can meet the first at it.

use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{bad_usage, parser, string, usage, value};
use shell_base::errno::io_message;

use crate::chmod::apply_mode;
use crate::stream::complain;

/// Read and write for everyone, before the umask: what a FIFO is made with.
const RW_UGO: u32 = 0o666;

/// `mkfifo [-m MODE] NAME...`.
pub async fn mkfifo(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let (mut mode_text, mut names) = (None, Vec::new());
    let mut p = parser(argv);
    let parsed: Result<(), lexopt::Error> = (|| {
        while let Some(arg) = p.next()? {
            match arg {
                Short('m') | Long("mode") => mode_text = Some(value(&mut p)?),
                // SELinux contexts do not exist here.
                Short('Z') => {}
                Value(v) => names.push(string(v)),
                _ => return Err(arg.unexpected()),
            }
        }
        if names.is_empty() {
            return Err(usage("missing operand"));
        }
        Ok(())
    })();
    if let Err(e) = parsed {
        return bad_usage(sh, "mkfifo", e, 1).await;
    }
    // With -m the mode is exact; without it the umask takes its bits away.
    let mode = match &mode_text {
        Some(text) => match apply_mode(text, RW_UGO, sh.umask()) {
            Some(m) => m,
            None => return complain(sh, "mkfifo: invalid mode").await,
        },
        None => RW_UGO & !sh.umask(),
    };
    let mut status = 0;
    for name in names {
        let path = sh.path(&name);
        if let Err(e) = sh.host().mkfifo(&path.to_string_lossy(), mode) {
            let m = format!("mkfifo: cannot create fifo '{name}': {}", io_message(&e));
            status = complain(sh, &m).await;
        }
    }
    status
}

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::Native;
    use std::os::unix::fs::FileTypeExt;

    #[test]
    fn makes_fifos_and_refuses_existing_names() {
        let mut ctx = Native::new();
        let made = ctx.run(&["mkfifo", "-m", "600", "p"], "");
        assert_eq!(made.status, 0, "{}", made.stderr);
        let meta = std::fs::symlink_metadata(ctx.dir().join("p")).expect("made");
        assert!(meta.file_type().is_fifo());
        let again = ctx.run(&["mkfifo", "p"], "");
        assert_eq!(again.status, 1);
        assert!(
            again.stderr.contains("cannot create fifo 'p'"),
            "{}",
            again.stderr
        );
    }
}
