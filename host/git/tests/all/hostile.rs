//! Hostile repositories: trees with `..` or `.git` components, a symlink with a path through
//! it, an absolute symlink, and a blob beyond the workspace's file size limit. Each clone
//! either succeeds harmlessly or fails with a clear error and leaves nothing behind.

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;

use computer_git::{Git, Invocation, Output};
use computer_vfs::Vfs;

use crate::support::{self, run, sh};

/// Writes an object with `git hash-object --literally` (no validation) and returns its id.
fn object(repo: &Path, kind: &str, data: &[u8]) -> String {
    let mut child = Command::new("git")
        .args(["hash-object", "-t", kind, "-w", "--literally", "--stdin"])
        .current_dir(repo)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(data).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// A raw tree from (mode, name, id) entries, in the order given.
fn tree(repo: &Path, entries: &[(&str, &[u8], &str)]) -> String {
    let mut data = Vec::new();
    for (mode, name, id) in entries {
        data.extend_from_slice(mode.as_bytes());
        data.push(b' ');
        data.extend_from_slice(name);
        data.push(0);
        for i in 0..20 {
            data.push(u8::from_str_radix(&id[2 * i..2 * i + 2], 16).unwrap());
        }
    }
    object(repo, "tree", &data)
}

/// A repository on the host whose `master` has the tree `root`.
fn repo_with_tree(dir: &Path, build: impl FnOnce(&Path) -> String) -> String {
    std::fs::create_dir_all(dir).unwrap();
    sh(dir, "git init -q -b master .");
    let root = build(dir);
    let out = Command::new("git")
        .args(["commit-tree", &root, "-m", "hostile"])
        .current_dir(dir)
        .envs(support::env(0))
        .output()
        .unwrap();
    let commit = String::from_utf8(out.stdout).unwrap().trim().to_string();
    sh(dir, &format!("git update-ref refs/heads/master {commit}"));
    format!("file://{}", dir.display())
}

fn clone(vfs: &Arc<Vfs>, url: &str) -> Output {
    let git = Git::new(vfs.clone()).unwrap().with_host_paths(true);
    git.run(
        &["clone".into(), url.into(), "x".into()],
        &Invocation {
            cwd: Path::new("/workspace"),
            env: &HashMap::new(),
            progress: None,
            stop: None,
        },
    )
}

fn workspace() -> Arc<Vfs> {
    let vfs = Arc::new(Vfs::in_memory().unwrap());
    vfs.create_dir_all("/workspace").unwrap();
    crate::support::allow_loopback(&vfs);
    vfs
}

#[test]
fn dot_dot_and_dot_git_components_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    for (i, bad) in [&b".."[..], b".git", b".GIT", b"."].into_iter().enumerate() {
        let url = repo_with_tree(&tmp.path().join(format!("r{i}")), |dir| {
            let blob = object(dir, "blob", b"[core]\n\tfsmonitor = evil\n");
            let inner = tree(dir, &[("100644", b"config", &blob)]);
            tree(dir, &[("40000", bad, &inner), ("100644", b"ok.txt", &blob)])
        });
        let vfs = workspace();
        let out = clone(&vfs, &url);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status, 128, "{}: {err}", String::from_utf8_lossy(bad));
        assert!(err.contains("invalid path"), "{err}");
        assert!(!vfs.exists("/workspace/x").unwrap(), "nothing is left");
        assert!(!vfs.exists("/workspace/config").unwrap());
        assert!(!vfs.exists("/config").unwrap());
    }
}

#[test]
fn paths_through_a_symlink_are_refused_and_absolute_symlinks_stay_links() {
    let tmp = tempfile::tempdir().unwrap();
    // `dir` is both a symlink to /tmp and a directory with a file: the file must not land in
    // /tmp through the link.
    let url = repo_with_tree(&tmp.path().join("through"), |dir| {
        let blob = object(dir, "blob", b"owned\n");
        let target = object(dir, "blob", b"/tmp");
        let inner = tree(dir, &[("100644", b"evil", &blob)]);
        tree(
            dir,
            &[("120000", b"dir", &target), ("40000", b"dir", &inner)],
        )
    });
    let vfs = workspace();
    vfs.create_dir_all("/tmp").unwrap();
    let out = clone(&vfs, &url);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status, 128, "{err}");
    assert!(err.contains("beyond a symbolic link"), "{err}");
    assert!(!vfs.exists("/tmp/evil").unwrap());
    assert!(!vfs.exists("/workspace/x").unwrap());

    // An absolute symlink alone is checked out as a link (git does the same), not followed.
    let url = repo_with_tree(&tmp.path().join("absolute"), |dir| {
        let target = object(dir, "blob", b"/etc/passwd");
        tree(dir, &[("120000", b"passwd", &target)])
    });
    let vfs = workspace();
    let out = clone(&vfs, &url);
    assert_eq!(out.status, 0, "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        vfs.read_link("/workspace/x/passwd").unwrap(),
        Path::new("/etc/passwd")
    );
}

#[test]
fn a_blob_beyond_the_file_size_limit_fails_the_clone_cleanly() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("big");
    std::fs::create_dir_all(&src).unwrap();
    sh(
        &src,
        "git init -q -b master . && head -c 3000000 /dev/zero | tr '\\0' a > big.bin \
         && echo small > small.txt && git add -A && git commit -q -m big",
    );
    let vfs = workspace();
    vfs.set_max_file_size(1 << 20).unwrap();
    let out = clone(&vfs, &format!("file://{}", src.display()));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status, 128, "{err}");
    assert!(err.contains("File too large"), "{err}");
    assert!(!vfs.exists("/workspace/x").unwrap());
}

/// A workspace with an empty repository at /workspace/r.
fn repository() -> (Arc<Vfs>, Git) {
    let vfs = workspace();
    let git = Git::new(vfs.clone()).unwrap();
    vfs.create_dir_all("/workspace/r").unwrap();
    let out = run(&git, "/workspace/r", &["init", "-q"]);
    assert_eq!(out.status, 0, "{}", String::from_utf8_lossy(&out.stderr));
    (vfs, git)
}

#[test]
fn symlinks_in_dot_git_never_reach_the_host() {
    let tmp = tempfile::tempdir().unwrap();
    let secret = tmp.path().join("secret");
    std::fs::write(&secret, "[secret]\n\tkey = host-secret-value\n").unwrap();
    let created = tmp.path().join("created-by-guest");
    let (vfs, git) = repository();
    for (name, target) in [
        ("config", secret.clone()),
        ("config", created.clone()),
        ("objects", tmp.path().to_path_buf()),
        ("refs", tmp.path().to_path_buf()),
        ("packed-refs", secret.clone()),
        ("HEAD", secret.clone()),
    ] {
        let link = format!("/workspace/r/.git/{name}");
        let saved = format!("/workspace/saved-{name}");
        let had = vfs.rename(&link, &saved).is_ok();
        vfs.symlink(&target, &link).unwrap();
        for args in [
            &["config", "--list"][..],
            &["config", "a.b", "guest-text"],
            &["status"],
        ] {
            let out = run(&git, "/workspace/r", args);
            let (stdout, stderr) = (
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr),
            );
            assert_eq!(out.status, 128, "{name} -> {}: {args:?}", target.display());
            assert!(stderr.contains("symbolic link"), "{stderr}");
            assert!(!stdout.contains("host-secret"), "{stdout}");
        }
        assert!(!created.exists(), "a host file was created through {name}");
        assert_eq!(
            std::fs::read_to_string(&secret).unwrap(),
            "[secret]\n\tkey = host-secret-value\n"
        );
        vfs.remove_all(&link).unwrap();
        if had {
            vfs.rename(&saved, &link).unwrap();
        }
    }
    // A `.git` that is itself a link (here to a host path) is refused the same way.
    vfs.create_dir_all("/workspace/s").unwrap();
    vfs.symlink(tmp.path(), "/workspace/s/.git").unwrap();
    let out = run(&git, "/workspace/s", &["status"]);
    assert_ne!(out.status, 0);
    // And the repository still works once the links are gone.
    let out = run(&git, "/workspace/r", &["status"]);
    assert_eq!(out.status, 0, "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn alternates_and_commondir_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let other = tmp.path().join("other");
    std::fs::create_dir_all(&other).unwrap();
    sh(
        &other,
        "git init -q -b master . && echo private > p.txt && git add p.txt && git commit -qm private",
    );
    let objects = other.join(".git/objects").display().to_string();
    let (vfs, git) = repository();
    for (file, text) in [
        ("objects/info/alternates", objects.clone()),
        ("objects/info/http-alternates", objects.clone()),
        ("commondir", other.join(".git").display().to_string()),
    ] {
        let path = format!("/workspace/r/.git/{file}");
        vfs.create_dir_all("/workspace/r/.git/objects/info")
            .unwrap();
        vfs.write_file(&path, format!("{text}\n")).unwrap();
        let head = sh_out(&other, "git rev-parse HEAD");
        let out = run(&git, "/workspace/r", &["show", head.trim()]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status, 128, "{file}: {stderr}");
        assert!(stderr.contains("refused inside .git"), "{stderr}");
        assert!(!String::from_utf8_lossy(&out.stdout).contains("private"));
        vfs.remove_all(&path).unwrap();
    }
}

#[test]
fn repository_config_runs_no_program_and_reads_no_host_file() {
    let tmp = tempfile::tempdir().unwrap();
    support::served_repo(tmp.path());
    let (_server, port) = support::git_http_with(tmp.path(), true);
    let marker = tmp.path().join("ran");
    let script = tmp.path().join("askpass.sh");
    std::fs::write(
        &script,
        format!("#!/bin/sh\necho pwned > {}\necho x\n", marker.display()),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let (vfs, git) = repository();
    let url = format!("http://127.0.0.1:{port}/cgi-bin/git/served.git");
    let config = format!(
        "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\taskPass = {s}\n\
         \tsshCommand = {s}\n\tworktree = /\n[credential]\n\thelper = !{s}\n\
         [include]\n\tpath = {secret}\n[remote \"origin\"]\n\turl = {url}\n\
         \tfetch = +refs/heads/*:refs/remotes/origin/*\n",
        s = script.display(),
        secret = tmp.path().join("served.git/config").display(),
    );
    vfs.write_file("/workspace/r/.git/config", &config).unwrap();
    // The remote answers 401: nothing asks a helper, askpass or a terminal.
    let out = run(&git, "/workspace/r", &["fetch"]);
    assert_eq!(out.status, 128, "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!marker.exists(), "a program named by the repository ran");
    // The keys the host ignores stay in the workspace's config, for the container's git,
    // after an operation that rewrote the host copy's config.
    let out = run(
        &git,
        "/workspace/r",
        &["remote", "add", "up", "/workspace/up"],
    );
    assert_eq!(out.status, 0, "{}", String::from_utf8_lossy(&out.stderr));
    let saved = String::from_utf8(vfs.read_file("/workspace/r/.git/config").unwrap()).unwrap();
    assert!(saved.contains("/workspace/up"), "{saved}");
    assert!(saved.contains("helper"), "{saved}");
    assert!(
        saved.contains("askPass") || saved.contains("askpass"),
        "{saved}"
    );
    // `git config` shows what the host applies: no include was followed.
    let out = run(&git, "/workspace/r", &["config", "--list"]);
    let listed = String::from_utf8_lossy(&out.stdout);
    assert!(listed.contains("remote.origin.url"), "{listed}");
    assert!(!listed.contains("credential"), "{listed}");
    assert!(!listed.contains("receivepack"), "{listed}");
    assert!(!marker.exists());
}

fn sh_out(dir: &Path, script: &str) -> String {
    let out = Command::new("sh")
        .args(["-c", script])
        .current_dir(dir)
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap()
}

/// A server that accepts and never answers: the caller's own stop (its command's deadline,
/// or a cancel) ends the clone long before the network time limit, and says why.
#[test]
fn network_work_stops_with_the_callers_command() {
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = silent.local_addr().unwrap().port();
    let vfs = workspace();
    let git = Git::new(vfs.clone()).unwrap();
    let started = std::time::Instant::now();
    let stop = move || started.elapsed() > std::time::Duration::from_millis(500);
    let args: Vec<String> = ["clone", &format!("git://127.0.0.1:{port}/x.git"), "x"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let out = git.run(
        &args,
        &Invocation {
            cwd: Path::new("/workspace"),
            env: &HashMap::new(),
            progress: None,
            stop: Some(&stop),
        },
    );
    drop(silent);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status, 128, "{err}");
    assert!(err.contains("stopped"), "{err}");
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
    assert!(!vfs.exists("/workspace/x").unwrap());
}

/// `git ARGS` run by computer-git in `cwd` with exactly the environment `env`.
fn run_with(git: &Git, cwd: &str, args: &[&str], env: &[(&str, &str)]) -> Output {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let env: HashMap<String, String> = env
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    git.run(
        &args,
        &Invocation {
            cwd: Path::new(cwd),
            env: &env,
            progress: None,
            stop: None,
        },
    )
}

#[test]
fn settings_on_the_command_line_are_the_guests_and_held_to_the_allowlist() {
    let host = tempfile::tempdir().unwrap();
    // A host file an `include.path` would read in.
    let leak = host.path().join("leak.conf");
    std::fs::write(&leak, "[user]\n\tname = From The Host\n").unwrap();
    let vfs = Arc::new(Vfs::in_memory().unwrap());
    vfs.create_dir_all("/workspace/r").unwrap();
    crate::support::allow_loopback(&vfs);
    let git = Git::new(vfs.clone()).unwrap();
    let ok = |out: &Output| {
        assert_eq!(out.status, 0, "{}", String::from_utf8_lossy(&out.stderr));
    };
    ok(&run_with(&git, "/workspace/r", &["init", "-q"], &[]));
    vfs.write_file("/workspace/r/a.txt", "a\n").unwrap();
    ok(&run_with(&git, "/workspace/r", &["add", "-A"], &[]));
    // Identity from `-c`, with no identity in the environment.
    let include = format!("include.path={}", leak.display());
    ok(&run_with(
        &git,
        "/workspace/r",
        &[
            "-c",
            &include,
            "-c",
            "credential.helper=!touch /tmp/computer-pwned",
            "-c",
            "user.name=Agent",
            "-c",
            "user.email=agent@example.com",
            "commit",
            "-qm",
            "one",
        ],
        &[],
    ));
    let log = run_with(
        &git,
        "/workspace/r",
        &["log", "--format=%an <%ae>|%cn"],
        &[],
    );
    assert_eq!(
        String::from_utf8_lossy(&log.stdout),
        "Agent <agent@example.com>|Agent\n"
    );
    // The same through GIT_CONFIG_PARAMETERS, as git hands `-c` on; the include is left out
    // (it would have named the author "From The Host").
    vfs.write_file("/workspace/r/a.txt", "b\n").unwrap();
    let params = format!("'{include}' 'user.name'='Other' 'user.email'='o@example.com'");
    ok(&run_with(
        &git,
        "/workspace/r",
        &["commit", "-qam", "two"],
        &[("GIT_CONFIG_PARAMETERS", params.as_str())],
    ));
    let log = run_with(
        &git,
        "/workspace/r",
        &["log", "-1", "--format=%an <%ae>"],
        &[],
    );
    assert_eq!(
        String::from_utf8_lossy(&log.stdout),
        "Other <o@example.com>\n"
    );
    assert!(!Path::new("/tmp/computer-pwned").exists());
    // An option before the command that this git does not take is refused, not ignored.
    let out = run_with(&git, "/workspace/r", &["--git-dir=/etc", "status"], &[]);
    assert_ne!(out.status, 0);
    assert!(computer_git::supports_line(&[
        "-c".into(),
        "a=b".into(),
        "status".into()
    ]));
    assert!(!computer_git::supports_line(&[
        "--git-dir=/etc".into(),
        "status".into()
    ]));
    // No command: this git answers with its usage.
    assert!(computer_git::supports_line(&[]));
    assert!(!computer_git::supports_line(&[
        "-C".into(),
        "x".into(),
        "bisect".into()
    ]));
}
