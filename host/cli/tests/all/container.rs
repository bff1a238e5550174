//! The container backend from the command line, against the real Docker engine: `auto`
//! sends what the shell does not have to the container (a pipeline mixes both), and
//! `--backend container` runs there outright. Outside CI a machine without Docker skips
//! with the reason printed; in CI these must run.

use crate::Cli;

/// Whether Docker, FUSE and the default image (present, or debootstrap to build it) are
/// here; in CI they must be.
fn docker_available() -> bool {
    let docker = std::env::var_os("DOCKER_HOST").is_some()
        || std::path::Path::new("/var/run/docker.sock").exists();
    let image = std::process::Command::new("docker")
        .args(["image", "inspect", computer::containers::DEFAULT_IMAGE])
        .output()
        .is_ok_and(|o| o.status.success())
        || std::process::Command::new("debootstrap")
            .arg("--version")
            .output()
            .is_ok();
    let why = if !docker {
        "no Docker engine here"
    } else if !std::path::Path::new("/dev/fuse").exists()
        || !std::fs::read_to_string("/proc/self/status")
            .is_ok_and(|s| s.lines().any(|l| l.starts_with("Uid:\t0\t")))
    {
        "no /dev/fuse here, or not root (FUSE mounts need it)"
    } else if !image {
        "no default image and no debootstrap to build it"
    } else {
        return true;
    };
    assert!(std::env::var_os("CI").is_none(), "CI needs this: {why}");
    println!("skipped: {why}");
    false
}

#[test]
fn auto_runs_native_programs_in_the_container_beside_the_shell() {
    if !docker_available() {
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
