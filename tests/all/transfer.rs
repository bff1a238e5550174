//! Import and export between real host trees and the workspace: folders, tar and tar.gz, checked
//! against the source with `diff -r`, GNU tar, and a comparison of modes, links and mtimes.

use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::Command;

use computer::Workspace;

/// A tree with what plain copies get wrong: modes, symlinks of every kind, hard links, empty
/// and multi-chunk files, odd names, old mtimes, and this repository's own sources.
fn fixture(root: &Path) -> PathBuf {
    let src = root.join("src");
    fs::create_dir_all(src.join("dir/deeper")).unwrap();
    fs::write(src.join("empty"), b"").unwrap();
    fs::write(src.join("script.sh"), b"#!/bin/sh\necho hi\n").unwrap();
    fs::set_permissions(src.join("script.sh"), fs::Permissions::from_mode(0o755)).unwrap();
    fs::write(src.join("secret"), b"s").unwrap();
    fs::set_permissions(src.join("secret"), fs::Permissions::from_mode(0o600)).unwrap();
    let big: Vec<u8> = (0..1_500_000u32).map(|i| (i % 251) as u8).collect();
    fs::write(src.join("dir/big.bin"), &big).unwrap();
    fs::write(src.join("dir/deeper/name with spaces & ünïcode"), b"x").unwrap();
    std::os::unix::fs::symlink("dir/big.bin", src.join("rel-link")).unwrap();
    std::os::unix::fs::symlink("/etc/hostname", src.join("abs-link")).unwrap();
    std::os::unix::fs::symlink("nowhere", src.join("dangling")).unwrap();
    fs::hard_link(src.join("script.sh"), src.join("dir/hardlink.sh")).unwrap();
    fs::set_permissions(src.join("dir/deeper"), fs::Permissions::from_mode(0o750)).unwrap();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    copy_tree(&repo.join("host"), &src.join("host"));
    let old = filetime::FileTime::from_unix_time(1_000_000_000, 0);
    filetime::set_file_mtime(src.join("secret"), old).unwrap();
    filetime::set_symlink_file_times(src.join("rel-link"), old, old).unwrap();
    filetime::set_file_mtime(src.join("dir"), old).unwrap();
    src
}

fn copy_tree(from: &Path, to: &Path) {
    let status = Command::new("cp")
        .arg("-a")
        .arg(from)
        .arg(to)
        .status()
        .unwrap();
    assert!(status.success());
}

/// (path, type, mode, link target, mtime seconds, hard-link group) of every entry below `root`.
fn signature(root: &Path) -> Vec<(String, char, u32, String, i64, usize)> {
    let mut inodes: Vec<u64> = Vec::new();
    let mut out = Vec::new();
    for entry in walk(root) {
        let m = fs::symlink_metadata(&entry).unwrap();
        let kind = if m.file_type().is_symlink() {
            'l'
        } else if m.is_dir() {
            'd'
        } else {
            'f'
        };
        let target = if kind == 'l' {
            fs::read_link(&entry).unwrap().display().to_string()
        } else {
            String::new()
        };
        let group = if kind == 'f' && m.nlink() > 1 {
            let pos = inodes
                .iter()
                .position(|i| *i == m.ino())
                .unwrap_or_else(|| {
                    inodes.push(m.ino());
                    inodes.len() - 1
                });
            pos + 1
        } else {
            0
        };
        let rel = entry.strip_prefix(root).unwrap().display().to_string();
        let mode = if kind == 'l' { 0 } else { m.mode() & 0o7777 };
        out.push((rel, kind, mode, target, m.mtime(), group));
    }
    out
}

fn walk(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let mut entries: Vec<PathBuf> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for e in entries {
            if fs::symlink_metadata(&e).unwrap().is_dir() {
                stack.push(e.clone());
            }
            out.push(e);
        }
    }
    out.sort();
    out
}

fn diff_r(a: &Path, b: &Path) {
    let out = Command::new("diff")
        .arg("-r")
        .arg("--no-dereference")
        .arg(a)
        .arg(b)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "diff -r {} {}:\n{}{}",
        a.display(),
        b.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn no_progress() -> impl FnMut(&computer::Progress<'_>) {
    |_| {}
}

#[test]
fn folder_import_export_is_identical() {
    let tmp = tempfile::tempdir().unwrap();
    let src = fixture(tmp.path());
    let ws = Workspace::open(tmp.path().join("w.db")).unwrap();
    let stats = ws
        .import(&src, Path::new("/workspace/proj"), &mut no_progress())
        .unwrap();
    assert!(
        stats.files > 20 && stats.symlinks == 3 && stats.hard_links == 1,
        "{stats:?}"
    );
    // A progress callback sees every entry.
    let mut calls = 0;
    let out = tmp.path().join("out");
    ws.export(Path::new("proj"), &out, &mut |_| calls += 1)
        .unwrap();
    assert!(calls as u64 >= stats.files);
    diff_r(&src, &out);
    assert_eq!(signature(&src), signature(&out));
}

#[test]
fn tar_from_gnu_tar_imports_and_our_tar_extracts_with_gnu_tar() {
    let tmp = tempfile::tempdir().unwrap();
    let src = fixture(tmp.path());
    let archive = tmp.path().join("gnu.tar.gz");
    let ok = Command::new("tar")
        .arg("czf")
        .arg(&archive)
        .arg("-C")
        .arg(&src)
        .arg(".")
        .status()
        .unwrap();
    assert!(ok.success());
    let ws = Workspace::in_memory().unwrap();
    ws.import(&archive, Path::new("/workspace/t"), &mut no_progress())
        .unwrap();

    for name in ["ours.tar", "ours.tar.gz"] {
        let ours = tmp.path().join(name);
        ws.export(Path::new("/workspace/t"), &ours, &mut no_progress())
            .unwrap();
        let out = tmp.path().join(format!("x-{name}"));
        fs::create_dir(&out).unwrap();
        let ok = Command::new("tar")
            .arg("xf")
            .arg(&ours)
            .arg("-C")
            .arg(&out)
            .status()
            .unwrap();
        assert!(ok.success(), "GNU tar rejected {name}");
        diff_r(&src, &out);
        assert_eq!(signature(&src), signature(&out), "{name}");
    }
}

#[test]
fn archive_members_that_climb_out_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let archive = tmp.path().join("evil.tar");
    let mut builder = tar::Builder::new(fs::File::create(&archive).unwrap());
    let mut header = tar::Header::new_gnu();
    header.set_size(4);
    header.set_mode(0o644);
    // `append_data` refuses `..` itself, so write the name into the header directly.
    header.as_gnu_mut().unwrap().name[..13].copy_from_slice(b"../../escaped");
    header.set_cksum();
    builder.append(&header, &b"evil"[..]).unwrap();
    builder.finish().unwrap();
    let ws = Workspace::in_memory().unwrap();
    let err = ws
        .import(&archive, Path::new("/workspace"), &mut no_progress())
        .unwrap_err();
    assert!(err.to_string().contains("climbs out"), "{err}");
    assert!(!ws.fs().exists("/escaped").unwrap());
    assert!(!ws.fs().exists("/workspace/escaped").unwrap());
    // Refused into folders it would make: none is left behind; one that was there stays.
    let err = ws
        .import(
            &archive,
            Path::new("/workspace/new/dest"),
            &mut no_progress(),
        )
        .unwrap_err();
    assert!(err.to_string().contains("climbs out"), "{err}");
    assert!(!ws.fs().exists("/workspace/new").unwrap());
    assert!(ws.fs().exists("/workspace").unwrap());
}

#[test]
fn import_never_writes_through_a_workspace_symlink() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    fs::create_dir(&src).unwrap();
    fs::write(src.join("config"), b"from host").unwrap();
    let ws = Workspace::in_memory().unwrap();
    ws.fs().create_dir_all("/workspace/dst").unwrap();
    ws.fs()
        .write_file("/home/user/precious", "keep me")
        .unwrap();
    ws.fs()
        .symlink("/home/user/precious", "/workspace/dst/config")
        .unwrap();
    ws.import(&src, Path::new("/workspace/dst"), &mut no_progress())
        .unwrap();
    assert_eq!(
        ws.fs().read_file("/home/user/precious").unwrap(),
        b"keep me"
    );
    assert_eq!(
        ws.fs().read_file("/workspace/dst/config").unwrap(),
        b"from host"
    );
    assert!(ws.fs().lstat("/workspace/dst/config").unwrap().is_file());
}

#[test]
fn snapshot_restore_gives_back_the_tree_exactly_and_forks_are_independent() {
    let tmp = tempfile::tempdir().unwrap();
    let src = fixture(tmp.path());
    let ws = Workspace::open(tmp.path().join("w.db")).unwrap();
    ws.import(&src, Path::new("/workspace/p"), &mut no_progress())
        .unwrap();
    ws.snapshot("clean").unwrap();
    let fs_ = ws.fs();
    fs_.remove_all("/workspace/p/host").unwrap();
    fs_.write_file("/workspace/p/script.sh", "changed").unwrap();
    fs_.set_permissions("/workspace/p/secret", 0o644).unwrap();
    fs_.create_dir_all("/workspace/p/new/dir").unwrap();
    fs_.rename("/workspace/p/dir", "/workspace/p/moved")
        .unwrap();

    let fork_path = tmp.path().join("fork.db");
    let fork = ws.fork("clean", &fork_path).unwrap();
    ws.restore("clean").unwrap();
    let restored = tmp.path().join("restored");
    ws.export(Path::new("/workspace/p"), &restored, &mut no_progress())
        .unwrap();
    diff_r(&src, &restored);
    assert_eq!(signature(&src), signature(&restored));

    // The fork has the snapshot's tree, and changes to either side stay on that side.
    fork.fs()
        .write_file("/workspace/p/empty", "fork only")
        .unwrap();
    assert_eq!(ws.fs().read_file("/workspace/p/empty").unwrap(), b"");
    ws.fs().remove_all("/workspace/p").unwrap();
    let forked = tmp.path().join("forked");
    fork.fs().write_file("/workspace/p/empty", "").unwrap();
    fork.export(Path::new("/workspace/p"), &forked, &mut no_progress())
        .unwrap();
    diff_r(&src, &forked);
    fork.fs().check_integrity().unwrap();
}

/// `mknod(2)` on the host, as the test's user (root in CI).
#[allow(unsafe_code)]
fn host_mknod(path: &Path, mode: u32, dev: u64) -> std::io::Result<()> {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a NUL-terminated path that outlives the call.
    if unsafe { libc::mknod(c.as_ptr(), mode, dev) } == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// FIFOs and device nodes come into the workspace as inodes from a folder and from tar; going
/// out, a folder gets the FIFO but never a device node, and a tar describes both. Sockets are
/// skipped both ways and named.
#[test]
fn fifos_and_devices_cross_as_inodes_and_no_device_is_made_on_the_host() {
    use computer::vfs::FileType;
    use std::os::unix::fs::FileTypeExt;
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    fs::create_dir(&src).unwrap();
    fs::write(src.join("plain"), "x").unwrap();
    host_mknod(&src.join("fifo"), libc::S_IFIFO | 0o640, 0).unwrap();
    let _listener = std::os::unix::net::UnixListener::bind(src.join("sock")).unwrap();
    let null = libc::makedev(1, 3);
    if let Err(e) = host_mknod(&src.join("null"), libc::S_IFCHR | 0o666, null) {
        assert!(std::env::var_os("CI").is_none(), "CI runs as root: {e}");
        println!("skipped: mknod of a device needs root here: {e}");
        return;
    }
    // Its mode as given, whatever the umask took away.
    fs::set_permissions(src.join("null"), fs::Permissions::from_mode(0o666)).unwrap();
    let ws = Workspace::in_memory().unwrap();
    let stats = ws
        .import(&src, Path::new("/workspace/in"), &mut no_progress())
        .unwrap();
    assert_eq!((stats.files, stats.specials), (1, 2), "{stats:?}");
    assert_eq!(stats.skipped, vec![src.join("sock")]);
    let fifo = ws.fs().lstat("/workspace/in/fifo").unwrap();
    assert_eq!((fifo.kind, fifo.perm), (FileType::Fifo, 0o640));
    let dev = ws.fs().lstat("/workspace/in/null").unwrap();
    assert_eq!((dev.kind, dev.rdev), (FileType::CharDevice, null));

    // To a folder: the FIFO is made, the device is not (and is named as skipped).
    let out = tmp.path().join("out");
    let stats = ws
        .export(Path::new("/workspace/in"), &out, &mut no_progress())
        .unwrap();
    assert_eq!(stats.skipped, vec![PathBuf::from("/workspace/in/null")]);
    let meta = fs::symlink_metadata(out.join("fifo")).unwrap();
    assert!(meta.file_type().is_fifo());
    assert_eq!(meta.mode() & 0o7777, 0o640);
    assert!(!out.join("null").exists() && fs::symlink_metadata(out.join("null")).is_err());

    // To tar: both described, as GNU tar lists them; and they come back the same.
    let archive = tmp.path().join("specials.tar");
    ws.export(Path::new("/workspace/in"), &archive, &mut no_progress())
        .unwrap();
    let listing = Command::new("tar")
        .arg("tvf")
        .arg(&archive)
        .output()
        .unwrap();
    let listing = String::from_utf8_lossy(&listing.stdout);
    assert!(
        listing
            .lines()
            .any(|l| l.starts_with("prw-r-----") && l.ends_with(" fifo")),
        "{listing}"
    );
    assert!(
        listing
            .lines()
            .any(|l| l.starts_with("crw-rw-rw-") && l.contains("1,3") && l.ends_with(" null")),
        "{listing}"
    );
    ws.import(&archive, Path::new("/workspace/back"), &mut no_progress())
        .unwrap();
    let back = ws.fs().lstat("/workspace/back/null").unwrap();
    assert_eq!(
        (back.kind, back.rdev, back.perm),
        (FileType::CharDevice, null, 0o666)
    );
    assert_eq!(
        ws.fs().lstat("/workspace/back/fifo").unwrap().kind,
        FileType::Fifo
    );

    // The isolate lists them and cannot open them: no pipe, no device behind them.
    let out = ws
        .exec(computer::ExecRequest::script(
            "cd /workspace/in; ls; cat null; echo \"cat=$?\"; echo x > fifo; echo \"write=$?\"",
        ))
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stdout.contains("fifo\nnull\nplain\n"), "{stdout}");
    assert!(
        stdout.contains("cat=1\n") && stdout.contains("write=1\n"),
        "{stdout}"
    );
    assert!(
        stderr.contains("null: No such device or address\n")
            && stderr.contains("fifo: No such device or address\n"),
        "{stderr}"
    );
}

#[test]
fn a_file_that_is_no_archive_is_refused_by_name() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = Workspace::in_memory().unwrap();
    // A script, a file shorter than a tar block, and a block whose checksum is wrong.
    let mut forged = vec![b'a'; 512];
    forged[148..156].copy_from_slice(b"0000000\0");
    for (name, content) in [
        ("script.sh", b"#!/bin/sh\necho hi\n".repeat(40)),
        ("short", b"hi".to_vec()),
        ("forged.tar", forged),
    ] {
        let path = tmp.path().join(name);
        fs::write(&path, &content).unwrap();
        let err = ws
            .import(&path, Path::new("/workspace/new"), &mut no_progress())
            .unwrap_err();
        assert!(
            err.to_string()
                .contains("neither a folder nor a .tar or .tar.gz archive"),
            "{name}: {err}"
        );
        assert!(!ws.fs().exists("/workspace/new").unwrap(), "{name}");
    }
    // A FIFO is refused without being opened (with no writer, opening it would wait for one).
    let fifo = tmp.path().join("fifo");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let err = ws
        .import(&fifo, Path::new("/workspace/new"), &mut no_progress())
        .unwrap_err();
    assert!(
        err.to_string().contains("neither a folder nor"),
        "fifo: {err}"
    );
    // An empty archive (zero blocks) is an archive with nothing in it.
    let empty = tmp.path().join("empty.tar");
    tar::Builder::new(fs::File::create(&empty).unwrap())
        .into_inner()
        .unwrap();
    let stats = ws
        .import(&empty, Path::new("/workspace/e"), &mut no_progress())
        .unwrap();
    assert_eq!(stats.items(), 0);
}
