//! Tests of the `computer` binary as a user runs it: real workspace files, real host folders.

mod cluster;
mod container;
mod git;
mod mcp;
#[path = "../../../bucket/tests/support/moto.rs"]
mod moto;
mod mount;
mod net;
mod python;
#[path = "../../../container/tests/support/requirements.rs"]
mod requirements;
mod serve;
mod sqlite3;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// Runs `computer` in `dir` with a workspace file there.
struct Cli {
    dir: tempfile::TempDir,
}

impl Cli {
    fn new() -> Cli {
        Cli {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_computer"));
        cmd.current_dir(self.dir.path())
            .env_remove("COMPUTER_WORKSPACE")
            .env_remove("COMPUTER_SECRETS")
            .env_remove("COMPUTER_GIT_TOKEN")
            .args(args);
        cmd
    }

    fn run_with_stdin(&self, args: &[&str], stdin: &[u8]) -> Output {
        finish(self.command(args), stdin)
    }

    fn run(&self, args: &[&str]) -> Output {
        self.run_with_stdin(args, b"")
    }

    /// Runs and expects success; returns stdout.
    fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "computer {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    /// Runs and expects failure; returns stderr.
    fn fails(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(!out.status.success(), "computer {args:?} should fail");
        String::from_utf8(out.stderr).unwrap()
    }
}

/// Runs `cmd` to its end with `stdin` on its standard input; the CLI must not panic.
fn finish(mut cmd: Command, stdin: &[u8]) -> Output {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A command that fails before it reads its input closes the pipe: that is not an error.
    if let Err(e) = child.stdin.take().unwrap().write_all(stdin) {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
    }
    let out = child.wait_with_output().unwrap();
    assert_no_panic(&out);
    out
}

/// The CLI itself never panics (a guest component may, and says so on its stderr).
/// `diff -r` finds no difference.
fn assert_same_tree(a: &Path, b: &Path) {
    let diff = Command::new("diff")
        .arg("-r")
        .arg(a)
        .arg(b)
        .output()
        .unwrap();
    assert!(
        diff.status.success(),
        "{}",
        String::from_utf8_lossy(&diff.stdout)
    );
}

fn assert_no_panic(out: &Output) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    let ours = stderr
        .lines()
        .any(|l| l.contains("panicked at") && !l.contains("test-programs/"));
    assert!(!ours, "{stderr}");
}

#[test]
fn default_workspace_is_created_in_dot_computer() {
    let cli = Cli::new();
    cli.ok(&["fs", "ls"]);
    assert!(cli.path(".computer/workspace.db").is_file());
}

#[test]
fn write_cat_ls_and_relative_paths() {
    let cli = Cli::new();
    let out = cli.run_with_stdin(&["fs", "write", "notes.md"], b"# hi\n");
    assert!(out.status.success());
    assert_eq!(cli.ok(&["fs", "cat", "/workspace/notes.md"]), "# hi\n");
    cli.ok(&["fs", "mkdir", "-p", "src/deep"]);
    assert_eq!(cli.ok(&["fs", "ls"]), "notes.md\nsrc\n");
    let long = cli.ok(&["fs", "ls", "-l", "/workspace"]);
    assert!(
        long.contains("-rw-r--r--   1     0     0          5 "),
        "{long}"
    );
    assert!(
        long.lines().nth(1).unwrap().starts_with("drwxr-xr-x"),
        "{long}"
    );
    let out = cli.run_with_stdin(&["fs", "write", "-a", "notes.md"], b"more\n");
    assert!(out.status.success());
    assert_eq!(cli.ok(&["fs", "cat", "notes.md"]), "# hi\nmore\n");
}

#[test]
fn mv_cp_rm_tree_and_stat() {
    let cli = Cli::new();
    cli.run_with_stdin(&["fs", "write", "a.txt"], b"A");
    cli.ok(&["fs", "mkdir", "d"]);
    cli.ok(&["fs", "mv", "a.txt", "d"]);
    cli.ok(&["fs", "cp", "d/a.txt", "b.txt"]);
    assert!(
        cli.fails(&["fs", "cp", "d", "e"])
            .contains("-r not specified")
    );
    cli.ok(&["fs", "cp", "-r", "d", "e"]);
    assert_eq!(
        cli.ok(&["fs", "tree"]),
        "/workspace\n├── b.txt\n├── d\n│   └── a.txt\n└── e\n    └── a.txt\n\n2 directories, 3 files\n"
    );
    let stat = cli.ok(&["fs", "stat", "e/a.txt"]);
    assert!(stat.contains("  File: /workspace/e/a.txt\n"), "{stat}");
    assert!(stat.contains("Size: 1 "), "{stat}");
    assert!(stat.contains("regular file"), "{stat}");
    assert!(stat.contains("Access: (0644/-rw-r--r--)"), "{stat}");
    assert!(
        cli.fails(&["fs", "rm", "d"])
            .contains("rm /workspace/d: Is a directory")
    );
    cli.ok(&["fs", "rm", "-r", "d", "e"]);
    cli.ok(&["fs", "rm", "-f", "does-not-exist"]);
    assert_eq!(cli.ok(&["fs", "ls"]), "b.txt\n");
}

#[test]
fn errors_are_one_clear_line() {
    let cli = Cli::new();
    assert_eq!(
        cli.fails(&["fs", "cat", "/x"]),
        "computer: cat /x: No such file or directory\n"
    );
    assert_eq!(
        cli.fails(&["fs", "mkdir", "/workspace"]),
        "computer: mkdir /workspace: File exists\n"
    );
    let long = "n".repeat(300);
    assert_eq!(
        cli.fails(&["fs", "mkdir", &long]),
        format!("computer: mkdir /workspace/{long}: File name too long\n")
    );
    // A cause the message names already is not said twice.
    let out = cli.path("out");
    assert_eq!(
        cli.fails(&["export", "/workspace/nope", out.to_str().unwrap()]),
        "computer: export /workspace/nope: /workspace/nope: No such file or directory\n"
    );
    assert_eq!(
        cli.fails(&["import", "/nonexistent/folder"]),
        "computer: import /nonexistent/folder: /nonexistent/folder: No such file or directory \
         (os error 2)\n"
    );
    std::fs::write(
        cli.path("junk.db"),
        b"not sqlite at all, certainly not a workspace",
    )
    .unwrap();
    assert_eq!(
        cli.fails(&["--workspace", "junk.db", "fs", "ls"]),
        "computer: open workspace junk.db: not a computer workspace (file is not a database)\n"
    );
    let usage = cli.run(&["fs", "frobnicate"]);
    assert_eq!(usage.status.code(), Some(2));
}

#[test]
fn workspace_from_env_and_memory_mode() {
    let cli = Cli::new();
    let out = cli
        .command(&["fs", "mkdir", "from-env"])
        .env("COMPUTER_WORKSPACE", cli.path("env.db"))
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(cli.path("env.db").is_file());
    assert_eq!(cli.ok(&["--workspace", "env.db", "fs", "ls"]), "from-env\n");
    cli.ok(&["--memory", "fs", "mkdir", "gone"]);
    assert_eq!(cli.ok(&["--memory", "fs", "ls"]), "");
    assert!(!cli.path(".computer").exists());
}

#[test]
fn import_export_round_trip_of_this_repository() {
    let cli = Cli::new();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let src = src.to_str().unwrap();
    let out = cli.ok(&["import", src]);
    assert!(
        out.starts_with("imported ") && out.contains(" into /workspace/host "),
        "{out}"
    );
    let exported = cli.path("out");
    cli.ok(&["export", "host", exported.to_str().unwrap()]);
    assert_same_tree(Path::new(src), &exported);
    // An archive, and back into another folder of the workspace.
    let tar = cli.path("host.tar.gz");
    cli.ok(&["export", "host", tar.to_str().unwrap()]);
    cli.ok(&["import", tar.to_str().unwrap(), "/workspace/again"]);
    let again = cli.path("again");
    cli.ok(&["export", "again", again.to_str().unwrap()]);
    assert_same_tree(Path::new(src), &again);
    assert!(
        cli.fails(&["import", "/nonexistent/folder"])
            .contains("No such file or directory")
    );
}

#[test]
fn compact_gives_the_space_of_deleted_files_back() {
    let cli = Cli::new();
    // 4 MB that do not repeat (repeated chunks would be stored once).
    let mut x: u32 = 1;
    let big: Vec<u8> = (0..4_000_000)
        .map(|_| {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (x >> 24) as u8
        })
        .collect();
    cli.run_with_stdin(&["fs", "write", "big"], &big);
    cli.run_with_stdin(&["fs", "write", "small"], b"kept");
    cli.ok(&["fs", "rm", "big"]);
    let file = cli.path(".computer/workspace.db");
    let before = std::fs::metadata(&file).unwrap().len();
    let said = cli.ok(&["compact"]);
    assert!(said.starts_with("compacted: "), "{said}");
    let after = std::fs::metadata(&file).unwrap().len();
    assert!(after < before / 4, "{before} -> {after}");
    assert_eq!(cli.ok(&["fs", "cat", "small"]), "kept");
}

#[test]
fn snapshots_from_the_command_line() {
    let cli = Cli::new();
    cli.run_with_stdin(&["fs", "write", "f"], b"v1");
    assert!(
        cli.ok(&["snapshot", "create", "one"])
            .starts_with("created snapshot one")
    );
    cli.run_with_stdin(&["fs", "write", "f"], b"v2");
    let list = cli.ok(&["snapshot", "list"]);
    assert!(
        list.starts_with("NAME") && list.lines().nth(1).unwrap().starts_with("one "),
        "{list}"
    );
    cli.ok(&["snapshot", "fork", "one", "fork.db"]);
    cli.ok(&["snapshot", "restore", "one"]);
    assert_eq!(cli.ok(&["fs", "cat", "f"]), "v1");
    assert_eq!(cli.ok(&["--workspace", "fork.db", "fs", "cat", "f"]), "v1");
    assert!(
        cli.fails(&["snapshot", "create", "one"])
            .contains("exists already")
    );
    cli.ok(&["snapshot", "delete", "one"]);
    assert_eq!(
        cli.fails(&["snapshot", "restore", "one"]),
        "computer: snapshot restore one: no snapshot named \"one\"\n"
    );
    assert!(
        cli.fails(&["snapshot", "fork", "x", "fork.db"])
            .contains("File exists")
    );
}

#[test]
fn a_closed_pipe_is_not_an_error() {
    let cli = Cli::new();
    cli.run_with_stdin(&["fs", "write", "big"], &vec![b'x'; 4 << 20]);
    let mut child = cli
        .command(&["fs", "cat", "big"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take()); // the reader goes away at once
    let out = child.wait_with_output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

/// Writes a test component to a host file in the test's folder.
fn component(cli: &Cli, name: &str, bytes: &[u8]) -> String {
    let path = cli.path(name);
    std::fs::write(&path, bytes).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn run_a_component_against_the_workspace_and_see_its_files_at_once() {
    let cli = Cli::new();
    let wasm = component(&cli, "lines.wasm", computer_components::RUST_HELLO);
    cli.ok(&["fs", "mkdir", "-p", "data"]);
    cli.run_with_stdin(&["fs", "write", "data/a.txt"], b"1\n2\n3\n");
    let out = cli.ok(&["run", &wasm, "--", "/workspace/data"]);
    assert!(out.contains("     3 a.txt\n"), "{out}");
    // Written by the guest, read by the CLI at once.
    assert_eq!(cli.ok(&["fs", "cat", "data/LINES.txt"]), "     3 a.txt\n");
}

#[test]
fn run_passes_args_env_cwd_stdin_and_the_exit_status() {
    let cli = Cli::new();
    let wasm = component(&cli, "echo.wasm", computer_components::STDIO_ENV);
    cli.ok(&["fs", "mkdir", "sub"]);
    let out = cli.run_with_stdin(
        &[
            "run", &wasm, "--env", "K=v", "--cwd", "sub", "--", "a", "b c",
        ],
        b"from stdin",
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains(r#"args: ["echo", "a", "b c"]"#), "{stdout}");
    assert!(stdout.contains(r#"("K", "v")"#), "{stdout}");
    assert!(stdout.contains(r#"cwd: Ok("/workspace/sub")"#), "{stdout}");
    assert!(stdout.contains(r#"stdin: "from stdin""#), "{stdout}");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "to stderr\n");
    assert_eq!(
        cli.ok(&["fs", "cat", "sub/relative.txt"]),
        "written relative to cwd"
    );
    let failing = cli
        .command(&["run", &wasm, "--env", "EXIT_CODE=3"])
        .output()
        .unwrap();
    assert_eq!(
        failing.status.code(),
        Some(1),
        "WASI 0.2 exit carries failure as 1"
    );
}

#[test]
fn run_names_the_limit_that_stopped_a_component() {
    let cli = Cli::new();
    let wasm = component(&cli, "loop.wasm", computer_components::HOSTILE_LOOP);
    let out = cli.run(&["run", &wasm, "--timeout", "0.3"]);
    assert_eq!(out.status.code(), Some(124));
    assert!(String::from_utf8_lossy(&out.stderr).ends_with(": time limit of 0.300 s exceeded\n"));
    let wasm = component(&cli, "mem.wasm", computer_components::HOSTILE_MEMORY);
    let out = cli.run(&["run", &wasm, "--memory-limit", "48"]);
    assert_eq!(out.status.code(), Some(137));
    assert!(String::from_utf8_lossy(&out.stderr).ends_with(": memory limit of 48 MiB exceeded\n"));
    std::fs::write(cli.path("bad.wasm"), b"definitely not wasm").unwrap();
    let err = cli.fails(&["run", "bad.wasm"]);
    assert_eq!(
        err,
        "computer: run bad.wasm: invalid component: not a WebAssembly binary (no \\0asm header)\n"
    );
    assert!(
        cli.fails(&["run", "missing.wasm"])
            .contains("No such file or directory")
    );
}

#[test]
fn exec_runs_workspace_components_and_reports_unknown_commands() {
    let cli = Cli::new();
    cli.ok(&["fs", "mkdir", "tools"]);
    cli.run_with_stdin(
        &["fs", "write", "tools/echo.wasm"],
        computer_components::STDIO_ENV,
    );
    let out = cli.run_with_stdin(
        &["exec", "--backend", "isolate", "--", "tools/echo.wasm", "x"],
        b"in",
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(
        stdout.contains(r#"args: ["tools/echo.wasm", "x"]"#),
        "{stdout}"
    );
    assert!(stdout.contains(r#"stdin: "in""#), "{stdout}");
    let out = cli.run(&["exec", "--backend", "isolate", "--", "python3", "-V"]);
    assert_eq!(out.status.code(), Some(127));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "computer: line 1: python3: command not found\n"
    );
    let out = cli.run(&[
        "exec",
        "--backend",
        "isolate",
        "x=$((6*7)); echo \"$x\" | cat",
    ]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "42\n");
}

#[test]
fn sh_runs_bash_in_the_workspace_with_its_exit_status() {
    let cli = Cli::new();
    let out = cli.run(&["sh", "-c", "echo hi > f.txt; cat f.txt | cat; exit 7"]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "hi\n");
    assert_eq!(
        out.status.code(),
        Some(7),
        "the shell's status passes through whole"
    );
    assert_eq!(cli.ok(&["fs", "cat", "f.txt"]), "hi\n");
    let out = cli.run_with_stdin(
        &["sh", "-c", "read line; echo \"got $line\"", "name"],
        b"input\n",
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "got input\n");
    let out = cli.run_with_stdin(&["sh"], b"echo from stdin; nosuch");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "from stdin\n");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "computer: line 1: nosuch: command not found\n"
    );
    assert_eq!(out.status.code(), Some(127));
    std::fs::write(cli.path("script.sh"), "echo \"$0 $1\"\n").unwrap();
    assert_eq!(
        cli.ok(&["sh", cli.path("script.sh").to_str().unwrap(), "arg"])
            .trim_end()
            .rsplit('/')
            .next(),
        Some("script.sh arg")
    );
    // The three ways a script arrives end differently, as in bash: an unbound variable under
    // `set -u` ends `-c` with 127, a script file or one on stdin with 1 (`$-` shows `c`/`s`).
    let script = "echo $-; set -u; echo $nope; echo never";
    std::fs::write(cli.path("unbound.sh"), script).unwrap();
    let file = cli.path("unbound.sh").to_str().unwrap().to_string();
    for (args, stdin, flags, status, name) in [
        (vec!["sh", "-c", script], &b""[..], "hBc", 127, "computer"),
        (vec!["sh", &file], b"", "hB", 1, &file),
        (vec!["sh"], script.as_bytes(), "hBs", 1, "computer"),
    ] {
        let out = cli.run_with_stdin(&args, stdin);
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            format!("{flags}\n"),
            "{args:?}"
        );
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            format!("{name}: line 1: nope: unbound variable\n"),
            "{args:?}"
        );
        assert_eq!(out.status.code(), Some(status), "{args:?}");
    }
}

#[test]
fn a_cache_dir_that_cannot_be_used_is_named_and_the_next_one_serves() {
    let cli = Cli::new();
    let out = cli
        .command(&["--memory", "sh", "-c", "echo ok"])
        .env("COMPUTER_CACHE_DIR", "relative/cache")
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "ok\n");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("computer: COMPUTER_CACHE_DIR=relative/cache cannot be used"),
        "{stderr}"
    );
    assert!(!cli.path("relative").exists());
}

#[test]
fn sh_on_a_terminal_is_an_interactive_shell_with_a_session() {
    // `script` (util-linux) gives the shell a pseudo-terminal, as a user's would be.
    let cli = Cli::new();
    let computer = env!("CARGO_BIN_EXE_computer");
    let mut child = Command::new("script")
        .args(["-qec", &format!("{computer} sh"), "/dev/null"])
        .current_dir(cli.dir.path())
        .env_remove("COMPUTER_WORKSPACE")
        .env("HOME", cli.dir.path())
        // No terminal emulator answers rustyline's queries here: its plain line mode.
        .env("TERM", "dumb")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("script(1) from util-linux");
    let input = "x=5\nmkdir -p /tmp/t; cd /tmp/t\nf() {\necho \"in f: $x $PWD\"\n}\nf\nexit 3\n";
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let screen = String::from_utf8_lossy(&out.stdout);
    assert!(screen.contains("computer:/workspace$ "), "{screen}");
    assert!(
        screen.contains("computer:/tmp/t$ "),
        "the prompt follows cd: {screen}"
    );
    assert!(
        screen.contains("> "),
        "an unfinished function asks for more: {screen}"
    );
    assert!(screen.contains("in f: 5 /tmp/t"), "{screen}");
    assert_eq!(out.status.code(), Some(3), "{screen}");
    let history = std::fs::read_to_string(cli.path(".computer_history")).unwrap();
    assert!(history.contains("exit 3"), "{history}");
}
