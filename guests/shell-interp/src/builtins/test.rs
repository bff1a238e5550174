//! `test` and `[`: the conditional expressions of `[[ ]]` without patterns.

use crate::cond::Conditions;
use crate::interp::Builtin;
use crate::interp::Interp;

async fn test_or_bracket(sh: &mut Interp<'_>, args: &[String], bracket: bool) -> i32 {
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

/// `test ARGS`.
pub async fn test(sh: &mut Interp<'_>, args: &[String]) -> i32 {
    test_or_bracket(sh, args, false).await
}

/// `[ ARGS ]`.
pub async fn bracket(sh: &mut Interp<'_>, args: &[String]) -> i32 {
    test_or_bracket(sh, args, true).await
}

/// `[`'s registration.
pub const BRACKET: Builtin = Builtin {
    name: "[",
    run: status!(bracket),
    usage: "arg... ]",
    about: "Evaluate conditional expression",
    special: false,
    declaration: None,
};

/// `test`'s registration.
pub const TEST: Builtin = Builtin {
    name: "test",
    run: status!(test),
    usage: "[expr]",
    about: "Evaluate conditional expression",
    special: false,
    declaration: None,
};
