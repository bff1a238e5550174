//! `tac`: holds its input, within the memory limit a command may hold.

use super::stream::{MEMORY_LIMIT, Stop, Writer, complain, files_or_stdin, open, read_all_limited};
use crate::text::*;
use shell_base::Context;
use shell_base::args::{bad_usage, operands};

/// `tac [FILE...]`.
pub async fn tac(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let files = match operands(argv) {
        Ok(o) => o,
        Err(e) => return bad_usage(sh, "tac", e, 1).await,
    };
    let mut out = Writer::new(&sh.io().stdout);
    let mut status = 0;
    for f in files_or_stdin(files) {
        let data = match open(sh, &f) {
            Ok(input) => match read_all_limited(&input, MEMORY_LIMIT, "tac").await {
                Ok(d) => d,
                Err(m) => {
                    status = complain(sh, &m).await;
                    continue;
                }
            },
            Err(m) => {
                status = complain(
                    sh,
                    &format!(
                        "tac: failed to open '{f}' for reading: {}",
                        m.split_once(": ").map(|x| x.1).unwrap_or(&m)
                    ),
                )
                .await;
                continue;
            }
        };
        let mut lines: Vec<&[u8]> = data.split_inclusive(|b| *b == b'\n').collect();
        lines.reverse();
        for l in lines {
            if let Err(Stop(s)) = out.write(l).await {
                return s;
            }
        }
    }
    done(out.flush().await, status)
}

#[cfg(all(test, unix))]
mod tests {

    use crate::testing::stdout_of;

    #[test]
    fn lines_in_reverse_order() {
        assert_eq!(stdout_of(&["tac"], "1\n2\n3\n"), "3\n2\n1\n");
    }
}
