//! A real workload in the container, as Cloudflare measures `npm install` on its mount
//! (issue 25, part 5): `python3 -m venv`, `pip install --no-index` of wheels kept in the
//! workspace (numpy, pandas, requests, pytest and their dependencies), `pytest` of a small
//! project that imports them, a `git clone` and `git status` of a repository of 10,000
//! files, and removing what was made; each step timed inside the container by bash.
//!
//! Four places, each run in turn, in one run: the workspace's FUSE mount at `/workspace` of
//! our container; the same container's `/tmp` (a tmpfs); an ext4 directory of the host bound
//! into a reference container of the same image with the same limits and hardening (made
//! with the `docker` CLI, not by us); and, as the floor of what any FUSE file system costs
//! here, the same ext4 directory through bindfs (a C FUSE passthrough, Debian's `bindfs`;
//! left out when it is not installed) bound into a second reference container. The
//! workspace file and the ext4 directory are on the same disk. Median of `BENCH_RUNS`
//! (default 3).
//!
//! Needs root, /dev/fuse, the Docker engine and its CLI, `debootstrap` (the image
//! `computer-bench-python:bookworm`, the default packages plus python3-venv and python3-pip,
//! is built once), git and python3 with pip on the host: the wheels are downloaded once
//! (for CPython 3.11 on manylinux, bookworm's) into `COMPUTER_BENCH_WHEELS` (default
//! `$TMPDIR/computer-bench-wheels`), and the repository is made by git.
//! `cargo bench -p computer-container --bench workload`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use computer_container::{
    Command, ContainerConfig, DEFAULT_PACKAGES, Engine, Limits, Sandbox, Transfer,
};
use computer_vfs::Vfs;

const IMAGE: &str = "computer-bench-python:bookworm";
const EXTRA_PACKAGES: [&str; 2] = ["python3-venv", "python3-pip"];
const WHEELS: [&str; 4] = ["numpy", "pandas", "requests", "pytest"];
const STEPS: [&str; 6] = [
    "python3 -m venv",
    "pip install numpy pandas requests pytest",
    "pytest (100 tests)",
    "git clone (10,000 files)",
    "git status",
    "rm -rf venv and clone",
];

/// The timed part, run by bash with `SEED` (what to start from) and `DIR` (where to work):
/// one line per step, its name's index and microseconds.
const SCRIPT: &str = r#"set -eu
export PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
rm -rf "$DIR"; mkdir -p "$DIR"; cp -r "$SEED"/. "$DIR"/; cd "$DIR"
n=0
step() {
  s=$(date +%s%N)
  if ! "$@" > /tmp/step.log 2>&1; then echo "step $n failed: $*"; cat /tmp/step.log; exit 1; fi
  e=$(date +%s%N); echo "$n $(( (e - s) / 1000 ))"; n=$((n + 1))
}
step python3 -m venv venv
step venv/bin/pip install --no-index --find-links wheels numpy pandas requests pytest
step venv/bin/python -m pytest -q proj
step git clone -q --no-local src.git repo
step git -C repo status --porcelain
step rm -rf venv repo
cd /; rm -rf "$DIR"
"#;

/// The project `pytest` runs: a package over numpy and pandas, tests of it and of requests
/// building (not sending) requests.
fn project() -> Vec<(String, String)> {
    let mut files = vec![
        ("proj/conftest.py".to_string(), String::new()),
        (
            "proj/calc/__init__.py".to_string(),
            r#""""Small statistics over numpy and pandas, for the benchmark's tests."""
import numpy as np
import pandas as pd


def summary(values):
    s = pd.Series(values, dtype="float64")
    return {"mean": float(s.mean()), "std": float(np.std(s.to_numpy(), ddof=1))}


def moving_average(values, window):
    return pd.Series(values, dtype="float64").rolling(window).mean().dropna().tolist()


def totals(rows):
    return pd.DataFrame(rows).groupby("key")["value"].sum().to_dict()
"#
            .to_string(),
        ),
    ];
    for f in 0..5 {
        files.push((
            format!("proj/tests/test_part{f}.py"),
            format!(
                r#"import pytest
import requests

from calc import moving_average, summary, totals


@pytest.mark.parametrize("n", range({lo}, {hi}))
def test_summary(n):
    s = summary(list(range(n + 2)))
    assert s["mean"] == (n + 1) / 2


@pytest.mark.parametrize("n", range({lo}, {hi}))
def test_moving_average_and_totals(n):
    assert len(moving_average(list(range(n + 3)), 3)) == n + 1
    assert totals([{{"key": "a", "value": n}}, {{"key": "a", "value": 1}}]) == {{"a": n + 1}}
    url = requests.Request("GET", "http://example.invalid/q", params={{"n": n}}).prepare().url
    assert url.endswith(f"n={{n}}")
"#,
                lo = f * 10,
                hi = f * 10 + 10
            ),
        ));
    }
    files
}

fn run(program: &str, args: &[&str], cwd: &Path) {
    let out = std::process::Command::new(program)
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap_or_else(|e| panic!("{program}: {e}"));
    assert!(
        out.status.success(),
        "{program} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The wheels, downloaded with pip once into the cache.
fn wheels() -> PathBuf {
    let cache = std::env::var_os("COMPUTER_BENCH_WHEELS")
        .map(PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("computer-bench-wheels"));
    let have = std::fs::read_dir(&cache).is_ok_and(|d| {
        d.flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with("pandas-"))
    });
    if !have {
        eprintln!("downloading the wheels into {}", cache.display());
        std::fs::create_dir_all(&cache).unwrap();
        let mut args = vec!["-m", "pip", "download", "--quiet", "--only-binary=:all:"];
        // Bookworm's CPython, whatever the host's.
        args.extend(["--python-version", "3.11", "--implementation", "cp"]);
        for platform in [
            "manylinux_2_28_x86_64",
            "manylinux_2_17_x86_64",
            "manylinux2014_x86_64",
        ] {
            args.extend(["--platform", platform]);
        }
        args.push("-d");
        let dest = cache.to_str().expect("a UTF-8 cache path");
        args.push(dest);
        args.extend(WHEELS);
        run("python3", &args, &cache);
    }
    cache
}

/// The seed every place starts from: `wheels/`, `proj/` and `src.git` (a bare, packed
/// repository of 10,000 files of about 450 bytes in 100 directories).
fn seed(at: &Path) {
    let wheel_dir = at.join("wheels");
    std::fs::create_dir_all(&wheel_dir).unwrap();
    for entry in std::fs::read_dir(wheels()).unwrap().flatten() {
        if entry.file_name().to_string_lossy().ends_with(".whl") {
            std::fs::copy(entry.path(), wheel_dir.join(entry.file_name())).unwrap();
        }
    }
    for (path, text) in project() {
        let path = at.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let work = at.parent().unwrap().join("repo-work");
    for d in 0..100 {
        let dir = work.join(format!("d{d:02}"));
        std::fs::create_dir_all(&dir).unwrap();
        for f in 0..100 {
            let line = format!("directory {d} file {f}: some text to make the blob its size\n");
            std::fs::write(dir.join(format!("f{f:02}.txt")), line.repeat(8)).unwrap();
        }
    }
    run("git", &["init", "-q"], &work);
    run("git", &["add", "-A"], &work);
    run(
        "git",
        &[
            "-c",
            "user.name=bench",
            "-c",
            "user.email=bench@localhost",
            // No detached `gc --auto` still writing when the work tree is removed.
            "-c",
            "gc.auto=0",
            "commit",
            "-qm",
            "10,000 files",
        ],
        &work,
    );
    // --no-local: a pack, as a fetch gives, not 10,000 loose objects.
    let src = at.join("src.git");
    run(
        "git",
        &[
            "clone",
            "-q",
            "--bare",
            "--no-local",
            work.to_str().unwrap(),
            src.to_str().unwrap(),
        ],
        at,
    );
    std::fs::remove_dir_all(&work).unwrap();
}

/// Copies the host directory `from` into the workspace at `to`.
fn copy_in(vfs: &Vfs, from: &Path, to: &str) {
    vfs.create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let name = entry.file_name().into_string().unwrap();
        let path = format!("{to}/{name}");
        if entry.file_type().unwrap().is_dir() {
            copy_in(vfs, &entry.path(), &path);
        } else {
            vfs.write_file(&path, std::fs::read(entry.path()).unwrap())
                .unwrap();
        }
    }
}

/// A reference container: the same image, limits and hardening as ours, with the host
/// directory `dir` at `/ext4` instead of the workspace. Removed when dropped.
struct Reference {
    name: String,
}

impl Reference {
    fn start(dir: &Path, limits: &Limits, kind: &str) -> Reference {
        let name = format!("computer-bench-{kind}-{}", std::process::id());
        let tmp = format!(
            "/tmp:rw,exec,nosuid,nodev,size={},mode=1777",
            limits.tmp_bytes
        );
        let bind = format!("{}:/ext4", dir.display());
        let memory = limits.memory_bytes.to_string();
        let cpus = limits.cpus.to_string();
        let pids = limits.pids.to_string();
        run(
            "docker",
            &[
                "run",
                "-d",
                "--name",
                &name,
                "--network",
                "none",
                "--cap-drop",
                "ALL",
                "--security-opt",
                "no-new-privileges",
                "--read-only",
                "--tmpfs",
                &tmp,
                "--memory",
                &memory,
                "--memory-swap",
                &memory,
                "--cpus",
                &cpus,
                "--pids-limit",
                &pids,
                "--init",
                "-e",
                "HOME=/tmp",
                "-v",
                &bind,
                IMAGE,
                "sleep",
                "infinity",
            ],
            dir,
        );
        Reference { name }
    }

    fn script(&self, seed: &str, dir: &str) -> String {
        let out = std::process::Command::new("docker")
            .args(["exec", "-e", &format!("SEED={seed}"), "-e"])
            .arg(format!("DIR={dir}"))
            .args([&self.name, "bash", "-c", SCRIPT])
            .output()
            .expect("docker exec");
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "{}: {text}{}",
            self.name,
            String::from_utf8_lossy(&out.stderr)
        );
        text
    }
}

impl Drop for Reference {
    fn drop(&mut self) {
        let _ = std::process::Command::new("docker")
            .args(["rm", "-f", &self.name])
            .output();
    }
}

fn ours(rt: &tokio::runtime::Runtime, sandbox: &Sandbox, seed: &str, dir: &str) -> String {
    let cmd = Command {
        argv: vec!["bash".into(), "-c".into(), SCRIPT.into()],
        env: vec![("SEED".into(), seed.into()), ("DIR".into(), dir.into())],
        timeout: Some(Duration::from_secs(1800)),
        ..Command::default()
    };
    let out = rt
        .block_on(sandbox.exec(&cmd, &|_, _| {}, &|| false))
        .expect("exec");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(
        out.status,
        0,
        "{dir}: {text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

/// Adds the script's `step micros` lines to `times`.
fn record(times: &mut BTreeMap<usize, Vec<f64>>, text: &str) {
    for line in text.lines() {
        let (step, micros) = line.split_once(' ').expect("a step line");
        let ms = micros.parse::<f64>().expect("microseconds") / 1e3;
        times.entry(step.parse().unwrap()).or_default().push(ms);
    }
}

/// `dir` through bindfs at `at`, or `None` when bindfs is not installed. Unmounted when
/// dropped.
struct Bindfs {
    at: PathBuf,
}

impl Bindfs {
    fn mount(dir: &Path, at: &Path) -> Option<Bindfs> {
        std::fs::create_dir_all(at).unwrap();
        let status = std::process::Command::new("bindfs")
            .arg("--multithreaded")
            .arg(dir)
            .arg(at)
            .status();
        match status {
            Ok(s) if s.success() => Some(Bindfs {
                at: at.to_path_buf(),
            }),
            Ok(s) => {
                eprintln!("bindfs failed ({s}): its column is left out");
                None
            }
            Err(_) => {
                eprintln!(
                    "bindfs is not installed (apt-get install bindfs): its column is left out"
                );
                None
            }
        }
    }
}

impl Drop for Bindfs {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(&self.at).status();
    }
}

fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let runs: usize = std::env::var("BENCH_RUNS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let engine = rt.block_on(Engine::connect()).expect("the Docker engine");
    if !rt.block_on(engine.has_image(IMAGE)) {
        let packages: Vec<&str> = DEFAULT_PACKAGES
            .iter()
            .chain(&EXTRA_PACKAGES)
            .copied()
            .collect();
        let mut progress = |s: &str| eprintln!("{s}");
        rt.block_on(engine.build_debian_image(IMAGE, &packages, &mut progress))
            .expect("build the image");
    }

    let dir = tempfile::tempdir().unwrap();
    let ext4 = dir.path().join("ext4");
    seed(&ext4.join("seed"));
    let vfs = Arc::new(Vfs::open(dir.path().join("ws.db")).unwrap());
    copy_in(&vfs, &ext4.join("seed"), "/workspace/seed");

    let config = ContainerConfig {
        image: IMAGE.to_string(),
        transfer: Transfer::Mount,
        ..ContainerConfig::default()
    };
    let reference = Reference::start(&ext4, &config.limits, "ext4");
    let bindfs = Bindfs::mount(&ext4, &dir.path().join("bindfs"));
    let through_bindfs = bindfs
        .as_ref()
        .map(|b| Reference::start(&b.at, &config.limits, "bindfs"));
    let sandbox = rt
        .block_on(Sandbox::start(&engine, Arc::clone(&vfs), &config))
        .expect("start our container");

    let mut places = vec![
        "ext4 (reference container)",
        "tmpfs (our /tmp)",
        "FUSE mount (our /workspace)",
    ];
    if through_bindfs.is_some() {
        places.push("bindfs over ext4 (reference container)");
    }
    let mut times: Vec<BTreeMap<usize, Vec<f64>>> = vec![BTreeMap::new(); places.len()];
    for run in 0..runs {
        eprintln!("run {} of {runs}", run + 1);
        record(&mut times[0], &reference.script("/ext4/seed", "/ext4/run"));
        record(
            &mut times[1],
            &ours(&rt, &sandbox, "/workspace/seed", "/tmp/run"),
        );
        record(
            &mut times[2],
            &ours(&rt, &sandbox, "/workspace/seed", "/workspace/run"),
        );
        if let Some(b) = &through_bindfs {
            record(&mut times[3], &b.script("/ext4/seed", "/ext4/run-bindfs"));
        }
    }
    rt.block_on(sandbox.stop());
    drop(reference);
    drop(through_bindfs);
    drop(bindfs);

    let mut header = format!(
        "\n| step | {} | tmpfs ÷ ext4 | mount ÷ ext4 |",
        places.join(" | ")
    );
    let mut rule = format!("|---|{}---:|---:|", "---:|".repeat(places.len()));
    if places.len() == 4 {
        header.push_str(" bindfs ÷ ext4 | mount ÷ bindfs |");
        rule.push_str("---:|---:|");
    }
    println!("{header}\n{rule}");
    let row = |name: &str, m: &[f64]| {
        let mut line = format!("| {name} |");
        for v in m {
            line.push_str(&format!(" {v:.1} ms |"));
        }
        line.push_str(&format!(" {:.2}× | {:.2}× |", m[1] / m[0], m[2] / m[0]));
        if m.len() == 4 {
            line.push_str(&format!(" {:.2}× | {:.2}× |", m[3] / m[0], m[2] / m[3]));
        }
        println!("{line}");
    };
    let mut sums = vec![0.0f64; places.len()];
    for (i, step) in STEPS.iter().enumerate() {
        let m: Vec<f64> = times.iter().map(|t| median(&t[&i])).collect();
        for (sum, v) in sums.iter_mut().zip(&m) {
            *sum += v;
        }
        row(step, &m);
    }
    row("all of it (sum of medians)", &sums);
}
