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
    assert!(stdout.starts_with(" M readme.md\n2\n"), "{stdout}");
    // `--stat` is not implemented here: a usage error, and without a container it says so.
    assert!(
        stdout.contains("diff status 1") || stdout.contains("diff status 129"),
        "{stdout}"
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
