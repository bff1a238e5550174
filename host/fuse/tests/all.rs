//! The FUSE mount against the real kernel: a POSIX behaviour suite run on the mount and on a
//! real directory of the host (the transcripts must match), and coherence with writers that go
//! through the VFS directly. Needs `/dev/fuse` and root; outside CI a machine without them
//! skips with the reason printed.

use std::collections::BTreeSet;
use std::fs::{self, File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt, symlink};
use std::path::Path;
use std::sync::Arc;

use computer_fuse::{Mount, MountOptions};
use computer_vfs::Vfs;

/// A workspace file mounted at a temporary directory, or `None` (with the reason printed)
/// where FUSE cannot run outside CI.
fn mounted() -> Option<(Arc<Vfs>, Mount, tempfile::TempDir)> {
    mounted_with(MountOptions::default())
}

/// As [`mounted`], with no poller: only [`Mount::sync`] reads the change log.
fn mounted_unpolled() -> Option<(Arc<Vfs>, Mount, tempfile::TempDir)> {
    mounted_with(MountOptions {
        poll: std::time::Duration::from_secs(3600),
        ..MountOptions::default()
    })
}

fn mounted_with(options: MountOptions) -> Option<(Arc<Vfs>, Mount, tempfile::TempDir)> {
    let dir = tempfile::tempdir().unwrap();
    let vfs = Arc::new(Vfs::open(dir.path().join("ws.db")).unwrap());
    let mount = mount_at(dir.path(), &vfs, options)?;
    Some((vfs, mount, dir))
}

/// `vfs` mounted at `dir/mnt` with `options`, or `None` (with the reason printed) where
/// FUSE cannot run outside CI.
fn mount_at(dir: &Path, vfs: &Arc<Vfs>, options: MountOptions) -> Option<Mount> {
    let mountpoint = dir.join("mnt");
    fs::create_dir(&mountpoint).unwrap();
    match Mount::new(Arc::clone(vfs), &mountpoint, &options) {
        Ok(mount) => Some(mount),
        Err(e) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI needs FUSE (/dev/fuse and root): {e}"
            );
            println!("skipped: cannot mount FUSE here: {e}");
            None
        }
    }
}

/// `result` as a line of the transcript: the value, or the errno.
fn line<T: std::fmt::Debug>(what: &str, result: std::io::Result<T>) -> String {
    match result {
        Ok(v) => format!("{what}: {v:?}"),
        Err(e) => format!("{what}: errno {:?}", e.raw_os_error()),
    }
}

/// `mknod(2)`, which the standard library lacks.
#[allow(unsafe_code)]
fn mknod(path: &Path, mode: u32, dev: libc::dev_t) -> std::io::Result<()> {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes())?;
    // SAFETY: a NUL-terminated path that outlives the call.
    if unsafe { libc::mknod(c.as_ptr(), mode, dev) } == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// The same POSIX operations on any directory; what each returned.
fn posix_transcript(root: &Path) -> Vec<String> {
    let p = |rel: &str| root.join(rel);
    let mut t = Vec::new();

    // Files: create, read, append, overwrite in place, truncate both ways.
    fs::write(p("a.txt"), b"hello\n").unwrap();
    t.push(line("read", fs::read_to_string(p("a.txt"))));
    let mut f = OpenOptions::new().append(true).open(p("a.txt")).unwrap();
    f.write_all(b"world\n").unwrap();
    drop(f);
    t.push(line("appended", fs::read_to_string(p("a.txt"))));
    let mut f = OpenOptions::new().write(true).open(p("a.txt")).unwrap();
    f.seek(SeekFrom::Start(1)).unwrap();
    f.write_all(b"EL").unwrap();
    f.set_len(4).unwrap();
    t.push(line("shrunk", fs::read_to_string(p("a.txt"))));
    f.set_len(8).unwrap();
    t.push(line("grown", fs::read(p("a.txt"))));
    drop(f);
    t.push(line(
        "create_new existing",
        OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(p("a.txt"))
            .map(drop),
    ));
    t.push(line(
        "open O_TRUNC",
        OpenOptions::new()
            .write(true)
            .truncate(true)
            .open(p("a.txt"))
            .map(drop),
    ));
    t.push(line(
        "after O_TRUNC",
        fs::metadata(p("a.txt")).map(|m| m.len()),
    ));

    // Sparse files: a hole reads as zeros.
    let mut f = File::create(p("sparse")).unwrap();
    f.seek(SeekFrom::Start(3 << 20)).unwrap();
    f.write_all(b"end").unwrap();
    drop(f);
    let data = fs::read(p("sparse")).unwrap();
    t.push(format!(
        "sparse: len {} zeros {} tail {:?}",
        data.len(),
        data[..3 << 20].iter().all(|b| *b == 0),
        &data[3 << 20..]
    ));

    // Read and write at once through one handle.
    let mut f = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(p("rw"))
        .unwrap();
    f.write_all(b"0123456789").unwrap();
    f.seek(SeekFrom::Start(3)).unwrap();
    let mut buf = [0u8; 4];
    f.read_exact(&mut buf).unwrap();
    t.push(format!("rw: {:?}", std::str::from_utf8(&buf)));
    drop(f);

    // Directories.
    t.push(line("mkdir", fs::create_dir(p("d"))));
    t.push(line("mkdir again", fs::create_dir(p("d"))));
    t.push(line("mkdir -p", fs::create_dir_all(p("d/e/f"))));
    fs::write(p("d/e/f/x"), b"x").unwrap();
    t.push(line("rmdir non-empty", fs::remove_dir(p("d/e/f"))));
    t.push(line("unlink a dir", fs::remove_file(p("d/e"))));
    t.push(line("rmdir a file", fs::remove_dir(p("a.txt"))));
    t.push(line("under a file", fs::create_dir(p("a.txt/sub"))));
    t.push(line("missing parent", fs::write(p("nope/x"), b"")));

    // Renames: over a file, a directory with its contents, into a missing directory,
    // a directory over a non-empty one, a directory into itself.
    fs::write(p("r1"), b"one").unwrap();
    fs::write(p("r2"), b"two").unwrap();
    t.push(line("rename over", fs::rename(p("r1"), p("r2"))));
    t.push(line("renamed", fs::read_to_string(p("r2"))));
    t.push(line("old gone", fs::metadata(p("r1")).map(|m| m.len())));
    t.push(line("rename dir", fs::rename(p("d"), p("d2"))));
    t.push(line("moved content", fs::read_to_string(p("d2/e/f/x"))));
    t.push(line("into missing", fs::rename(p("r2"), p("missing/r2"))));
    fs::create_dir_all(p("full/inner")).unwrap();
    fs::create_dir(p("emptydir")).unwrap();
    t.push(line(
        "dir over non-empty",
        fs::rename(p("emptydir"), p("full")),
    ));
    t.push(line(
        "dir into itself",
        fs::rename(p("d2"), p("d2/e/inside")),
    ));
    t.push(line("file over dir", fs::rename(p("r2"), p("full"))));

    // Hard links share content and count links.
    fs::write(p("h1"), b"shared").unwrap();
    t.push(line("link", fs::hard_link(p("h1"), p("h2"))));
    let (m1, m2) = (
        fs::metadata(p("h1")).unwrap(),
        fs::metadata(p("h2")).unwrap(),
    );
    t.push(format!(
        "nlink {} {} same ino {}",
        m1.nlink(),
        m2.nlink(),
        m1.ino() == m2.ino()
    ));
    fs::write(p("h2"), b"changed").unwrap();
    t.push(line("through other link", fs::read_to_string(p("h1"))));
    fs::remove_file(p("h1")).unwrap();
    t.push(line(
        "nlink after unlink",
        fs::metadata(p("h2")).map(|m| m.nlink()),
    ));
    t.push(line("link a dir", fs::hard_link(p("d2"), p("d3"))));

    // Symlinks: relative, absolute-looking, dangling, a loop.
    t.push(line("symlink", symlink("h2", p("s1"))));
    t.push(line("readlink", fs::read_link(p("s1"))));
    t.push(line("through symlink", fs::read_to_string(p("s1"))));
    t.push(line(
        "lstat is link",
        fs::symlink_metadata(p("s1")).map(|m| m.file_type().is_symlink()),
    ));
    symlink("nowhere", p("dangling")).unwrap();
    t.push(line(
        "dangling stat",
        fs::metadata(p("dangling")).map(|m| m.len()),
    ));
    t.push(line(
        "dangling lstat",
        fs::symlink_metadata(p("dangling")).map(|m| m.len()),
    ));
    symlink("loop2", p("loop1")).unwrap();
    symlink("loop1", p("loop2")).unwrap();
    t.push(line("loop", fs::read(p("loop1"))));
    t.push(line("symlink over existing", symlink("x", p("h2"))));

    // Permissions are kept.
    fs::set_permissions(p("h2"), fs::Permissions::from_mode(0o751)).unwrap();
    t.push(line(
        "mode",
        fs::metadata(p("h2")).map(|m| m.mode() & 0o7777),
    ));
    let f = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(p("private"))
        .unwrap();
    drop(f);
    t.push(line(
        "create mode",
        fs::metadata(p("private")).map(|m| m.mode() & 0o7777),
    ));
    fs::create_dir(p("sticky")).unwrap();
    fs::set_permissions(p("sticky"), fs::Permissions::from_mode(0o1777)).unwrap();
    t.push(line(
        "dir mode",
        fs::metadata(p("sticky")).map(|m| m.mode() & 0o7777),
    ));

    // Modification times can be set.
    let when = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000_000);
    File::options()
        .write(true)
        .open(p("h2"))
        .unwrap()
        .set_modified(when)
        .unwrap();
    t.push(line("mtime", fs::metadata(p("h2")).map(|m| m.mtime())));

    // A file unlinked while open stays readable and writable through its handle.
    fs::write(p("doomed"), b"still here").unwrap();
    let mut f = OpenOptions::new()
        .read(true)
        .write(true)
        .open(p("doomed"))
        .unwrap();
    fs::remove_file(p("doomed")).unwrap();
    let mut s = String::new();
    f.read_to_string(&mut s).unwrap();
    f.write_all(b"!").unwrap();
    f.seek(SeekFrom::Start(0)).unwrap();
    let mut again = String::new();
    f.read_to_string(&mut again).unwrap();
    t.push(format!(
        "unlinked open: {s:?} {again:?} gone {}",
        !p("doomed").exists()
    ));
    drop(f);

    // A large directory lists every entry once.
    fs::create_dir(p("big")).unwrap();
    for i in 0..2500 {
        File::create(p(&format!("big/entry-{i:05}"))).unwrap();
    }
    let names: BTreeSet<String> = fs::read_dir(p("big"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    t.push(format!(
        "big: {} first {:?} last {:?}",
        names.len(),
        names.first(),
        names.last()
    ));
    t.push(line("remove_dir_all big", fs::remove_dir_all(p("big"))));

    // Concurrent writers: files of their own, and appends to one shared file.
    std::thread::scope(|scope| {
        for w in 0..4 {
            let p = &p;
            scope.spawn(move || {
                let mut own = File::create(p(&format!("w{w}"))).unwrap();
                let mut shared = OpenOptions::new()
                    .append(true)
                    .create(true)
                    .open(p("shared.log"))
                    .unwrap();
                for i in 0..200 {
                    own.write_all(format!("{w}:{i}\n").as_bytes()).unwrap();
                    shared
                        .write_all(format!("{w}:{i:04}\n").as_bytes())
                        .unwrap();
                }
            });
        }
    });
    let shared = fs::read_to_string(p("shared.log")).unwrap();
    let mut lines: Vec<&str> = shared.lines().collect();
    lines.sort();
    lines.dedup();
    t.push(format!(
        "shared log: {} bytes, {} distinct lines",
        shared.len(),
        lines.len()
    ));
    let own: Vec<usize> = (0..4)
        .map(|w| {
            fs::read_to_string(p(&format!("w{w}")))
                .unwrap()
                .lines()
                .count()
        })
        .collect();
    t.push(format!("own files: {own:?}"));

    // FIFOs, sockets and device nodes: made, stat'ed, linked, renamed, removed; a FIFO
    // carries bytes between two openers (the kernel's pipe).
    let mknod = |rel: &str, mode: u32, dev: libc::dev_t| mknod(&p(rel), mode, dev);
    t.push(line("mkfifo", mknod("fifo", libc::S_IFIFO | 0o640, 0)));
    t.push(line(
        "mkfifo again",
        mknod("fifo", libc::S_IFIFO | 0o640, 0),
    ));
    t.push(line(
        "mknod char",
        mknod("chr", libc::S_IFCHR | 0o600, libc::makedev(1, 3)),
    ));
    t.push(line(
        "mknod block",
        mknod("blk", libc::S_IFBLK | 0o600, libc::makedev(7, 0)),
    ));
    t.push(line(
        "socket",
        std::os::unix::net::UnixListener::bind(p("sock")).map(drop),
    ));
    for name in ["fifo", "chr", "blk", "sock"] {
        t.push(line(
            &format!("{name} mode, rdev, size, nlink"),
            fs::symlink_metadata(p(name))
                .map(|m| (format!("{:o}", m.mode()), m.rdev(), m.size(), m.nlink())),
        ));
    }
    t.push(line("link fifo", fs::hard_link(p("fifo"), p("fifo2"))));
    t.push(line(
        "fifo nlink",
        fs::symlink_metadata(p("fifo")).map(|m| m.nlink()),
    ));
    t.push(line("rename fifo2", fs::rename(p("fifo2"), p("fifo3"))));
    t.push(line("unlink fifo3", fs::remove_file(p("fifo3"))));
    t.push(line("rmdir fifo", fs::remove_dir(p("fifo"))));
    let reader = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(p("fifo"));
    t.push(line(
        "open fifo to read",
        reader.as_ref().map(drop).map_err(|e| e.kind().into()),
    ));
    if let Ok(mut reader) = reader {
        let mut writer = OpenOptions::new().write(true).open(p("fifo")).unwrap();
        writer.write_all(b"through the pipe").unwrap();
        drop(writer);
        let mut got = String::new();
        t.push(line(
            "read fifo",
            reader.read_to_string(&mut got).map(|_| got),
        ));
    }
    t.push(line(
        "fifo size after",
        fs::symlink_metadata(p("fifo")).map(|m| m.size()),
    ));
    t.push(line("open socket", File::open(p("sock")).map(drop)));
    for name in ["fifo", "chr", "blk", "sock"] {
        t.push(line(&format!("unlink {name}"), fs::remove_file(p(name))));
    }

    // The final listing of the top directory.
    // A running program's file can be neither opened for writing nor truncated, and a
    // refused `O_TRUNC` leaves it whole (with FUSE's atomic_o_trunc the kernel emptied its
    // pages first, and the program could crash).
    let sleep = fs::read("/bin/sleep").unwrap();
    fs::write(p("prog"), &sleep).unwrap();
    fs::set_permissions(p("prog"), fs::Permissions::from_mode(0o755)).unwrap();
    let mut child = std::process::Command::new(p("prog"))
        .arg("10")
        .spawn()
        .unwrap();
    t.push(line(
        "write a running program",
        OpenOptions::new().write(true).open(p("prog")).map(drop),
    ));
    t.push(line(
        "truncate a running program",
        OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_TRUNC)
            .open(p("prog"))
            .map(drop),
    ));
    t.push(line(
        "its size",
        fs::metadata(p("prog")).map(|m| m.len() == sleep.len() as u64),
    ));
    t.push(line("still running", child.try_wait().map(|s| s.is_none())));
    child.kill().unwrap();
    child.wait().unwrap();
    fs::remove_file(p("prog")).unwrap();
    let mut top: Vec<String> = fs::read_dir(root)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let kind = e.file_type().unwrap();
            format!(
                "{}{}",
                e.file_name().to_string_lossy(),
                if kind.is_dir() {
                    "/"
                } else if kind.is_symlink() {
                    "@"
                } else {
                    ""
                }
            )
        })
        .collect();
    top.sort();
    t.push(format!("top: {top:?}"));
    t
}

#[test]
fn posix_behaviour_matches_a_real_directory() {
    let Some((_vfs, mount, _dir)) = mounted() else {
        return;
    };
    let real = tempfile::tempdir().unwrap();
    let expected = posix_transcript(real.path());
    let got = posix_transcript(mount.mountpoint());
    for (e, g) in expected.iter().zip(&got) {
        assert_eq!(g, e, "the FUSE mount differs from a real directory");
    }
    assert_eq!(got.len(), expected.len());
}

#[test]
fn the_mounts_own_metadata_changes_are_not_sent_back_to_the_kernel() {
    // No poller in the way: only `sync` reads the change log here.
    let Some((vfs, mount, _dir)) = mounted_unpolled() else {
        return;
    };
    let mnt = mount.mountpoint().to_path_buf();
    fs::create_dir(mnt.join("d")).unwrap();
    File::create(mnt.join("d/f")).unwrap();
    fs::rename(mnt.join("d/f"), mnt.join("d/g")).unwrap();
    symlink("g", mnt.join("d/l")).unwrap();
    fs::set_permissions(mnt.join("d/g"), fs::Permissions::from_mode(0o600)).unwrap();
    fs::hard_link(mnt.join("d/g"), mnt.join("d/h")).unwrap();
    fs::remove_file(mnt.join("d/l")).unwrap();
    fs::create_dir(mnt.join("d/e")).unwrap();
    fs::remove_dir(mnt.join("d/e")).unwrap();
    assert_eq!(mount.sync().unwrap(), 0, "the kernel knows its own changes");
    // Another writer's change is named.
    vfs.write_file("/workspace/d/other", "x").unwrap();
    assert_eq!(mount.sync().unwrap(), 1);
    assert_eq!(fs::read_to_string(mnt.join("d/other")).unwrap(), "x");
    // Unmounting does not wait out the poll period.
    let start = std::time::Instant::now();
    mount.unmount().unwrap();
    assert!(start.elapsed() < std::time::Duration::from_secs(60));
}

/// How many bytes of `path` are in the kernel's page cache, as util-linux's `fincore` sees
/// them (it opens the file, so this is what an open leaves cached).
fn cached_bytes(path: &Path) -> u64 {
    let out = std::process::Command::new("fincore")
        .args(["--bytes", "--noheadings", "--output", "RES"])
        .arg(path)
        .output()
        .expect("fincore (util-linux)");
    assert!(out.status.success(), "{out:?}");
    String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
}

#[test]
fn pages_are_kept_across_opens_only_while_the_file_is_unchanged() {
    // No poller: nothing but the check at open keeps a reader from stale pages.
    let Some((vfs, mount, _dir)) = mounted_unpolled() else {
        return;
    };
    let path = mount.mountpoint().join("f.bin");
    vfs.write_file("/workspace/f.bin", vec![b'a'; 64 * 1024])
        .unwrap();
    assert!(fs::read(&path).unwrap() == vec![b'a'; 64 * 1024]);
    // Unchanged: opened again, the pages are still there.
    assert_eq!(cached_bytes(&path), 64 * 1024);
    assert_eq!(cached_bytes(&path), 64 * 1024);
    for round in 0..20u8 {
        // Changed beside the mount, same size (so no attribute gives it away), read at
        // once: the new bytes, never the cached ones.
        let byte = b'b' + round % 20;
        vfs.write_file("/workspace/f.bin", vec![byte; 64 * 1024])
            .unwrap();
        let got = fs::read(&path).unwrap();
        assert!(
            got.len() == 64 * 1024 && got.iter().all(|b| *b == byte),
            "round {round}: read {:?}... for {:?}",
            String::from_utf8_lossy(&got[..got.len().min(8)]),
            byte as char
        );
    }
    vfs.write_file("/workspace/f.bin", vec![b'z'; 64 * 1024])
        .unwrap();
    assert_eq!(cached_bytes(&path), 0, "a changed file's pages are dropped");
    // Written through the mount: read back right, beside it and through it.
    let mut f = OpenOptions::new().write(true).open(&path).unwrap();
    f.write_all(b"through the mount").unwrap();
    drop(f);
    let mut want = vec![b'z'; 64 * 1024];
    want[..17].copy_from_slice(b"through the mount");
    assert!(fs::read(&path).unwrap() == want);
    assert!(vfs.read_file("/workspace/f.bin").unwrap() == want);
    // Truncated by an open, then read: empty.
    File::create(&path).unwrap();
    assert_eq!(fs::read(&path).unwrap(), b"");
    // Written whole through the mount (truncated by the open, as a shell's `>` does, and
    // made new), then opened again: the pages the writes made are kept, since nothing but
    // the mount changed the file.
    for name in ["f.bin", "new.bin"] {
        let path = mount.mountpoint().join(name);
        fs::write(&path, vec![b'w'; 64 * 1024]).unwrap();
        assert_eq!(cached_bytes(&path), 64 * 1024, "{name}: written pages kept");
        assert!(fs::read(&path).unwrap() == vec![b'w'; 64 * 1024]);
    }
    // Written through the mount while another writer (as the isolate does) has bytes of the
    // same file buffered: one commit holds both, so the mount's pages must go.
    let ino = vfs.stat("/workspace/f.bin").unwrap().ino;
    let beside = vfs
        .open_file(ino, computer_vfs::OpenFlags::READ_WRITE)
        .unwrap();
    let mut f = OpenOptions::new().write(true).open(&path).unwrap();
    vfs.write(beside, 40_000, b"beside").unwrap();
    f.write_all(b"through").unwrap();
    drop(f);
    let got = fs::read(&path).unwrap();
    assert_eq!(&got[..7], b"through");
    assert_eq!(&got[40_000..40_006], b"beside", "no stale page");
    vfs.release(beside).unwrap();
    // Changed beside the mount between its open and its commit: not kept either.
    let mut f = OpenOptions::new().write(true).open(&path).unwrap();
    vfs.write_file("/workspace/f.bin", vec![b'v'; 64 * 1024])
        .unwrap();
    f.write_all(b"through").unwrap();
    drop(f);
    let mut want = vec![b'v'; 64 * 1024];
    want[..7].copy_from_slice(b"through");
    assert!(fs::read(&path).unwrap() == want, "no stale page");
    mount.unmount().unwrap();
}

#[test]
fn writes_through_the_vfs_and_through_the_mount_see_each_other_at_once() {
    let Some((vfs, mount, _dir)) = mounted() else {
        return;
    };
    let mnt = mount.mountpoint().to_path_buf();
    // Written beside the mount (as the isolate or the tools do), read through it.
    vfs.write_file("/workspace/from-vfs.txt", "one\n").unwrap();
    mount.sync().unwrap();
    assert_eq!(
        fs::read_to_string(mnt.join("from-vfs.txt")).unwrap(),
        "one\n"
    );
    // Changed beside it: size and content are new (no stale page cache or attributes).
    vfs.write_file("/workspace/from-vfs.txt", "changed, longer\n")
        .unwrap();
    mount.sync().unwrap();
    assert_eq!(fs::metadata(mnt.join("from-vfs.txt")).unwrap().len(), 16);
    assert_eq!(
        fs::read_to_string(mnt.join("from-vfs.txt")).unwrap(),
        "changed, longer\n"
    );
    // Removed and renamed beside it.
    vfs.create_dir_all("/workspace/dir").unwrap();
    vfs.write_file("/workspace/dir/f", "f").unwrap();
    mount.sync().unwrap();
    assert!(mnt.join("dir/f").exists());
    vfs.rename("/workspace/dir", "/workspace/moved").unwrap();
    vfs.remove_file("/workspace/from-vfs.txt").unwrap();
    mount.sync().unwrap();
    assert!(!mnt.join("dir").exists());
    assert!(!mnt.join("from-vfs.txt").exists());
    assert_eq!(fs::read_to_string(mnt.join("moved/f")).unwrap(), "f");
    // A file replaced beside it by a new one of the same name (a new inode, as `sed -i`
    // or an editor's save makes), read through the mount at once: the new one.
    vfs.write_file("/workspace/replaced.txt", "old\n").unwrap();
    mount.sync().unwrap();
    assert_eq!(
        fs::read_to_string(mnt.join("replaced.txt")).unwrap(),
        "old\n"
    );
    vfs.write_file("/workspace/replaced.tmp", "new\n").unwrap();
    vfs.rename("/workspace/replaced.tmp", "/workspace/replaced.txt")
        .unwrap();
    mount.sync().unwrap();
    assert_eq!(
        fs::read_to_string(mnt.join("replaced.txt")).unwrap(),
        "new\n"
    );
    vfs.remove_file("/workspace/replaced.txt").unwrap();
    vfs.write_file("/workspace/replaced.txt", "again\n")
        .unwrap();
    mount.sync().unwrap();
    assert_eq!(
        fs::read_to_string(mnt.join("replaced.txt")).unwrap(),
        "again\n"
    );
    // Names looked for before they existed (the kernel keeps negative entries), then made
    // beside the mount: found at once.
    assert!(!mnt.join("later.txt").exists());
    assert!(!mnt.join("later-dir").exists());
    vfs.write_file("/workspace/later.txt", "x").unwrap();
    vfs.create_dir_all("/workspace/later-dir").unwrap();
    mount.sync().unwrap();
    assert_eq!(fs::read_to_string(mnt.join("later.txt")).unwrap(), "x");
    assert!(mnt.join("later-dir").is_dir());
    // A directory removed and made again beside it: its new contents at once (the kernel's
    // entry for the name still named the removed directory).
    vfs.create_dir_all("/workspace/remade/old").unwrap();
    mount.sync().unwrap();
    assert!(mnt.join("remade/old").is_dir());
    vfs.remove_all("/workspace/remade").unwrap();
    vfs.create_dir_all("/workspace/remade/new").unwrap();
    mount.sync().unwrap();
    let names: Vec<_> = fs::read_dir(mnt.join("remade"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["new"]);
    // Without an explicit sync, the poller catches up within its period.
    vfs.write_file("/workspace/moved/f", "polled").unwrap();
    std::thread::sleep(std::time::Duration::from_millis(400));
    assert_eq!(fs::read_to_string(mnt.join("moved/f")).unwrap(), "polled");

    // Written through the mount, read beside it as soon as the file is closed.
    fs::write(mnt.join("from-mount.bin"), vec![7u8; 300_000]).unwrap();
    assert_eq!(
        vfs.read_file("/workspace/from-mount.bin").unwrap(),
        vec![7u8; 300_000]
    );
    let st = vfs.stat("/workspace/from-mount.bin").unwrap();
    assert_eq!(st.size, 300_000);
    symlink("from-mount.bin", mnt.join("link")).unwrap();
    assert_eq!(
        vfs.read_link("/workspace/link").unwrap(),
        Path::new("from-mount.bin")
    );
    // A process whose working directory was made through the mount keeps it while the
    // change log of its own writes is applied (invalidating a directory's entry in use
    // would detach it: getcwd fails).
    fs::create_dir(mnt.join("cwd")).unwrap();
    let child = std::process::Command::new("sh")
        .args(["-c", "sleep 0.5; /bin/pwd; echo x > here"])
        .current_dir(mnt.join("cwd"))
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(100));
    mount.sync().unwrap();
    let child = child.wait_with_output().unwrap();
    assert!(child.status.success(), "{child:?}");
    assert_eq!(
        String::from_utf8_lossy(&child.stdout).trim(),
        mnt.join("cwd").display().to_string()
    );
    mount.sync().unwrap();
    assert!(vfs.stat("/workspace/cwd/here").unwrap().is_file());
    // The mount shows /workspace only: the rest of the VFS is out of reach.
    assert!(!mnt.join("workspace").exists());
    assert!(
        fs::read_dir(&mnt)
            .unwrap()
            .all(|e| e.unwrap().file_name() != "tmp")
    );
}

/// The names in directory `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

#[test]
fn cached_listings_are_never_served_after_a_change() {
    // No poller: nothing tells the kernel about changes made beside the mount, so only the
    // check at each open keeps its cached listings true.
    let Some((vfs, mount, _dir)) = mounted_unpolled() else {
        return;
    };
    let mnt = mount.mountpoint().to_path_buf();
    vfs.create_dir_all("/workspace/d").unwrap();
    vfs.write_file("/workspace/d/a", "a").unwrap();
    vfs.write_file("/workspace/d/b", "b").unwrap();
    mount.sync().unwrap();
    // Listed twice: the second open may keep the first listing.
    assert_eq!(names(&mnt.join("d")), ["a", "b"]);
    assert_eq!(names(&mnt.join("d")), ["a", "b"]);
    // Made, removed and renamed beside the mount, listed through it at once.
    vfs.write_file("/workspace/d/c", "c").unwrap();
    assert_eq!(names(&mnt.join("d")), ["a", "b", "c"]);
    vfs.remove_file("/workspace/d/a").unwrap();
    assert_eq!(names(&mnt.join("d")), ["b", "c"]);
    vfs.rename("/workspace/d/b", "/workspace/d/b2").unwrap();
    assert_eq!(names(&mnt.join("d")), ["b2", "c"]);
    // Through the mount, then beside it.
    fs::write(mnt.join("d/e"), "e").unwrap();
    assert_eq!(names(&mnt.join("d")), ["b2", "c", "e"]);
    vfs.remove_file("/workspace/d/c").unwrap();
    assert_eq!(names(&mnt.join("d")), ["b2", "e"]);
    // A listing longer than one reply (the kernel caches it page by page), changed beside
    // the mount after it was read whole.
    let many: Vec<String> = (0..400)
        .map(|i| format!("a-rather-long-name-{i:04}"))
        .collect();
    vfs.create_dir_all("/workspace/big").unwrap();
    for name in &many {
        vfs.write_file(format!("/workspace/big/{name}"), "")
            .unwrap();
    }
    mount.sync().unwrap();
    assert_eq!(names(&mnt.join("big")), many);
    assert_eq!(names(&mnt.join("big")), many);
    vfs.remove_file(format!("/workspace/big/{}", many[0]))
        .unwrap();
    vfs.write_file("/workspace/big/z", "").unwrap();
    let mut expected = many[1..].to_vec();
    expected.push("z".into());
    assert_eq!(names(&mnt.join("big")), expected);
}

#[test]
fn unmount_and_stale_mounts() {
    let Some((_vfs, mount, dir)) = mounted() else {
        return;
    };
    let mnt = mount.mountpoint().to_path_buf();
    assert!(computer_fuse::is_our_mount(&mnt), "{mnt:?}");
    assert!(!computer_fuse::is_stale(&mnt));
    assert!(mount.is_served());
    mount.unmount().unwrap();
    assert!(!computer_fuse::is_our_mount(&mnt));
    // Unmounted: the directory underneath is the empty host directory again.
    assert_eq!(fs::read_dir(&mnt).unwrap().count(), 0);
    assert!(!computer_fuse::clean_stale(&mnt).unwrap());
    drop(dir);
}

#[test]
fn git_clones_and_checks_a_repository_on_the_mount() {
    // git's index-pack writes a pack through one descriptor while its threads read it back
    // through others: sizes must include writes still buffered (a kernel told a smaller size
    // takes it for the end of the file; this once failed with "premature end of pack file").
    let Some((_vfs, mount, _dir)) = mounted() else {
        return;
    };
    let source = tempfile::tempdir().unwrap();
    let git = |dir: &Path, args: &[&str]| {
        let out = std::process::Command::new("git")
            .args(["-c", "user.email=t@e", "-c", "user.name=t"])
            .args(args)
            .current_dir(dir)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    git(source.path(), &["init", "-q"]);
    for round in 0..3 {
        for i in 0..200 {
            let body: String = (0..200).map(|j| format!("{round} {i} {j}\n")).collect();
            fs::write(source.path().join(format!("f{i}.txt")), body).unwrap();
        }
        git(source.path(), &["add", "-A"]);
        git(source.path(), &["commit", "-qm", &format!("round {round}")]);
    }
    let url = format!("file://{}", source.path().display());
    for n in 0..3 {
        let name = format!("clone{n}");
        git(mount.mountpoint(), &["clone", "-q", &url, &name]);
        let clone = mount.mountpoint().join(&name);
        git(&clone, &["fsck", "--strict"]);
        assert_eq!(git(&clone, &["rev-list", "--count", "HEAD"]).trim(), "3");
        assert!(git(&clone, &["status", "--porcelain"]).is_empty());
    }
}

/// A second local user for the multi-user tests (made with `useradd` once), or `None` with
/// the reason printed where the test is not root outside CI.
fn intruder() -> Option<String> {
    const NAME: &str = "computer-intruder";
    let have = std::process::Command::new("id")
        .arg(NAME)
        .output()
        .is_ok_and(|o| o.status.success());
    if !have {
        let made = std::process::Command::new("useradd")
            .args(["--no-create-home", "--shell", "/bin/false", NAME])
            .output();
        let ok = made.as_ref().is_ok_and(|o| o.status.success())
            || std::process::Command::new("id")
                .arg(NAME)
                .output()
                .is_ok_and(|o| o.status.success());
        if !ok {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI needs useradd for the multi-user tests: {made:?}"
            );
            println!("skipped: cannot add a second user here: {made:?}");
            return None;
        }
    }
    Some(NAME.to_string())
}

/// Runs `sh -c script` as `user` (setpriv, no supplementary groups); its exit status.
fn as_user(user: &str, script: &str) -> std::process::Output {
    std::process::Command::new("setpriv")
        .args([
            &format!("--reuid={user}"),
            &format!("--regid={user}"),
            "--clear-groups",
            "sh",
            "-c",
            script,
        ])
        .output()
        .unwrap()
}

mod hostile {
    use super::*;

    /// A device node in the workspace (made by anyone: a guest, an import, a tool) is stored,
    /// shown, and never opened on the host: the mount is `nodev`.
    #[test]
    fn a_device_node_in_the_workspace_never_opens_a_host_device() {
        let Some((vfs, mount, _dir)) = mounted() else {
            return;
        };
        let dir = vfs.stat("/workspace").unwrap().ino;
        let owner = computer_vfs::Owner { uid: 0, gid: 0 };
        for (name, kind, dev) in [
            (
                "mem",
                computer_vfs::FileType::CharDevice,
                libc::makedev(1, 1),
            ),
            (
                "disk",
                computer_vfs::FileType::BlockDevice,
                libc::makedev(8, 0),
            ),
        ] {
            vfs.mknod(dir, name.as_ref(), kind, 0o666, dev, owner)
                .unwrap();
            let path = mount.mountpoint().join(name);
            let meta = fs::symlink_metadata(&path).unwrap();
            assert_eq!(meta.rdev(), dev, "{name}");
            for write in [false, true] {
                let opened = OpenOptions::new().read(true).write(write).open(&path);
                assert_eq!(
                    opened.map(drop).unwrap_err().raw_os_error(),
                    Some(libc::EACCES),
                    "{name}"
                );
            }
        }
    }

    /// Another local user: kept out of a mount without `allow_other` entirely, and held to
    /// each file's permission bits with it (the kernel checks them: `default_permissions`).
    #[test]
    fn another_local_user_cannot_use_the_workspace() {
        let Some(user) = intruder() else { return };
        for allow_other in [false, true] {
            let dir = tempfile::tempdir().unwrap();
            fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
            let vfs = Arc::new(Vfs::open(dir.path().join("ws.db")).unwrap());
            vfs.write_file("/workspace/private.txt", "secret\n")
                .unwrap();
            vfs.write_file("/workspace/public.txt", "public\n").unwrap();
            let chmod = |path: &str, perm: u32| {
                let st = vfs.stat(path).unwrap();
                let attr = computer_vfs::SetAttr {
                    perm: Some(perm),
                    ..Default::default()
                };
                vfs.setattr(st.ino, &attr).unwrap();
            };
            chmod("/workspace/private.txt", 0o600);
            chmod("/workspace/public.txt", 0o644);
            let options = MountOptions {
                allow_other,
                ..MountOptions::default()
            };
            let Some(mount) = mount_at(dir.path(), &vfs, options) else {
                return;
            };
            let mountpoint = mount.mountpoint().to_path_buf();
            let m = mountpoint.display();
            let read_private = as_user(&user, &format!("cat {m}/private.txt"));
            assert!(!read_private.status.success(), "allow_other {allow_other}");
            assert!(!String::from_utf8_lossy(&read_private.stdout).contains("secret"));
            let write = as_user(&user, &format!("echo x >> {m}/public.txt"));
            assert!(!write.status.success(), "allow_other {allow_other}");
            let create = as_user(&user, &format!("echo x > {m}/new.txt"));
            assert!(!create.status.success(), "allow_other {allow_other}");
            let read_public = as_user(&user, &format!("cat {m}/public.txt"));
            assert_eq!(
                read_public.status.success(),
                allow_other,
                "without allow_other no other user gets in at all"
            );
            assert_eq!(vfs.read_file("/workspace/public.txt").unwrap(), b"public\n");
            assert!(!vfs.exists("/workspace/new.txt").unwrap());
            // The owner still reads and writes everything.
            fs::write(mountpoint.join("mine.txt"), "mine").unwrap();
            assert_eq!(
                fs::read_to_string(mountpoint.join("private.txt")).unwrap(),
                "secret\n"
            );
            if allow_other {
                // Made the workspace's owner, that user writes what the tools made (and
                // what it makes is its own).
                let id = |flag: &str| -> u32 {
                    let out = std::process::Command::new("id")
                        .args([flag, &user])
                        .output()
                        .unwrap();
                    String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
                };
                let owner = computer_vfs::Owner {
                    uid: id("-u"),
                    gid: id("-g"),
                };
                vfs.set_owner(owner).unwrap();
                mount.sync().unwrap();
                let write = as_user(&user, &format!("echo theirs >> {m}/public.txt"));
                assert!(write.status.success(), "{write:?}");
                let create = as_user(&user, &format!("echo new > {m}/new.txt"));
                assert!(create.status.success(), "{create:?}");
                assert_eq!(
                    vfs.read_file("/workspace/public.txt").unwrap(),
                    b"public\ntheirs\n"
                );
                assert_eq!(vfs.stat("/workspace/new.txt").unwrap().uid, owner.uid);
            }
            mount.unmount().unwrap();
        }
    }
}

/// The pjdfstest binary (`cargo install pjdfstest`; `.ci/run` installs it), or `None` with the
/// reason printed outside CI.
fn pjdfstest() -> Option<std::path::PathBuf> {
    let path = std::env::var_os("PJDFSTEST").map_or_else(
        || {
            std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
                .map(|dir| dir.join("pjdfstest"))
                .find(|p| p.is_file())
        },
        |p| Some(p.into()),
    );
    if path.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI needs pjdfstest: cargo install pjdfstest --version 0.2.2 --locked"
        );
        println!("skipped: pjdfstest is not installed (cargo install pjdfstest)");
    }
    path
}

/// Runs pjdfstest in `dir`; the names of the cases that failed, and the summary line.
fn pjdfstest_failures(bin: &Path, config: &Path, dir: &Path) -> (BTreeSet<String>, String) {
    let out = std::process::Command::new(bin)
        .arg("-c")
        .arg(config)
        .arg("-p")
        .arg(dir)
        .current_dir(dir)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let failed = text
        .lines()
        .filter(|l| l.trim_end().ends_with("FAILED"))
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_string)
        .collect();
    let summary = text
        .lines()
        .find(|l| l.starts_with("Summary:"))
        .unwrap_or_else(|| panic!("pjdfstest printed no summary in {}:\n{text}", dir.display()))
        .to_string();
    (failed, summary)
}

/// The POSIX conformance suite (the Rust pjdfstest: permissions as other users, every file
/// type, timestamps, error codes) fails nothing on the mount that it does not fail on the
/// host's own file system, run side by side.
#[test]
fn pjdfstest_finds_nothing_the_host_file_system_does_not() {
    let Some(bin) = pjdfstest() else { return };
    // Its second user, beside `nobody`.
    let has_tests = std::process::Command::new("id")
        .arg("tests")
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_tests {
        let made = std::process::Command::new("useradd")
            .args([
                "--no-create-home",
                "--user-group",
                "--shell",
                "/bin/false",
                "tests",
            ])
            .status()
            .unwrap();
        assert!(made.success(), "useradd tests");
    }
    let dir = tempfile::tempdir().unwrap();
    // Other users must reach both directories.
    fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
    let config = dir.path().join("pjdfstest.toml");
    fs::write(
        &config,
        "[features]\nposix_fallocate = {}\nrename_ctime = {}\nutime_now = {}\nutimensat = {}\n\
         [settings]\nnaptime = 0.01\nallow_remount = false\n\
         [dummy_auth]\nentries = [[\"nobody\", \"nogroup\"], [\"tests\", \"tests\"]]\n",
    )
    .unwrap();
    let host = dir.path().join("host");
    fs::create_dir(&host).unwrap();
    let vfs = Arc::new(Vfs::open(dir.path().join("ws.db")).unwrap());
    let options = MountOptions {
        allow_other: true,
        ..MountOptions::default()
    };
    let Some(mount) = mount_at(dir.path(), &vfs, options) else {
        return;
    };
    let (host_failed, host_summary) = pjdfstest_failures(&bin, &config, &host);
    let (mount_failed, mount_summary) = pjdfstest_failures(&bin, &config, mount.mountpoint());
    println!("host: {host_summary}\nmount: {mount_summary}");
    let extra: Vec<_> = mount_failed.difference(&host_failed).collect();
    assert!(
        extra.is_empty(),
        "pjdfstest fails on the mount only: {extra:?}"
    );
    // It really ran: hundreds of cases passed.
    let passed: u32 = mount_summary
        .split(", ")
        .find_map(|p| p.strip_suffix(" passed"))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(0);
    assert!(passed > 300, "{mount_summary}");
    mount.unmount().unwrap();
}
