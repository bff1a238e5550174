//! What a guest sees: args, env, cwd, stdio, exit codes, the workspace as its filesystem, our
//! `exec` and `workspace` interfaces; and that it cannot reach the host's files.

use std::sync::Arc;
use std::time::Duration;

use computer_isolate::{
    CancelToken, ExecCommand, ExecError, ExecHandler, LimitHit, Limits, NoBackends, RunRequest,
    RunStatus, Stream, WorkspaceComponents,
};
use computer_vfs::Vfs;

use crate::{isolate, run, run_on, text};

#[test]
pub fn stdio_env() {
    let vfs = Arc::new(Vfs::in_memory().unwrap());
    vfs.create_dir_all("/workspace/sub").unwrap();
    let mut streamed: Vec<u8> = Vec::new();
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let req = RunRequest {
        env: vec![
            ("GREETING".into(), "hello".into()),
            ("EXIT_CODE".into(), "7".into()),
        ],
        cwd: "/workspace/sub".into(),
        stdin: b"piped in".to_vec().into(),
        on_output: Some({
            let seen = Arc::clone(&seen);
            Arc::new(move |_, bytes: &[u8]| seen.lock().unwrap().extend_from_slice(bytes))
        }),
        ..RunRequest::default()
    };
    let out = run_on(
        &vfs,
        computer_components::STDIO_ENV,
        &["one", "two words"],
        req,
    );
    streamed.extend(seen.lock().unwrap().iter());
    let stdout = text(&out.stdout);
    // WASI 0.2's `exit` carries success or failure only: exit(7) arrives as 1.
    assert_eq!(out.status, RunStatus::Exited(1), "{}", text(&out.stderr));
    assert!(
        stdout.contains(r#"args: ["guest", "one", "two words"]"#),
        "{stdout}"
    );
    assert!(stdout.contains(r#"("GREETING", "hello")"#), "{stdout}");
    assert!(stdout.contains(r#"("PWD", "/workspace/sub")"#), "{stdout}");
    assert!(stdout.contains(r#"initial cwd: Ok("/")"#), "{stdout}");
    assert!(stdout.contains(r#"cwd: Ok("/workspace/sub")"#), "{stdout}");
    assert!(stdout.contains(r#"stdin: "piped in""#), "{stdout}");
    assert_eq!(text(&out.stderr), "to stderr\n");
    // Output streamed while running equals what was collected (stdout and stderr together).
    assert_eq!(streamed.len(), out.stdout.len() + out.stderr.len());
    // A relative path lands in the cwd, in the workspace, visible at once through the VFS.
    assert_eq!(
        vfs.read_file("/workspace/sub/relative.txt").unwrap(),
        b"written relative to cwd"
    );
}

#[test]
pub fn fs_escape() {
    // A host file that certainly exists; the guest must never see it.
    let host_file = std::env::current_exe().unwrap();
    let host_file = host_file.to_str().unwrap();
    let (vfs, out) = run(
        computer_components::FS_ESCAPE,
        &["/workspace/esc", host_file],
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status, RunStatus::Exited(0), "{}", text(&out.stderr));
    for line in stdout
        .lines()
        .filter(|l| l.contains("path") || l.contains("through"))
    {
        assert!(
            line.contains("err NotFound"),
            "reached outside the workspace: {line}"
        );
    }
    assert!(
        stdout.contains("root listing has workspace: ok true"),
        "{stdout}"
    );
    assert!(
        stdout.contains(r#"parent of root is root: ok "/""#),
        "{stdout}"
    );
    // The absolute symlink is stored as given and resolves inside the workspace.
    assert_eq!(
        vfs.read_link("/workspace/esc/abs").unwrap().to_str(),
        Some(host_file)
    );
}

#[test]
pub fn guest_writes_are_visible_to_the_host_and_back() {
    // Two connections to one workspace file, as the isolate and another process would have.
    let dir = tempfile::tempdir().unwrap();
    let guest_side = Arc::new(Vfs::open(dir.path().join("w.db")).unwrap());
    let other = Vfs::open(dir.path().join("w.db")).unwrap();
    other.create_dir_all("/workspace/data").unwrap();
    other
        .write_file("/workspace/data/notes.txt", "one\ntwo\n")
        .unwrap();
    let out = run_on(
        &guest_side,
        computer_components::RUST_HELLO,
        &["/workspace/data"],
        RunRequest::default(),
    );
    assert_eq!(out.status, RunStatus::Exited(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("     2 notes.txt"),
        "the guest did not see the host's file"
    );
    assert_eq!(
        other.read_file("/workspace/data/LINES.txt").unwrap(),
        b"     2 notes.txt\n",
        "the other connection does not see the guest's file"
    );
}

#[test]
pub fn host_exec() {
    let vfs = Arc::new(Vfs::in_memory().unwrap());
    vfs.create_dir_all("/workspace/bin").unwrap();
    vfs.write_file("/workspace/bin/echo.wasm", computer_components::STDIO_ENV)
        .unwrap();
    let handler = Arc::new(WorkspaceComponents {
        isolate: Arc::clone(isolate()),
        vfs: Arc::clone(&vfs),
        limits: Default::default(),
        next: Arc::new(NoBackends),
        git: Arc::new(computer_isolate::NoGit),
        network: None,
    });
    let req = RunRequest {
        exec: handler,
        ..RunRequest::default()
    };
    let out = run_on(
        &vfs,
        computer_components::HOST_EXEC,
        &["/workspace/bin/echo.wasm", "x"],
        req.clone(),
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status, RunStatus::Exited(0), "{}", text(&out.stderr));
    let run_line = stdout.lines().find(|l| l.starts_with("run:")).unwrap();
    assert!(run_line.contains("status 0"), "{run_line}");
    assert!(
        run_line.contains(r#"args: [\"/workspace/bin/echo.wasm\", \"x\"]"#),
        "{run_line}"
    );
    assert!(run_line.contains(r#"stdin: \"input\""#), "{run_line}");
    assert!(run_line.contains(r#"(\"GREETING\", \"hi\")"#), "{run_line}");
    assert!(run_line.contains(r#"stderr "to stderr\n""#), "{run_line}");
    let spawn_line = stdout.lines().find(|l| l.starts_with("spawn:")).unwrap();
    assert!(spawn_line.contains("status Some(0)"), "{spawn_line}");
    assert!(spawn_line.contains(r#"stdin: \"input\""#), "{spawn_line}");
    // The bytes of the request, then what the guest wrote while the command ran.
    let piped_line = stdout.lines().find(|l| l.starts_with("piped:")).unwrap();
    assert!(piped_line.contains("status Some(0)"), "{piped_line}");
    assert!(
        piped_line.contains(r#"stdin: \"input and more\""#),
        "{piped_line}"
    );
    assert!(stdout.contains("empty: Some(Error::Invalid("), "{stdout}");

    // A program no backend has: not-found from `run`; from `spawn`, status 127 and the
    // message on its stderr; from `spawn-with-stdin`, status 127 and `failure` alone.
    let out = run_on(
        &vfs,
        computer_components::HOST_EXEC,
        &["python3", "-c", "1"],
        req,
    );
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("run: error Error::NotFound(\"python3: no backend can run it\")"),
        "{stdout}"
    );
    let not_found = "failure Some(Error::NotFound(\"python3: no backend can run it\"))";
    let spawn_line = stdout.lines().find(|l| l.starts_with("spawn:")).unwrap();
    assert!(spawn_line.contains("status Some(127)"), "{spawn_line}");
    assert!(spawn_line.contains(not_found), "{spawn_line}");
    let piped_line = stdout.lines().find(|l| l.starts_with("piped:")).unwrap();
    assert!(piped_line.contains("status Some(127)"), "{piped_line}");
    assert!(piped_line.contains(not_found), "{piped_line}");
}

/// A backend that takes `setup` to get ready before each command (an image built, a container
/// started), giving that time back to the guest's deadline when `give_back` is set.
struct SlowToStart {
    setup: Duration,
    give_back: bool,
}

impl ExecHandler for SlowToStart {
    fn run(
        &self,
        cmd: ExecCommand,
        sink: &(dyn Fn(Stream, &[u8]) + Send + Sync),
        _cancel: &CancelToken,
    ) -> Result<i32, ExecError> {
        std::thread::sleep(self.setup);
        if self.give_back {
            cmd.deadline.extend(self.setup);
        }
        sink(Stream::Stdout, b"ran\n");
        Ok(0)
    }
}

#[test]
pub fn a_backends_setup_time_is_not_the_guests_time() {
    // The guest may take 1 s; each of its two commands (one run, one spawned) waits 0.8 s
    // for its backend first.
    let go = |give_back| {
        let vfs = Arc::new(Vfs::in_memory().unwrap());
        let req = RunRequest {
            exec: Arc::new(SlowToStart {
                setup: Duration::from_millis(800),
                give_back,
            }),
            limits: Limits {
                timeout: Duration::from_secs(1),
                ..Limits::default()
            },
            ..RunRequest::default()
        };
        run_on(&vfs, computer_components::HOST_EXEC, &["prog"], req)
    };
    let out = go(true);
    let stdout = text(&out.stdout);
    assert_eq!(out.status, RunStatus::Exited(0), "{}", text(&out.stderr));
    assert!(stdout.contains("run: status 0"), "{stdout}");
    assert!(stdout.contains("spawn: status Some(0)"), "{stdout}");
    // Without the time given back, the same guest runs out of time.
    let out = go(false);
    assert_eq!(
        out.status,
        RunStatus::Limit(LimitHit::Timeout(Duration::from_secs(1)))
    );
}

#[test]
pub fn host_workspace() {
    let (vfs, out) = run(computer_components::HOST_WORKSPACE, &[]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status, RunStatus::Exited(0), "{}", text(&out.stderr));
    assert!(stdout.contains("revision advanced: true"), "{stdout}");
    assert!(
        stdout.contains("change: ChangeKind::Created /workspace/from-guest.txt"),
        "{stdout}"
    );
    assert!(stdout.contains("snapshot: Ok(())"), "{stdout}");
    assert!(stdout.contains(r#"snapshots: ["from-guest"]"#), "{stdout}");
    assert!(stdout.contains("git: Err(Error::Unsupported("), "{stdout}");
    assert_eq!(vfs.snapshots().unwrap()[0].name, "from-guest");
}

/// A read-only tree of the host beside the workspace, as a language runtime's standard
/// library is given to a guest.
fn stdlib_layer() -> Arc<Vfs> {
    let layer = Vfs::in_memory().unwrap();
    layer.create_dir_all("/lib/empty").unwrap();
    layer
        .write_file("/lib/std.txt", "standard library\n")
        .unwrap();
    layer.symlink("/lib/std.txt", "/lib/abs").unwrap();
    Arc::new(layer)
}

/// [`stdlib_layer`] at `/usr/local`, and a request that gives it to a guest.
fn stdlib_at_usr_local() -> (Arc<Vfs>, RunRequest) {
    let layer = stdlib_layer();
    let req = RunRequest {
        layers: vec![computer_isolate::Layer {
            path: "/usr/local".into(),
            vfs: Arc::clone(&layer),
        }],
        ..RunRequest::default()
    };
    (layer, req)
}

#[test]
pub fn fs_layer() {
    let vfs = Arc::new(Vfs::in_memory().unwrap());
    let (layer, req) = stdlib_at_usr_local();
    let out = run_on(
        &vfs,
        computer_components::FS_LAYER,
        &["/usr/local", "/workspace/w"],
        req,
    );
    assert_eq!(out.status, RunStatus::Exited(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let want = r#"read: ok "standard library\n"
list: ok ["abs", "empty", "std.txt"]
stat size: ok 17
copy out: ok ()
copied: ok "standard library\n"
create: err ReadOnlyFilesystem
overwrite: err ReadOnlyFilesystem
append: err ReadOnlyFilesystem
mkdir: err ReadOnlyFilesystem
remove: err ReadOnlyFilesystem
rmdir: err ReadOnlyFilesystem
symlink: err ReadOnlyFilesystem
rename inside: err ReadOnlyFilesystem
rename out: err CrossesDevices
rename in: err CrossesDevices
hard link out: err CrossesDevices
set mtime: err ReadOnlyFilesystem
unchanged: ok "standard library\n"
dotdot stays inside: ok "standard library\n"
absolute symlink stays inside: ok "standard library\n"
workspace still writable: ok ()
"#;
    assert_eq!(stdout, want);
    // Nothing of the layer was copied into the workspace, nor changed in the layer.
    assert_eq!(
        vfs.read_file("/workspace/w/copied.txt").unwrap(),
        b"standard library\n"
    );
    assert!(vfs.read_file("/usr/local/lib/std.txt").is_err());
    assert_eq!(
        layer.read_file("/lib/std.txt").unwrap(),
        b"standard library\n"
    );
    assert!(layer.read_file("/lib/new.txt").is_err());
}

/// A workspace with `files` (each "data\n"), and `/usr/local/lib/hidden.txt` in it where
/// [`stdlib_at_usr_local`] puts a layer: the guest cannot see that file.
fn beneath_a_layer(files: &[&str]) -> Arc<Vfs> {
    let vfs = Arc::new(Vfs::in_memory().unwrap());
    for f in files {
        vfs.create_dir_all(std::path::Path::new(f).parent().unwrap())
            .unwrap();
        vfs.write_file(f, "data\n").unwrap();
    }
    vfs.create_dir_all("/usr/local/lib").unwrap();
    vfs.write_file("/usr/local/lib/hidden.txt", "workspace\n")
        .unwrap();
    vfs
}

/// The shell's `rm -r` of a directory is one change on the host; at a layer it removes
/// nothing of the layer and nothing the layer hides in the workspace.
#[test]
fn the_shells_rm_r_is_one_change_and_stops_at_a_layer() {
    let vfs = beneath_a_layer(&["/w/tree/a/x", "/w/tree/a/b/y", "/w/tree/z", "/w/keep"]);
    vfs.symlink("/w/tree", "/w/link").unwrap();
    let (layer, req) = stdlib_at_usr_local();
    let before = vfs.revision().unwrap();
    let script = "rm -r /w/tree; echo $?; rm -r /w/link; echo $?; rm -rf /usr/local/lib; echo $?";
    let out = run_on(&vfs, computer_components::SHELL, &["-c", script], req);
    assert_eq!(text(&out.stdout), "0\n0\n1\n", "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("Read-only file system"),
        "{}",
        text(&out.stderr)
    );
    // The tree went in one revision; the link went on its own and its target was gone.
    assert_eq!(vfs.revision().unwrap(), before + 2);
    assert!(vfs.stat("/w/tree").is_err() && vfs.lstat("/w/link").is_err());
    assert_eq!(vfs.read_file("/w/keep").unwrap(), b"data\n");
    assert_eq!(
        vfs.read_file("/usr/local/lib/hidden.txt").unwrap(),
        b"workspace\n"
    );
    assert_eq!(
        layer.read_file("/lib/std.txt").unwrap(),
        b"standard library\n"
    );
}

/// The shell lists a workspace directory in one host call (`list-directory`): names in
/// order with their types, FIFOs and links told apart without a `stat`. A layer's
/// directories, a path that may reach one (`..`), and a directory too big for one call are
/// listed through `wasi:filesystem` instead, with the same result.
#[test]
fn the_shells_listings_come_whole_from_the_host_and_stop_at_a_layer() {
    let vfs = beneath_a_layer(&["/w/b/x", "/w/a", "/w/c"]);
    vfs.make_fifo("/w/p", 0o644).unwrap();
    vfs.symlink("a", "/w/l").unwrap();
    let (_layer, req) = stdlib_at_usr_local();
    let script = "find /w -type p; find /w -type l; find /w/b; ls /w; echo /w/*; \
                  ls /usr/local/lib; find /usr/local/lib/../lib -name '*.txt'; \
                  du -a /w/b | cut -f2; grep -r data /w/b; ls /w/nothing; echo $?";
    let out = run_on(&vfs, computer_components::SHELL, &["-c", script], req);
    assert_eq!(
        text(&out.stdout),
        "/w/p\n/w/l\n/w/b\n/w/b/x\na\nb\nc\nl\np\n/w/a /w/b /w/c /w/l /w/p\n\
         abs\nempty\nstd.txt\n/usr/local/lib/../lib/std.txt\n/w/b/x\n/w/b\n/w/b/x:data\n2\n",
        "{}",
        text(&out.stderr)
    );
    assert_eq!(
        text(&out.stderr),
        "ls: cannot access '/w/nothing': No such file or directory\n"
    );

    // Past what one call hands over, `wasi:filesystem` lists the rest.
    let many = 100_001;
    vfs.batch(|b| {
        b.create_dir_all("/big")?;
        for i in 0..many {
            b.write_file(format!("/big/f{i}"), b"", 0o644)?;
        }
        Ok(())
    })
    .unwrap();
    let script = "find /big | wc -l; find /big -name f100000; echo /big/f9999* | wc -w";
    let out = run_on(
        &vfs,
        computer_components::SHELL,
        &["-c", script],
        RunRequest::default(),
    );
    assert_eq!(
        text(&out.stdout),
        format!("{}\n/big/f100000\n11\n", many + 1),
        "{}",
        text(&out.stderr)
    );
}

/// `cp -r` copies a tree to a new path on the host in one change, and into an existing
/// directory each part new there; from a read-only layer it copies entry by entry (the layer's files, not the workspace's under the same path),
/// into one it fails, and a tree is never copied into itself.
#[test]
fn the_shells_cp_r_is_one_change_and_reads_a_layer() {
    let vfs = beneath_a_layer(&["/w/tree/a/x", "/w/tree/a/b/y", "/w/tree/z"]);
    vfs.symlink("a/x", "/w/tree/l").unwrap();
    let (layer, req) = stdlib_at_usr_local();
    let before = vfs.revision().unwrap();
    let out = run_on(
        &vfs,
        computer_components::SHELL,
        &["-c", "cp -r /w/tree /w/copy"],
        RunRequest {
            layers: req.layers.clone(),
            ..RunRequest::default()
        },
    );
    assert_eq!(out.status, RunStatus::Exited(0), "{}", text(&out.stderr));
    assert_eq!(vfs.revision().unwrap(), before + 1, "one change");
    assert_eq!(vfs.read_file("/w/copy/a/b/y").unwrap(), b"data\n");
    // Into an existing directory: each part new there is one change (a, l, z).
    let before = vfs.revision().unwrap();
    let out = run_on(
        &vfs,
        computer_components::SHELL,
        &["-c", "mkdir /w/m && cp -r /w/tree/. /w/m"],
        RunRequest::default(),
    );
    assert_eq!(out.status, RunStatus::Exited(0), "{}", text(&out.stderr));
    assert_eq!(vfs.revision().unwrap(), before + 4);
    assert_eq!(vfs.read_file("/w/m/a/b/y").unwrap(), b"data\n");
    assert_eq!(
        vfs.read_link("/w/copy/l").unwrap(),
        std::path::Path::new("a/x")
    );

    let script = "cp -r /usr/local/lib /w/std; echo $?; cp -r /w/tree /usr/local/lib/t; echo $?; \
                  cp -r /w/tree /w/tree/a/in; echo $?";
    let out = run_on(&vfs, computer_components::SHELL, &["-c", script], req);
    assert_eq!(text(&out.stdout), "0\n1\n1\n", "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("Read-only file system"), "{stderr}");
    assert!(stderr.contains("into itself"), "{stderr}");
    assert_eq!(
        vfs.read_file("/w/std/std.txt").unwrap(),
        b"standard library\n"
    );
    assert!(vfs.lstat("/w/std/hidden.txt").is_err());
    assert!(vfs.lstat("/usr/local/lib/t").is_err() && vfs.lstat("/w/tree/a/in").is_err());
    assert!(layer.lstat("/lib/t").is_err());
}

/// A run with 48 MiB of memory: less than the 64 MiB files the streaming tests give it.
fn small_memory() -> RunRequest {
    RunRequest {
        limits: Limits {
            memory: 48 << 20,
            ..Limits::default()
        },
        ..RunRequest::default()
    }
}

/// The shell's `cmp` and `diff` read two files in step: files larger than the isolate's memory
/// compare, and where `diff` must hold them whole to show the lines it says so, naming the limit.
#[test]
fn the_shells_cmp_and_diff_compare_files_larger_than_memory() {
    let vfs = Arc::new(Vfs::in_memory().unwrap());
    vfs.create_dir_all("/w").unwrap();
    let line = [&[b'x'; 63][..], b"\n"].concat();
    let mut data = line.repeat(1 << 20); // 64 MiB
    vfs.write_file("/w/a", &data).unwrap();
    vfs.write_file("/w/same", &data).unwrap();
    let at = data.len() - 2;
    data[at] = b'y';
    vfs.write_file("/w/b", &data).unwrap();
    let script = "cd /w; cmp a same; echo cmp $?; cmp a b; echo cmp $?; cmp -l a b; echo cmp -l $?; \
                  diff a same; echo diff $?; diff -q a b; echo diff -q $?; diff a b; echo diff $?";
    let out = run_on(
        &vfs,
        computer_components::SHELL,
        &["-c", script],
        small_memory(),
    );
    assert_eq!(out.status, RunStatus::Exited(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "cmp 0\na b differ: char 67108863, line 1048576\ncmp 1\n67108863 170 171\ncmp -l 1\n\
         diff 0\nFiles a and b differ\ndiff -q 1\ndiff 2\n",
        "{}",
        text(&out.stderr)
    );
    let stderr = text(&out.stderr);
    assert!(
        stderr.starts_with("diff: a: out of memory after reading")
            && stderr.ends_with("(the isolate's memory limit)\n"),
        "{stderr}"
    );
}

/// `base64` and its kin encode and decode a block at a time, and the dumpers (`od`,
/// `hexdump`, `xxd`, `strings`) read a row at a time: a file larger than the isolate's
/// memory goes through them all.
#[test]
fn the_shells_encoders_and_dumpers_stream_files_larger_than_memory() {
    let vfs = Arc::new(Vfs::in_memory().unwrap());
    vfs.create_dir_all("/w").unwrap();
    let size: u64 = 64 << 20;
    let data: Vec<u8> = (0..size).map(|i| (i * 7 % 251) as u8).collect();
    vfs.write_file("/w/a", &data).unwrap();
    // What `strings` finds: runs of at least 4 printable bytes.
    let runs = data
        .split(|b| !(0x20..0x7f).contains(b) && *b != b'\t')
        .filter(|run| run.len() >= 4)
        .count();
    drop(data);
    // Rows of zeros print as `*` after the first: the dumpers' cost is the reading.
    vfs.write_file("/w/z", vec![0u8; size as usize]).unwrap();
    let script = "cd /w; base64 a > e; echo $?; base64 -d e | cmp - a; echo $?; \
                  base32 -w 0 a | base32 -d | cmp - a; echo $?; od -A d -t x1 z | tail -n 1; \
                  hexdump -C z | tail -n 1; xxd -p z | xxd -r -p | cmp - z; echo $?; \
                  strings a z | wc -l";
    let out = run_on(
        &vfs,
        computer_components::SHELL,
        &["-c", script],
        small_memory(),
    );
    assert_eq!(
        text(&out.stdout),
        format!("0\n0\n0\n{size:07}\n{size:08x}\n0\n{runs}\n"),
        "{}",
        text(&out.stderr)
    );
    let symbols = size.div_ceil(3) * 4;
    assert_eq!(
        vfs.stat("/w/e").unwrap().size,
        symbols + symbols.div_ceil(76)
    );
}

/// The shell's compressors and `tar` read and write a block at a time: files larger than the
/// isolate's memory go through each format and back, to files, through pipes and to
/// standard output.
#[test]
fn the_shells_compressors_stream_files_larger_than_memory() {
    let vfs = Arc::new(Vfs::in_memory().unwrap());
    vfs.create_dir_all("/w").unwrap();
    let size: u64 = 64 << 20;
    let data: Vec<u8> = (0..size).map(|i| (i * 7 % 251) as u8).collect();
    vfs.write_file("/w/a", &data).unwrap();
    drop(data);
    // bzip2 sorts a repeating pattern slowly (GNU's too): it gets zeros.
    vfs.write_file("/w/z", vec![0u8; size as usize]).unwrap();
    // xz -1: the encoder's dictionary at -6 alone would outgrow this small instance.
    let script = "cd /w; gzip -k a && gunzip -c a.gz | cmp - a; echo $?; \
                  cat a | gzip | gunzip | cmp - a; echo $?; \
                  xz -1 -k a && xz -dc a.xz | cmp - a; echo $?; \
                  bzip2 -k z && bzcat z.bz2 | cmp - z; echo $?; \
                  zstd -q a && mv a b && unzstd -q a.zst && cmp a b; echo $?; \
                  tar cf t.tar a && mkdir x && tar xf t.tar -C x && cmp a x/a; echo $?; \
                  tar czf - a | tar xzOf - | cmp - a; echo $?";
    let out = run_on(
        &vfs,
        computer_components::SHELL,
        &["-c", script],
        small_memory(),
    );
    assert_eq!(
        text(&out.stdout),
        "0\n0\n0\n0\n0\n0\n0\n",
        "{}",
        text(&out.stderr)
    );
    for name in ["a.gz", "a.xz", "z.bz2", "a.zst"] {
        let packed = vfs.stat(format!("/w/{name}")).unwrap().size;
        assert!(packed < size / 10, "{name}: {packed} bytes");
    }
}

#[test]
fn a_layer_path_must_be_absolute_plain_and_unique() {
    for bad in [
        "/",
        "",
        "usr/local",
        "/usr/../etc",
        "/usr//local",
        "/usr/./x",
    ] {
        let layers = vec![computer_isolate::Layer {
            path: bad.into(),
            vfs: stdlib_layer(),
        }];
        let out = run_on(
            &Arc::new(Vfs::in_memory().unwrap()),
            computer_components::HELLO,
            &[],
            RunRequest {
                layers,
                ..RunRequest::default()
            },
        );
        match &out.status {
            RunStatus::Trapped(msg) => assert!(msg.contains("layer's path"), "{bad:?}: {msg}"),
            other => panic!("{bad:?} was accepted: {other:?}"),
        }
    }
    let twice = |p: &str| computer_isolate::Layer {
        path: p.into(),
        vfs: stdlib_layer(),
    };
    let out = run_on(
        &Arc::new(Vfs::in_memory().unwrap()),
        computer_components::HELLO,
        &[],
        RunRequest {
            layers: vec![twice("/opt"), twice("/opt")],
            ..RunRequest::default()
        },
    );
    assert!(
        matches!(&out.status, RunStatus::Trapped(m) if m.contains("two layers at /opt")),
        "{:?}",
        out.status
    );
}
