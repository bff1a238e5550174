//! Clones and fetches from real servers started here: `file://`, `git daemon`, smart HTTP
//! (`git http-backend` behind a CGI server); the result equals a native `git clone`.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use computer_git::{Git, Invocation, Output};
use computer_vfs::Vfs;

use crate::support::{self, real_git, run, sh};

fn ok(out: Output) -> String {
    assert_eq!(out.status, 0, "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn workspace() -> (Arc<Vfs>, Git) {
    let vfs = Arc::new(Vfs::in_memory().unwrap());
    vfs.create_dir_all("/workspace").unwrap();
    support::allow_loopback(&vfs);
    let git = Git::new(vfs.clone()).unwrap();
    (vfs, git)
}

/// Clones `url` with ours and natively; both trees and `log --oneline` must match, and the
/// clone's `.git`, exported to the host, must pass the real git's `fsck` and `status`.
fn clone_and_compare(url: &str, extra: &[&str], host_tmp: &Path) {
    let (vfs, git) = workspace();
    let git = git.with_host_paths(true);
    let mut args = vec!["clone", "-q"];
    args.extend(extra);
    args.extend([url, "copy"]);
    ok(run(&git, "/workspace", &args));
    let native = host_tmp.join(format!("native-{}", extra.join("").replace('-', "")));
    let mut native_args = vec!["clone", "-q"];
    native_args.extend(extra);
    let native_s = native.display().to_string();
    native_args.extend([url, native_s.as_str()]);
    let out = real_git(host_tmp, &native_args, &HashMap::new());
    assert_eq!(out.status, 0, "{}", String::from_utf8_lossy(&out.stderr));
    support::assert_same_tree(&vfs, Path::new("/workspace/copy"), &native);
    let ours_log = ok(run(
        &git,
        "/workspace/copy",
        &["log", "--oneline", "--all"].as_slice()[..2],
    ));
    let theirs_log = real_git(&native, &["log", "--oneline"], &HashMap::new());
    assert_eq!(ours_log.as_bytes(), theirs_log.stdout.as_slice());
    assert_eq!(
        ok(run(&git, "/workspace/copy", &["status", "--porcelain"])),
        ""
    );
    let status = ok(run(&git, "/workspace/copy", &["status"]));
    let native_status = real_git(&native, &["status"], &HashMap::new());
    assert_eq!(status.as_bytes(), native_status.stdout.as_slice());
    // The real git reads the repository we wrote.
    let exported = host_tmp.join(format!("exported-{}", extra.join("").replace('-', "")));
    export(&vfs, Path::new("/workspace/copy"), &exported);
    let fsck = real_git(&exported, &["fsck", "--strict"], &HashMap::new());
    assert_eq!(fsck.status, 0, "{}", String::from_utf8_lossy(&fsck.stderr));
    let porcelain = real_git(&exported, &["status", "--porcelain"], &HashMap::new());
    assert_eq!(String::from_utf8_lossy(&porcelain.stdout), "");
    let branch = real_git(
        &exported,
        &["rev-parse", "--abbrev-ref", "HEAD"],
        &HashMap::new(),
    );
    let native_branch = real_git(
        &native,
        &["rev-parse", "--abbrev-ref", "HEAD"],
        &HashMap::new(),
    );
    assert_eq!(branch.stdout, native_branch.stdout);
}

/// Copies a workspace tree to the host (content, modes, symlinks).
pub fn export(vfs: &Vfs, from: &Path, to: &Path) {
    use std::os::unix::fs::PermissionsExt;
    for entry in vfs.walk(from).unwrap() {
        let dest = to.join(entry.path.strip_prefix(from).unwrap());
        if entry.stat.is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
        } else if entry.stat.kind == computer_vfs::FileType::Symlink {
            std::os::unix::fs::symlink(vfs.read_link(&entry.path).unwrap(), &dest).unwrap();
        } else {
            std::fs::write(&dest, vfs.read_file(&entry.path).unwrap()).unwrap();
            std::fs::set_permissions(&dest, std::fs::Permissions::from_mode(entry.stat.perm))
                .unwrap();
        }
    }
}

#[test]
fn clone_from_file_url_matches_native_clone() {
    let tmp = tempfile::tempdir().unwrap();
    let src = support::source_repo(tmp.path());
    let url = format!("file://{}", src.display());
    clone_and_compare(&url, &[], tmp.path());
    clone_and_compare(&url, &["--depth", "1"], tmp.path());
    clone_and_compare(&url, &["--branch", "side"], tmp.path());
}

#[test]
fn clone_from_git_daemon_matches_native_clone() {
    let tmp = tempfile::tempdir().unwrap();
    support::served_repo(tmp.path());
    let (_daemon, port) = support::git_daemon(tmp.path());
    clone_and_compare(
        &format!("git://127.0.0.1:{port}/served.git"),
        &[],
        tmp.path(),
    );
    clone_and_compare(
        &format!("git://127.0.0.1:{port}/served.git"),
        &["-b", "v1"],
        tmp.path(),
    );
}

#[test]
fn clone_over_smart_http_matches_native_clone() {
    let tmp = tempfile::tempdir().unwrap();
    support::served_repo(tmp.path());
    let (_server, port) = support::git_http(tmp.path());
    let url = format!("http://127.0.0.1:{port}/cgi-bin/git/served.git");
    clone_and_compare(&url, &[], tmp.path());
    clone_and_compare(&url, &["--depth", "1"], tmp.path());
}

#[test]
fn fetch_and_pull_fast_forward() {
    let tmp = tempfile::tempdir().unwrap();
    let src = support::served_repo(tmp.path());
    let (_daemon, port) = support::git_daemon(tmp.path());
    let (vfs, git) = workspace();
    let url = format!("git://127.0.0.1:{port}/served.git");
    ok(run(&git, "/workspace", &["clone", "-q", &url, "copy"]));
    // A new commit upstream.
    sh(
        &src,
        &format!(
            "echo three >> top.txt && git commit -q -am third && git push -q {} master",
            tmp.path().join("served.git").display()
        ),
    );
    let status = ok(run(&git, "/workspace/copy", &["fetch"]));
    assert_eq!(status, "");
    assert_eq!(
        ok(run(&git, "/workspace/copy", &["status", "-sb"])),
        "## master...origin/master [behind 1]\n"
    );
    let pulled = ok(run(&git, "/workspace/copy", &["pull"]));
    assert!(pulled.contains("Fast-forward"), "{pulled}");
    assert_eq!(
        vfs.read_file("/workspace/copy/top.txt").unwrap(),
        b"top\ntwo\nthree\n"
    );
    let native_log = real_git(&src, &["log", "--oneline"], &HashMap::new());
    assert_eq!(
        ok(run(&git, "/workspace/copy", &["log", "--oneline"])).as_bytes(),
        native_log.stdout.as_slice()
    );
    assert_eq!(
        ok(run(&git, "/workspace/copy", &["status", "--porcelain"])),
        ""
    );
    // A remote branch checked out by name becomes a tracking branch, as with git.
    let out = run(&git, "/workspace/copy", &["checkout", "side"]);
    assert_eq!(out.status, 0, "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("set up to track 'origin/side'"));
    assert_eq!(
        ok(run(&git, "/workspace/copy", &["status", "-sb"])),
        "## side...origin/side\n"
    );
    assert_eq!(
        vfs.read_file("/workspace/copy/side.txt").unwrap(),
        b"side\n"
    );
    assert_eq!(
        ok(run(&git, "/workspace/copy", &["branch"])),
        "  master\n* side\n"
    );
}

#[test]
fn clone_within_the_workspace_and_host_paths_refused_by_default() {
    let tmp = tempfile::tempdir().unwrap();
    let src = support::source_repo(tmp.path());
    let (_vfs, git) = workspace();
    // A guest may not read the host's files.
    let refused = run(
        &git,
        "/workspace",
        &["clone", &format!("file://{}", src.display()), "x"],
    );
    assert_eq!(refused.status, 128);
    assert!(String::from_utf8_lossy(&refused.stderr).contains("does not exist"));
    // A repository inside the workspace clones fine.
    ok(run(&git, "/workspace", &["init", "-q", "first"]));
    let env = support::env(2);
    let inv = Invocation {
        cwd: Path::new("/workspace/first"),
        env: &env,
        progress: None,
        stop: None,
    };
    git.vfs()
        .write_file("/workspace/first/f.txt", "x\n")
        .unwrap();
    assert_eq!(git.run(&["add".into(), "f.txt".into()], &inv).status, 0);
    assert_eq!(
        git.run(&["commit".into(), "-qm".into(), "f".into()], &inv)
            .status,
        0
    );
    ok(run(&git, "/workspace", &["clone", "-q", "first", "second"]));
    // What the isolate's git would get wrong it refuses instead.
    for args in [
        &["commit", "-m", "x", "f.txt"][..],
        &["stash", "push", "f.txt"],
        &["status", "f.txt"],
    ] {
        let out = run(&git, "/workspace/first", args);
        assert_eq!(out.status, 128, "{args:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("not supported"),
            "{args:?}"
        );
    }
    assert_eq!(
        git.vfs().read_file("/workspace/second/f.txt").unwrap(),
        b"x\n"
    );
    assert_eq!(
        ok(run(&git, "/workspace/second", &["status", "--porcelain"])),
        ""
    );
}

#[test]
fn unreachable_and_garbage_remotes_fail_clearly() {
    let (vfs, git) = workspace();
    let closed = support::free_port();
    for url in [
        format!("git://127.0.0.1:{closed}/x.git"),
        format!("http://127.0.0.1:{closed}/x.git"),
    ] {
        let out = run(&git, "/workspace", &["clone", &url, "x"]);
        assert_eq!(out.status, 128, "{url}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("unable to access"), "{err}");
        assert!(
            !vfs.exists("/workspace/x").unwrap(),
            "nothing is left behind"
        );
    }
    // A server that answers garbage.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        use std::io::{Read, Write};
        for stream in listener.incoming().flatten().take(2) {
            let mut stream = stream;
            let mut buf = [0; 1024];
            let _ = stream.read(&mut buf);
            let _ = stream.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Length: 20\r\n\r\n\x00\x01garbage!garbage!\xff\xfe",
            );
        }
    });
    for url in [
        format!("http://127.0.0.1:{port}/x.git"),
        format!("git://127.0.0.1:{port}/x.git"),
    ] {
        let out = run(&git, "/workspace", &["clone", &url, "y"]);
        assert_eq!(out.status, 128, "{url}");
        assert!(!vfs.exists("/workspace/y").unwrap());
    }
    // A time limit that is hit says so.
    let slow = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = slow.local_addr().unwrap().port();
    let git = git.with_network_timeout(std::time::Duration::from_secs(1));
    let out = run(
        &git,
        "/workspace",
        &["clone", &format!("git://127.0.0.1:{port}/x.git"), "z"],
    );
    drop(slow);
    assert_eq!(out.status, 128);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("time limit"), "{err}");
}

/// A secret bound to the remote's host goes to it over https (as basic auth), for clone,
/// fetch and push; bound to no host of it, or over plain http, it is sent nowhere; it is
/// never written into the workspace. The server's certificate is refused until its CA is
/// trusted (`Git::with_ca_file`, `COMPUTER_CA_FILE`).
#[test]
fn a_secret_is_sent_by_the_host_over_https_and_never_stored() {
    let tmp = tempfile::tempdir().unwrap();
    support::served_repo(tmp.path());
    // python's CGI server runs git-http-backend as `nobody` when the tests run as root.
    sh(tmp.path(), "chmod -R a+rwX served.git");
    let (_server, port, cert) = support::git_https_with(tmp.path(), true);
    let url = format!("https://127.0.0.1:{port}/cgi-bin/git/served.git");
    let token = "tok-3141592653589793";
    let secret = |hosts: &[&str]| {
        let hosts: Vec<String> = hosts.iter().map(|h| h.to_string()).collect();
        computer_net::Secrets::new(vec![
            computer_net::Secret::new("GIT_TOKEN", token, &hosts, None, None).unwrap(),
        ])
        .unwrap()
    };
    let (vfs, git) = workspace();
    let git = git.with_secrets(secret(&["127.0.0.1"]));
    let out = run(&git, "/workspace", &["clone", "-q", &url, "untrusted"]);
    assert_eq!(out.status, 128, "a certificate nobody trusts was accepted");
    assert!(!vfs.exists("/workspace/untrusted").unwrap());
    // Trusted, but without the secret, or with one bound elsewhere: the server refuses.
    for hosts in [vec![], vec!["example.com"]] {
        let git = Git::new(vfs.clone()).unwrap().with_ca_file(&cert).unwrap();
        let git = if hosts.is_empty() {
            git
        } else {
            git.with_secrets(secret(&hosts))
        };
        let out = run(&git, "/workspace", &["clone", "-q", &url, "denied"]);
        assert_eq!(out.status, 128, "hosts {hosts:?}: the token was sent");
        assert!(!vfs.exists("/workspace/denied").unwrap());
    }
    // Bound to the remote's host: clone, fetch and push work.
    let git = git.with_ca_file(&cert).unwrap();
    ok(run(&git, "/workspace", &["clone", "-q", &url, "copy"]));
    assert_eq!(
        vfs.read_file("/workspace/copy/top.txt").unwrap(),
        b"top\ntwo\n"
    );
    ok(run(&git, "/workspace/copy", &["fetch"]));
    vfs.write_file("/workspace/copy/new.txt", "new\n").unwrap();
    ok(run(&git, "/workspace/copy", &["add", "new.txt"]));
    ok(run(
        &git,
        "/workspace/copy",
        &["commit", "-qm", "with a token"],
    ));
    let pushed = run(&git, "/workspace/copy", &["push"]);
    assert_eq!(
        pushed.status,
        0,
        "{}",
        String::from_utf8_lossy(&pushed.stderr)
    );
    let theirs = real_git(
        &tmp.path().join("served.git"),
        &["log", "--format=%s", "-1"],
        &HashMap::new(),
    );
    assert_eq!(String::from_utf8_lossy(&theirs.stdout), "with a token\n");
    // The token is nowhere in the workspace.
    for entry in vfs.walk("/").unwrap() {
        if entry.stat.is_file() {
            let data = vfs.read_file(&entry.path).unwrap();
            assert!(
                !data.windows(token.len()).any(|w| w == token.as_bytes()),
                "the token leaked into {}",
                entry.path.display()
            );
        }
    }
    // Over plain http the same secret is not sent.
    let (_plain, plain_port) = support::git_http_with(tmp.path(), true);
    let plain = format!("http://127.0.0.1:{plain_port}/cgi-bin/git/served.git");
    let out = run(&git, "/workspace", &["clone", "-q", &plain, "clear"]);
    assert_eq!(out.status, 128, "the token went over plain http");
    // A file that holds no certificate is a clear error.
    let err = Git::new(vfs.clone())
        .unwrap()
        .with_ca_file(&tmp.path().join("served.git/HEAD"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("CA file"), "{err}");
}

/// `git push` over `git://` and smart HTTP: the real git on the server side sees our commits,
/// its `fsck` passes, non-fast-forward pushes are refused unless forced, new branches get an
/// upstream with `-u`.
#[test]
fn push_over_git_daemon_and_http() {
    let tmp = tempfile::tempdir().unwrap();
    support::served_repo(tmp.path());
    // python's CGI server runs git-http-backend as `nobody` when the tests run as root.
    sh(tmp.path(), "chmod -R a+rwX served.git");
    let served = tmp.path().join("served.git");
    let (_daemon, port) = support::git_daemon(tmp.path());
    let (_http, http_port) = support::git_http(tmp.path());
    let (vfs, git) = workspace();
    for (i, url) in [
        format!("git://127.0.0.1:{port}/served.git"),
        format!("http://127.0.0.1:{http_port}/cgi-bin/git/served.git"),
    ]
    .iter()
    .enumerate()
    {
        let dir = format!("/workspace/c{i}");
        ok(run(&git, "/workspace", &["clone", "-q", url, &dir]));
        vfs.write_file(
            format!("{dir}/pushed{i}.txt"),
            format!("from the workspace {i}\n"),
        )
        .unwrap();
        ok(run(&git, &dir, &["add", "."]));
        ok(run(
            &git,
            &dir,
            &["commit", "-q", "-m", &format!("pushed {i}")],
        ));
        let out = run(&git, &dir, &["push"]);
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status, 0, "{err}");
        assert!(err.contains("master -> master"), "{err}");
        let theirs = real_git(
            &served,
            &["log", "--format=%s", "-1", "master"],
            &HashMap::new(),
        );
        assert_eq!(
            String::from_utf8_lossy(&theirs.stdout),
            format!("pushed {i}\n")
        );
        let fsck = real_git(&served, &["fsck", "--strict"], &HashMap::new());
        assert_eq!(fsck.status, 0, "{}", String::from_utf8_lossy(&fsck.stderr));
        // Our remote-tracking branch moved with it.
        assert_eq!(
            ok(run(&git, &dir, &["status", "-sb"])),
            "## master...origin/master\n"
        );
        // Nothing more to push.
        let again = run(&git, &dir, &["push"]);
        assert_eq!(
            String::from_utf8_lossy(&again.stderr),
            "Everything up-to-date\n"
        );
    }
    // c0 is now behind (c1 pushed on top): its next push is refused, then forced.
    let dir = "/workspace/c0";
    vfs.write_file("/workspace/c0/late.txt", "late\n").unwrap();
    ok(run(&git, dir, &["add", "late.txt"]));
    ok(run(&git, dir, &["commit", "-q", "-m", "late"]));
    let refused = run(&git, dir, &["push"]);
    assert_eq!(refused.status, 1);
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(
        err.contains("! [rejected]") && err.contains("failed to push some refs"),
        "{err}"
    );
    let forced = run(&git, dir, &["push", "--force"]);
    assert_eq!(
        forced.status,
        0,
        "{}",
        String::from_utf8_lossy(&forced.stderr)
    );
    assert!(String::from_utf8_lossy(&forced.stderr).contains("(forced update)"));
    let theirs = real_git(
        &served,
        &["log", "--format=%s", "-1", "master"],
        &HashMap::new(),
    );
    assert_eq!(String::from_utf8_lossy(&theirs.stdout), "late\n");
    // A new branch with an upstream.
    ok(run(&git, dir, &["checkout", "-q", "-b", "feature"]));
    let out = run(&git, dir, &["push"]);
    assert_eq!(out.status, 128);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("git push --set-upstream origin feature")
    );
    let out = run(&git, dir, &["push", "-u", "origin", "feature"]);
    assert_eq!(out.status, 0, "{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("* [new branch]      feature -> feature")
    );
    assert_eq!(
        ok(run(&git, dir, &["status", "-sb"])),
        "## feature...origin/feature\n"
    );
    let theirs = real_git(
        &served,
        &["rev-parse", "feature", "master"],
        &HashMap::new(),
    );
    let ours = ok(run(&git, dir, &["rev-parse", "feature", "master"]));
    assert_eq!(String::from_utf8_lossy(&theirs.stdout), ours);
}

/// Pushing to a repository inside the workspace: objects copied, the ref moved; the branch
/// checked out there is refused, as git refuses it.
#[test]
fn push_to_a_repository_in_the_workspace() {
    let (vfs, git) = workspace();
    ok(run(&git, "/workspace", &["init", "-q", "a"]));
    vfs.write_file("/workspace/a/f.txt", "one\n").unwrap();
    ok(run(&git, "/workspace/a", &["add", "f.txt"]));
    ok(run(&git, "/workspace/a", &["commit", "-q", "-m", "one"]));
    ok(run(&git, "/workspace", &["clone", "-q", "a", "b"]));
    vfs.write_file("/workspace/b/f.txt", "two\n").unwrap();
    ok(run(&git, "/workspace/b", &["commit", "-q", "-am", "two"]));
    let refused = run(&git, "/workspace/b", &["push"]);
    assert_eq!(refused.status, 1);
    assert!(String::from_utf8_lossy(&refused.stderr).contains("branch is currently checked out"));
    let out = run(&git, "/workspace/b", &["push", "origin", "master:incoming"]);
    assert_eq!(out.status, 0, "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        ok(run(
            &git,
            "/workspace/a",
            &["log", "--format=%s", "incoming"]
        )),
        "two\none\n"
    );
    assert_eq!(
        ok(run(&git, "/workspace/a", &["show", "incoming:f.txt"])),
        "two\n"
    );
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn set_policy(vfs: &Vfs, text: &str) {
    let policy = computer_net::Policy::from_text(text).unwrap();
    computer_net::save_policy(vfs, &policy).unwrap();
}

/// A guest's git reaches only what the workspace's network policy allows: nothing by
/// default, the listed port only, not with a method the rule leaves out; every attempt is in
/// the audit log. The host's own user (`with_egress(None)`) is not held.
#[test]
fn the_network_policy_holds_git() {
    let tmp = tempfile::tempdir().unwrap();
    support::served_repo(tmp.path());
    sh(tmp.path(), "chmod -R a+rwX served.git");
    let (_daemon, port) = support::git_daemon(tmp.path());
    let url = format!("git://127.0.0.1:{port}/served.git");
    let vfs = Arc::new(Vfs::in_memory().unwrap());
    vfs.create_dir_all("/workspace").unwrap();
    let git = Git::new(vfs.clone()).unwrap();
    let out = run(&git, "/workspace", &["clone", "-q", &url, "c"]);
    assert_eq!(out.status, 128);
    assert!(
        stderr(&out).contains("network policy allows nothing"),
        "{}",
        stderr(&out)
    );
    assert!(
        !vfs.exists("/workspace/c").unwrap(),
        "a refused clone leaves nothing"
    );
    let log = vfs.audit_log(0, 10).unwrap();
    assert_eq!(log.len(), 1);
    assert_eq!(
        (log[0].origin.as_str(), log[0].tool.as_str()),
        ("git", "net")
    );
    assert!(log[0].error.is_some());
    // Another port of the same host stays closed; the listed one opens.
    set_policy(&vfs, &format!("allow git://127.0.0.1:{}", port + 1));
    assert_eq!(
        run(&git, "/workspace", &["clone", "-q", &url, "c"]).status,
        128
    );
    set_policy(&vfs, &format!("allow git://127.0.0.1:{port} GET"));
    ok(run(&git, "/workspace", &["clone", "-q", &url, "c"]));
    ok(run(&git, "/workspace/c", &["fetch", "-q"]));
    // Pushing is a POST, which the rule does not allow.
    vfs.write_file("/workspace/c/new.txt", "x\n").unwrap();
    ok(run(&git, "/workspace/c", &["add", "."]));
    ok(run(&git, "/workspace/c", &["commit", "-q", "-m", "new"]));
    let out = run(&git, "/workspace/c", &["push"]);
    assert_eq!(out.status, 128, "{}", stderr(&out));
    assert!(stderr(&out).contains("POST"), "{}", stderr(&out));
    // The host's user is not held by the guest's policy.
    set_policy(&vfs, "");
    let free = Git::new(vfs.clone()).unwrap().with_egress(None);
    ok(run(&free, "/workspace", &["clone", "-q", &url, "d"]));
}

/// A name is resolved once, on the host, by the policy's resolver, and the connection goes
/// to that checked address: `docs.test` resolves nowhere else, so these clones work only
/// through the pinned address. A wildcard rule does not open a loopback address.
#[test]
fn git_connects_to_the_address_the_policy_checked() {
    let tmp = tempfile::tempdir().unwrap();
    support::served_repo(tmp.path());
    let (_daemon, port) = support::git_daemon(tmp.path());
    let (_http, http_port) = support::git_http(tmp.path());
    let vfs = Arc::new(Vfs::in_memory().unwrap());
    vfs.create_dir_all("/workspace").unwrap();
    let names = computer_net::StaticResolver::new([("docs.test", "127.0.0.1".parse().unwrap())]);
    let egress = computer_net::Egress::new(vfs.clone(), "git").with_resolver(Arc::new(names));
    let git = Git::new(vfs.clone()).unwrap().with_egress(Some(egress));
    let daemon = format!("git://docs.test:{port}/served.git");
    let http = format!("http://docs.test:{http_port}/cgi-bin/git/served.git");
    set_policy(&vfs, "allow git://*.test:*\nallow http://*.test:*");
    for url in [&daemon, &http] {
        let out = run(&git, "/workspace", &["clone", "-q", url, "x"]);
        assert_eq!(out.status, 128);
        assert!(stderr(&out).contains("127.0.0.0/8"), "{}", stderr(&out));
    }
    set_policy(
        &vfs,
        &format!("allow git://docs.test:{port}\nallow http://docs.test:{http_port}"),
    );
    ok(run(&git, "/workspace", &["clone", "-q", &daemon, "a"]));
    ok(run(&git, "/workspace", &["clone", "-q", &http, "b"]));
    ok(run(&git, "/workspace/b", &["fetch", "-q"]));
    assert_eq!(
        vfs.read_file("/workspace/b/top.txt").unwrap(),
        b"top\ntwo\n"
    );
}

/// A redirect from an allowed server is not followed: the policy has not seen its target,
/// which never gets a connection.
#[test]
fn git_follows_no_redirect_past_the_policy() {
    use std::io::{Read, Write};
    let target = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let target_port = target.local_addr().unwrap().port();
    target.set_nonblocking(true).unwrap();
    let redirector = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = redirector.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in redirector.incoming().take(4) {
            let Ok(mut stream) = stream else { return };
            let mut buf = [0u8; 4096];
            let _ = stream.read(&mut buf);
            let _ = write!(
                stream,
                "HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:{target_port}/r.git/info/refs?service=git-upload-pack\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            );
        }
    });
    let (vfs, git) = workspace();
    set_policy(&vfs, &format!("allow http://127.0.0.1:{port}"));
    let out = run(
        &git,
        "/workspace",
        &[
            "clone",
            "-q",
            &format!("http://127.0.0.1:{port}/r.git"),
            "x",
        ],
    );
    assert_eq!(out.status, 128);
    assert!(
        matches!(target.accept(), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock),
        "the redirect's target was reached"
    );
}
