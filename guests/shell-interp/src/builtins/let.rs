//! `let`: arithmetic on each argument; status 0 when the last is not zero.

use crate::interp::Builtin;
use crate::interp::Interp;
use crate::state::Flow;

pub async fn r#let(sh: &mut Interp<'_>, args: &[String]) -> Result<(), Flow> {
    if args.is_empty() {
        sh.error("let: expression expected").await;
        sh.shell.status = 1;
        return Ok(());
    }
    let mut last = 0;
    for a in args {
        match crate::arith::eval_text(sh.shell, a) {
            Ok(v) => last = v,
            Err(e) if crate::arith::is_unbound(&e) => {
                return sh
                    .expansion_failed(crate::expand::ExpandError::new(e))
                    .await;
            }
            Err(e) => {
                sh.error(&format!("let: {e}")).await;
                sh.shell.status = 1;
                return Ok(());
            }
        }
    }
    sh.shell.status = (last == 0) as i32;
    Ok(())
}

/// `let`'s registration.
pub const BUILTIN: Builtin = Builtin {
    name: "let",
    run: flow!(r#let),
    usage: "arg [arg ...]",
    about: "Evaluate arithmetic expressions",
    special: false,
    declaration: None,
};
