//! Git from the command line and the shell: one repository in the workspace, used by
//! `computer git`, the isolate shell's `git`, and the real git in the container.

use std::process::Command;

use crate::Cli;
use crate::requirements::containers_here;

const IDENTITY: &str = "export GIT_AUTHOR_NAME=Ann GIT_AUTHOR_EMAIL=ann@example.com \
    GIT_COMMITTER_NAME=Ann GIT_COMMITTER_EMAIL=ann@example.com";

/// A repository on the host made by the real git, to clone from.
fn host_repo(dir: &std::path::Path) -> std::path::PathBuf {
    let repo = dir.join("upstream");
    std::fs::create_dir_all(&repo).unwrap();
    let ok = Command::new("sh")
        .args([
            "-c",
            "git init -q -b main . && echo hello > readme.md && mkdir src && echo 'fn main() {}' > src/main.rs \
             && git add -A && git -c user.name=U -c user.email=u@example.com commit -q -m init",
        ])
        .current_dir(&repo)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .status()
        .unwrap()
        .success();
    assert!(ok);
    repo
}

#[test]
fn cli_and_shell_share_one_repository() {
    let cli = Cli::new();
    let upstream = host_repo(cli.path("").as_path());
    // The CLI's user may clone from a host path.
    cli.ok(&[
        "git",
        "clone",
        &format!("file://{}", upstream.display()),
        "proj",
    ]);
    assert_eq!(cli.ok(&["fs", "cat", "proj/readme.md"]), "hello\n");
    // The shell's git works on the same repository, with git's output and exit codes.
    let script = format!(
        "{IDENTITY}; cd proj && echo more >> readme.md && git status --porcelain && git add readme.md \
         && git commit -q -m 'more words' && git log --oneline | wc -l && git diff HEAD~1 --stat; echo \"diff status $?\""
    );
    let out = cli.run(&["sh", "-c", &script]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        stdout,
        " M readme.md\n2\n readme.md | 1 +\n 1 file changed, 1 insertion(+)\ndiff status 0\n"
    );
    let log = cli.ok(&["git", "-C", "proj", "log", "--format=%an %s"]);
    assert_eq!(log, "Ann more words\nU init\n");
    assert_eq!(cli.ok(&["git", "-C", "proj", "status", "--porcelain"]), "");
    // Guests may not read the host's files through git.
    let out = cli.run(&[
        "sh",
        "-c",
        &format!("git clone file://{} stolen", upstream.display()),
    ]);
    assert_eq!(out.status.code(), Some(128));
    assert!(String::from_utf8_lossy(&out.stderr).contains("does not exist"));
    // Outside a repository: git's message and status.
    let out = cli.run(&["git", "status"]);
    assert_eq!(out.status.code(), Some(128));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("fatal: not a git repository"));
}

#[test]
fn the_container_git_and_the_isolate_git_read_each_others_commits() {
    if !containers_here() {
        return;
    }
    let cli = Cli::new();
    let script = format!(
        "{IDENTITY}; git init -q r && cd r && echo one > a.txt && git add a.txt && git commit -q -m 'from the isolate'"
    );
    let out = cli.run(&["sh", "-c", &script]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The real git in the container sees the isolate's commit, and a clean tree.
    let theirs = cli.ok(&[
        "exec",
        "--backend",
        "container",
        "cd /workspace/r && git log --format=%s && git status --porcelain && git fsck --strict 2>&1 | grep -v '^Checking' || true",
    ]);
    assert_eq!(theirs, "from the isolate\n");
    // A commit made by the container's git shows in the isolate's log, and the tree is clean.
    cli.ok(&[
        "exec",
        "--backend",
        "container",
        "cd /workspace/r && echo two > b.txt && git add b.txt && git -c user.name=Con -c user.email=c@example.com commit -q -m 'from the container'",
    ]);
    assert_eq!(
        cli.ok(&["git", "-C", "r", "log", "--format=%an %s"]),
        "Con from the container\nAnn from the isolate\n"
    );
    assert_eq!(cli.ok(&["sh", "-c", "cd r && git status --porcelain"]), "");
    // And back: the isolate commits on top, the container sees both.
    let script = format!("{IDENTITY}; cd r && echo three > a.txt && git commit -qam third");
    assert!(cli.run(&["sh", "-c", &script]).status.success());
    assert_eq!(
        cli.ok(&[
            "exec",
            "--backend",
            "container",
            "git -C /workspace/r log --format=%s"
        ]),
        "third\nfrom the container\nfrom the isolate\n"
    );
}

#[test]
fn git_as_agents_type_it_runs_in_the_isolate_alone() {
    let cli = Cli::new();
    // `computer exec --backend isolate -- git ARGS`: no container to fall back to.
    let git = |args: &[&str]| {
        let mut line = vec!["exec", "--backend", "isolate", "--", "git"];
        line.extend_from_slice(args);
        cli.run(&line)
    };
    cli.ok(&[
        "sh",
        "-c",
        "git init -q r && cd r && echo a > a.txt && git add -A",
    ]);
    // Options before the command (`-c`, `-C`).
    let out = git(&[
        "-C",
        "r",
        "-c",
        "user.name=Ag",
        "-c",
        "user.email=ag@example.com",
        "commit",
        "-qam",
        "first",
    ]);
    assert!(out.status.success(), "{out:?}");
    // A script from a file and on stdin, as well as -c.
    let script = "cd r && echo b >> a.txt && git -c user.name=Sc -c user.email=sc@example.com commit -qam second && git log -n 1 --format=%an\n";
    std::fs::write(cli.path("script.sh"), script).unwrap();
    assert_eq!(
        cli.ok(&["sh", cli.path("script.sh").to_str().unwrap()]),
        "Sc\n"
    );
    let out = cli.run_with_stdin(&["sh"], script.replace("second", "third").as_bytes());
    assert_eq!(String::from_utf8_lossy(&out.stdout), "Sc\n");
    let out = git(&["-C", "r", "log", "--format=%an %s"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "Sc third\nSc second\nAg first\n"
    );
    // What the isolate's git does not run names itself and the backend that has it.
    let out = git(&["-C", "r", "bisect", "start"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("'bisect' is not a command of the isolate's git")
            && err.contains("container backend"),
        "{err}"
    );
    let out = git(&["--git-dir=/etc", "status"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("does not take"));
}
