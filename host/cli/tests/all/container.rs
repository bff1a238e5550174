//! The container backend from the command line, against the real Docker engine: `auto`
//! sends what the shell does not have to the container (a pipeline mixes both), and
//! `--backend container` runs there outright. Outside CI a machine without Docker skips
//! with the reason printed; in CI these must run.

use crate::Cli;
use crate::requirements::containers_here;

#[test]
fn auto_runs_native_programs_in_the_container_beside_the_shell() {
    if !containers_here() {
        return;
    }
    let cli = Cli::new();
    let out = cli.run_with_stdin(&["fs", "write", "data.csv"], b"a,1\nb,2\nc,3\n");
    assert!(out.status.success());
    let script =
        "import sys\nfor line in sys.stdin:\n    k, v = line.strip().split(',')\n    print(v, k)\n";
    let out = cli.run_with_stdin(&["fs", "write", "script.py"], script.as_bytes());
    assert!(out.status.success());
    // The default image (built here on first use if missing) has python3.
    let out = cli.run(&["exec", "python3 -c 'print(6*7)'"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "42\n",
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A pipeline: the shell's cat, python3 in the container, the shell's sort.
    let out = cli.run(&["sh", "-c", "cat data.csv | python3 script.py | sort -r"]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "3 c\n2 b\n1 a\n");
    // What neither has is "command not found", as bash says it.
    let out = cli.run(&["sh", "-c", "no-such-program-anywhere"]);
    assert_eq!(out.status.code(), Some(127));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "computer: line 1: no-such-program-anywhere: command not found\n"
    );
    // The whole command in the container: files it writes are in the workspace.
    cli.ok(&["fs", "mkdir", "sub"]);
    let out = cli.run(&[
        "exec",
        "--backend",
        "container",
        "--cwd",
        "sub",
        "--env",
        "WHO=container",
        "git init -q . && echo \"$WHO $(pwd)\" > who.txt",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        cli.ok(&["fs", "cat", "sub/who.txt"]),
        "container /workspace/sub\n"
    );
    assert!(cli.ok(&["fs", "ls", "sub/.git"]).contains("HEAD"));
    // A time limit kills the command, says so, and the status is timeout's.
    let out = cli.run(&[
        "exec",
        "--backend",
        "container",
        "--timeout",
        "1",
        "sleep 20",
    ]);
    assert_eq!(out.status.code(), Some(124));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("time limit"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn copy_mode_runs_the_container_without_a_mount() {
    if !containers_here() {
        return;
    }
    let cli = Cli::new();
    let copy = |args: &[&str]| {
        cli.command(args)
            .env("COMPUTER_CONTAINER_TRANSFER", "copy")
            .output()
            .unwrap()
    };
    cli.ok(&["fs", "mkdir", "r"]);
    let out = cli.run_with_stdin(&["fs", "write", "r/data.txt"], b"from the workspace\n");
    assert!(out.status.success());
    // python3 and git in the container; what they write comes back; no FUSE mount there.
    let out = copy(&[
        "exec",
        "--backend",
        "container",
        "--cwd",
        "r",
        "git init -q . && python3 -c \"open('x.py','w').write(open('data.txt').read().upper())\" \
         && grep ' /workspace ' /proc/self/mountinfo | grep -c fuse || true",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "0\n");
    assert_eq!(cli.ok(&["fs", "cat", "r/x.py"]), "FROM THE WORKSPACE\n");
    assert!(cli.ok(&["fs", "ls", "r/.git"]).contains("HEAD"));
    // The workspace's git sees the repository the container made.
    assert_eq!(
        cli.ok(&["git", "-C", "r", "status", "--porcelain"]),
        "?? data.txt\n?? x.py\n"
    );
    // A bad setting is named.
    let out = cli
        .command(&["exec", "--backend", "container", "true"])
        .env("COMPUTER_CONTAINER_TRANSFER", "teleport")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("COMPUTER_CONTAINER_TRANSFER") && said.contains("teleport"),
        "{said}"
    );
}
