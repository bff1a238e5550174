//! `test` and `[`: the conditional expressions of `[[ ]]` without patterns.

use crate::exec::Interp;

pub async fn test(sh: &mut Interp<'_>, args: &[String], bracket: bool) -> i32 {
    let me = if bracket { "[" } else { "test" };
    let mut args = args.to_vec();
    if bracket {
        if args.last().map(String::as_str) != Some("]") {
            sh.error("[: missing `]'").await;
            return 2;
        }
        args.pop();
    }
    match sh.test_command(&args).await {
        Ok(true) => 0,
        Ok(false) => 1,
        Err(e) => {
            sh.error(&format!("{me}: {}", e.0)).await;
            2
        }
    }
}
