//! Unit tests of the VFS rules; the model-based, crash and concurrency tests are in `tests/`.

use std::ffi::OsStr;
use std::path::Path;

use crate::*;

fn vfs() -> Vfs {
    Vfs::in_memory().expect("in-memory workspace")
}

#[test]
fn new_workspace_has_the_standard_tree() {
    let vfs = vfs();
    for dir in ["/workspace", "/tmp", "/home/user"] {
        assert!(vfs.stat(dir).unwrap().is_dir(), "{dir}");
    }
    assert_eq!(vfs.stat("/tmp").unwrap().perm, 0o1777);
    assert_eq!(vfs.stat("/").unwrap().nlink, 5);
}

#[test]
fn write_read_and_overwrite() {
    let vfs = vfs();
    vfs.write_file("/workspace/a.txt", "hello").unwrap();
    assert_eq!(vfs.read_file("/workspace/a.txt").unwrap(), b"hello");
    vfs.write_file("/workspace/a.txt", "bye").unwrap();
    assert_eq!(vfs.read_file("/workspace/a.txt").unwrap(), b"bye");
    assert_eq!(vfs.stat("/workspace/a.txt").unwrap().size, 3);
}

#[test]
fn sparse_writes_and_truncate_read_back_zeros() {
    let vfs = vfs();
    let cs = DEFAULT_CHUNK_SIZE;
    vfs.write_at("/workspace/s", 3 * cs + 10, b"tail").unwrap();
    let data = vfs.read_file("/workspace/s").unwrap();
    assert_eq!(data.len() as u64, 3 * cs + 14);
    assert!(data[..(3 * cs + 10) as usize].iter().all(|b| *b == 0));
    assert_eq!(&data[(3 * cs + 10) as usize..], b"tail");
    // Holes cost nothing: only the last chunk is stored.
    assert!(vfs.statfs().unwrap().bytes_stored < 100);
    vfs.truncate("/workspace/s", 3 * cs + 12).unwrap();
    vfs.truncate("/workspace/s", 3 * cs + 20).unwrap();
    let data = vfs.read_file("/workspace/s").unwrap();
    assert_eq!(&data[(3 * cs + 10) as usize..], b"ta\0\0\0\0\0\0\0\0");
}

#[test]
fn writes_across_chunk_boundaries() {
    let vfs = vfs();
    let cs = DEFAULT_CHUNK_SIZE as usize;
    let big: Vec<u8> = (0..3 * cs + 77).map(|i| (i * 7 % 251) as u8).collect();
    vfs.write_file("/workspace/big", &big).unwrap();
    let patch = vec![0xAB; cs];
    vfs.write_at("/workspace/big", (cs - 5) as u64, &patch)
        .unwrap();
    let mut expected = big.clone();
    expected[cs - 5..2 * cs - 5].copy_from_slice(&patch);
    assert_eq!(vfs.read_file("/workspace/big").unwrap(), expected);
    assert_eq!(
        vfs.read_range("/workspace/big", (cs - 10) as u64, 20)
            .unwrap(),
        &expected[cs - 10..cs + 10]
    );
}

#[test]
fn identical_content_is_stored_once_and_freed_with_its_last_user() {
    let vfs = vfs();
    let data = vec![7u8; 600_000];
    vfs.write_file("/workspace/a", &data).unwrap();
    let one = vfs.statfs().unwrap().bytes_stored;
    vfs.write_file("/workspace/b", &data).unwrap();
    vfs.copy("/workspace/a", "/workspace/c").unwrap();
    assert_eq!(vfs.statfs().unwrap().bytes_stored, one);
    vfs.remove_file("/workspace/a").unwrap();
    vfs.remove_file("/workspace/b").unwrap();
    assert_eq!(vfs.statfs().unwrap().bytes_stored, one);
    vfs.remove_file("/workspace/c").unwrap();
    assert_eq!(vfs.statfs().unwrap().bytes_stored, 0);
}

#[test]
fn rename_follows_posix_rules() {
    let vfs = vfs();
    vfs.create_dir_all("/workspace/d/sub").unwrap();
    vfs.write_file("/workspace/f", "x").unwrap();
    vfs.create_dir("/workspace/empty").unwrap();
    let err = |r: Result<()>| r.unwrap_err().errno();
    assert_eq!(
        err(vfs.rename("/workspace/f", "/workspace/d")),
        libc::EISDIR
    );
    assert_eq!(
        err(vfs.rename("/workspace/d", "/workspace/f")),
        libc::ENOTDIR
    );
    assert_eq!(
        err(vfs.rename("/workspace/d", "/workspace/d/sub/x")),
        libc::EINVAL
    );
    assert_eq!(
        err(vfs.rename("/workspace/empty", "/workspace/d")),
        libc::ENOTEMPTY
    );
    assert_eq!(
        err(vfs.rename("/workspace/nope", "/workspace/x")),
        libc::ENOENT
    );
    // A directory over an empty directory, then across parents: link counts follow.
    vfs.rename("/workspace/d", "/workspace/empty").unwrap();
    assert!(!vfs.exists("/workspace/d").unwrap());
    assert_eq!(vfs.stat("/workspace").unwrap().nlink, 3);
    vfs.rename("/workspace/empty/sub", "/workspace/sub")
        .unwrap();
    assert_eq!(vfs.stat("/workspace").unwrap().nlink, 4);
    assert_eq!(vfs.stat("/workspace/empty").unwrap().nlink, 2);
    // A file over a file replaces it.
    vfs.write_file("/workspace/g", "g").unwrap();
    vfs.rename("/workspace/f", "/workspace/g").unwrap();
    assert_eq!(vfs.read_file("/workspace/g").unwrap(), b"x");
}

#[test]
fn rename_exchange_and_noreplace() {
    let vfs = vfs();
    vfs.write_file("/workspace/a", "A").unwrap();
    vfs.write_file("/workspace/b", "B").unwrap();
    let ws = vfs.stat("/workspace").unwrap().ino;
    let (a, b) = (OsStr::new("a"), OsStr::new("b"));
    let noreplace = RenameFlags {
        no_replace: true,
        ..Default::default()
    };
    assert_eq!(
        vfs.rename_entry(ws, a, ws, b, noreplace)
            .unwrap_err()
            .errno(),
        libc::EEXIST
    );
    let exchange = RenameFlags {
        exchange: true,
        ..Default::default()
    };
    vfs.rename_entry(ws, a, ws, b, exchange).unwrap();
    assert_eq!(vfs.read_file("/workspace/a").unwrap(), b"B");
    assert_eq!(vfs.read_file("/workspace/b").unwrap(), b"A");
}

#[test]
fn symlinks_resolve_and_loops_fail() {
    let vfs = vfs();
    vfs.create_dir_all("/workspace/real/deep").unwrap();
    vfs.write_file("/workspace/real/deep/f", "data").unwrap();
    vfs.symlink("real/deep", "/workspace/rel").unwrap();
    vfs.symlink("/workspace/real", "/workspace/abs").unwrap();
    assert_eq!(vfs.read_file("/workspace/rel/f").unwrap(), b"data");
    assert_eq!(
        vfs.read_file("/workspace/abs/deep/../deep/f").unwrap(),
        b"data"
    );
    // `..` after a symlinked directory goes to the target's parent, like the kernel.
    assert_eq!(vfs.read_file("/workspace/rel/../deep/f").unwrap(), b"data");
    assert!(vfs.lstat("/workspace/rel").unwrap().is_symlink());
    vfs.symlink("loop2", "/workspace/loop1").unwrap();
    vfs.symlink("loop1", "/workspace/loop2").unwrap();
    assert_eq!(
        vfs.read_file("/workspace/loop1").unwrap_err().errno(),
        libc::ELOOP
    );
    // Writing through a dangling symlink creates its target.
    vfs.symlink("target.txt", "/workspace/dangling").unwrap();
    vfs.write_file("/workspace/dangling", "made").unwrap();
    assert_eq!(vfs.read_file("/workspace/target.txt").unwrap(), b"made");
}

#[test]
fn a_listing_with_attributes_reads_each_entry_itself() {
    let vfs = vfs();
    vfs.create_dir_all("/workspace/d/sub").unwrap();
    vfs.write_file("/workspace/d/b.txt", "12345").unwrap();
    vfs.symlink("b.txt", "/workspace/d/a-link").unwrap();
    vfs.symlink("d", "/workspace/to-d").unwrap();
    let listed = vfs.read_dir_stat("/workspace/to-d").unwrap();
    let seen: Vec<(&OsStr, FileType, u64)> = listed
        .iter()
        .map(|(name, st)| (name.as_os_str(), st.kind, st.size))
        .collect();
    assert_eq!(
        seen,
        [
            (OsStr::new("a-link"), FileType::Symlink, 5),
            (OsStr::new("b.txt"), FileType::File, 5),
            (OsStr::new("sub"), FileType::Dir, listed[2].1.size),
        ]
    );
    // The same attributes a stat of each path gives.
    for (name, st) in &listed {
        let path = Path::new("/workspace/d").join(name);
        assert_eq!(st.ino, vfs.lstat(&path).unwrap().ino, "{path:?}");
    }
    assert_eq!(
        vfs.read_dir_stat("/workspace/d/b.txt").unwrap_err().errno(),
        libc::ENOTDIR
    );
    assert_eq!(
        vfs.read_dir_stat("/workspace/none").unwrap_err().errno(),
        libc::ENOENT
    );
}

#[test]
fn dotdot_never_escapes_the_root() {
    let vfs = vfs();
    vfs.write_file("/workspace/x", "x").unwrap();
    assert_eq!(vfs.read_file("/../../../workspace/x").unwrap(), b"x");
    assert_eq!(
        vfs.read_file("/workspace/../../workspace/./x").unwrap(),
        b"x"
    );
    vfs.symlink("../../../../..", "/workspace/up").unwrap();
    assert_eq!(vfs.read_file("/workspace/up/workspace/x").unwrap(), b"x");
}

#[test]
fn bad_names_get_clear_errors() {
    let vfs = vfs();
    let long = format!("/workspace/{}", "n".repeat(256));
    assert_eq!(
        vfs.write_file(&long, "x").unwrap_err().errno(),
        libc::ENAMETOOLONG
    );
    let ok = format!("/workspace/{}", "n".repeat(255));
    vfs.write_file(&ok, "x").unwrap();
    let err = vfs.write_file("/workspace/a\0b", "x").unwrap_err();
    assert_eq!(err.errno(), libc::EINVAL);
    assert!(err.to_string().contains("NUL"), "{err}");
    let deep = format!("/{}", "d/".repeat(2100));
    assert_eq!(
        vfs.create_dir_all(&deep).unwrap_err().errno(),
        libc::ENAMETOOLONG
    );
}

#[test]
fn hard_links_share_content_and_count() {
    let vfs = vfs();
    vfs.write_file("/workspace/a", "one").unwrap();
    vfs.hard_link("/workspace/a", "/workspace/b").unwrap();
    assert_eq!(vfs.stat("/workspace/a").unwrap().nlink, 2);
    vfs.write_file("/workspace/b", "two").unwrap();
    assert_eq!(vfs.read_file("/workspace/a").unwrap(), b"two");
    vfs.remove_file("/workspace/a").unwrap();
    assert_eq!(vfs.stat("/workspace/b").unwrap().nlink, 1);
    assert_eq!(
        vfs.hard_link("/workspace", "/workspace/w")
            .unwrap_err()
            .errno(),
        libc::EPERM
    );
}

#[test]
fn handles_buffer_writes_until_flush() {
    let vfs = vfs();
    let st = vfs.write_file("/workspace/h", "").unwrap();
    let dir = vfs.stat("/workspace").unwrap().ino;
    let rev = vfs.revision().unwrap();
    let fh = vfs.open_file(st.ino, OpenFlags::READ_WRITE).unwrap();
    for i in 0..100u64 {
        vfs.write(fh, i * 10, b"0123456789").unwrap();
    }
    // Nothing committed yet, but the handle and every attribute the inode API returns see
    // the writes (a FUSE kernel told a smaller size takes it for the end of the file).
    assert_eq!(vfs.revision().unwrap(), rev);
    assert_eq!(vfs.getattr(st.ino).unwrap().size, 1000);
    assert_eq!(vfs.lookup(dir, "h".as_ref()).unwrap().size, 1000);
    let many = vfs.getattr_many(&[st.ino, 999_999]).unwrap();
    assert_eq!(many[0].as_ref().unwrap().size, 1000);
    assert_eq!(many[1].as_ref().unwrap_err().errno(), libc::ENOENT);
    assert_eq!(vfs.link(st.ino, dir, "h2".as_ref()).unwrap().size, 1000);
    let chmod = SetAttr {
        perm: Some(0o600),
        ..SetAttr::default()
    };
    assert_eq!(vfs.setattr(st.ino, &chmod).unwrap().size, 1000);
    assert_eq!(vfs.revision().unwrap(), rev + 2);
    assert_eq!(vfs.read(fh, 995, 10).unwrap(), b"56789");
    vfs.release(fh).unwrap();
    assert_eq!(vfs.revision().unwrap(), rev + 3);
    assert_eq!(
        vfs.read_file("/workspace/h").unwrap(),
        b"0123456789".repeat(100)
    );
}

#[test]
fn path_reads_see_unflushed_handle_writes() {
    let vfs = vfs();
    let st = vfs.write_file("/workspace/h", "abc").unwrap();
    let fh = vfs.open_file(st.ino, OpenFlags::WRITE).unwrap();
    vfs.write(fh, 3, b"def").unwrap();
    assert_eq!(vfs.read_file("/workspace/h").unwrap(), b"abcdef");
    assert_eq!(vfs.read(fh, 0, 3).unwrap_err().errno(), libc::EBADF);
    vfs.release(fh).unwrap();
}

#[test]
fn unlinked_open_file_lives_until_release() {
    let vfs = vfs();
    let st = vfs.write_file("/workspace/tmp", "still here").unwrap();
    let fh = vfs.open_file(st.ino, OpenFlags::READ).unwrap();
    vfs.remove_file("/workspace/tmp").unwrap();
    assert_eq!(vfs.read(fh, 0, 100).unwrap(), b"still here");
    vfs.release(fh).unwrap();
    assert_eq!(vfs.getattr(st.ino).unwrap_err().errno(), libc::ENOENT);
    assert_eq!(vfs.statfs().unwrap().bytes_stored, 0);
}

#[test]
fn append_handles_write_at_the_end() {
    let vfs = vfs();
    let st = vfs.write_file("/workspace/log", "a").unwrap();
    let flags = OpenFlags {
        write: true,
        append: true,
        ..Default::default()
    };
    let fh = vfs.open_file(st.ino, flags).unwrap();
    vfs.write(fh, 0, b"b").unwrap();
    vfs.write(fh, 0, b"c").unwrap();
    vfs.release(fh).unwrap();
    assert_eq!(vfs.read_file("/workspace/log").unwrap(), b"abc");
}

#[test]
fn change_log_reports_paths_since_a_revision() {
    let vfs = vfs();
    let start = vfs.revision().unwrap();
    vfs.write_file("/workspace/a", "1").unwrap();
    vfs.rename("/workspace/a", "/workspace/b").unwrap();
    vfs.remove_file("/workspace/b").unwrap();
    let changes: Vec<(ChangeKind, String)> = vfs
        .changes_since(start)
        .unwrap()
        .into_iter()
        .map(|c| (c.kind, c.path.display().to_string()))
        .collect();
    assert_eq!(
        changes,
        [
            (ChangeKind::Created, "/workspace/a".into()),
            (ChangeKind::Modified, "/workspace/a".into()),
            (ChangeKind::Deleted, "/workspace/a".into()),
            (ChangeKind::Created, "/workspace/b".into()),
            (ChangeKind::Deleted, "/workspace/b".into()),
        ]
    );
    assert_eq!(vfs.revision().unwrap(), start + 3);
    assert!(
        vfs.changes_since(vfs.revision().unwrap())
            .unwrap()
            .is_empty()
    );
}

#[test]
fn snapshot_restore_and_delete() {
    let vfs = vfs();
    vfs.write_file("/workspace/keep", "v1").unwrap();
    let info = vfs.snapshot("s1").unwrap();
    assert_eq!(info.name, "s1");
    assert!(matches!(
        vfs.snapshot("s1"),
        Err(VfsError::SnapshotExists(_))
    ));
    vfs.write_file("/workspace/keep", "v2").unwrap();
    vfs.write_file("/workspace/new", "n").unwrap();
    vfs.restore_snapshot("s1").unwrap();
    assert_eq!(vfs.read_file("/workspace/keep").unwrap(), b"v1");
    assert!(!vfs.exists("/workspace/new").unwrap());
    // New inodes after a restore never reuse numbers of the discarded tree.
    let st = vfs.write_file("/workspace/after", "x").unwrap();
    assert!(st.ino > vfs.stat("/workspace/keep").unwrap().ino);
    vfs.delete_snapshot("s1").unwrap();
    assert!(vfs.snapshots().unwrap().is_empty());
    assert!(matches!(
        vfs.restore_snapshot("s1"),
        Err(VfsError::SnapshotNotFound(_))
    ));
}

#[test]
fn quota_and_file_size_limits_name_themselves() {
    let vfs = vfs();
    vfs.set_quota(100_000).unwrap();
    let err = vfs
        .write_file("/workspace/big", vec![1u8; 200_000])
        .unwrap_err();
    assert_eq!(err.errno(), libc::ENOSPC);
    assert!(err.to_string().contains("quota"), "{err}");
    assert!(
        !vfs.exists("/workspace/big").unwrap(),
        "a failed write leaves nothing"
    );
    vfs.set_quota(0).unwrap();
    vfs.set_max_file_size(1000).unwrap();
    let err = vfs.write_at("/workspace/f", 999, b"xy").unwrap_err();
    assert_eq!(err.errno(), libc::EFBIG);
    assert!(err.to_string().contains("1000 bytes per file"), "{err}");
}

#[test]
fn a_buffered_write_past_the_quota_fails_at_the_write() {
    // A commit at close time may have nobody to report to (a guest's close, FUSE's release):
    // the write that grows a file past the quota is the one that fails.
    let vfs = vfs();
    vfs.set_quota(100_000).unwrap();
    let st = vfs.write_file("/workspace/h", "").unwrap();
    let fh = vfs.open_file(st.ino, OpenFlags::READ_WRITE).unwrap();
    vfs.write(fh, 0, &[7u8; 60_000]).unwrap();
    let err = vfs.write(fh, 60_000, &[7u8; 60_000]).unwrap_err();
    assert_eq!(err.errno(), libc::ENOSPC);
    assert!(err.to_string().contains("quota of 100000 bytes"), "{err}");
    // Rewriting what is already there still works.
    vfs.write(fh, 0, &[8u8; 60_000]).unwrap();
    vfs.release(fh).unwrap();
    assert_eq!(vfs.read_file("/workspace/h").unwrap(), vec![8u8; 60_000]);
}

#[test]
fn buffered_writes_of_many_open_files_are_capped_together() {
    // Twelve files of 12 MiB each, written through open handles only (a path-level call
    // would commit every buffer first), each below the one-file limit: past the limit of
    // all buffers together, a write commits its own file.
    let vfs = vfs();
    let piece = vec![1u8; 12 << 20];
    let mut handles = Vec::new();
    for n in 0..12 {
        let st = vfs.write_file(format!("/workspace/f{n}"), "").unwrap();
        handles.push(vfs.open_file(st.ino, OpenFlags::READ_WRITE).unwrap());
    }
    let rev = vfs.revision().unwrap();
    for fh in &handles {
        vfs.write(*fh, 0, &piece).unwrap();
    }
    assert!(
        vfs.revision().unwrap() > rev,
        "nothing was committed while 144 MiB sat in buffers"
    );
    for fh in handles {
        vfs.release(fh).unwrap();
    }
    assert_eq!(vfs.read_file("/workspace/f11").unwrap().len(), 12 << 20);
}

#[test]
fn a_new_workspace_file_and_its_folder_are_private() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("new/ws.db");
    let vfs = Vfs::open(&path).unwrap();
    vfs.write_file("/workspace/a", "a").unwrap();
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&path), 0o600);
    assert_eq!(mode(&dir.path().join("new")), 0o700);
    let wal = dir.path().join("new/ws.db-wal");
    if wal.exists() {
        assert_eq!(mode(&wal), 0o600);
    }
}

#[test]
fn xattrs_round_trip() {
    let vfs = vfs();
    let st = vfs.write_file("/workspace/x", "").unwrap();
    let name = OsStr::new("user.k");
    vfs.setxattr(st.ino, name, b"v", XattrMode::Create).unwrap();
    assert_eq!(vfs.getxattr(st.ino, name).unwrap(), b"v");
    assert_eq!(
        vfs.setxattr(st.ino, name, b"w", XattrMode::Create)
            .unwrap_err()
            .errno(),
        libc::EEXIST
    );
    assert_eq!(vfs.listxattr(st.ino).unwrap(), vec![b"user.k".to_vec()]);
    vfs.removexattr(st.ino, name).unwrap();
    assert_eq!(
        vfs.getxattr(st.ino, name).unwrap_err().errno(),
        libc::ENODATA
    );
}

#[test]
fn glob_and_walk() {
    let vfs = vfs();
    for p in [
        "/workspace/src/a.rs",
        "/workspace/src/b/c.rs",
        "/workspace/README.md",
    ] {
        vfs.create_dir_all(std::path::Path::new(p).parent().unwrap())
            .unwrap();
        vfs.write_file(p, "").unwrap();
    }
    let names = |v: Vec<std::path::PathBuf>| {
        v.into_iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        names(vfs.glob("/workspace/src/*.rs").unwrap()),
        ["/workspace/src/a.rs"]
    );
    assert_eq!(
        names(vfs.glob("/workspace/**/*.rs").unwrap()),
        ["/workspace/src/a.rs", "/workspace/src/b/c.rs"]
    );
    let walked: Vec<_> = vfs
        .walk("/workspace")
        .unwrap()
        .into_iter()
        .map(|e| (e.path.display().to_string(), e.depth))
        .collect();
    assert_eq!(
        walked,
        [
            ("/workspace".to_string(), 0),
            ("/workspace/README.md".into(), 1),
            ("/workspace/src".into(), 1),
            ("/workspace/src/a.rs".into(), 2),
            ("/workspace/src/b".into(), 2),
            ("/workspace/src/b/c.rs".into(), 3),
        ]
    );
}

#[test]
fn remove_all_and_copy_all() {
    let vfs = vfs();
    vfs.create_dir_all("/workspace/t/a/b").unwrap();
    vfs.write_file("/workspace/t/a/b/f", "f").unwrap();
    vfs.symlink("a/b/f", "/workspace/t/link").unwrap();
    vfs.copy_all("/workspace/t", "/workspace/u").unwrap();
    assert_eq!(vfs.read_file("/workspace/u/link").unwrap(), b"f");
    assert_eq!(
        vfs.copy_all("/workspace/t", "/workspace/t/a/inside")
            .unwrap_err()
            .errno(),
        libc::EINVAL
    );
    vfs.remove_all("/workspace/t").unwrap();
    assert!(!vfs.exists("/workspace/t").unwrap());
    assert_eq!(vfs.read_file("/workspace/u/a/b/f").unwrap(), b"f");
    assert_eq!(vfs.remove_all("/").unwrap_err().errno(), libc::EBUSY);
}

/// `cp -r` and `cp -a` in one change: the umask off every copy's bits, owners and times
/// new or kept, a directory's time set after its entries were made in it.
#[test]
fn copy_all_with_keeps_what_it_is_told() {
    let vfs = vfs();
    vfs.create_dir_all("/s/d").unwrap();
    vfs.write_file("/s/d/f", "f").unwrap();
    vfs.set_permissions("/s/d/f", 0o777).unwrap();
    vfs.symlink("d/f", "/s/l").unwrap();
    vfs.make_fifo("/s/p", 0o666).unwrap();
    vfs.set_owner_of("/s/d/f", Some(7), Some(8), false).unwrap();
    let old = TimeSet::At(1_000_000_000);
    for p in ["/s/d/f", "/s/l", "/s/p", "/s/d", "/s"] {
        vfs.set_times(p, Some(old), Some(old)).unwrap();
    }
    let rev = vfs.revision().unwrap();
    let fresh = CopyOptions {
        mask: 0o022,
        owners: false,
        times: false,
        max_entries: Some(5),
    };
    let four = CopyOptions {
        max_entries: Some(4),
        ..fresh
    };
    let err = vfs.copy_all_with("/s", "/r", four).unwrap_err();
    assert_eq!(err.errno(), libc::E2BIG);
    assert!(err.to_string().contains("more than 4 entries"), "{err}");
    assert!(vfs.lstat("/r").is_err(), "nothing is made past the limit");
    vfs.copy_all_with("/s", "/r", fresh).unwrap();
    assert_eq!(vfs.revision().unwrap(), rev + 1, "one change");
    let (f, me) = (vfs.lstat("/r/d/f").unwrap(), vfs.owner().unwrap());
    assert_ne!(me.uid, 7);
    assert_eq!((f.perm, f.uid, f.gid), (0o755, me.uid, me.gid));
    assert_ne!(f.mtime, 1_000_000_000);
    assert_eq!(vfs.read_file("/r/l").unwrap(), b"f");
    assert_eq!(vfs.lstat("/r/p").unwrap().kind, FileType::Fifo);
    assert_eq!(vfs.lstat("/r/p").unwrap().perm, 0o644);

    let kept = CopyOptions {
        mask: 0,
        owners: true,
        times: true,
        max_entries: None,
    };
    vfs.copy_all_with("/s", "/a", kept).unwrap();
    let f = vfs.lstat("/a/d/f").unwrap();
    assert_eq!((f.perm, f.uid, f.gid), (0o777, 7, 8));
    for p in ["/a/d/f", "/a/l", "/a/p", "/a/d", "/a"] {
        let st = vfs.lstat(p).unwrap();
        assert_eq!((st.atime, st.mtime), (1_000_000_000, 1_000_000_000), "{p}");
    }
    assert_eq!(
        vfs.copy_all_with("/s", "/a", kept).unwrap_err().errno(),
        libc::EEXIST
    );
}

/// A guest builds a tree one level at a time through directory descriptors, deeper than a
/// path can name. Copying and removing it must not overflow the stack: that kills the whole
/// host process, every workspace it serves.
#[test]
fn trees_deeper_than_a_stack_are_copied_and_removed() {
    const DEEP: usize = 4_000;
    let vfs = vfs();
    let entries_before = vfs.walk("/").unwrap().len();
    let top = vfs.create_dir_all("/w/deep").unwrap().ino;
    let (owner, a) = (Owner::default(), OsStr::new("a"));
    let mut at = top;
    for _ in 0..DEEP {
        at = vfs.mkdir(at, a, 0o755, owner).unwrap().ino;
    }
    vfs.create(at, OsStr::new("f"), 0o644, owner).unwrap();
    vfs.symlink("/w/deep/a", "/w/deep/a/link").unwrap();
    let vfs = std::sync::Arc::new(vfs);
    let on_a_small_stack = |f: Box<dyn FnOnce(&Vfs) + Send>| {
        let vfs = std::sync::Arc::clone(&vfs);
        std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || f(&vfs))
            .unwrap()
            .join()
            .unwrap()
    };
    on_a_small_stack(Box::new(|v| v.copy_all("/w/deep", "/w/copy").unwrap()));
    let tree = vfs.walk("/w/copy").unwrap();
    assert_eq!(tree.len(), 1 + DEEP + 2);
    assert_eq!(tree.iter().map(|e| e.depth).max(), Some(DEEP + 1));
    assert_eq!(
        vfs.read_link("/w/copy/a/link").unwrap(),
        Path::new("/w/deep/a")
    );
    on_a_small_stack(Box::new(|v| {
        v.remove_all("/w/deep").unwrap();
        v.remove_all("/w/copy").unwrap();
    }));
    assert_eq!(vfs.walk("/").unwrap().len(), entries_before + 1);
}

#[test]
fn read_only_workspace_refuses_changes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.db");
    Vfs::open(&path)
        .unwrap()
        .write_file("/workspace/a", "a")
        .unwrap();
    let ro = Vfs::open_with(
        &path,
        &VfsOptions {
            read_only: true,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(ro.read_file("/workspace/a").unwrap(), b"a");
    assert_eq!(
        ro.write_file("/workspace/b", "b").unwrap_err().errno(),
        libc::EROFS
    );
}

#[test]
fn fork_is_an_independent_workspace() {
    let dir = tempfile::tempdir().unwrap();
    let vfs = Vfs::open(dir.path().join("a.db")).unwrap();
    vfs.write_file("/workspace/f", "original").unwrap();
    vfs.snapshot("s").unwrap();
    vfs.write_file("/workspace/f", "changed").unwrap();
    let fork = vfs.fork("s", dir.path().join("b.db")).unwrap();
    assert_eq!(fork.read_file("/workspace/f").unwrap(), b"original");
    fork.write_file("/workspace/f", "fork").unwrap();
    assert_eq!(vfs.read_file("/workspace/f").unwrap(), b"changed");
    assert!(fork.snapshots().unwrap().is_empty());
    fork.check_integrity().unwrap();
    assert!(matches!(
        vfs.fork("s", dir.path().join("b.db")),
        Err(VfsError::Exists)
    ));
}

#[test]
fn one_read_is_capped_so_a_sparse_file_cannot_exhaust_memory() {
    let vfs = vfs();
    let st = vfs.write_file("/workspace/sparse", "").unwrap();
    vfs.truncate("/workspace/sparse", 3 << 30).unwrap();
    let fh = vfs.open_file(st.ino, OpenFlags::READ).unwrap();
    let data = vfs.read(fh, 0, u64::MAX).unwrap();
    assert_eq!(data.len() as u64, MAX_READ);
    assert!(data.iter().all(|b| *b == 0));
    vfs.release(fh).unwrap();
}

fn audit_entry(tool: &str) -> AuditEntry {
    AuditEntry {
        id: 0,
        started: 1,
        duration: 2,
        origin: "library".into(),
        tool: tool.into(),
        args: "{}".into(),
        summary: "ok".into(),
        error: None,
    }
}

#[test]
fn audit_log_records_calls_without_touching_the_tree() {
    let vfs = vfs();
    let rev = vfs.revision().unwrap();
    let first = vfs.record_audit(&audit_entry("read")).unwrap();
    let mut failed = audit_entry("edit");
    failed.error = Some("no match".into());
    let second = vfs.record_audit(&failed).unwrap();
    assert!(second > first);
    assert_eq!(
        vfs.revision().unwrap(),
        rev,
        "audit rows are not tree changes"
    );
    let log = vfs.audit_log(0, 10).unwrap();
    let tools: Vec<_> = log.iter().map(|e| e.tool.as_str()).collect();
    assert_eq!(tools, ["read", "edit"]);
    assert_eq!(log[1].error.as_deref(), Some("no match"));
    // The newest entries, still oldest first; and only those after an id.
    assert_eq!(vfs.audit_log(0, 1).unwrap()[0].tool, "edit");
    assert_eq!(vfs.audit_log(first, 10).unwrap().len(), 1);
}

/// A version-3 file (a Python runtime's standard library installed before version 4) is
/// read as it is when opened read-only: settings read as unset, the file left at version 3.
#[test]
fn a_version_3_workspace_is_read_read_only_without_migrating() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v3.db");
    let vfs = Vfs::open(&path).unwrap();
    vfs.write_file("/workspace/kept", "kept").unwrap();
    drop(vfs);
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch("DROP TABLE settings; PRAGMA user_version = 3;")
        .unwrap();
    drop(conn);
    let ro = Vfs::open_with(
        &path,
        &VfsOptions {
            read_only: true,
            ..VfsOptions::default()
        },
    )
    .unwrap();
    assert_eq!(ro.read_file("/workspace/kept").unwrap(), b"kept");
    assert_eq!(ro.setting("net.policy").unwrap(), None);
    let version: i64 = rusqlite::Connection::open(&path)
        .unwrap()
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(version, 3, "a reader must not migrate");
}

#[test]
fn a_version_1_workspace_is_migrated_to_the_current_schema() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    Vfs::open(&path)
        .unwrap()
        .write_file("/workspace/kept", "kept")
        .unwrap();
    // Turn the file back into what version 1 wrote.
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(
        "DROP TABLE audit; DROP TABLE settings; ALTER TABLE inodes DROP COLUMN rdev;
         ALTER TABLE snap_inodes DROP COLUMN rdev; PRAGMA user_version = 1;",
    )
    .unwrap();
    drop(conn);
    let vfs = Vfs::open(&path).unwrap();
    assert_eq!(vfs.read_file("/workspace/kept").unwrap(), b"kept");
    vfs.record_audit(&audit_entry("ls")).unwrap();
    assert_eq!(vfs.audit_log(0, 10).unwrap().len(), 1);
    vfs.set_setting("net.policy", Some("all\n")).unwrap();
    assert_eq!(vfs.setting("net.policy").unwrap().as_deref(), Some("all\n"));
    let conn = rusqlite::Connection::open(&path).unwrap();
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(version, SCHEMA_VERSION);
}

#[test]
fn compacting_gives_back_the_space_of_deleted_files_and_keeps_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.db");
    let vfs = Vfs::open(&path).unwrap();
    let other = Vfs::open(&path).unwrap();
    // Distinct bytes per file (equal chunks would be stored once).
    let bytes = |seed: u64| -> Vec<u8> {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        (0..300_000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect()
    };
    for i in 0..24 {
        vfs.write_file(format!("/workspace/f{i}"), bytes(i))
            .unwrap();
    }
    let kept_ino = vfs.stat("/workspace/f7").unwrap().ino;
    for i in (0..24).filter(|&i| i != 7) {
        vfs.remove_file(format!("/workspace/f{i}")).unwrap();
    }
    let on_disk = || std::fs::metadata(&path).unwrap().len();
    let disk_before = on_disk();
    let done = vfs.compact().unwrap();
    // 23 of 24 files of 300 kB are gone: the file shrinks to a small part of what it was.
    assert!(done.after * 4 < done.before, "{done:?}");
    assert!(
        on_disk() * 4 < disk_before,
        "{} -> {}",
        disk_before,
        on_disk()
    );
    assert!(on_disk() <= done.after + 4096, "{} vs {done:?}", on_disk());
    // Content, inode numbers and the integrity of the file are as before; another
    // connection to the file reads it too.
    assert_eq!(vfs.read_file("/workspace/f7").unwrap(), bytes(7));
    assert_eq!(vfs.stat("/workspace/f7").unwrap().ino, kept_ino);
    assert_eq!(other.read_file("/workspace/f7").unwrap(), bytes(7));
    vfs.check_integrity().unwrap();
    // Writing goes on after it.
    vfs.write_file("/workspace/after", "x").unwrap();
    assert_eq!(other.read_file("/workspace/after").unwrap(), b"x");
    // A read-only workspace is not rewritten.
    let read_only = Vfs::open_with(
        &path,
        &VfsOptions {
            read_only: true,
            ..VfsOptions::default()
        },
    )
    .unwrap();
    assert!(matches!(read_only.compact(), Err(VfsError::ReadOnly)));
}

#[test]
fn a_copy_of_the_file_holds_every_commit_and_keeps_pages_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.db");
    let vfs = Vfs::open(&path).unwrap();
    let big: Vec<u8> = (0..1_000_000u32).map(|i| (i * 7 % 251) as u8).collect();
    vfs.write_file("/workspace/a", &big).unwrap();
    let first = dir.path().join("first.db");
    let copied = vfs.copy_file_to(&first).unwrap();
    assert_eq!(copied, std::fs::metadata(&first).unwrap().len());
    // Committed changes are in the copy (the log was folded into the file first).
    vfs.write_file("/workspace/b", "after").unwrap();
    let second = dir.path().join("second.db");
    vfs.copy_file_to(&second).unwrap();
    let (x, y) = (
        std::fs::read(&first).unwrap(),
        std::fs::read(&second).unwrap(),
    );
    let copy = Vfs::open(&second).unwrap();
    assert_eq!(copy.read_file("/workspace/a").unwrap(), big);
    assert_eq!(copy.read_file("/workspace/b").unwrap(), b"after");
    copy.check_integrity().unwrap();
    assert!(!Vfs::open(&first).unwrap().exists("/workspace/b").unwrap());
    // One small change rewrites a few pages, however big the file (here 250 of them).
    let pages = y.len().div_ceil(4096);
    let same = x
        .chunks(4096)
        .zip(y.chunks(4096))
        .filter(|(p, q)| p == q)
        .count();
    assert!(
        pages > 250 && pages - same <= 16,
        "{same} of {pages} pages equal"
    );
    // An in-memory workspace has no file.
    assert!(matches!(
        Vfs::in_memory()
            .unwrap()
            .copy_file_to(&dir.path().join("m.db")),
        Err(VfsError::Invalid(_))
    ));
}

/// Reads `reader` gives for `/workspace/d/f` through each cached path: the path API (followed
/// and not), the inode API's lookup and getattr. `None` where it is gone.
fn seen(reader: &Vfs, dir: Ino) -> [Option<(Ino, u64)>; 3] {
    let key = |st: Stat| (st.ino, st.size);
    let by_path = reader.stat("/workspace/d/f").ok().map(key);
    assert_eq!(by_path, reader.lstat("/workspace/d/f").ok().map(key));
    let by_lookup = reader.lookup(dir, OsStr::new("f")).ok().map(key);
    let by_ino = by_lookup.and_then(|(ino, _)| reader.getattr(ino).ok().map(key));
    [by_path, by_lookup, by_ino]
}

#[test]
fn a_commit_by_another_connection_is_seen_by_the_next_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.db");
    let writer = Vfs::open(&path).unwrap();
    let reader = Vfs::open(&path).unwrap();
    let d = writer.create_dir_all("/workspace/d").unwrap().ino;
    for round in 0..50u64 {
        let st = writer
            .write_file("/workspace/d/f", vec![b'x'; round as usize])
            .unwrap();
        // Twice: the second read is answered from the caches the first filled.
        for _ in 0..2 {
            assert_eq!(
                seen(&reader, d),
                [Some((st.ino, round)); 3],
                "round {round}"
            );
        }
        writer.remove_file("/workspace/d/f").unwrap();
        assert_eq!(seen(&reader, d), [None; 3], "round {round}");
        // A new inode under the same name (a rename over it, as editors save).
        writer.write_file("/workspace/d/g", "new").unwrap();
        writer.rename("/workspace/d/g", "/workspace/d/f").unwrap();
        let now = writer.stat("/workspace/d/f").unwrap();
        assert_eq!(seen(&reader, d), [Some((now.ino, 3)); 3], "round {round}");
        writer.remove_file("/workspace/d/f").unwrap();
        // The directory's path, which WASI's `*-at` calls start from.
        let path_of = |ino| reader.path_of(ino).unwrap().unwrap();
        assert_eq!(path_of(d), std::path::Path::new("/workspace/d"));
        assert_eq!(path_of(d), std::path::Path::new("/workspace/d"));
        writer.rename("/workspace/d", "/workspace/e").unwrap();
        assert_eq!(path_of(d), std::path::Path::new("/workspace/e"));
        writer.rename("/workspace/e", "/workspace/d").unwrap();
    }
}

/// Set in the child that `a_commit_by_another_process_is_seen_by_the_next_read` starts.
const CHILD_WRITER: &str = "COMPUTER_VFS_TEST_CHILD_WRITER";

#[test]
fn a_commit_by_another_process_is_seen_by_the_next_read() {
    if let Some(path) = std::env::var_os(CHILD_WRITER) {
        // The child: one line in, one change committed, one line out.
        let writer = Vfs::open(path).unwrap();
        for line in std::io::stdin().lines() {
            let size: usize = line.unwrap().parse().unwrap();
            writer
                .write_file("/workspace/d/f", vec![b'x'; size])
                .unwrap();
            // Straight to the descriptor: the test harness may capture `println!`.
            let mut out = std::io::stdout();
            std::io::Write::write_all(&mut out, b"done\n").unwrap();
            std::io::Write::flush(&mut out).unwrap();
        }
        return;
    }
    use std::io::{BufRead, Write};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.db");
    let reader = Vfs::open(&path).unwrap();
    let d = reader.create_dir_all("/workspace/d").unwrap().ino;
    reader.write_file("/workspace/d/f", "").unwrap();
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "tests::a_commit_by_another_process_is_seen_by_the_next_read",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_WRITER, &path)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut to_child = child.stdin.take().unwrap();
    let mut from_child = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let ino = reader.stat("/workspace/d/f").unwrap().ino;
    for size in 1..=50u64 {
        assert_eq!(seen(&reader, d), [Some((ino, size - 1)); 3]);
        writeln!(to_child, "{size}").unwrap();
        // The child's output starts with the test harness's own lines, the last of them not
        // ended until the test ends.
        while !from_child.next().unwrap().unwrap().ends_with("done") {}
        assert_eq!(seen(&reader, d), [Some((ino, size)); 3], "size {size}");
    }
    drop(to_child);
    assert!(child.wait().unwrap().success());
}

/// The descriptors this process holds on `db` and its `-wal` and `-shm` files.
fn descriptors_on(db: &std::path::Path) -> usize {
    std::fs::read_dir("/proc/self/fd")
        .unwrap()
        .filter_map(|e| std::fs::read_link(e.ok()?.path()).ok())
        .filter(|target| target.to_string_lossy().starts_with(&*db.to_string_lossy()))
        .count()
}

#[test]
fn a_sleeping_workspace_holds_no_descriptor_and_wakes_on_use() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.db");
    let vfs = Vfs::open(&path).unwrap();
    vfs.write_file("/workspace/a", "one").unwrap();
    assert_eq!(descriptors_on(&path), 3);
    // An open handle keeps it awake.
    let st = vfs.stat("/workspace/a").unwrap();
    let fh = vfs.open_file(st.ino, OpenFlags::WRITE).unwrap();
    assert!(!vfs.sleep());
    vfs.write(fh, 0, b"two").unwrap();
    vfs.release(fh).unwrap();
    assert!(vfs.sleep());
    assert!(vfs.is_asleep());
    assert_eq!(descriptors_on(&path), 0);
    // Another connection's change made meanwhile is seen on waking.
    Vfs::open(&path)
        .unwrap()
        .write_file("/workspace/b", "from elsewhere")
        .unwrap();
    assert_eq!(vfs.read_file("/workspace/a").unwrap(), b"two");
    assert!(!vfs.is_asleep());
    assert_eq!(descriptors_on(&path), 3);
    assert_eq!(vfs.read_file("/workspace/b").unwrap(), b"from elsewhere");
    // Handle numbers are never given twice.
    let again = vfs.open_file(st.ino, OpenFlags::READ).unwrap();
    assert!(again > fh, "{again} after {fh}");
    vfs.release(again).unwrap();
    // Changes work after waking, and sleeping again is allowed.
    vfs.write_file("/workspace/c", "three").unwrap();
    assert!(vfs.sleep());
    assert_eq!(vfs.read_file("/workspace/c").unwrap(), b"three");
}

#[test]
fn a_workspace_file_deleted_while_asleep_is_an_error_not_a_new_workspace() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.db");
    let vfs = Vfs::open(&path).unwrap();
    vfs.write_file("/workspace/a", "a").unwrap();
    assert!(vfs.sleep());
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    let err = vfs.read_file("/workspace/a").unwrap_err();
    assert!(err.to_string().contains("is gone"), "{err}");
    assert!(!path.exists());
    // An emptied file is not made a new workspace either.
    std::fs::write(&path, b"").unwrap();
    let err = vfs.read_file("/workspace/a").unwrap_err();
    assert!(err.to_string().contains("was emptied"), "{err}");
    assert_eq!(std::fs::metadata(&path).unwrap().len(), 0);
    assert!(!Vfs::in_memory().unwrap().sleep());
}

#[test]
fn fifos_sockets_and_devices_are_stored_but_never_opened() {
    let vfs = vfs();
    let dir = vfs.stat("/workspace").unwrap().ino;
    let owner = Owner { uid: 7, gid: 8 };
    let make = |name: &str, kind, rdev| {
        vfs.mknod(dir, OsStr::new(name), kind, 0o640, rdev, owner)
            .unwrap()
    };
    let fifo = make("fifo", FileType::Fifo, 99);
    let sock = make("sock", FileType::Socket, 0);
    let chr = make("null", FileType::CharDevice, libc::makedev(1, 3));
    let blk = make("disk", FileType::BlockDevice, libc::makedev(8, 1));
    assert_eq!(fifo.mode(), libc::S_IFIFO | 0o640);
    assert_eq!((fifo.uid, fifo.gid, fifo.nlink, fifo.size), (7, 8, 1, 0));
    // Only devices keep a device number.
    assert_eq!(fifo.rdev, 0);
    assert_eq!(sock.mode() & libc::S_IFMT, libc::S_IFSOCK);
    assert_eq!(
        vfs.stat("/workspace/null").unwrap().rdev,
        libc::makedev(1, 3)
    );
    assert_eq!(blk.rdev, libc::makedev(8, 1));
    let kinds: Vec<_> = vfs
        .read_dir("/workspace")
        .unwrap()
        .into_iter()
        .map(|e| (e.name.into_string().unwrap(), e.kind))
        .collect();
    assert!(kinds.contains(&("fifo".into(), FileType::Fifo)));
    assert!(kinds.contains(&("disk".into(), FileType::BlockDevice)));

    // Nothing stands behind them: opening, reading or writing one is ENXIO, never data.
    for (path, st) in [("fifo", &fifo), ("sock", &sock), ("null", &chr)] {
        let path = format!("/workspace/{path}");
        assert!(matches!(
            vfs.open_file(st.ino, OpenFlags::READ),
            Err(VfsError::NoDevice)
        ));
        assert!(matches!(vfs.read_file(&path), Err(VfsError::NoDevice)));
        assert!(matches!(
            vfs.write_file(&path, "x"),
            Err(VfsError::NoDevice)
        ));
        assert!(matches!(vfs.truncate(&path, 0), Err(VfsError::Invalid(_))));
        assert!(matches!(
            vfs.copy(&path, "/workspace/copy"),
            Err(VfsError::NoDevice)
        ));
    }
    assert_eq!(VfsError::NoDevice.errno(), libc::ENXIO);
    // mknod makes only these four types.
    for kind in [FileType::File, FileType::Dir, FileType::Symlink] {
        assert!(matches!(
            vfs.mknod(dir, OsStr::new("x"), kind, 0o644, 0, owner),
            Err(VfsError::Invalid(_))
        ));
    }
    assert!(matches!(
        vfs.mknod(dir, OsStr::new("fifo"), FileType::Fifo, 0o644, 0, owner),
        Err(VfsError::Exists)
    ));

    // They link, rename, copy (as new nodes), snapshot and restore like files.
    vfs.hard_link("/workspace/fifo", "/workspace/fifo2")
        .unwrap();
    assert_eq!(vfs.stat("/workspace/fifo").unwrap().nlink, 2);
    vfs.rename("/workspace/fifo2", "/workspace/fifo3").unwrap();
    vfs.copy_all("/workspace", "/tmp/copied").unwrap();
    let copied = vfs.stat("/tmp/copied/null").unwrap();
    assert_eq!((copied.kind, copied.rdev), (FileType::CharDevice, chr.rdev));
    assert_ne!(copied.ino, chr.ino);
    vfs.snapshot("s").unwrap();
    vfs.remove_file("/workspace/disk").unwrap();
    vfs.restore_snapshot("s").unwrap();
    let back = vfs.stat("/workspace/disk").unwrap();
    assert_eq!((back.kind, back.rdev), (FileType::BlockDevice, blk.rdev));
    vfs.remove_file("/workspace/fifo").unwrap();
    vfs.remove_file("/workspace/fifo3").unwrap();
    assert!(matches!(
        vfs.stat("/workspace/fifo3"),
        Err(VfsError::NotFound)
    ));
}

/// The path the change log gives for the last change of a file named `name` after `rev`.
fn logged_path(vfs: &Vfs, rev: u64, name: &str) -> String {
    vfs.changes_since(rev)
        .unwrap()
        .into_iter()
        .rev()
        .map(|c| c.path.to_string_lossy().into_owned())
        .find(|p| p.ends_with(&format!("/{name}")))
        .unwrap_or_else(|| panic!("no change of {name} logged"))
}

#[test]
fn the_change_log_names_paths_as_they_are_after_any_move() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("ws.db");
    let a = Vfs::open(&file).unwrap();
    let b = Vfs::open(&file).unwrap();
    let rev = a.revision().unwrap();
    // `a` learns where /workspace/a/b is, then another connection moves it.
    a.create_dir_all("/workspace/a/b").unwrap();
    a.write_file("/workspace/a/b/f1", "1").unwrap();
    b.rename("/workspace/a", "/workspace/z").unwrap();
    a.write_file("/workspace/z/b/f2", "2").unwrap();
    assert_eq!(logged_path(&a, rev, "f2"), "/workspace/z/b/f2");
    // Moved by `a` itself.
    a.rename("/workspace/z", "/workspace/y").unwrap();
    a.write_file("/workspace/y/b/f3", "3").unwrap();
    assert_eq!(logged_path(&a, rev, "f3"), "/workspace/y/b/f3");
    // Written again: logged at the path of its inode, looked up now.
    b.rename("/workspace/y", "/workspace/x").unwrap();
    a.write_file("/workspace/x/b/f3", "33").unwrap();
    assert_eq!(logged_path(&a, rev, "f3"), "/workspace/x/b/f3");

    // A snapshot restored brings a directory back where it was, under the same inode.
    a.create_dir_all("/workspace/s/t").unwrap();
    a.write_file("/workspace/s/t/g1", "1").unwrap();
    a.snapshot("before").unwrap();
    a.rename("/workspace/s", "/workspace/s2").unwrap();
    a.write_file("/workspace/s2/t/g2", "2").unwrap();
    a.restore_snapshot("before").unwrap();
    a.write_file("/workspace/s/t/g3", "3").unwrap();
    assert_eq!(logged_path(&a, rev, "g3"), "/workspace/s/t/g3");

    // A failed transaction's directory: its inode number is given again after the rollback.
    let mut t_ino = 0;
    let failed = a.batch(|tx| {
        t_ino = tx.create_dir_all("/workspace/t")?.ino;
        tx.write_file("/workspace/t/x", b"x", 0o644)?;
        Err::<(), _>(VfsError::Invalid("stop here"))
    });
    assert!(failed.is_err());
    assert_eq!(a.create_dir_all("/workspace/u").unwrap().ino, t_ino);
    a.write_file("/workspace/u/y", "y").unwrap();
    assert_eq!(logged_path(&a, rev, "y"), "/workspace/u/y");
}

/// Whether `vfs` would answer from its cache now, without a transaction.
fn answers_from_cache(vfs: &Vfs) -> bool {
    let inner = vfs.lock().unwrap();
    inner.cache.borrow().is_current(inner.wal.stamp())
}

/// What `vfs` says of `name` in `dir` through each cached path, as `seen` does for `f`.
fn seen_as(vfs: &Vfs, dir: Ino, path: &str, name: &str) -> [Option<(Ino, u32, u32, u64)>; 3] {
    let key = |st: Stat| (st.ino, st.perm, st.nlink, st.size);
    let by_path = vfs.lstat(path).ok().map(key);
    let by_lookup = vfs.lookup(dir, OsStr::new(name)).ok().map(key);
    let by_ino = by_lookup.and_then(|(ino, ..)| vfs.getattr(ino).ok().map(key));
    [by_path, by_lookup, by_ino]
}

#[test]
fn own_commits_keep_the_cache_true_and_another_connections_are_seen() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.db");
    let a = Vfs::open(&path).unwrap();
    let b = Vfs::open(&path).unwrap();
    let d = a.create_dir_all("/workspace/d").unwrap().ino;
    let owner = Owner::default();
    let name = OsStr::new;
    for round in 0..20 {
        // A file made through the inode API; once a read has checked that nobody else
        // committed, the cache answers alone.
        let f = a.create(d, name("f"), 0o644, owner).unwrap();
        let f_seen = Some((f.ino, 0o644, 1, 0));
        assert_eq!(seen_as(&a, d, "/workspace/d/f", "f"), [f_seen; 3]);
        assert!(answers_from_cache(&a), "round {round}");
        // Another connection's commit right after ours.
        b.set_permissions("/workspace/d/f", 0o600).unwrap();
        assert!(!answers_from_cache(&a));
        let f_seen = Some((f.ino, 0o600, 1, 0));
        assert_eq!(seen_as(&a, d, "/workspace/d/f", "f"), [f_seen; 3]);
        // Our own changes of attributes, content and entries.
        let perm = SetAttr {
            perm: Some(0o640),
            ..Default::default()
        };
        a.setattr(f.ino, &perm).unwrap();
        let f_seen = Some((f.ino, 0o640, 1, 0));
        assert_eq!(seen_as(&a, d, "/workspace/d/f", "f"), [f_seen; 3]);
        a.write_file("/workspace/d/f", "abc").unwrap();
        let f_seen = Some((f.ino, 0o640, 1, 3));
        assert_eq!(seen_as(&a, d, "/workspace/d/f", "f"), [f_seen; 3]);
        a.link(f.ino, d, name("g")).unwrap();
        let f_seen = Some((f.ino, 0o640, 2, 3));
        assert_eq!(seen_as(&a, d, "/workspace/d/f", "f"), [f_seen; 3]);
        assert_eq!(seen_as(&a, d, "/workspace/d/g", "g"), [f_seen; 3]);
        a.rename("/workspace/d/g", "/workspace/d/h").unwrap();
        assert_eq!(seen_as(&a, d, "/workspace/d/g", "g"), [None; 3]);
        assert_eq!(seen_as(&a, d, "/workspace/d/h", "h"), [f_seen; 3]);
        a.unlink(d, name("f")).unwrap();
        assert_eq!(seen_as(&a, d, "/workspace/d/f", "f"), [None; 3]);
        let h_seen = Some((f.ino, 0o640, 1, 3));
        assert_eq!(seen_as(&a, d, "/workspace/d/h", "h"), [h_seen; 3]);
        // A failed change leaves what was known as it was.
        assert!(matches!(
            a.create(d, name("h"), 0o644, owner),
            Err(VfsError::Exists)
        ));
        assert_eq!(seen_as(&a, d, "/workspace/d/h", "h"), [h_seen; 3]);
        // Two entries swapped, then a new file under a name that was another's.
        let x = a.create(d, name("x"), 0o600, owner).unwrap();
        let exchange = RenameFlags {
            exchange: true,
            ..Default::default()
        };
        a.rename_entry(d, name("h"), d, name("x"), exchange)
            .unwrap();
        assert_eq!(seen_as(&a, d, "/workspace/d/x", "x"), [h_seen; 3]);
        let x_seen = Some((x.ino, 0o600, 1, 0));
        assert_eq!(seen_as(&a, d, "/workspace/d/h", "h"), [x_seen; 3]);
        a.remove_file("/workspace/d/h").unwrap();
        a.rename("/workspace/d/x", "/workspace/d/h").unwrap();
        assert_eq!(seen_as(&a, d, "/workspace/d/x", "x"), [None; 3]);
        assert_eq!(seen_as(&a, d, "/workspace/d/h", "h"), [h_seen; 3]);
        // A directory moved: its path and what lies below it.
        assert_eq!(a.path_of(d).unwrap().unwrap(), Path::new("/workspace/d"));
        a.rename("/workspace/d", "/workspace/e").unwrap();
        assert_eq!(a.path_of(d).unwrap().unwrap(), Path::new("/workspace/e"));
        assert!(matches!(a.stat("/workspace/d/h"), Err(VfsError::NotFound)));
        assert_eq!(a.stat("/workspace/e/h").unwrap().ino, f.ino);
        a.rename("/workspace/e", "/workspace/d").unwrap();
        a.remove_file("/workspace/d/h").unwrap();
        // The other connection sees all of it.
        assert_eq!(b.read_dir("/workspace/d").unwrap(), vec![]);
    }
    // Changes of the whole tree: a snapshot's restore and a new owner.
    let kept = a.write_file("/workspace/d/kept", "1").unwrap();
    a.snapshot("s").unwrap();
    a.remove_file("/workspace/d/kept").unwrap();
    a.write_file("/workspace/d/new", "2").unwrap();
    a.restore_snapshot("s").unwrap();
    assert_eq!(a.stat("/workspace/d/kept").unwrap().ino, kept.ino);
    assert!(matches!(
        a.stat("/workspace/d/new"),
        Err(VfsError::NotFound)
    ));
    let new_owner = Owner {
        uid: kept.uid + 1,
        gid: kept.gid + 1,
    };
    a.set_owner(new_owner).unwrap();
    assert_eq!(a.stat("/workspace/d/kept").unwrap().uid, new_owner.uid);
    let made = a.write_file("/workspace/d/made", "3").unwrap();
    assert_eq!((made.uid, made.gid), (new_owner.uid, new_owner.gid));
}

#[test]
fn settings_changed_by_another_connection_apply_to_the_next_write() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.db");
    let a = Vfs::open(&path).unwrap();
    let b = Vfs::open(&path).unwrap();
    a.write_file("/workspace/one", vec![0u8; 10]).unwrap();
    b.set_max_file_size(100).unwrap();
    assert!(matches!(
        a.write_file("/workspace/two", vec![0u8; 200]),
        Err(VfsError::FileTooLarge { .. })
    ));
    a.set_max_file_size(1000).unwrap();
    a.write_file("/workspace/two", vec![0u8; 200]).unwrap();
}

/// The log is checkpointed as it grows: it stays near 1,000 pages however many commits there
/// are (a reader held open, or a lost automatic checkpoint, would let it grow without end).
#[test]
fn the_log_is_checkpointed_as_it_grows() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.db");
    let vfs = Vfs::open(&path).unwrap();
    vfs.create_dir_all("/workspace/d").unwrap();
    for i in 0..3_000 {
        vfs.write_file(format!("/workspace/d/{i}"), "x").unwrap();
    }
    let wal = std::fs::metadata(dir.path().join("w.db-wal"))
        .unwrap()
        .len();
    assert!(wal < 8 << 20, "the log grew to {wal} bytes");
}

#[test]
fn held_reads_see_every_commit_and_let_checkpoints_through() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.db");
    let a = Vfs::open(&path).unwrap();
    let b = Vfs::open(&path).unwrap();
    let checkpoint = |busy_expected: bool| {
        // A third connection that never waits: TRUNCATE fails while a reader holds the log.
        let c = rusqlite::Connection::open(&path).unwrap();
        c.busy_timeout(std::time::Duration::ZERO).unwrap();
        let busy: i64 = c
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| r.get(0))
            .unwrap();
        assert_eq!(busy != 0, busy_expected);
    };
    let hold = a.hold_reads();
    for round in 0..20 {
        // Another connection's commit is seen by the next read.
        let text = format!("b's round {round}");
        b.write_file("/workspace/f", &text).unwrap();
        assert_eq!(a.read_file("/workspace/f").unwrap(), text.as_bytes());
        assert!(a.holds_a_read(), "round {round}");
        assert_eq!(a.read_file("/workspace/f").unwrap(), text.as_bytes());
        // Our own changes end the held transaction and are committed at once, whether
        // they go through a write transaction or straight to the connection.
        let text = format!("a's round {round}");
        a.write_file("/workspace/f", &text).unwrap();
        assert!(!a.holds_a_read());
        assert_eq!(b.read_file("/workspace/f").unwrap(), text.as_bytes());
        assert_eq!(a.read_file("/workspace/f").unwrap(), text.as_bytes());
        assert!(a.holds_a_read());
        a.set_setting("k", Some(&text)).unwrap();
        assert_eq!(b.setting("k").unwrap().as_deref(), Some(text.as_str()));
        a.record_audit(&audit_entry(&text)).unwrap();
        assert_eq!(b.audit_log(0, 1).unwrap()[0].tool, text);
    }
    // A held read keeps checkpoints from emptying the log until it is released.
    b.write_file("/workspace/f", "last").unwrap();
    assert_eq!(a.read_file("/workspace/f").unwrap(), b"last");
    checkpoint(true);
    a.release_reads();
    assert!(!a.holds_a_read());
    checkpoint(false);
    b.write_file("/workspace/f", "after").unwrap();
    assert_eq!(a.read_file("/workspace/f").unwrap(), b"after");
    checkpoint(true);
    drop(hold);
    checkpoint(false);
    // Without a hold nothing stays open.
    assert_eq!(a.read_file("/workspace/f").unwrap(), b"after");
    assert!(!a.holds_a_read());
}
