//! The container backend from the command line, against the real Docker engine: `auto`
//! sends what the shell does not have to the container (a pipeline mixes both),
//! `--backend container` runs there outright, and the shell's language cases give bash's
//! recorded results there too. Outside CI a machine without Docker skips with the reason
//! printed; in CI these must run.

use crate::Cli;
use crate::requirements::containers_here;

#[test]
fn auto_runs_native_programs_in_the_container_beside_the_shell() {
    if !containers_here() {
        return;
    }
    let cli = Cli::new();
    let out = cli.run_with_stdin(&["fs", "write", "data.csv"], b"a,1\nb,2\nc,3\n");
    assert!(out.status.success());
    let script =
        "import sys\nfor line in sys.stdin:\n    k, v = line.strip().split(',')\n    print(v, k)\n";
    let out = cli.run_with_stdin(&["fs", "write", "script.py"], script.as_bytes());
    assert!(out.status.success());
    // The default image (built here on first use if missing) has python3.
    let out = cli.run(&["exec", "python3 -c 'print(6*7)'"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "42\n",
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A pipeline: the shell's cat, python3 in the container, the shell's sort.
    let out = cli.run(&["sh", "-c", "cat data.csv | python3 script.py | sort -r"]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "3 c\n2 b\n1 a\n");
    // Its input and output stream while it runs: an endless writer into it, and out of it
    // into `head`, both end.
    let out = cli.run(&[
        "sh",
        "-c",
        "yes | python3 -c 'print(input())'; \
         python3 -c 'import itertools; [print(i, flush=True) for i in itertools.count()]' \
         | head -2",
    ]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "y\n0\n1\n",
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A directory the shell removes and makes again between two container commands of one
    // script: the second sees the new one (the mount's kernel entry named the removed one).
    let out = cli.run(&[
        "sh",
        "-c",
        "mkdir -p d/old; python3 -c 'import os; print(os.listdir(\"d\"))'; \
         rm -rf d; mkdir -p d/new; python3 -c 'import os; print(os.listdir(\"d\"))'",
    ]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "['old']\n['new']\n",
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // What neither has is "command not found", as bash says it.
    let out = cli.run(&["sh", "-c", "no-such-program-anywhere"]);
    assert_eq!(out.status.code(), Some(127));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "computer: line 1: no-such-program-anywhere: command not found\n"
    );
    // The whole command in the container: files it writes are in the workspace.
    cli.ok(&["fs", "mkdir", "sub"]);
    let out = cli.run(&[
        "exec",
        "--backend",
        "container",
        "--cwd",
        "sub",
        "--env",
        "WHO=container",
        "git init -q . && echo \"$WHO $(pwd)\" > who.txt",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        cli.ok(&["fs", "cat", "sub/who.txt"]),
        "container /workspace/sub\n"
    );
    assert!(cli.ok(&["fs", "ls", "sub/.git"]).contains("HEAD"));
    // A time limit kills the command, says so, and the status is timeout's.
    let out = cli.run(&[
        "exec",
        "--backend",
        "container",
        "--timeout",
        "1",
        "sleep 20",
    ]);
    assert_eq!(out.status.code(), Some(124));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("time limit"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn copy_mode_runs_the_container_without_a_mount() {
    if !containers_here() {
        return;
    }
    let cli = Cli::new();
    let copy = |args: &[&str]| {
        cli.command(args)
            .env("COMPUTER_CONTAINER_TRANSFER", "copy")
            .output()
            .unwrap()
    };
    cli.ok(&["fs", "mkdir", "r"]);
    let out = cli.run_with_stdin(&["fs", "write", "r/data.txt"], b"from the workspace\n");
    assert!(out.status.success());
    // python3 and git in the container; what they write comes back; no FUSE mount there.
    let out = copy(&[
        "exec",
        "--backend",
        "container",
        "--cwd",
        "r",
        "git init -q . && python3 -c \"open('x.py','w').write(open('data.txt').read().upper())\" \
         && grep ' /workspace ' /proc/self/mountinfo | grep -c fuse || true",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "0\n");
    assert_eq!(cli.ok(&["fs", "cat", "r/x.py"]), "FROM THE WORKSPACE\n");
    assert!(cli.ok(&["fs", "ls", "r/.git"]).contains("HEAD"));
    // The workspace's git sees the repository the container made.
    assert_eq!(
        cli.ok(&["git", "-C", "r", "status", "--porcelain"]),
        "?? data.txt\n?? x.py\n"
    );
    // A bad setting is named.
    let out = cli
        .command(&["exec", "--backend", "container", "true"])
        .env("COMPUTER_CONTAINER_TRANSFER", "teleport")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("COMPUTER_CONTAINER_TRANSFER") && said.contains("teleport"),
        "{said}"
    );
}

/// The shell's language cases (`tests/shell/cases/language`), recorded from bash 5.2 on this
/// machine, replayed on the container backend: the same script under the image's bash, in
/// the workspace mounted at `/workspace`, must give what bash gave. Cases whose answer
/// depends on the machine rather than the shell carry `container_difference` with the
/// reason, and must still differ (so the list stays true).
#[test]
fn language_cases_give_bashs_results_on_the_container_backend() {
    use computer::vfs::TimeSet;
    use serde_json::Value;
    if !containers_here() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let ws = computer::Workspace::open(dir.path().join("cases.db")).unwrap();
    let vfs = ws.fs();
    let cases_dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/shell/cases/language");
    let mut files: Vec<_> = std::fs::read_dir(&cases_dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    let (mut passed, mut total, mut failures) = (0, 0, Vec::new());
    for file in files {
        let topic = file.file_stem().unwrap().to_string_lossy().into_owned();
        let cases: Vec<Value> =
            serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        for case in &cases {
            if case.get("known_difference").is_some() {
                continue;
            }
            total += 1;
            let name = format!("{topic}: {}", case["name"].as_str().unwrap());
            for entry in vfs.read_dir("/workspace").unwrap() {
                vfs.remove_all(std::path::Path::new("/workspace").join(entry.name))
                    .unwrap();
            }
            // As the isolate's runner seeds them: in name order, a second apart.
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_secs();
            let seeds: std::collections::BTreeMap<String, String> = case
                .get("files")
                .and_then(Value::as_object)
                .map(|m| {
                    m.iter()
                        .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().into()))
                        .collect()
                })
                .unwrap_or_default();
            for (i, (path, content)) in seeds.iter().enumerate() {
                let p = std::path::Path::new("/workspace").join(path);
                vfs.create_dir_all(p.parent().unwrap()).unwrap();
                vfs.write_file(&p, content).unwrap();
                let secs = (now - 160 + i as u64) as i64;
                vfs.set_times(&p, None, Some(TimeSet::At(secs * 1_000_000_000)))
                    .unwrap();
            }
            let mut req =
                computer::ExecRequest::argv(["bash", "-c", case["script"].as_str().unwrap()]);
            req.backend = computer::Backend::Container;
            req.env = [
                ("HOME", "/home/user"),
                ("PATH", "/usr/bin:/bin"),
                ("LC_ALL", "C"),
            ]
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .to_vec();
            req.stdin = case["stdin"]
                .as_str()
                .unwrap_or_default()
                .as_bytes()
                .to_vec();
            let out = ws.exec(req).unwrap();
            let mut tree = Vec::new();
            for e in vfs
                .walk("/workspace")
                .unwrap()
                .into_iter()
                .filter(|e| e.depth > 0)
            {
                let rel = e.path.strip_prefix("/workspace").unwrap().to_string_lossy();
                tree.push(if e.stat.is_symlink() {
                    format!(
                        "{rel} -> {}",
                        vfs.read_link(&e.path).unwrap().to_string_lossy()
                    )
                } else if e.stat.is_dir() {
                    format!("{rel}/")
                } else {
                    format!(
                        "{rel}: {}",
                        text(&vfs.read_file(&e.path).unwrap_or_default())
                    )
                });
            }
            tree.sort();
            let got = (
                text(&out.stdout),
                text(&out.stderr).replace("bash: ", "computer: "),
                i64::from(out.status),
                tree,
            );
            let recorded_tree: Vec<String> = case
                .get("tree")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|v| v.as_str().map(String::from))
                        .collect()
                })
                .unwrap_or_default();
            let expected = (
                case["stdout"].as_str().unwrap().to_string(),
                case["stderr"].as_str().unwrap().to_string(),
                case["status"].as_i64().unwrap(),
                recorded_tree,
            );
            let differs = got != expected;
            match (differs, case.get("container_difference")) {
                (false, None) | (true, Some(_)) => passed += 1,
                (true, None) => failures.push(format!(
                    "{name}:\n  script: {:?}\n  bash here:      {expected:?}\n  in container:   {got:?}",
                    case["script"].as_str().unwrap()
                )),
                (false, Some(_)) => failures.push(format!(
                    "{name}: marked container_difference but now gives bash's result"
                )),
            }
        }
    }
    println!("language cases on the container backend: {passed} of {total} as recorded");
    assert!(total > 1000, "only {total} cases");
    assert!(
        failures.is_empty(),
        "{} of {total} cases:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
