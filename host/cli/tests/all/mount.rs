//! `computer mount` and `computer umount` with a real FUSE mount: files written on either side
//! are seen on the other, `umount` ends the mount process cleanly, and a killed mount process
//! leaves no dead mount behind (auto-unmount, or the next mount cleans it).

use std::io::{BufRead, BufReader};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use crate::Cli;

/// Whether FUSE can be mounted here; in CI it must.
fn fuse_available() -> bool {
    let ok = std::path::Path::new("/dev/fuse").exists()
        && std::fs::read_to_string("/proc/self/status")
            .is_ok_and(|s| s.lines().any(|l| l.starts_with("Uid:\t0\t")));
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI needs FUSE: /dev/fuse and root"
        );
        println!("skipped: FUSE needs /dev/fuse and root here");
    }
    ok
}

/// Starts `computer mount DIR` and waits until it says it is mounted.
fn start_mount(cli: &Cli, dir: &str) -> Child {
    let mut child = cli
        .command(&["mount", dir])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut said = String::new();
    while !said.contains("computer umount") {
        let before = said.len();
        stderr.read_line(&mut said).unwrap();
        assert!(said.len() > before, "the mount process ended: {said:?}");
    }
    std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
    child
}

fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "timed out: {what}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn mount_shows_the_workspace_and_umount_ends_it() {
    if !fuse_available() {
        return;
    }
    let cli = Cli::new();
    cli.ok(&["fs", "mkdir", "-p", "src"]);
    let out = cli.run_with_stdin(&["fs", "write", "src/main.rs"], b"fn main() {}\n");
    assert!(out.status.success());
    let mut child = start_mount(&cli, "mnt");
    let mnt = cli.path("mnt");
    assert_eq!(
        std::fs::read_to_string(mnt.join("src/main.rs")).unwrap(),
        "fn main() {}\n"
    );
    // Written on the host through the mount: in the workspace at once, for another process.
    std::fs::write(mnt.join("from-host.txt"), "host\n").unwrap();
    assert_eq!(cli.ok(&["fs", "cat", "from-host.txt"]), "host\n");
    // Written by another process straight into the workspace file: the mount catches up.
    let out = cli.run_with_stdin(&["fs", "write", "src/lib.rs"], b"pub fn f() {}\n");
    assert!(out.status.success());
    wait_until("the mount shows src/lib.rs", || {
        std::fs::read_to_string(mnt.join("src/lib.rs")).is_ok_and(|s| s == "pub fn f() {}\n")
    });
    // A second mount on a non-empty directory is refused.
    let taken = cli.path("taken");
    std::fs::create_dir(&taken).unwrap();
    std::fs::write(taken.join("x"), "x").unwrap();
    let err = cli.fails(&["mount", "taken"]);
    assert!(err.contains("is not empty"), "{err}");
    // `umount` ends the mount process, which exits cleanly.
    cli.ok(&["umount", "mnt"]);
    wait_until("the mount process exits", || {
        child.try_wait().unwrap().is_some()
    });
    assert!(child.wait().unwrap().success());
    assert!(!mnt.join("from-host.txt").exists());
    let err = cli.fails(&["umount", "mnt"]);
    assert!(err.contains("is not a computer mount"), "{err}");
}

#[test]
fn a_killed_mount_process_leaves_no_dead_mount() {
    if !fuse_available() {
        return;
    }
    let cli = Cli::new();
    let mut child = start_mount(&cli, "mnt");
    let mnt = cli.path("mnt");
    std::fs::write(mnt.join("kept.txt"), "kept\n").unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    // Its watchdog removes the mount of the killed process.
    wait_until("the watchdog removes the dead mount", || {
        !computer_fuse_is_mounted(&mnt)
    });
    let mut again = start_mount(&cli, "mnt");
    assert_eq!(
        std::fs::read_to_string(mnt.join("kept.txt")).unwrap(),
        "kept\n"
    );
    again.kill().unwrap();
    again.wait().unwrap();
    wait_until("no mount is left after the kill", || {
        !computer_fuse_is_mounted(&mnt)
    });
    assert_eq!(std::fs::read_dir(&mnt).unwrap().count(), 0);
}

/// Whether anything is mounted at `dir`.
fn computer_fuse_is_mounted(dir: &std::path::Path) -> bool {
    let dir = dir.canonicalize().unwrap();
    computer_fuse::mounts().iter().any(|m| m.mountpoint == dir)
}
