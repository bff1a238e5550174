//! `Workspace::exec` on the isolate backend: scripts and command lines through the shell,
//! sessions that keep the shell's state, the shell's named limits, and random scripts that
//! must neither crash the guest nor outlive their limits.

use std::time::Duration;

use computer::isolate::{LimitHit, Limits, RunStatus};
use computer::{Backend, ExecOutput, ExecRequest, Workspace};
use proptest::prelude::*;

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn run(ws: &Workspace, req: ExecRequest) -> ExecOutput {
    ws.exec(req).expect("exec")
}

#[test]
fn scripts_and_command_lines_run_in_the_workspace() {
    let ws = Workspace::in_memory().unwrap();
    ws.fs().create_dir_all("/workspace/sub").unwrap();
    let out = run(
        &ws,
        ExecRequest::script("echo \"$GREETING $(pwd)\" > out.txt; read x; echo \"in=$x\"; exit 3")
            .cwd("sub")
            .env("GREETING", "hi")
            .stdin("typed\n"),
    );
    assert_eq!(out.status, 3);
    assert_eq!(text(&out.stdout), "in=typed\n");
    assert_eq!(
        ws.fs().read_file("/workspace/sub/out.txt").unwrap(),
        b"hi /workspace/sub\n"
    );
    // A command line is not shell syntax: `$HOME` and `;` stay as they are.
    let out = run(&ws, ExecRequest::argv(["echo", "$HOME;", "a  b"]));
    assert_eq!(text(&out.stdout), "$HOME; a  b\n");
    let out = run(&ws, ExecRequest::argv(["no-such-program", "x"]));
    assert_eq!(out.status, 127);
    assert_eq!(
        text(&out.stderr),
        "computer: line 1: no-such-program: command not found\n"
    );
    // A container image that is nowhere: a clear error, not a hang (or, without Docker, the
    // engine that cannot be reached).
    let fresh = Workspace::in_memory().unwrap();
    let mut config = fresh.container_config();
    config.image = "computer-no-such-image:none".into();
    fresh.set_container_config(config);
    let err = fresh
        .exec(ExecRequest::script("true").backend(Backend::Container))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("computer-no-such-image:none: not present and cannot be pulled")
            || err.contains("cannot reach Docker"),
        "{err}"
    );
    assert!(ws.exec(ExecRequest::argv(Vec::<String>::new())).is_err());
}

#[test]
fn a_session_keeps_variables_functions_options_and_cwd() {
    let ws = Workspace::in_memory().unwrap();
    ws.fs().create_dir_all("/workspace/proj").unwrap();
    let session = ws.session();
    let first = session
        .exec(ExecRequest::script(
            "cd proj; count=1; declare -A m=([k]=v); arr=(a 'b c'); greet() { echo \"hello $1\"; }; \
             shopt -s extglob expand_aliases; alias ll='echo listing'; set -o pipefail; export TOKEN=t1",
        ))
        .unwrap();
    assert_eq!(first.status, 0, "{}", text(&first.stderr));
    let second = session
        .exec(
            ExecRequest::script(
                "pwd; echo $count ${m[k]} \"${arr[1]}\"; greet you; ll; [[ -o pipefail ]] && echo pf; \
                 shopt -q extglob && echo eg; echo $TOKEN $FROM_CALL; count=$((count+1))",
            )
            .env("FROM_CALL", "c"),
        )
        .unwrap();
    assert_eq!(
        text(&second.stdout),
        "/workspace/proj\n1 v b c\nhello you\nlisting\npf\neg\nt1 c\n",
        "{}",
        text(&second.stderr)
    );
    let third = session.exec(ExecRequest::script("echo $count")).unwrap();
    assert_eq!(text(&third.stdout), "2\n");
    // Without a session every exec starts fresh.
    let fresh = run(
        &ws,
        ExecRequest::script("echo \"[$count]\"; pwd; type -t greet"),
    );
    assert_eq!(text(&fresh.stdout), "[]\n/workspace\n");
    let tmp_before = ws.fs().read_dir("/tmp").unwrap().len();
    drop(session);
    assert_eq!(ws.fs().read_dir("/tmp").unwrap().len(), tmp_before - 1);
}

#[test]
fn the_shell_names_each_limit_it_stops_at() {
    let ws = Workspace::in_memory().unwrap();
    let cases = [
        (
            "COMPUTER_SH_MAX_LOOP_ITERATIONS",
            "1000",
            "while :; do :; done",
            "loop iteration limit of 1000 exceeded (COMPUTER_SH_MAX_LOOP_ITERATIONS)",
        ),
        (
            "COMPUTER_SH_MAX_COMMANDS",
            "500",
            "for i in {1..1000}; do echo $i >/dev/null; done",
            "command limit of 500 exceeded (COMPUTER_SH_MAX_COMMANDS)",
        ),
        (
            "COMPUTER_SH_MAX_CALL_DEPTH",
            "50",
            "f() { f; }; f",
            "f: maximum function nesting level exceeded (50, COMPUTER_SH_MAX_CALL_DEPTH)",
        ),
        (
            "COMPUTER_SH_MAX_EXPANSION_BYTES",
            "100000",
            "x=a; while :; do x=$x$x; done",
            "expansion size limit of 100000 bytes exceeded (COMPUTER_SH_MAX_EXPANSION_BYTES)",
        ),
    ];
    for (var, value, script, message) in cases {
        let out = run(&ws, ExecRequest::script(script).env(var, value));
        assert_eq!(out.status, 1, "{script}");
        assert!(
            text(&out.stderr).contains(message),
            "{script}: {}",
            text(&out.stderr)
        );
    }
    // awk's own limits, named in gawk's style, status 2.
    let awk_cases = [
        (
            "awk 'function f(n) { return f(n + 1) } BEGIN { f(1) }'",
            "function calls nested deeper than 300 (awk's call depth limit)",
        ),
        (
            "echo a | awk '{ $2000000 = 1 }'",
            "field 2000000 is beyond awk's limit of 1000000 fields per record",
        ),
    ];
    for (script, message) in awk_cases {
        let out = run(&ws, ExecRequest::script(script));
        assert_eq!(out.status, 2, "{script}");
        assert!(
            text(&out.stderr).contains(message),
            "{script}: {}",
            text(&out.stderr)
        );
    }
    // A precision past what Rust can format is capped, not a crash (it once panicked).
    let out = run(&ws, ExecRequest::script("printf '%.99999999f' 1 | wc -c"));
    assert_eq!((out.status, text(&out.stdout).trim()), (0, "65537"));
    let out = run(&ws, ExecRequest::script("echo {1..200000}{a,b,c,d,e,f}"));
    assert!(
        text(&out.stderr).contains("brace expansion limit of 100000 words exceeded"),
        "{}",
        text(&out.stderr)
    );
    let out = run(
        &ws,
        ExecRequest::script("while :; do :; done").limits(Limits {
            timeout: Duration::from_millis(300),
            ..Limits::default()
        }),
    );
    assert_eq!(out.status, 124);
    assert!(matches!(out.ended, RunStatus::Limit(LimitHit::Timeout(_))));
}

/// Pieces of bash, valid and not, that random scripts are made of.
const PIECES: &[&str] = &[
    "echo a",
    "x=1",
    "$x",
    "${x:-d}",
    "${x#*}",
    "${#x}",
    "$((x+1))",
    "$(echo s)",
    "`echo b`",
    "'q'",
    "\"d $x\"",
    "|",
    "||",
    "&&",
    ";",
    "\n",
    "&",
    "(",
    ")",
    "{",
    "}",
    "if",
    "then",
    "fi",
    "else",
    "for",
    "in",
    "do",
    "done",
    "while",
    "case",
    "esac",
    ";;",
    "*",
    "?",
    "[a]",
    ">",
    "<",
    ">>",
    "2>&1",
    "<<<",
    "f()",
    "return",
    "break",
    "local",
    "declare -A m",
    "m[k]=v",
    "a=(1 2)",
    "${a[@]}",
    "!",
    "[[",
    "]]",
    "-n",
    "==",
    "=~",
    "test",
    "[",
    "]",
    "read",
    "printf %s",
    "eval",
    "set -e",
    "shopt -s extglob",
    "@(a|b)",
    "{1..3}",
    "~",
    "\\",
    "$",
    "${",
    "}}",
    "exit",
    "trap",
    "cat",
    "head",
    "yes",
    ":",
    "true",
    "false",
    "unset x",
    "shift",
    "getopts",
    "mapfile",
    "grep -c a",
    "grep -rn",
    "sed s/a/b/g",
    "sed -n 1p",
    "sort -n",
    "uniq -c",
    "tr a-z A-Z",
    "cut -d: -f1",
    "jq .",
    "jq -r",
    "find .",
    "xargs echo",
    "wc -l",
    "tar tf",
    "expr 1 +",
    "date +%s",
    "printf %d",
    "diff",
    "ls -R",
    "seq 3",
    "tail -n",
    "base64 -d",
    "-é",
    "awk",
    "'{print $2}'",
    "'BEGIN { printf \"%.99999f\", 1 }'",
    "awk -F:",
    "od -c",
    "xxd",
    "column -t",
    "ls -l",
    "stat -c %a",
    "chmod 755",
    "sh -c",
    "timeout 1",
    "printf %.99999999f",
    "split -l 1",
    "join",
];

fn script() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(PIECES), 1..24).prop_map(|p| p.join(" "))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Whatever the script, the shell ends by itself or at a limit: it never crashes (a
    /// panic in the guest is a trap) and never runs past its time.
    #[test]
    fn random_scripts_end_cleanly(src in script()) {
        let ws = Workspace::in_memory().unwrap();
        let out = ws
            .exec(
                ExecRequest::script(src.clone())
                    .env("COMPUTER_SH_MAX_LOOP_ITERATIONS", "10000")
                    .env("COMPUTER_SH_MAX_COMMANDS", "100000")
                    .limits(Limits {
                        timeout: Duration::from_secs(5),
                        output: 1 << 20,
                        ..Limits::default()
                    }),
            )
            .unwrap();
        prop_assert!(
            matches!(out.ended, RunStatus::Exited(_) | RunStatus::Limit(_)),
            "{src:?}: {:?} {}", out.ended, text(&out.stderr)
        );
    }
}
