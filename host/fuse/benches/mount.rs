//! The FUSE mount against ext4 on the same machine, in one run: the operations Cloudflare's
//! sandbox reports for its FUSE store (stat, mkdir, find and rm of trees, git init, a shallow
//! clone of a local repository, write/read/copy of 64 MiB, extracting a large source
//! tarball) and a second read of the 64 MiB file, each run by bash in a fresh directory of
//! each target; median of 3. The targets: an ext4
//! directory, a tmpfs one (/dev/shm, as Cloudflare compares), the mount. Beside them, when
//! `bindfs` is installed, the same directory of ext4 through bindfs (a C FUSE passthrough,
//! `--multithreaded`): what FUSE itself costs on this machine, with no store behind it. Needs
//! root and /dev/fuse. `cargo bench -p computer-fuse --bench mount`; `BENCH_ONLY=read` runs
//! the operations whose name contains `read`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use computer_fuse::{Mount, MountOptions};
use computer_vfs::Vfs;

const RUNS: usize = 3;

/// One measured operation: `setup` (not timed), then `timed`, both bash in the run directory.
struct Op {
    name: &'static str,
    setup: &'static str,
    /// Drop the kernel's caches between setup and the timed part (a cold read).
    cold: bool,
    timed: &'static str,
}

const TREE: &str = "for a in {0..9}; do for b in {0..9}; do mkdir -p t/$a/$b/{0..9}; done; done";
const FILES: &str = "for i in $(seq 1000); do echo $i > f$i; done";

fn ops() -> Vec<Op> {
    vec![
        Op {
            name: "mkdir a tree (1,110 directories)",
            setup: "",
            cold: false,
            timed: TREE,
        },
        Op {
            name: "create 1,000 small files",
            setup: "",
            cold: false,
            timed: FILES,
        },
        Op {
            name: "rm 1,000 small files",
            setup: FILES,
            cold: false,
            timed: "rm f*",
        },
        Op {
            name: "stat 1,000 files (FUSE caches expired)",
            setup: "for i in $(seq 1000); do echo $i > f$i; done; sleep 1.2",
            cold: false,
            timed: "stat -c %s f* > /dev/null",
        },
        Op {
            name: "find in a tree (1,110 directories, 1,000 files)",
            setup: "for a in {0..9}; do for b in {0..9}; do mkdir -p t/$a/$b/{0..9}; touch t/$a/$b/{0..9}/f; done; done; sleep 1.2",
            cold: false,
            timed: "find t -name f | wc -l > /dev/null",
        },
        Op {
            name: "ls -lR a tree (1,110 directories, 1,000 files)",
            setup: "for a in {0..9}; do for b in {0..9}; do mkdir -p t/$a/$b/{0..9}; touch t/$a/$b/{0..9}/f; done; done; sleep 1.2",
            cold: false,
            timed: "ls -lR t > /dev/null",
        },
        Op {
            name: "rm -rf a tree (1,110 directories, 1,000 files)",
            setup: "for a in {0..9}; do for b in {0..9}; do mkdir -p t/$a/$b/{0..9}; touch t/$a/$b/{0..9}/f; done; done",
            cold: false,
            timed: "rm -rf t",
        },
        Op {
            name: "git init, add and commit 100 files",
            setup: "for i in $(seq 100); do echo $i > f$i; done",
            cold: false,
            timed: "git init -q . && git add -A && git -c user.email=b@e -c user.name=b commit -qm m",
        },
        Op {
            name: "git status of 1,000 committed files",
            setup: "for i in $(seq 1000); do echo $i > f$i; done; git init -q . && git add -A && git -c user.email=b@e -c user.name=b commit -qm m; sleep 1.2",
            cold: false,
            timed: "git status --porcelain > /dev/null",
        },
        Op {
            name: "shallow clone of a local repository (this one)",
            setup: "",
            cold: false,
            timed: "git clone -q --depth 1 \"file://$REPO\" c",
        },
        Op {
            name: "write 64 MiB (cp from /dev/shm, then fsync)",
            setup: "",
            cold: false,
            timed: "cp \"$RANDOM_FILE\" big && sync big",
        },
        Op {
            name: "read 64 MiB (cold caches)",
            setup: "cp \"$RANDOM_FILE\" big && sync big",
            cold: true,
            timed: "cat big > /dev/null",
        },
        Op {
            name: "read 64 MiB again (read once before)",
            // The pause lets the invalidator pass over the write first (it drops the pages
            // of a file changed since it last looked, the mount's own writes included).
            setup: "cp \"$RANDOM_FILE\" big && sync big && sleep 0.3 && cat big > /dev/null",
            cold: false,
            timed: "cat big > /dev/null",
        },
        Op {
            name: "copy 64 MiB (then fsync)",
            setup: "cp \"$RANDOM_FILE\" big && sync big",
            cold: false,
            timed: "cp big big2 && sync big2",
        },
        Op {
            name: "extract a source tarball (TARBALL)",
            setup: "",
            cold: false,
            timed: "tar xf \"$TARBALL\"",
        },
    ]
}

fn bash(dir: &Path, script: &str, env: &[(&str, String)]) {
    let status = Command::new("bash")
        .args(["-c", &format!("set -e; {script}")])
        .current_dir(dir)
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .status()
        .expect("bash");
    assert!(status.success(), "failed in {}: {script}", dir.display());
}

fn drop_caches() -> bool {
    Command::new("sh")
        .args(["-c", "sync && echo 3 > /proc/sys/vm/drop_caches"])
        .status()
        .is_ok_and(|s| s.success())
}

fn measure(base: &Path, op: &Op, run: usize, env: &[(&str, String)]) -> Duration {
    let dir = base.join(format!("run-{}-{run}", op.name.len()));
    std::fs::create_dir(&dir).unwrap();
    if !op.setup.is_empty() {
        bash(&dir, op.setup, env);
    }
    if op.cold {
        drop_caches();
    }
    let start = Instant::now();
    bash(&dir, op.timed, env);
    let took = start.elapsed();
    // Cleared between runs so that targets do not fill up (not timed).
    bash(base, &format!("rm -rf {}", dir.display()), env);
    took
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// A tarball of a large source tree: aws-lc-sys from the cargo registry (a dependency of the
/// bucket crate, so present once the workspace has been built), or this repository.
fn make_tarball(scratch: &Path, repo: &Path) -> (PathBuf, String) {
    let tarball = scratch.join("src.tar");
    let registry = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .map(|c| c.join("registry/src"));
    let aws_lc = registry
        .and_then(|r| std::fs::read_dir(r).ok())
        .into_iter()
        .flatten()
        .flatten()
        .flat_map(|index| {
            std::fs::read_dir(index.path())
                .into_iter()
                .flatten()
                .flatten()
        })
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("aws-lc-sys-"))
        });
    let (dir, name) = match aws_lc {
        Some(p) => (
            p.clone(),
            p.file_name().unwrap().to_string_lossy().into_owned(),
        ),
        None => (repo.to_path_buf(), "this repository".to_string()),
    };
    let out = Command::new("tar")
        .arg("cf")
        .arg(&tarball)
        .arg("-C")
        .arg(dir.parent().unwrap())
        .arg(dir.file_name().unwrap())
        .status()
        .unwrap();
    assert!(out.success());
    let files = Command::new("sh")
        .arg("-c")
        .arg(format!("tar tf {} | grep -vc '/$'", tarball.display()))
        .output()
        .unwrap();
    let size = std::fs::metadata(&tarball).unwrap().len();
    let label = format!(
        "{name}, {} files, {} MiB",
        String::from_utf8_lossy(&files.stdout).trim(),
        size >> 20
    );
    (tarball, label)
}

fn main() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap();
    let scratch = tempfile::tempdir_in("/dev/shm").unwrap();
    let random_file = scratch.path().join("random");
    bash(
        scratch.path(),
        &format!("head -c 64M /dev/urandom > {}", random_file.display()),
        &[],
    );
    let (tarball, tarball_label) = make_tarball(scratch.path(), &repo);

    // ext4: a directory beside the workspace file, on the same disk.
    let disk = tempfile::tempdir_in(std::env::temp_dir()).unwrap();
    let ext4 = disk.path().join("ext4");
    std::fs::create_dir(&ext4).unwrap();
    let vfs = Arc::new(Vfs::open(disk.path().join("ws.db")).unwrap());
    let mountpoint = disk.path().join("mnt");
    std::fs::create_dir(&mountpoint).unwrap();
    // A 1 s TTL (the default is 60 s), so that the rows that wait it out measure the mount
    // answering from the store rather than the kernel answering from its caches.
    let options = MountOptions {
        ttl: Duration::from_secs(1),
        ..MountOptions::default()
    };
    let mount = Mount::new(vfs, &mountpoint, &options).expect("mount (needs root and /dev/fuse)");
    let env = [
        ("REPO", repo.display().to_string()),
        ("RANDOM_FILE", random_file.display().to_string()),
        ("TARBALL", tarball.display().to_string()),
    ];
    if !drop_caches() {
        println!("(cannot drop caches here: the cold read is warm)");
    }
    let bindfs = bindfs_mount(disk.path());
    if bindfs.is_none() {
        println!("(bindfs is not installed: no FUSE floor column; apt-get install bindfs)");
    }
    // tmpfs: what Cloudflare compares its FUSE store with.
    let tmpfs = scratch.path().join("tmpfs");
    std::fs::create_dir(&tmpfs).unwrap();
    println!(
        "| operation | ext4 | tmpfs | FUSE mount | ÷ ext4 | ÷ tmpfs | bindfs over ext4 | mount ÷ bindfs |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    // BENCH_ONLY=read runs the operations whose name contains it.
    let only = std::env::var("BENCH_ONLY").unwrap_or_default();
    for op in ops()
        .into_iter()
        .filter(|op| op.name.contains(only.as_str()))
    {
        let mut times: [Vec<Duration>; 4] = Default::default();
        for run in 0..RUNS {
            times[0].push(measure(&ext4, &op, run, &env));
            times[1].push(measure(&tmpfs, &op, run, &env));
            times[2].push(measure(mount.mountpoint(), &op, run, &env));
            if let Some(dir) = &bindfs {
                times[3].push(measure(dir, &op, run, &env));
            }
        }
        let [n, t, f, b] = times.map(|v| (!v.is_empty()).then(|| ms(median(v))));
        let (n, t, f) = (n.unwrap(), t.unwrap(), f.unwrap());
        let name = op.name.replace("TARBALL", &tarball_label);
        let floor = match b {
            Some(b) => format!("| {b:.1} ms | {:.2}× |", f / b),
            None => "| – | – |".to_string(),
        };
        println!(
            "| {name} | {n:.1} ms | {t:.1} ms | {f:.1} ms | {:.2}× | {:.2}× {floor}",
            f / n,
            f / t
        );
    }
    mount.unmount().unwrap();
    if let Some(dir) = bindfs {
        let _ = Command::new("umount").arg(&dir).status();
    }
}

/// An ext4 directory under `base` shown through bindfs at another one (returned), if bindfs
/// is installed.
fn bindfs_mount(base: &Path) -> Option<PathBuf> {
    let (source, shown) = (base.join("bindfs-source"), base.join("bindfs"));
    std::fs::create_dir(&source).ok()?;
    std::fs::create_dir(&shown).ok()?;
    let mounted = Command::new("bindfs")
        .arg("--multithreaded")
        .arg(&source)
        .arg(&shown)
        .status()
        .is_ok_and(|s| s.success());
    mounted.then_some(shown)
}
