//! `eval`: runs its arguments, joined by spaces, as shell source.

use crate::exec::Interp;
use crate::state::Flow;

pub async fn eval(sh: &mut Interp<'_>, args: &[String]) -> Result<(), Flow> {
    let src = args.join(" ");
    match sh.run_eval(&src).await {
        Some(f) => Err(f),
        None => Ok(()),
    }
}
