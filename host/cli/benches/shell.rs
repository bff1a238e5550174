//! The shell's latency, in one run: `cargo bench -p computer-cli --bench shell`.
//!
//! 1. In process: parse + instantiate + run + drop of `shell.wasm` for each of ~50 small,
//!    realistic scripts on an in-memory workspace (the component loaded once, as a server
//!    keeps it), p50 and p99 per script and over all of them.
//! 2. Whole process: `computer --memory sh -c SCRIPT` against `bash -c SCRIPT` for a few of
//!    them (medians; the compiled component comes from the disk cache).

mod common;

use common::median_of;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use computer::isolate::{RunRequest, RunStatus};
use computer::vfs::Vfs;

/// Small scripts of the kind agents write.
const SCRIPTS: &[(&str, &str)] = &[
    ("echo", "echo hello world"),
    (
        "variables",
        "name=agent; greeting=\"hello $name\"; echo \"$greeting\"",
    ),
    ("arithmetic", "a=6; b=7; echo $((a * b + 1))"),
    (
        "for loop 10",
        "for i in 1 2 3 4 5 6 7 8 9 10; do echo $i; done",
    ),
    (
        "brace loop 100",
        "s=0; for i in {1..100}; do s=$((s+i)); done; echo $s",
    ),
    (
        "c-style loop 100",
        "for ((i=0; i<100; i++)); do :; done; echo $i",
    ),
    (
        "while counter",
        "n=0; while [ $n -lt 50 ]; do n=$((n+1)); done; echo $n",
    ),
    (
        "if elif",
        "x=5; if [ $x -lt 3 ]; then echo small; elif [ $x -lt 10 ]; then echo medium; else echo big; fi",
    ),
    (
        "case",
        "f=report.md; case $f in *.txt) echo text;; *.md) echo markdown;; *) echo other;; esac",
    ),
    ("function", "greet() { echo \"hi $1\"; }; greet a; greet b"),
    (
        "recursion",
        "fact() { if [ $1 -le 1 ]; then echo 1; else echo $(( $1 * $(fact $(( $1 - 1 ))) )); fi; }; fact 8",
    ),
    (
        "local vars",
        "f() { local x=$1; local y=$((x*2)); echo $y; }; f 21",
    ),
    (
        "array",
        "a=(one two three); echo ${#a[@]} ${a[1]} \"${a[@]}\"",
    ),
    (
        "array append loop",
        "a=(); for i in 1 2 3 4 5; do a+=($i); done; echo ${a[*]}",
    ),
    (
        "assoc array",
        "declare -A m=([a]=1 [b]=2); m[c]=3; for k in a b c; do echo $k=${m[$k]}; done",
    ),
    (
        "param defaults",
        "echo ${unset:-default} ${empty:=filled} $empty",
    ),
    (
        "param trim",
        "p=/usr/local/lib/file.tar.gz; echo ${p##*/} ${p%/*} ${p%%.*}",
    ),
    (
        "param replace",
        "s='the cat sat on the mat'; echo ${s//at/og}",
    ),
    ("param case", "s='Hello World'; echo ${s^^} ${s,,}"),
    ("substring", "s=abcdefghij; echo ${s:2:3} ${s: -3}"),
    ("string length", "s='some text here'; echo ${#s}"),
    ("command substitution", "d=$(echo inner); echo \"got $d\""),
    ("nested substitution", "echo $(echo $(echo deep))"),
    ("pipeline builtins", "echo hello | cat | cat"),
    ("here string read", "read a b c <<< 'x y z'; echo $c $b $a"),
    ("heredoc", "cat <<EOF\nline one\nline two $((1+1))\nEOF"),
    (
        "while read heredoc",
        "while read -r l; do echo \"[$l]\"; done <<EOF\na\nb\nc\nEOF",
    ),
    (
        "printf table",
        "for i in 1 2 3; do printf '%-5s|%3d|\\n' item$i $((i*10)); done",
    ),
    (
        "printf floats",
        "printf '%.2f %e %g\\n' 3.14159 12345.678 0.0001",
    ),
    (
        "test strings",
        "[ -n abc ] && [ -z '' ] && [ abc = abc ] && echo ok",
    ),
    (
        "double brackets",
        "[[ hello == h*o && 3 -lt 5 ]] && echo match",
    ),
    (
        "regex",
        "[[ 2024-01-15 =~ ^([0-9]+)-([0-9]+) ]] && echo ${BASH_REMATCH[1]}",
    ),
    ("write file", "echo data > out.txt"),
    (
        "write and read file",
        "echo data > f.txt; read x < f.txt; echo $x",
    ),
    (
        "append lines",
        "for i in 1 2 3; do echo $i >> log.txt; done; cat log.txt",
    ),
    (
        "mkdir touch glob",
        "mkdir -p d; touch d/a.txt d/b.txt; echo d/*.txt",
    ),
    ("test files", "touch f; [ -f f ] && [ ! -d f ] && echo file"),
    ("subshell", "x=1; (x=2; echo $x); echo $x"),
    (
        "brace group redirect",
        "{ echo a; echo b; } > g.txt; cat g.txt",
    ),
    (
        "and or chain",
        "true && echo yes || echo no; false || echo fallback",
    ),
    ("set -e", "set -e; echo start; true; echo end"),
    (
        "getopts",
        "set -- -a -b val; while getopts 'ab:' o; do echo $o ${OPTARG:-}; done",
    ),
    ("eval", "cmd='echo evaluated'; eval \"$cmd\""),
    ("ifs split", "IFS=,; set -- $(echo a,b,c); echo $#"),
    (
        "word count loop",
        "n=0; for w in the quick brown fox jumps over the lazy dog; do n=$((n+1)); done; echo $n",
    ),
    (
        "string build",
        "s=; for i in {1..20}; do s+=\"$i,\"; done; echo ${s%,}",
    ),
    ("trap exit", "trap 'echo bye' EXIT; echo hi"),
    ("declare -p", "x=1; a=(1 2); declare -p x a"),
    (
        "process substitution",
        "while read l; do echo $l; done < <(echo a; echo b)",
    ),
    (
        "fizzbuzz 15",
        "for i in {1..15}; do if ((i%15==0)); then echo FizzBuzz; elif ((i%3==0)); then echo Fizz; elif ((i%5==0)); then echo Buzz; else echo $i; fi; done",
    ),
];

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn in_process(runs: usize) {
    let isolate = computer::runtime().expect("runtime");
    let program = isolate
        .load(computer_components::SHELL)
        .expect("load shell");
    let mut all = Vec::new();
    println!("In process (parse + instantiate + run + drop), {runs} runs each:\n");
    println!("| script | p50 ms | p99 ms |");
    println!("|---|---:|---:|");
    for (name, script) in SCRIPTS {
        let mut times = Vec::with_capacity(runs);
        for _ in 0..runs {
            let vfs = Arc::new(Vfs::in_memory().unwrap());
            vfs.create_dir_all("/workspace").unwrap();
            let req = RunRequest {
                args: vec!["sh".into(), "-c".into(), script.to_string()],
                ..RunRequest::default()
            };
            let start = Instant::now();
            let out = isolate.run(&program, vfs, req);
            times.push(start.elapsed());
            assert_eq!(
                out.status,
                RunStatus::Exited(0),
                "{name}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        times.sort();
        println!(
            "| {name} | {:.3} | {:.3} |",
            ms(percentile(&times, 0.5)),
            ms(percentile(&times, 0.99))
        );
        all.extend(times);
    }
    all.sort();
    println!(
        "| **all {} scripts** | **{:.3}** | **{:.3}** |\n",
        SCRIPTS.len(),
        ms(percentile(&all, 0.5)),
        ms(percentile(&all, 0.99))
    );
}

fn script_named(name: &str) -> &'static str {
    SCRIPTS.iter().find(|(n, _)| *n == name).unwrap().1
}

fn whole_process(runs: usize) {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    println!("Whole process, median of {runs}:\n");
    println!("| script | computer --memory sh -c ms | bash -c ms | ratio |");
    println!("|---|---:|---:|---:|");
    // The last two: a pipeline, and `echo` with neither `HOME` nor `XDG_CACHE_HOME` set (as
    // under cron or a systemd unit: the cache is found through the password database).
    let rows = [
        ("echo", SCRIPTS[0].1, true),
        ("brace loop 100", script_named("brace loop 100"), true),
        ("function", script_named("function"), true),
        ("param replace", script_named("param replace"), true),
        ("fizzbuzz 15", script_named("fizzbuzz 15"), true),
        (
            "for loop into wc -l",
            "for i in 1 2 3; do echo $i; done | wc -l",
            true,
        ),
        ("echo, no HOME", SCRIPTS[0].1, false),
    ];
    for (name, script, home) in rows {
        let computer = || {
            let mut cmd = Command::new(env!("CARGO_BIN_EXE_computer"));
            if home {
                cmd.env("XDG_CACHE_HOME", &cache);
            } else {
                cmd.env_remove("HOME").env_remove("XDG_CACHE_HOME");
            }
            let out = cmd
                .current_dir(dir.path())
                .env_remove("COMPUTER_CACHE_DIR")
                .args(["--memory", "sh", "-c", script])
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        };
        computer(); // compile once into the disk cache
        let ours = median_of(runs, computer);
        let bash = median_of(runs, || {
            let out = Command::new("/bin/bash")
                .args(["-c", script])
                .current_dir(dir.path())
                .output()
                .unwrap();
            assert!(out.status.success());
        });
        println!(
            "| {name} | {:.2} | {:.2} | {:.1} |",
            ms(ours),
            ms(bash),
            ours.as_secs_f64() / bash.as_secs_f64()
        );
    }
}

/// Through the Rust API: `Workspace::exec` per call (loading and routing included).
fn api(runs: usize) {
    let ws = computer::Workspace::in_memory().unwrap();
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let start = Instant::now();
        let out = ws
            .exec(computer::ExecRequest::script("echo hello world"))
            .unwrap();
        times.push(start.elapsed());
        assert_eq!(out.status, 0);
    }
    times.sort();
    println!("Through `Workspace::exec` (`echo hello world`), {runs} calls:\n");
    println!("| p50 ms | p99 ms |");
    println!("|---:|---:|");
    println!(
        "| {:.3} | {:.3} |\n",
        ms(percentile(&times, 0.5)),
        ms(percentile(&times, 0.99))
    );
}

fn main() {
    let runs = std::env::var("BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    in_process(runs);
    api(runs);
    whole_process(20);
}
