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

use crate::support::{self, sh};

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
        },
    )
}

fn workspace() -> Arc<Vfs> {
    let vfs = Arc::new(Vfs::in_memory().unwrap());
    vfs.create_dir_all("/workspace").unwrap();
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
