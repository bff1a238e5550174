//! The shell's commands on big inputs against the native GNU tools (and ripgrep), in one run:
//! `cargo bench -p computer-cli --bench commands`.
//!
//! The same generated files (a 10,000-file tree, 1,000,000 lines, 100 MB of text and a copy
//! of it, 50 MB of JSON, a 20 MB .tar.gz) sit in a host folder for `bash -c` and in a
//! workspace (a SQLite file, imported from that folder) for `Workspace::exec`; each command
//! runs in both, their outputs are compared, and the medians and their ratio printed. `BENCH_RUNS` sets the runs (3);
//! `BENCH_ONLY=grep` runs only the commands whose name contains `grep`.

mod common;

use common::median_of;
use std::io::Write;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use computer::isolate::Limits;
use computer::{ExecRequest, Workspace};

/// (name, command): each runs from the data folder.
const COMMANDS: &[(&str, &str)] = &[
    ("grep -rn, 10,000 files", "grep -rn needle tree | wc -l"),
    // ripgrep on one thread (the isolate's has one), against our own grep -rn above.
    ("rg -j1 -n, 10,000 files", "rg -j1 -n needle tree | wc -l"),
    (
        "sort | uniq -c, 1M lines",
        "sort lines.txt | uniq -c | sort -rn | head -5",
    ),
    (
        "sed s///g, 100 MB",
        "sed 's/the/THE/g' big.txt | tail -c 100",
    ),
    ("awk sum, 100 MB", "awk '{s+=$3} END{print s}' big.txt"),
    // A file's last lines are read from its end; through a pipe all of it is read (what
    // `tail` of a file did before).
    ("tail -n 20, 100 MB", "tail -n 20 big.txt | wc -c"),
    (
        "cat | tail -n 20, 100 MB",
        "cat big.txt | tail -n 20 | wc -c",
    ),
    ("sha256sum, 100 MB", "sha256sum big.txt"),
    // Two files the same, read in step (before: both held whole).
    ("cmp, 2 x 100 MB", "cmp big.txt copy.txt && echo same"),
    ("diff, 2 x 100 MB", "diff big.txt copy.txt && echo same"),
    // Encoders and dumpers work a block or a row at a time (before: the whole file held).
    (
        "base64 | base64 -d, 100 MB",
        "base64 big.txt | base64 -d | wc -c",
    ),
    // Compressors work a block at a time (before: the whole file held, and its output).
    (
        "gzip + zcat, 100 MB",
        "gzip -c big.txt > b.gz && zcat b.gz | wc -c && rm b.gz",
    ),
    (
        "tar czf + tar tzf, 10,000 files",
        "tar czf t.tgz tree && tar tzf t.tgz | wc -l && rm t.tgz",
    ),
    // GNU's od takes some 12 s for all 100 MB: the first 10 are enough.
    (
        "od -t x1 -N 10MB, 100 MB",
        "od -A d -t x1 -N 10MB big.txt | tail -n 1",
    ),
    (
        "find -name, 10,000 files",
        "find tree -name '*7.txt' | wc -l",
    ),
    // A tree to a new path is one change on the host; `-L` copies entry by entry (what
    // `cp -r` did before, a commit per file), on a tree without links the same copy.
    (
        "cp -r + rm -r, 10,000 files",
        "cp -r tree t2 && rm -r t2 && echo ok",
    ),
    (
        "cp -rL + rm -r, 10,000 files",
        "cp -rL tree t2 && rm -r t2 && echo ok",
    ),
    (
        "jq filter, 50 MB",
        "jq '[.[] | select(.score > 50)] | length' data.json",
    ),
    (
        "tar xzf, 20 MB",
        "rm -rf x && mkdir x && tar xzf archive.tar.gz -C x && ls x | wc -l",
    ),
    (
        "pipeline of six stages, 1M lines",
        "cat lines.txt | grep -v zz | tr a-z A-Z | sort | uniq -c | sort -rn | head -3",
    ),
];

const WORDS: &[&str] = &[
    "the",
    "quick",
    "brown",
    "fox",
    "jumps",
    "over",
    "lazy",
    "dog",
    "alpha",
    "beta",
    "gamma",
    "delta",
    "agent",
    "shell",
    "workspace",
    "needle",
    "stack",
    "queue",
    "merge",
    "branch",
];

/// A small deterministic generator (no dependency needed for bench data).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    fn word(&mut self) -> &'static str {
        WORDS[(self.next() % WORDS.len() as u64) as usize]
    }
}

fn generate(dir: &Path) {
    let mut rng = Lcg(42);
    // 10,000 files in 100 folders; about one in ten mentions the needle.
    for d in 0..100 {
        let folder = dir.join(format!("tree/d{d:02}"));
        std::fs::create_dir_all(&folder).unwrap();
        for f in 0..100 {
            let mut text = String::new();
            for _ in 0..20 {
                let w = if rng.next().is_multiple_of(200) {
                    "needle"
                } else {
                    rng.word()
                };
                text.push_str(&format!("{} {} {}\n", rng.word(), w, rng.next() % 1000));
            }
            std::fs::write(folder.join(format!("f{f}.txt")), text).unwrap();
        }
    }
    let mut lines = std::io::BufWriter::new(std::fs::File::create(dir.join("lines.txt")).unwrap());
    for _ in 0..1_000_000 {
        writeln!(lines, "{}{}", rng.word(), rng.next() % 50).unwrap();
    }
    lines.flush().unwrap();
    let mut big = std::io::BufWriter::new(std::fs::File::create(dir.join("big.txt")).unwrap());
    let mut size = 0;
    while size < 100 << 20 {
        let line = format!(
            "{} {} {} {} {}\n",
            rng.word(),
            rng.word(),
            rng.next() % 10_000,
            rng.word(),
            rng.word()
        );
        size += line.len();
        big.write_all(line.as_bytes()).unwrap();
    }
    big.flush().unwrap();
    drop(big);
    std::fs::copy(dir.join("big.txt"), dir.join("copy.txt")).unwrap();
    let mut json = std::io::BufWriter::new(std::fs::File::create(dir.join("data.json")).unwrap());
    json.write_all(b"[").unwrap();
    let mut size = 0;
    let mut i = 0;
    while size < 50 << 20 {
        let item = format!(
            "{}{{\"id\":{i},\"name\":\"{}-{}\",\"score\":{},\"tags\":[\"{}\",\"{}\"],\"active\":{}}}\n",
            if i == 0 { "" } else { "," },
            rng.word(),
            rng.next() % 1000,
            rng.next() % 100,
            rng.word(),
            rng.word(),
            rng.next().is_multiple_of(2)
        );
        size += item.len();
        json.write_all(item.as_bytes()).unwrap();
        i += 1;
    }
    json.write_all(b"]\n").unwrap();
    json.flush().unwrap();
    // The archive: the tree plus the line file, compressed (about 20 MB).
    let status = Command::new("tar")
        .args(["czf", "archive.tar.gz", "tree", "lines.txt", "big.txt"])
        .current_dir(dir)
        .status()
        .expect("tar runs");
    assert!(status.success());
    // Trim to about 20 MB by rebuilding from a part of big.txt if it came out larger.
    let len = std::fs::metadata(dir.join("archive.tar.gz")).unwrap().len();
    if len > 24 << 20 {
        let status = Command::new("bash")
            .args([
                "-c",
                "head -c 60000000 big.txt > part.txt && tar czf archive.tar.gz tree lines.txt part.txt && rm part.txt",
            ])
            .current_dir(dir)
            .status()
            .unwrap();
        assert!(status.success());
    }
}

fn native(dir: &Path, cmd: &str) -> String {
    let out = Command::new("bash")
        .args(["-c", cmd])
        .current_dir(dir)
        .output()
        .expect("bash runs");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn ours(ws: &Workspace, cmd: &str) -> String {
    // jq holds a 50 MB document as values several times its size: more than the default
    // 512 MiB (what that costs is part of what this measures).
    let limits = Limits {
        timeout: Duration::from_secs(600),
        memory: 4 << 30,
        ..Limits::default()
    };
    let out = ws
        .exec(ExecRequest::script(cmd).cwd("/data").limits(limits))
        .expect("exec runs");
    if out.status != 0 {
        eprintln!(
            "  {cmd}: status {} ({:?}): {}",
            out.status,
            out.ended,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn main() {
    let runs = std::env::var("BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    eprintln!("generating the inputs...");
    generate(&data);
    let ws = Workspace::open(tmp.path().join("bench.db")).unwrap();
    eprintln!("importing them into a workspace...");
    ws.import(&data, Path::new("/data"), &mut |_| {}).unwrap();
    println!(
        "{:<36} {:>12} {:>12} {:>8}  output",
        "command", "native", "isolate", "ratio"
    );
    // BENCH_ONLY=grep runs the commands whose name contains it (for a profiler).
    let only = std::env::var("BENCH_ONLY").unwrap_or_default();
    for (name, cmd) in COMMANDS.iter().filter(|(name, _)| name.contains(&only)) {
        let expected = native(&data, cmd);
        let got = ours(&ws, cmd);
        let same = if got == expected {
            "same".to_string()
        } else {
            format!("DIFFERS: {:?} vs {:?}", got.trim(), expected.trim())
        };
        let n = median_of(runs, || {
            native(&data, cmd);
        });
        let o = median_of(runs, || {
            ours(&ws, cmd);
        });
        println!(
            "{:<36} {:>10.1}ms {:>10.1}ms {:>7.2}x  {same}",
            name,
            n.as_secs_f64() * 1e3,
            o.as_secs_f64() * 1e3,
            o.as_secs_f64() / n.as_secs_f64()
        );
    }
}
