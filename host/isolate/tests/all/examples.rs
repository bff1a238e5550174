//! The smallest guest, the compile cache, the fs benchmark guest, and the example guests in
//! Rust and Python (built with componentize-py from PyPI).

use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use computer_isolate::{Isolate, IsolateConfig, RunRequest, RunStatus};
use computer_vfs::Vfs;

use crate::{run, run_on, text};

#[test]
pub fn hello() {
    let (_, out) = run(computer_components::HELLO, &[]);
    assert_eq!(out.status, RunStatus::Exited(0));
    assert_eq!(text(&out.stdout), "hello from the isolate\n");
}

#[test]
fn hello_as_a_wasip1_module() {
    let (_, out) = run(computer_components::HELLO_P1, &[]);
    assert_eq!(out.status, RunStatus::Exited(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "hello from the isolate\n");
}

#[test]
fn compiled_components_are_cached_on_disk_and_a_bad_cache_entry_is_rebuilt() {
    let dir = tempfile::tempdir().unwrap();
    let config = IsolateConfig {
        cache_dir: Some(dir.path().join("cache")),
        pooling: false,
        ..IsolateConfig::default()
    };
    let first = Isolate::new(config.clone()).unwrap();
    first.load(computer_components::HELLO).unwrap();
    let entries: Vec<_> = std::fs::read_dir(dir.path().join("cache"))
        .unwrap()
        .collect();
    assert_eq!(entries.len(), 1, "one artifact");
    let artifact = entries[0].as_ref().unwrap().path();
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(dir.path().join("cache"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o700, "the cache directory is private");
    // A second process (a new runtime) loads it from disk and runs it.
    let second = Isolate::new(config.clone()).unwrap();
    let program = second.load(computer_components::HELLO).unwrap();
    let out = second.run(
        &program,
        Arc::new(Vfs::in_memory().unwrap()),
        RunRequest::default(),
    );
    assert_eq!(text(&out.stdout), "hello from the isolate\n");
    // The second runtime maps the file: changed in place under it, its pages would be gone
    // (SIGBUS). The cache never does that (it writes a new file and renames it over), and
    // neither does this test while the mapping lives.
    drop((program, second));
    // A damaged artifact is not trusted blindly: it fails to load and is rebuilt.
    std::fs::write(&artifact, b"garbage").unwrap();
    let third = Isolate::new(config).unwrap();
    let program = third.load(computer_components::HELLO).unwrap();
    let out = third.run(
        &program,
        Arc::new(Vfs::in_memory().unwrap()),
        RunRequest::default(),
    );
    assert_eq!(text(&out.stdout), "hello from the isolate\n");
    assert!(
        std::fs::metadata(&artifact).unwrap().len() > 1000,
        "rebuilt"
    );
}

#[test]
fn wasip1_modules_are_adapted_once_and_cached_under_their_own_key() {
    let dir = tempfile::tempdir().unwrap();
    let config = IsolateConfig {
        cache_dir: Some(dir.path().to_path_buf()),
        pooling: false,
        ..IsolateConfig::default()
    };
    Isolate::new(config.clone())
        .unwrap()
        .load(computer_components::HELLO_P1)
        .unwrap();
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
    // The key covers the adapter: not the key a component of the same bytes would have.
    let module_hash: String = blake3::hash(computer_components::HELLO_P1)
        .as_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert!(!names[0].starts_with(&module_hash), "{names:?}");
    // Another process maps the adapted artifact and runs it.
    let second = Isolate::new(config).unwrap();
    let program = second.load(computer_components::HELLO_P1).unwrap();
    let out = second.run(
        &program,
        Arc::new(Vfs::in_memory().unwrap()),
        RunRequest::default(),
    );
    assert_eq!(text(&out.stdout), "hello from the isolate\n");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn the_shell_hash_computed_at_build_time_is_its_hash() {
    let hash = blake3::hash(computer_components::SHELL);
    assert_eq!(hash.as_bytes(), &computer_components::SHELL_HASH);
}

#[test]
pub fn fs_bench() {
    let (vfs, out) = run(computer_components::FS_BENCH, &["/workspace/bench", "50"]);
    assert_eq!(out.status, RunStatus::Exited(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    for op in [
        "create",
        "stat",
        "read",
        "readdir",
        "write 16 MiB",
        "read 16 MiB",
        "remove tree",
    ] {
        assert!(
            stdout.lines().any(|l| l.starts_with(&format!("{op}\t"))),
            "{stdout}"
        );
    }
    assert!(!vfs.exists("/workspace/bench").unwrap());
}

#[test]
fn rust_example_counts_lines_and_calls_the_host() {
    let vfs = Arc::new(Vfs::in_memory().unwrap());
    vfs.create_dir_all("/workspace/src").unwrap();
    vfs.write_file("/workspace/src/a.txt", "1\n2\n3\n").unwrap();
    vfs.write_file("/workspace/src/b.txt", "only\n").unwrap();
    let out = run_on(
        &vfs,
        computer_components::RUST_HELLO,
        &["/workspace/src"],
        RunRequest::default(),
    );
    assert_eq!(out.status, RunStatus::Exited(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("     3 a.txt\n     1 b.txt\n"), "{stdout}");
    assert!(
        stdout.contains("host could not run uname: Error::NotFound"),
        "{stdout}"
    );
    assert_eq!(
        vfs.read_file("/workspace/src/LINES.txt").unwrap(),
        b"     3 a.txt\n     1 b.txt\n"
    );
}

/// componentize-py, installed by the CI script from PyPI; skipped with a reason elsewhere.
fn componentize_py() -> Option<String> {
    let found = Command::new("componentize-py")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if found {
        return Some("componentize-py".into());
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "componentize-py is missing in CI (.ci/run installs it with pip)"
    );
    eprintln!(
        "skipping the Python guest: componentize-py is not installed (pip install componentize-py==0.25.1)"
    );
    None
}

#[test]
fn python_example_reads_and_writes_the_workspace() {
    let Some(tool) = componentize_py() else {
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out_dir = tempfile::tempdir().unwrap();
    let wasm = out_dir.path().join("app.wasm");
    let status = Command::new(tool)
        .arg("-d")
        .arg(root.join("wit"))
        .args(["-w", "computer:host/guest", "componentize", "app", "-p"])
        .arg(root.join("guests/examples/python"))
        .arg("-o")
        .arg(&wasm)
        .status()
        .unwrap();
    assert!(status.success(), "componentize-py failed");
    let vfs = Arc::new(Vfs::in_memory().unwrap());
    vfs.create_dir_all("/workspace/notes").unwrap();
    vfs.write_file("/workspace/notes/todo.txt", "buy milk\nwrite tests\n")
        .unwrap();
    let wasm = std::fs::read(&wasm).unwrap();
    let out = run_on(&vfs, &wasm, &["/workspace/notes"], RunRequest::default());
    assert_eq!(out.status, RunStatus::Exited(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("todo.txt: 2 lines"), "{stdout}");
    assert!(stdout.contains("revision:"), "{stdout}");
    assert!(stdout.contains("exec: not-found"), "{stdout}");
    assert_eq!(
        vfs.read_file("/workspace/notes/SUMMARY.md").unwrap(),
        b"# Summary\n- todo.txt: 2 lines\n"
    );
}

/// Builds the C example for wasm32-wasip1 with Debian's clang, lld and wasi-libc (installed by
/// the CI script); `None`, with the reason printed, where they are missing outside CI.
fn c_example() -> Option<Vec<u8>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dir = tempfile::tempdir().unwrap();
    let wasm = dir.path().join("count.wasm");
    let built = Command::new("clang")
        .args(["--target=wasm32-wasi", "-O2", "-o"])
        .arg(&wasm)
        .arg(root.join("guests/examples/c/count.c"))
        .output();
    match built {
        Ok(out) if out.status.success() => Some(std::fs::read(&wasm).unwrap()),
        other => {
            let why = match other {
                Ok(out) => text(&out.stderr),
                Err(e) => e.to_string(),
            };
            assert!(
                std::env::var_os("CI").is_none(),
                "clang cannot build for wasm32-wasi in CI (.ci/run installs clang, lld and \
                 wasi-libc): {why}"
            );
            eprintln!(
                "skipping the C guest: clang cannot build for wasm32-wasi (apt install clang lld \
                 wasi-libc libclang-rt-14-dev-wasm32): {why}"
            );
            None
        }
    }
}

#[test]
fn c_example_runs_as_a_wasip1_module_with_its_exit_status() {
    let Some(wasm) = c_example() else {
        return;
    };
    assert_eq!(
        &wasm[..8],
        b"\0asm\x01\0\0\0",
        "a core module, not a component"
    );
    let vfs = Arc::new(Vfs::in_memory().unwrap());
    vfs.create_dir_all("/workspace/src/sub").unwrap();
    vfs.write_file("/workspace/src/a.txt", "1\n2\n3\n").unwrap();
    vfs.write_file("/workspace/src/b.txt", "only, no newline")
        .unwrap();
    let out = run_on(&vfs, &wasm, &["/workspace/src"], RunRequest::default());
    assert_eq!(out.status, RunStatus::Exited(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "     3 a.txt\n     1 b.txt\n");
    assert_eq!(
        vfs.read_file("/workspace/src/LINES.txt").unwrap(),
        b"     3 a.txt\n     1 b.txt\n"
    );
    // A relative path starts at the working directory, as in any guest.
    let out = run_on(
        &vfs,
        &wasm,
        &["src"],
        RunRequest {
            cwd: "/workspace".into(),
            ..RunRequest::default()
        },
    );
    assert_eq!(
        text(&out.stdout),
        "     3 a.txt\n     1 b.txt\n",
        "{}",
        text(&out.stderr)
    );
    // The whole exit status comes through the adapter, not only success or failure.
    let (_, out) = run(&wasm, &["/workspace/nope"]);
    assert_eq!(out.status, RunStatus::Exited(1));
    assert_eq!(
        text(&out.stderr),
        "count: /workspace/nope: No such file or directory\n"
    );
    let (_, out) = run(&wasm, &[]);
    assert_eq!(out.status, RunStatus::Exited(2));
    assert_eq!(text(&out.stderr), "usage: count DIR\n");
    // Nothing of the host is reachable from C either.
    let (_, out) = run(&wasm, &["/etc"]);
    assert_eq!(out.status, RunStatus::Exited(1));
    assert!(
        text(&out.stderr).contains("No such file"),
        "{}",
        text(&out.stderr)
    );
}
