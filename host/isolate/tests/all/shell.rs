//! The shell's compatibility cases (`tests/shell/cases/language/*.json` and
//! `tests/shell/cases/utils/NAME.json`, one file per utility): each script's stdout, stderr,
//! exit status and resulting files were recorded from the machine's /bin/bash. Every run
//! checks that bash still gives the recorded result (so the data stays honest: CI re-records
//! and fails on any difference) and that our shell gives it too, except for cases marked
//! `known_difference` with a reason.
//!
//! A case: `name`, `script`, optional `files` (path → content, seeded into the working
//! directory first) and `stdin`; recorded: `stdout`, `stderr`, `status`, and `tree` (the
//! files in the working directory afterwards) when it is not empty.
//! Each case is a test of its own, named after its file and name
//! (`shell::cases::utils::awk::field_separator`; build.rs makes them), so libtest's filter
//! runs one file or one case: `cargo test -p computer-isolate shell::cases::utils::awk`.
//! `COMPUTER_RECORD=1` records new cases and re-records the rest; without it, a case that was
//! never recorded fails. `COMPUTER_CASES_EXPECTED=1` compares our shell with the recordings
//! without running bash.
//!
//! The language cases also run the two other ways a script arrives ([`Mode`]): from a file
//! (`bash /tmp/case.sh`) and on stdin (`bash < case.sh`; not for a case that has stdin of its
//! own). Bash's statuses and messages differ between them (an unbound variable under `set -u`
//! ends `-c` with 127 and a file with 1), so a case keeps what differs from its `-c` recording
//! under `as_file` and `on_stdin`; a recording run writes them, other runs replay them
//! against our shell without running bash again. A mode can be marked `known_difference` of
//! its own; a case marked as a whole is compared in `-c` only.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::sync::{Arc, Mutex, OnceLock};

use computer_isolate::RunRequest;
use computer_vfs::{TimeSet, Vfs};
use serde_json::{Value, json};

use crate::{run_on, text};

const ENV: &[(&str, &str)] = &[
    ("HOME", "/home/user"),
    ("PATH", "/usr/bin:/bin"),
    ("LC_ALL", "C"),
];

/// `SERVER` for a case that talks to the test HTTP server (its script names `$SERVER` or
/// another loopback address).
fn server_env(case: &Value) -> Option<(String, String)> {
    let script = case["script"].as_str().unwrap_or_default();
    (script.contains("SERVER") || script.contains("127.0.0.1")).then(|| {
        (
            "SERVER".to_string(),
            format!("http://127.0.0.1:{}", crate::http_server::port()),
        )
    })
}

/// Output with the test server's port (which changes every run) as `PORT`.
fn without_port(text: String) -> String {
    let port = crate::http_server::port();
    text.replace(&format!("127.0.0.1:{port}"), "127.0.0.1:PORT")
        .replace(&format!("port {port}"), "port PORT")
}

/// Where our shell runs the cases.
const CWD: &str = "/workspace";

/// Where a case's script is, run as a file (bash's own path for it is shown as this one).
const SCRIPT: &str = "/tmp/case.sh";

/// How a script reaches the shell.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Mode {
    /// `bash -c SCRIPT`: the recording every case has.
    Command,
    /// `bash FILE`.
    File,
    /// `bash < FILE`.
    Stdin,
}

impl Mode {
    /// The key of the case that holds this mode's differences from `-c`.
    fn key(self) -> Option<&'static str> {
        match self {
            Mode::Command => None,
            Mode::File => Some("as_file"),
            Mode::Stdin => Some("on_stdin"),
        }
    }

    /// The modes a case runs in: every language case in all three (on stdin only when it
    /// has no stdin of its own, which the script would take the place of).
    fn of(topic: &str, case: &Value) -> Vec<Mode> {
        if !topic.starts_with("language/") {
            return vec![Mode::Command];
        }
        let mut modes = vec![Mode::Command, Mode::File];
        if case.get("stdin").is_none() {
            modes.push(Mode::Stdin);
        }
        modes
    }
}

/// What a script did.
#[derive(Debug, PartialEq)]
struct Outcome {
    stdout: String,
    stderr: String,
    status: i64,
    /// `path` for directories (with a trailing `/`), `path: content` for files, `path -> target`
    /// for symbolic links.
    tree: Vec<String>,
}

fn cases_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/shell/cases")
}

fn seed_files(case: &Value) -> BTreeMap<String, String> {
    case.get("files")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                .collect()
        })
        .unwrap_or_default()
}

/// The modification time of the `i`th seed file (in name order): a second apart and over a
/// minute old (for up to 100 files), on both sides. Written as fast as they are, their own times would tie or not
/// with the clock's ticks, and `find -newer` would give a different answer from run to run.
fn seed_mtime(i: usize) -> std::time::SystemTime {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    std::time::UNIX_EPOCH + std::time::Duration::from_secs(now - 60 - 100 + i as u64)
}

/// What the tree listing says of one entry.
enum Entry {
    Dir,
    File(Vec<u8>),
    Symlink(String),
}

fn tree_line(rel: &str, entry: Entry) -> String {
    match entry {
        Entry::Dir => format!("{rel}/"),
        Entry::File(content) => format!("{rel}: {}", text(&content)),
        Entry::Symlink(target) => format!("{rel} -> {target}"),
    }
}

/// What real bash does, in a fresh directory.
fn bash(case: &Value, mode: Mode) -> Outcome {
    use std::io::Write;
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    for (i, (path, content)) in seed_files(case).into_iter().enumerate() {
        let p = dir.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, content).unwrap();
        std::fs::File::options()
            .write(true)
            .open(&p)
            .unwrap()
            .set_modified(seed_mtime(i))
            .unwrap();
    }
    let script = case["script"].as_str().unwrap();
    let script_dir = tempfile::tempdir().unwrap();
    let script_path = script_dir.path().join("case.sh");
    std::fs::write(&script_path, script).unwrap();
    // Bash lists the signals it found ignored (`trap -p`), and a run under nohup or in the
    // background ignores some: GNU env starts it with every signal at its default, as ours
    // is (and finds `bash` on the cases' PATH, so that `$0` is `bash`).
    let mut command = Command::new("/usr/bin/env");
    command.arg0("env").args(["--default-signal", "bash"]);
    let stdin = match mode {
        Mode::Command => {
            command.args(["-c", script]);
            case["stdin"].as_str().unwrap_or_default().to_string()
        }
        Mode::File => {
            command.arg(&script_path);
            case["stdin"].as_str().unwrap_or_default().to_string()
        }
        Mode::Stdin => script.to_string(),
    };
    let mut child = command
        .current_dir(dir.path())
        .env_clear()
        .envs(ENV.iter().copied())
        .envs(server_env(case))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run /bin/bash");
    let mut pipe = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || {
        let _ = pipe.write_all(stdin.as_bytes());
    });
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    let here = dir.path().to_string_lossy().into_owned();
    let script_path = script_path.to_string_lossy().into_owned();
    let shown = |bytes: &[u8]| {
        let shown = text(bytes)
            .replace(&script_path, SCRIPT)
            .replace(&here, CWD);
        if server_env(case).is_some() {
            without_port(shown)
        } else {
            shown
        }
    };
    let mut tree = Vec::new();
    for entry in walkdir(dir.path()) {
        let rel = entry
            .strip_prefix(dir.path())
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let kind = std::fs::symlink_metadata(&entry).unwrap().file_type();
        let item = if kind.is_symlink() {
            let target = std::fs::read_link(&entry).unwrap();
            Entry::Symlink(target.to_string_lossy().replace(&*here, CWD))
        } else if kind.is_dir() {
            Entry::Dir
        } else {
            Entry::File(std::fs::read(&entry).unwrap_or_default())
        };
        tree.push(tree_line(&rel, item));
    }
    tree.sort();
    // Our shell works in /workspace; bash in a temporary directory that stands for it.
    Outcome {
        stdout: shown(&out.stdout),
        stderr: shown(&out.stderr).replace("bash: ", "computer: "),
        status: out.status.code().unwrap_or(-1) as i64,
        tree,
    }
}

fn walkdir(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut all = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if e.file_type().unwrap().is_dir() && !e.file_type().unwrap().is_symlink() {
            all.push(p.clone());
            all.extend(walkdir(&p));
        } else {
            all.push(p);
        }
    }
    all
}

/// The same from our shell in the isolate, on a fresh workspace.
fn ours(case: &Value, mode: Mode) -> Outcome {
    let vfs = Arc::new(Vfs::in_memory().unwrap());
    vfs.create_dir_all(CWD).unwrap();
    for (i, (path, content)) in seed_files(case).into_iter().enumerate() {
        let p = Path::new(CWD).join(path);
        vfs.create_dir_all(p.parent().unwrap()).unwrap();
        vfs.write_file(&p, content).unwrap();
        let mtime = seed_mtime(i)
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as i64;
        vfs.set_times(&p, None, Some(TimeSet::At(mtime))).unwrap();
    }
    let script = case["script"].as_str().unwrap();
    let stdin = match mode {
        Mode::Stdin => script,
        Mode::Command | Mode::File => case["stdin"].as_str().unwrap_or_default(),
    };
    let server = server_env(case);
    // The workspace's network policy opens loopback's ports (the test server's, and closed
    // ones for the connection errors), and nothing else.
    let network = server.as_ref().map(|_| {
        let policy = computer_net::Policy::from_text("allow http://127.0.0.1:*").unwrap();
        computer_net::save_policy(&vfs, &policy).unwrap();
        computer_net::Egress::new(Arc::clone(&vfs), "isolate")
    });
    let req = RunRequest {
        env: ENV
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .chain(server.clone())
            .collect(),
        stdin: stdin.as_bytes().to_vec().into(),
        network,
        ..RunRequest::default()
    };
    let args: &[&str] = match mode {
        Mode::Command => &["-c", script],
        Mode::File => {
            vfs.create_dir_all("/tmp").unwrap();
            vfs.write_file(SCRIPT, script).unwrap();
            &[SCRIPT]
        }
        Mode::Stdin => &[],
    };
    let out = run_on(&vfs, computer_components::SHELL, args, req);
    let mut tree = Vec::new();
    for e in vfs.walk(CWD).unwrap().into_iter().filter(|e| e.depth > 0) {
        let rel = e
            .path
            .strip_prefix(CWD)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let item = if e.stat.is_symlink() {
            Entry::Symlink(
                vfs.read_link(&e.path)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned(),
            )
        } else if e.stat.is_dir() {
            Entry::Dir
        } else {
            Entry::File(vfs.read_file(&e.path).unwrap_or_default())
        };
        tree.push(tree_line(&rel, item));
    }
    tree.sort();
    let shown = |bytes: &[u8]| match &server {
        Some(_) => without_port(text(bytes)),
        None => text(bytes),
    };
    Outcome {
        stdout: shown(&out.stdout),
        stderr: shown(&out.stderr),
        status: out.exit_code() as i64,
        tree,
    }
}

/// What bash gave in `mode`: the `-c` recording with the mode's differences over it.
fn recorded(case: &Value, mode: Mode) -> Option<Outcome> {
    let mut case = case.clone();
    if let Some(diff) = mode.key().and_then(|k| case.get(k)).cloned()
        && let Some(fields) = diff.as_object()
    {
        for (k, v) in fields {
            if k != "known_difference" {
                case[k] = v.clone();
            }
        }
    }
    recorded_fields(&case)
}

fn recorded_fields(case: &Value) -> Option<Outcome> {
    Some(Outcome {
        stdout: case.get("stdout")?.as_str()?.to_string(),
        stderr: case.get("stderr")?.as_str()?.to_string(),
        status: case.get("status")?.as_i64()?,
        tree: case
            .get("tree")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default(),
    })
}

/// Writes bash's outcome in `-c` into the case.
fn record(case: &mut Value, now: &Outcome) {
    case["stdout"] = json!(now.stdout);
    case["stderr"] = json!(now.stderr);
    case["status"] = json!(now.status);
    if let Some(obj) = case.as_object_mut() {
        obj.remove("tree");
    }
    if !now.tree.is_empty() {
        case["tree"] = json!(now.tree);
    }
}

/// Writes bash's outcome in `mode` as its differences from the `-c` one (none: no key),
/// keeping the mode's own `known_difference` mark.
fn record_mode(case: &mut Value, mode: Mode, now: &Outcome, command: &Outcome) {
    let Some(key) = mode.key() else { return };
    let mut diff = serde_json::Map::new();
    if let Some(why) = case.get(key).and_then(|d| d.get("known_difference")) {
        diff.insert("known_difference".into(), why.clone());
    }
    if now.stdout != command.stdout {
        diff.insert("stdout".into(), json!(now.stdout));
    }
    if now.stderr != command.stderr {
        diff.insert("stderr".into(), json!(now.stderr));
    }
    if now.status != command.status {
        diff.insert("status".into(), json!(now.status));
    }
    if now.tree != command.tree {
        diff.insert("tree".into(), json!(now.tree));
    }
    let Some(obj) = case.as_object_mut() else {
        return;
    };
    if diff.is_empty() {
        obj.remove(key);
    } else {
        obj.insert(key.into(), Value::Object(diff));
    }
}

/// Every case file: `language/*.json` (the shell's language and builtins) and
/// `utils/NAME.json` (one per utility), with its topic (`utils/grep`), in order.
fn case_files() -> Vec<(String, std::path::PathBuf)> {
    let root = cases_dir();
    let mut files: Vec<_> = walkdir(&root)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .map(|p| {
            let topic = p
                .strip_prefix(&root)
                .unwrap()
                .with_extension("")
                .to_string_lossy()
                .into_owned();
            (topic, p)
        })
        .collect();
    files.sort();
    files
}

/// One test per case, made by build.rs from the case files: `shell::cases::utils::awk::NAME`.
mod cases {
    include!(concat!(env!("OUT_DIR"), "/shell_cases.rs"));
}

/// The case files, read once (a recording run reads them again under [`RECORDING`]).
fn case_file(topic: &str) -> &'static [Value] {
    static FILES: OnceLock<BTreeMap<String, Vec<Value>>> = OnceLock::new();
    let files = FILES.get_or_init(|| {
        case_files()
            .into_iter()
            .map(|(topic, file)| {
                let cases = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
                (topic, cases)
            })
            .collect()
    });
    &files[topic]
}

/// Held while a recording run rewrites a case file.
static RECORDING: Mutex<()> = Mutex::new(());

/// Runs the case `name` of `topic`'s file: bash must still give what was recorded (so the
/// recordings stay honest; `COMPUTER_CASES_EXPECTED=1` skips bash, for a machine without
/// bash 5.2 and the GNU tools), and our shell must give it too. A case marked
/// `known_difference` must still differ, so that a fixed difference loses its mark.
/// `COMPUTER_RECORD=1` records the case from bash first and writes it to the file.
pub fn check_case(topic: &str, name: &str) {
    let recording = std::env::var_os("COMPUTER_RECORD").is_some();
    let with_bash = std::env::var_os("COMPUTER_CASES_EXPECTED").is_none() || recording;
    let mut case = case_file(topic)
        .iter()
        .find(|c| c["name"] == name)
        .expect("build.rs made a test for every case")
        .clone();
    let modes = Mode::of(topic, &case);
    if with_bash {
        let now = bash(&case, Mode::Command);
        if recording {
            record(&mut case, &now);
            for &mode in &modes[1..] {
                let other = bash(&case, mode);
                record_mode(&mut case, mode, &other, &now);
            }
            let _lock = RECORDING.lock().unwrap_or_else(|e| e.into_inner());
            let file = cases_dir().join(format!("{topic}.json"));
            let mut cases: Vec<Value> =
                serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
            if let Some(slot) = cases.iter_mut().find(|c| c["name"] == name) {
                *slot = case.clone();
            }
            std::fs::write(&file, serde_json::to_string_pretty(&cases).unwrap() + "\n").unwrap();
        }
        let Some(expected) = recorded(&case, Mode::Command) else {
            panic!("{topic}: case {name:?} was never recorded; run with COMPUTER_RECORD=1");
        };
        assert_eq!(
            now, expected,
            "{topic}: case {name:?}: /bin/bash no longer gives the recorded result; re-record"
        );
    }
    let script = case["script"].as_str().unwrap();
    let mut failures = Vec::new();
    for mode in modes {
        let Some(expected) = recorded(&case, mode) else {
            panic!("{topic}: case {name:?} was never recorded; run with COMPUTER_RECORD=1");
        };
        // A case marked as a whole differs already in `-c`; the other ways are not compared.
        let known = match mode.key() {
            None => case.get("known_difference"),
            Some(_) if case.get("known_difference").is_some() => continue,
            Some(key) => case.get(key).and_then(|d| d.get("known_difference")),
        };
        let got = ours(&case, mode);
        match known {
            Some(why) if got == expected => failures.push(format!(
                "{mode:?}: marked as a known difference ({why}) but now matches bash; remove \
                 the mark"
            )),
            None if got != expected => failures.push(format!(
                "{mode:?}: differs from bash\n    bash: {expected:?}\n    ours: {got:?}"
            )),
            _ => {}
        }
    }
    assert!(
        failures.is_empty(),
        "{topic}: case {name:?}\n  script: {script:?}\n  {}",
        failures.join("\n  ")
    );
}

/// The table of cases in docs/shell.md, between its two markers, made from the case files
/// (every case not marked `known_difference` passes: the test above checks that).
fn cases_table() -> String {
    let mut rows =
        String::from("| file | cases | pass | known differences |\n|---|---:|---:|---:|\n");
    let (mut all, mut all_known) = (0, 0);
    for (topic, file) in case_files() {
        let cases: Vec<Value> =
            serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        let known = cases
            .iter()
            .filter(|c| c.get("known_difference").is_some())
            .count();
        rows.push_str(&format!(
            "| {topic} | {} | {} | {known} |\n",
            cases.len(),
            cases.len() - known
        ));
        all += cases.len();
        all_known += known;
    }
    let thousands = |n: usize| {
        let s = n.to_string();
        match s.len() {
            4.. => format!("{},{}", &s[..s.len() - 3], &s[s.len() - 3..]),
            _ => s,
        }
    };
    rows.push_str(&format!(
        "| **all** | **{}** | **{}** | **{all_known}** |\n",
        thousands(all),
        thousands(all - all_known)
    ));
    rows
}

/// docs/shell.md's table of cases is the one the case files make; `COMPUTER_RECORD=1` writes it.
#[test]
fn the_docs_table_of_cases_is_up_to_date() {
    const START: &str =
        "<!-- cases table: made by the shell tests (COMPUTER_RECORD=1 writes it) -->\n";
    const END: &str = "<!-- end of cases table -->\n";
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/shell.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    let (Some(start), Some(end)) = (doc.find(START), doc.find(END)) else {
        panic!("docs/shell.md lacks the cases table's markers");
    };
    let table = cases_table();
    let written = &doc[start + START.len()..end];
    if std::env::var_os("COMPUTER_RECORD").is_some() && written != table {
        let updated = format!("{}{START}{table}{}", &doc[..start], &doc[end..]);
        std::fs::write(&path, updated).unwrap();
        return;
    }
    assert_eq!(
        written, table,
        "docs/shell.md's table of cases is stale; run with COMPUTER_RECORD=1"
    );
}

/// Runs a script in our shell on `vfs`, in `/workspace`; its stdout.
fn sh_on(vfs: &Arc<Vfs>, script: &str) -> String {
    let out = run_on(
        vfs,
        computer_components::SHELL,
        &["-c", &format!("cd {CWD} && {script}")],
        RunRequest::default(),
    );
    assert_eq!(out.exit_code(), 0, "{script}: {}", text(&out.stderr));
    text(&out.stdout)
}

/// A backreference pattern that would backtrack for ages stops at the limit with a message
/// that names it; `sed -i` then leaves the file as it was (nothing half-edited is written).
#[test]
fn a_costly_backreference_hits_the_backtracking_limit() {
    let vfs = Arc::new(Vfs::in_memory().unwrap());
    vfs.create_dir_all(CWD).unwrap();
    let hostile = "a".repeat(40);
    let script = format!(
        "echo {hostile} > f; grep -E '(a*)*\\1b' f; echo \"grep=$?\"; \
         sed -i -E 's/(a*)*\\1b/x/' f; echo \"sed=$?\"; cat f"
    );
    let out = run_on(
        &vfs,
        computer_components::SHELL,
        &["-c", &format!("cd {CWD} && {script}")],
        RunRequest::default(),
    );
    let stderr = text(&out.stderr);
    assert_eq!(
        text(&out.stdout),
        format!("grep=2\nsed=4\n{hostile}\n"),
        "{stderr}"
    );
    assert_eq!(
        stderr
            .matches("backtracking limit of 1000000 steps exceeded")
            .count(),
        2,
        "{stderr}"
    );
    assert!(stderr.starts_with("grep: "), "{stderr}");
}

/// `df` has no native twin to record (the machine's disks are not the workspace): it reports
/// the workspace's own usage, which grows as files are written.
#[test]
fn df_reports_the_workspace() {
    let vfs = Arc::new(Vfs::in_memory().unwrap());
    vfs.create_dir_all(CWD).unwrap();
    let used = |report: &str| -> u64 {
        let lines: Vec<&str> = report.lines().collect();
        assert_eq!(lines.len(), 2, "{report}");
        assert!(lines[0].starts_with("Filesystem"), "{report}");
        assert!(lines[0].ends_with("Mounted on"), "{report}");
        let cols: Vec<&str> = lines[1].split_whitespace().collect();
        assert_eq!((cols[0], cols[5]), ("workspace", "/"), "{report}");
        cols[2].parse().unwrap()
    };
    let before = used(&sh_on(&vfs, "df"));
    sh_on(&vfs, "seq 1 200000 > numbers");
    let after = used(&sh_on(&vfs, "df ."));
    // seq 1 200000 writes 1,288,895 bytes: over 1,200 KiB more in use.
    assert!(after >= before + 1200, "{before} KiB then {after} KiB");
    let human = sh_on(&vfs, "df -hT /workspace");
    assert!(human.lines().next().unwrap().contains("Type"), "{human}");
    assert!(human.contains("computer"), "{human}");
    let inodes = sh_on(&vfs, "df -i");
    assert!(inodes.starts_with("Filesystem"), "{inodes}");
    assert!(inodes.contains("IUsed"), "{inodes}");
}

/// Every command answers `--help` with its own usage (GNU's help texts are not recorded:
/// they are long and version-bound; jq's is jq 1.7.1's), and `/usr/bin` lists every command.
#[test]
fn every_command_has_help_and_a_usr_bin_entry() {
    let vfs = Arc::new(Vfs::in_memory().unwrap());
    vfs.create_dir_all(CWD).unwrap();
    let listing = sh_on(&vfs, "help");
    let commands: Vec<&str> = listing
        .split("Commands:\n")
        .nth(1)
        .expect("help lists the commands")
        .split_whitespace()
        .collect();
    assert!(commands.len() > 80, "{listing}");
    let usr_bin = sh_on(&vfs, "ls /usr/bin");
    for c in &commands {
        let help = sh_on(&vfs, &format!("{c} --help"));
        let first = help.lines().next().unwrap_or_default();
        // jq's is the tool's own text, its usage on the third line.
        let own = help
            .lines()
            .any(|l| l.starts_with(&format!("Usage:\t{c} ")));
        assert!(
            first.starts_with(&format!("Usage: {c} ")) || first == format!("Usage: {c}") || own,
            "{c} --help: {help}"
        );
        assert!(
            !first.contains("[OPTION]... [ARG]..."),
            "{c} has no help text of its own"
        );
        assert!(usr_bin.lines().any(|l| l == *c), "ls /usr/bin lacks {c}");
    }
    // Scripts that look for /usr/bin/env find it.
    assert_eq!(
        sh_on(&vfs, "test -x /usr/bin/env && test -d /usr/bin && echo ok"),
        "ok\n"
    );
}
