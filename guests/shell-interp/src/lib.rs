//! The isolate shell's interpreter: bash's language over the `brush-parser` AST (expansions,
//! quoting, redirections with its own descriptor table, pipelines as tasks on
//! [`shell_base::runtime`], functions, arrays, arithmetic, `[[ ]]`, traps) and its builtins.
//!
//! # Layers
//! Each top-level module reaches only those below it (a test fails on an import cycle):
//!
//! - `vars`, `quote`, `unparse`, `syntax`: variable types, quoting, printing the AST back,
//!   bash's wording of syntax errors;
//! - `arith` (over any [`arith::Variables`]) and `state` (the [`Shell`]: variables, options,
//!   functions, cwd);
//! - `expand` and `cond`: word expansion and conditional expressions, over any
//!   [`expand::Frame`] (the state, and a way to run the commands of a `$(...)`);
//! - [`interp`]: running the AST, command lookup, redirections; it implements `Frame`, and
//!   gets the builtins as a table ([`Builtins`]) it names none of;
//! - `builtins` (one file each, with its registration), `programs` (`sh`, `bash`, `env`,
//!   which need the interpreter) and [`session`].
//!
//! Commands that are not builtins come from a [`shell_base::Registry`] given to
//! [`state::Shell::new`]; the interpreter runs them through [`shell_base::Context`], which it
//! implements (`interp/context.rs`), and never sees their code. The host's imports are
//! reached through [`shell_base::host::current`].

pub mod arith;
mod builtins;
mod cond;
pub mod expand;
pub mod interp;
mod programs;
mod quote;
mod repair;
mod select;
pub mod session;
pub mod state;
mod syntax;
mod unparse;
mod vars;

pub use interp::{Builtins, Interp};
pub use state::{Flow, Shell};

/// The shell's builtins and programs, as [`Interp::new`] takes them.
pub static BUILTINS: Builtins = Builtins {
    builtins: builtins::ALL,
    programs: programs::ALL,
};

#[cfg(test)]
mod tests {
    //! The interpreter natively, on no utilities: the language itself. The compatibility
    //! cases (`tests/shell/cases`) check it end to end against bash.

    use std::cell::RefCell;
    use std::rc::Rc;

    use shell_base::io::{Input, Io, Output};
    use shell_base::{Registry, runtime::block_on};

    use crate::{Interp, Shell};

    /// Runs `script` in a fresh shell; its status, stdout and stderr.
    fn run(script: &str) -> (i32, String, String) {
        run_as(script, false)
    }

    /// Runs `script` in a fresh shell, as given with `-c` or (`stdin`) read from stdin.
    fn run_as(script: &str, stdin: bool) -> (i32, String, String) {
        let dir = std::env::temp_dir();
        let mut shell = Shell::new("sh".into(), Vec::new(), Rc::new(Registry::new(&[])));
        shell.cwd = dir.to_string_lossy().into_owned();
        let stdout = Rc::new(RefCell::new(Vec::new()));
        let stderr = Rc::new(RefCell::new(Vec::new()));
        let io = Io {
            stdin: Input::Null,
            stdout: Output::Capture(Rc::clone(&stdout)),
            stderr: Output::Capture(Rc::clone(&stderr)),
            extra: Vec::new(),
        };
        let status = block_on(Box::pin(async {
            let mut interp = Interp::new(&mut shell, io, &crate::BUILTINS);
            if stdin {
                interp.run_stdin_source(script).await;
            } else {
                interp.run_source(script).await;
            }
            interp.run_exit_trap().await;
            interp.shell.status
        }));
        let text = |b: &Rc<RefCell<Vec<u8>>>| String::from_utf8_lossy(&b.borrow()).into_owned();
        (status, text(&stdout), text(&stderr))
    }

    #[test]
    fn expansions_in_bash_order() {
        let (status, out, _) =
            run(r#"a=(x y z); s="${a[*]}"; echo ${#a[@]} ${s// /-} $((2**10)) {1..3}"#);
        assert_eq!((status, out.as_str()), (0, "3 x-y-z 1024 1 2 3\n"));
        let (_, out, _) = run("f=report.tar.gz; echo ${f%%.*} ${f#*.} ${f^^}");
        assert_eq!(out, "report tar.gz REPORT.TAR.GZ\n");
    }

    #[test]
    fn functions_locals_and_statuses() {
        let (_, out, _) = run("f() { local x=$1; echo $((x * 2)); return 3; }; f 21; echo $?");
        assert_eq!(out, "42\n3\n");
        let (status, out, _) = run("set -e; false; echo never");
        assert_eq!((status, out.as_str()), (1, ""));
    }

    #[test]
    fn pipelines_of_builtins_stream_and_report_each_status() {
        let (_, out, _) = run(
            r#"printf 'a\nb\n' | while read -r l; do echo "<$l>"; done; echo "${PIPESTATUS[@]}""#,
        );
        assert_eq!(out, "<a>\n<b>\n0 0\n");
    }

    #[test]
    fn a_substitution_sets_the_status_the_rest_of_its_command_sees() {
        let (_, out, _) = run("false; echo \"$? $(exit 3)$? $(true)$?\"; echo $?");
        assert_eq!(out, "1 3 0\n0\n");
    }

    #[test]
    fn lineno_in_debug_and_err_traps_is_the_command_s() {
        let script = "trap 'echo \"E $LINENO\"' ERR\n\nfalse\ng() {\n  false\n}\ng\ntrap - ERR\ntrap 'echo \"D $LINENO\"' DEBUG\n\n:";
        let (_, out, _) = run(script);
        assert_eq!(out, "E 3\nE 7\nD 11\n");
    }

    #[test]
    fn compound_commands_report_their_own_line() {
        let script = "echo\nfor 1x in a; do :; done\n:\ncase $LINENO in\n4) echo four;;\nesac\n:\n(( 1 / 0 ))\n:\nfor x in $LINENO; do echo $x; done";
        let (_, out, err) = run(script);
        assert_eq!(out, "\nfour\n10\n");
        assert!(
            err.starts_with("sh: line 2: `1x': not a valid identifier\nsh: line 8: "),
            "{err}"
        );
    }

    #[test]
    fn an_empty_list_is_unset_to_plus_and_minus() {
        let script = "a=(); echo \"[${a[@]+set}] [${a[*]-d}] [${@+p}] [${@-q}]\"; set -- \"\"; echo \"[${@+p}]\"; b=(\"\"); echo \"[${b[@]+s}]\"";
        let (_, out, _) = run(script);
        assert_eq!(out, "[] [d] [] [q]\n[p]\n[s]\n");
    }

    #[test]
    fn lastpipe_runs_the_last_stage_here() {
        let script = "echo a | read x; echo \"[$x]\"; shopt -s lastpipe; printf 'b\\nc\\n' | while read -r y; do z+=$y; done; echo \"[$z] ${PIPESTATUS[*]}\"; echo d | read x; echo \"[$x]\"";
        let (_, out, _) = run(script);
        assert_eq!(out, "[]\n[bc] 0 0\n[d]\n");
    }

    #[test]
    fn printf_unicode_escapes_are_utf_8() {
        let (_, out, _) = run("printf '\\u263a|\\U0001F600|\\u41|%b\\n' '\\u263a'");
        assert_eq!(out, "\u{263a}|\u{1f600}|A|\u{263a}\n");
    }

    #[test]
    fn case_inside_a_command_substitution() {
        let script = "v=$(case a in a|b) echo A;; *) echo B;; esac); echo \"$v $(case z in\n a) :;;\n *) echo Z\nesac)\"";
        assert_eq!(run(script), (0, "A Z\n".into(), String::new()));
        let script = "read v <<E\n$(case b in b) echo '$(case x in x) y;; esac)';; esac)\nE\necho \"$v\" '$(case q in q) :;; esac)'";
        let want = "$(case x in x) y;; esac) $(case q in q) :;; esac)\n";
        assert_eq!(run(script), (0, want.into(), String::new()));
    }

    #[test]
    fn a_script_on_stdin_is_read_command_by_command() {
        // (`read b` reads the `echo` line, as bash's does.)
        let script = "read a\nfirst line\n\n# c\nread b\necho \"[$a] [$b]\"\necho \"[$a] [$b]\"\nwhile read -r l; do echo \"<$l>\"; done\nx\ny z\n";
        let (status, out, _) = run_as(script, true);
        let want = "[first line] [echo \"[$a] [$b]\"]\n<x>\n<y z>\n";
        assert_eq!((status, out.as_str()), (0, want));
        // A here-document's body is part of its command; a read in the middle of a line
        // leaves the rest of it to be run.
        let script = "read h <<E\nbody\nE\nread -n 5 v\necho skipped; echo \"$h $v\"\n";
        let (_, out, err) = run_as(script, true);
        assert_eq!(out, "body echo\n");
        assert!(err.contains("skipped"), "{err}");
        // Past the first window of lines: a command cut by the window's end runs whole
        // (its `read` reads the line after `fi`), and lines are counted on, less those read.
        let script = format!(
            "{}if true; then\n  read v\nline\n  echo \"[$v] $LINENO\"\nfi\n{}echo $LINENO\n",
            ":\n".repeat(253),
            ":\n".repeat(600)
        );
        let (_, out, _) = run_as(&script, true);
        assert_eq!(out, "[:] 257\n858\n");
        // A job in the background reads nothing of it (its stdin is empty).
        let (_, out, _) = run_as("read x &\nwait\nread y\nline\necho \"[$x] [$y]\"\n", true);
        assert_eq!(out, "[] [line]\n");
        // A syntax error after a read: what precedes it ran, and the error's line counts
        // the lines the parser read, not the one `read` took (as bash's `$LINENO`).
        let (status, out, err) = run_as("read v\nline\necho $v\necho )\n", true);
        assert_eq!((status, out.as_str()), (2, "line\n"));
        let want = "sh: line 3: syntax error near unexpected token `)'\nsh: line 3: `echo )'\n";
        assert_eq!(err, want);
    }

    #[test]
    fn unknown_commands_are_not_found_with_no_host() {
        let (status, _, err) = run("nosuchcommand");
        assert_eq!(status, 127);
        assert!(err.ends_with("nosuchcommand: command not found\n"), "{err}");
    }

    #[test]
    fn traps_and_conditionals() {
        let (_, out, _) = run(r#"trap 'echo bye' EXIT; [[ abc == a* && 3 -gt 2 ]] && echo yes"#);
        assert_eq!(out, "yes\nbye\n");
    }

    #[test]
    fn builtins_are_one_sorted_table() {
        let names: Vec<&str> = crate::BUILTINS.names().collect();
        assert!(names.windows(2).all(|w| w[0] < w[1]), "{names:?}");
        for name in &names {
            assert_eq!(crate::BUILTINS.get(name).map(|b| b.name), Some(*name));
        }
        assert!(crate::BUILTINS.get("cat").is_none());
        let declarations: Vec<&str> = crate::builtins::ALL
            .iter()
            .filter(|b| b.declaration.is_some())
            .map(|b| b.name)
            .collect();
        assert_eq!(
            declarations,
            ["declare", "export", "local", "readonly", "typeset"]
        );
    }

    #[test]
    fn help_and_type_come_from_the_registration() {
        let (status, out, _) = run("help cd; help true; type -t export");
        assert_eq!(status, 0);
        assert_eq!(
            out,
            "cd: cd [-L|-P] [dir]\n    Change the shell working directory.\n\
             true: true\n    Return a successful result.\n\
             builtin\n"
        );
        let (status, _, err) = run("help nosuch");
        assert_eq!(status, 1);
        assert!(err.contains("no help topics match `nosuch'"), "{err}");
    }

    #[test]
    fn declaration_builtins_take_assignments() {
        let (_, out, _) = run(
            "f() { local -a a=(1 2 3); echo ${#a[@]}; }; f; declare -A m=([k]=v); echo ${m[k]}",
        );
        assert_eq!(out, "3\nv\n");
    }
}
