//! The utilities' handling of bad options, end to end on a native context.

use crate::testing::Native;

#[test]
fn an_unknown_long_option_is_named_with_gnus_status() {
    let mut ctx = Native::new();
    let ran = ctx.run(&["rm", "--bogus", "x"], "");
    assert_eq!(ran.status, 1);
    assert_eq!(
        ran.stderr,
        "rm: unrecognized option '--bogus'\nTry 'rm --help' for more information.\n"
    );
    assert_eq!(ctx.run(&["ls", "--nope"], "").status, 2);
    let ran = ctx.run(&["rm", "--recursive=x", "x"], "");
    assert_eq!(
        (ran.status, ran.stderr.as_str()),
        (
            1,
            "rm: option '--recursive' doesn't allow an argument\n\
                 Try 'rm --help' for more information.\n"
        )
    );
    ctx.write("f", "");
    assert_eq!(ctx.run(&["ls", "--color=never"], "").stdout, "f\n");
}

/// Options read by lexopt, not by position: clusters, attached values, options after
/// operands, and `--`.
#[test]
fn options_are_read_as_getopt_reads_them() {
    let mut ctx = Native::new();
    // A cluster whose last letter takes the next word as its value.
    let ran = ctx.run(&["cut", "-sd:", "-f2"], "a:b\nno colon\n");
    assert_eq!((ran.status, ran.stdout.as_str()), (0, "b\n"));
    let ran = ctx.run(&["paste", "-sd,", "-"], "1\n2\n3\n");
    assert_eq!(ran.stdout, "1,2,3\n");
    // `=` is a short option's value, not a separator.
    assert_eq!(ctx.run(&["cut", "-d=", "-f2"], "k=v\n").stdout, "v\n");
    // An option after the operands, and an operand that looks like an option after `--`.
    ctx.write("f", "x\n");
    assert_eq!(ctx.run(&["nl", "f", "-ba"], "").stdout, "     1\tx\n");
    let ran = ctx.run(&["mkdir", "--", "-d"], "");
    assert_eq!(ran.status, 0, "{}", ran.stderr);
    assert!(ctx.dir().join("-d").is_dir());
}

/// A letter a utility does not take is refused, where the old parsers took it for a flag
/// (`mkdir -m 700 d` made a directory `700`) or an operand.
#[test]
fn an_unknown_letter_is_refused_with_getopts_words() {
    let mut ctx = Native::new();
    let ran = ctx.run(&["mkdir", "-m", "700", "d"], "");
    assert_eq!(ran.status, 1);
    assert_eq!(
        ran.stderr,
        "mkdir: invalid option -- 'm'\nTry 'mkdir --help' for more information.\n"
    );
    assert!(!ctx.dir().join("700").exists());
    let ran = ctx.run(&["readlink", "-k", "x"], "");
    assert_eq!(ran.status, 1);
    assert!(ran.stderr.starts_with("readlink: invalid option -- 'k'\n"));
    // A value that is not a number is named as GNU names it.
    let ran = ctx.run(&["fold", "-w", "wide"], "");
    assert_eq!(
        (ran.status, ran.stderr.as_str()),
        (1, "fold: invalid number of columns: 'wide'\n")
    );
}

/// Old forms that getopt does not know: a number as an option, a mode that starts with `-`,
/// a negative number as an operand.
#[test]
fn historical_forms_still_work() {
    let mut ctx = Native::new();
    assert_eq!(ctx.run(&["fold", "-3"], "abcdef\n").stdout, "abc\ndef\n");
    assert_eq!(ctx.run(&["seq", "2", "-1", "0"], "").stdout, "2\n1\n0\n");
    assert_eq!(ctx.run(&["seq", "-1", "1"], "").stdout, "-1\n0\n1\n");
    assert_eq!(ctx.run(&["expand", "-2"], "\tx\n").stdout, "  x\n");
    ctx.write("f", "");
    assert_eq!(ctx.run(&["chmod", "-w", "f"], "").status, 0);
    let mode = std::fs::metadata(ctx.dir().join("f"))
        .unwrap()
        .permissions();
    assert!(mode.readonly());
}
