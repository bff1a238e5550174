//! computer-git against the native git CLI on ext4, in one run: cloning a generated
//! repository of 10,000 files (100 directories, three commits) over `file://`, and
//! `status` on that clone (warm: the second and later runs), median of 5 each. Our clone
//! lands in a workspace file in the same temporary directory. `cargo bench -p computer-git`.

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use computer_git::{Git, Invocation};
use computer_vfs::Vfs;

const RUNS: usize = 5;
const FILES: usize = 10_000;

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .env("GIT_AUTHOR_NAME", "B")
        .env("GIT_AUTHOR_EMAIL", "b@example.com")
        .env("GIT_COMMITTER_NAME", "B")
        .env("GIT_COMMITTER_EMAIL", "b@example.com")
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// 10,000 files of a few hundred bytes in 100 directories, in three commits.
fn make_repo(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    git(dir, &["init", "-q", "-b", "main", "."]);
    for commit in 0..3 {
        for i in 0..FILES {
            if commit > 0 && i % 7 != commit {
                continue;
            }
            let sub = dir.join(format!("d{:02}", i % 100));
            std::fs::create_dir_all(&sub).unwrap();
            let body = format!("file {i} version {commit}\n{}\n", "x".repeat(200 + i % 300));
            std::fs::write(sub.join(format!("f{i}.txt")), body).unwrap();
        }
        git(dir, &["add", "-A"]);
        git(dir, &["commit", "-q", "-m", &format!("commit {commit}")]);
    }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

fn main() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    make_repo(&src);
    let url = format!("file://{}", src.display());
    let env = HashMap::new();

    // Clone: native onto ext4, ours into a fresh workspace file.
    let mut native = Vec::new();
    let mut ours = Vec::new();
    for run in 0..RUNS {
        let dest = tmp.path().join(format!("native{run}"));
        let start = Instant::now();
        git(
            tmp.path(),
            &["clone", "-q", &url, &dest.display().to_string()],
        );
        native.push(start.elapsed());

        let file = tmp.path().join(format!("ws{run}.db"));
        let vfs = Arc::new(Vfs::open(&file).unwrap());
        vfs.create_dir_all("/workspace").unwrap();
        let ours_git = Git::new(vfs).unwrap().with_host_paths(true);
        let start = Instant::now();
        let out = ours_git.run(
            &["clone".into(), "-q".into(), url.clone(), "c".into()],
            &Invocation {
                cwd: Path::new("/workspace"),
                env: &env,
                progress: None,
                stop: None,
            },
        );
        ours.push(start.elapsed());
        assert_eq!(out.status, 0, "{}", String::from_utf8_lossy(&out.stderr));
    }
    let (n, o) = (median(native), median(ours));
    println!(
        "clone of {FILES} files (3 commits), file://: native {}, computer-git {}, ratio {:.2}x",
        ms(n),
        ms(o),
        o.as_secs_f64() / n.as_secs_f64()
    );

    // Status on the clone: warm (caches filled by a first run), nothing changed.
    let native_dir = tmp.path().join("native0");
    git(&native_dir, &["status", "--porcelain"]);
    let mut native = Vec::new();
    for _ in 0..RUNS {
        let start = Instant::now();
        git(&native_dir, &["status", "--porcelain"]);
        native.push(start.elapsed());
    }
    let vfs = Arc::new(Vfs::open(tmp.path().join("ws0.db")).unwrap());
    let ours_git = Git::new(vfs).unwrap();
    let status = || {
        ours_git.run(
            &["status".into(), "--porcelain".into()],
            &Invocation {
                cwd: Path::new("/workspace/c"),
                env: &env,
                progress: None,
                stop: None,
            },
        )
    };
    assert_eq!(status().stdout, b"");
    let mut ours = Vec::new();
    for _ in 0..RUNS {
        let start = Instant::now();
        let out = status();
        ours.push(start.elapsed());
        assert_eq!(out.stdout, b"", "a clean clone");
    }
    let (n, o) = (median(native), median(ours));
    println!(
        "status --porcelain on {FILES} files (warm): native {}, computer-git {}, ratio {:.2}x",
        ms(n),
        ms(o),
        o.as_secs_f64() / n.as_secs_f64()
    );
}
