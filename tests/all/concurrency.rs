//! Several threads and two processes write, rename and append in one workspace at once.

use std::process::Command;
use std::sync::Arc;

use computer_vfs::Vfs;

const PER_WRITER: u64 = 150;

#[test]
fn threads_and_processes_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("shared.db");
    let vfs = Arc::new(Vfs::open(&db).unwrap());
    vfs.create_dir_all("/workspace/conc").unwrap();

    let processes: Vec<_> = ["p1", "p2"]
        .iter()
        .map(|id| {
            Command::new(env!("CARGO_BIN_EXE_vfs-writer"))
                .args(["concurrent"])
                .arg(&db)
                .arg(id)
                .arg(PER_WRITER.to_string())
                .spawn()
                .expect("spawn vfs-writer")
        })
        .collect();
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let vfs = Arc::clone(&vfs);
            std::thread::spawn(move || {
                for i in 0..PER_WRITER {
                    let tmp = format!("/workspace/conc/tmp-t{t}-{i}");
                    vfs.write_file(&tmp, format!("t{t} {i}")).unwrap();
                    vfs.rename(&tmp, format!("/workspace/conc/done-t{t}-{i}"))
                        .unwrap();
                    vfs.append("/workspace/conc/shared.log", format!("t{t}-{i}\n"))
                        .unwrap();
                }
            })
        })
        .collect();
    for t in threads {
        t.join().expect("writer thread panicked");
    }
    for mut p in processes {
        assert!(p.wait().unwrap().success(), "writer process failed");
    }

    let writers = ["t0", "t1", "t2", "t3", "p1", "p2"];
    for id in writers {
        for i in 0..PER_WRITER {
            let data = vfs
                .read_file(format!("/workspace/conc/done-{id}-{i}"))
                .unwrap_or_else(|e| panic!("done-{id}-{i}: {e}"));
            assert_eq!(data, format!("{id} {i}").as_bytes());
        }
    }
    let log = String::from_utf8(vfs.read_file("/workspace/conc/shared.log").unwrap()).unwrap();
    let mut lines: Vec<&str> = log.lines().collect();
    assert_eq!(
        lines.len() as u64,
        PER_WRITER * writers.len() as u64,
        "lost appends"
    );
    lines.sort_unstable();
    lines.dedup();
    assert_eq!(
        lines.len() as u64,
        PER_WRITER * writers.len() as u64,
        "duplicated appends"
    );
    let leftovers = vfs.glob("/workspace/conc/tmp-*").unwrap();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    vfs.check_integrity().unwrap();
}

#[test]
fn readers_never_see_half_written_files() {
    // Two connections on one file: isolation comes from SQLite's WAL, not from our lock.
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("torn.db");
    let writer_vfs = Vfs::open(&db).unwrap();
    let reader_vfs = Vfs::open(&db).unwrap();
    let a = vec![b'a'; 700_000];
    let b = vec![b'b'; 900_000];
    writer_vfs.write_file("/workspace/f", &a).unwrap();
    let writer = {
        let (a, b) = (a.clone(), b.clone());
        std::thread::spawn(move || {
            for i in 0..100 {
                writer_vfs
                    .write_file("/workspace/f", if i % 2 == 0 { &b } else { &a })
                    .unwrap();
            }
        })
    };
    let mut seen_b = false;
    for _ in 0..300 {
        let data = reader_vfs.read_file("/workspace/f").unwrap();
        assert!(data == a || data == b, "torn read of {} bytes", data.len());
        seen_b |= data == b;
    }
    writer.join().unwrap();
    let last = reader_vfs.read_file("/workspace/f").unwrap();
    assert!(
        seen_b || last == a,
        "the reader never saw the writer's changes"
    );
}

#[test]
fn cached_lookups_see_other_connections_changes() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("cache.db");
    let a = Vfs::open(&db).unwrap();
    let b = Vfs::open(&db).unwrap();
    b.create_dir_all("/workspace/d").unwrap();
    b.write_file("/workspace/d/f", "one").unwrap();
    // Fill a's cache, then change everything behind its back.
    assert_eq!(a.stat("/workspace/d/f").unwrap().size, 3);
    b.write_file("/workspace/d/f", "three").unwrap();
    assert_eq!(a.stat("/workspace/d/f").unwrap().size, 5);
    b.rename("/workspace/d", "/workspace/e").unwrap();
    assert_eq!(a.stat("/workspace/d/f").unwrap_err().errno(), libc::ENOENT);
    assert_eq!(a.read_file("/workspace/e/f").unwrap(), b"three");
    b.remove_all("/workspace/e").unwrap();
    assert!(!a.exists("/workspace/e/f").unwrap());
    // And a's own changes are visible to a at once.
    a.write_file("/workspace/g", "x").unwrap();
    assert_eq!(a.stat("/workspace/g").unwrap().size, 1);
    a.write_file("/workspace/g", "xyz").unwrap();
    assert_eq!(a.stat("/workspace/g").unwrap().size, 3);
}
