//! The workspace store against `std::fs`, in one run, on the same disk and on /dev/shm.
//!
//! `cargo bench -p computer-vfs --bench vfs` prints one row per operation with the median of
//! `ROUNDS` runs and the ratio to native (lower is better; below 1.0 the VFS is faster).
//! Set `BENCH_ROUNDS` to change the number of rounds. A last row times the floor of any
//! change that must survive a crash of its process: a bare one-row SQLite commit.

use std::ffi::OsStr;
use std::fs;
use std::hint::black_box;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use computer_vfs::{OpenFlags, Owner, Vfs, VfsOptions};

const FILES: usize = 10_000;
const RENAMES: usize = 1_000;
const BIG: usize = 64 << 20;
const PIECE: usize = 1 << 20;

/// The operations, in the order they run (each round starts from an empty place).
const OPS: &[&str] = &[
    "create 10,000 files of 1 KiB",
    "stat 10,000 files",
    "stat 10,000 files again",
    "read 10,000 files of 1 KiB",
    "readdir of 10,000 entries",
    "write one 64 MiB file",
    "read one 64 MiB file",
    "copy one 64 MiB file",
    "rename 1,000 files",
    "unlink 1,000 files",
    "create 1,000 files 8 directories deep",
    "unlink 1,000 files 8 directories deep",
    "delete the tree",
];

/// A directory as deep as a venv's packages: what `pip install` and `rm -rf venv` work in.
const DEEP: &str = "deep/venv/lib/python3.11/site-packages/pkg/sub/mod";

trait Target {
    fn create_files(&mut self, data: &[u8]);
    fn stat_files(&mut self);
    fn read_files(&mut self);
    fn readdir(&mut self);
    fn write_big(&mut self, data: &[u8]);
    fn read_big(&mut self);
    fn copy_big(&mut self);
    fn rename_files(&mut self);
    fn unlink_files(&mut self);
    fn create_deep(&mut self);
    fn unlink_deep(&mut self);
    fn delete_tree(&mut self);
}

fn name(i: usize) -> String {
    format!("f{i:05}")
}

struct Native {
    root: PathBuf,
}

impl Target for Native {
    fn create_files(&mut self, data: &[u8]) {
        fs::create_dir_all(self.root.join("many")).unwrap();
        for i in 0..FILES {
            fs::write(self.root.join("many").join(name(i)), data).unwrap();
        }
    }
    fn stat_files(&mut self) {
        for i in 0..FILES {
            black_box(fs::metadata(self.root.join("many").join(name(i))).unwrap());
        }
    }
    fn read_files(&mut self) {
        for i in 0..FILES {
            black_box(fs::read(self.root.join("many").join(name(i))).unwrap());
        }
    }
    fn readdir(&mut self) {
        let n = fs::read_dir(self.root.join("many")).unwrap().count();
        assert_eq!(n, FILES);
    }
    fn write_big(&mut self, data: &[u8]) {
        let mut f = fs::File::create(self.root.join("big")).unwrap();
        for piece in data.chunks(PIECE) {
            f.write_all(piece).unwrap();
        }
    }
    fn read_big(&mut self) {
        assert_eq!(fs::read(self.root.join("big")).unwrap().len(), BIG);
    }
    fn copy_big(&mut self) {
        fs::copy(self.root.join("big"), self.root.join("big2")).unwrap();
    }
    fn rename_files(&mut self) {
        for i in 0..RENAMES {
            let dir = self.root.join("many");
            fs::rename(dir.join(name(i)), dir.join(format!("r{i}"))).unwrap();
        }
    }
    fn unlink_files(&mut self) {
        for i in 0..RENAMES {
            fs::remove_file(self.root.join("many").join(format!("r{i}"))).unwrap();
        }
    }
    fn create_deep(&mut self) {
        let dir = self.root.join(DEEP);
        fs::create_dir_all(&dir).unwrap();
        for i in 0..RENAMES {
            fs::write(dir.join(name(i)), b"").unwrap();
        }
    }
    fn unlink_deep(&mut self) {
        for i in 0..RENAMES {
            fs::remove_file(self.root.join(DEEP).join(name(i))).unwrap();
        }
    }
    fn delete_tree(&mut self) {
        fs::remove_dir_all(&self.root).unwrap();
        fs::create_dir(&self.root).unwrap();
    }
}

struct Workspace {
    vfs: Vfs,
    /// The inode of [`DEEP`], once made.
    deep: u64,
}

const W: &str = "/workspace";

impl Target for Workspace {
    fn create_files(&mut self, data: &[u8]) {
        self.vfs.create_dir_all("/workspace/many").unwrap();
        for i in 0..FILES {
            self.vfs
                .write_file(format!("{W}/many/{}", name(i)), data)
                .unwrap();
        }
    }
    fn stat_files(&mut self) {
        for i in 0..FILES {
            black_box(self.vfs.stat(format!("{W}/many/{}", name(i))).unwrap());
        }
    }
    fn read_files(&mut self) {
        for i in 0..FILES {
            black_box(self.vfs.read_file(format!("{W}/many/{}", name(i))).unwrap());
        }
    }
    fn readdir(&mut self) {
        assert_eq!(self.vfs.read_dir("/workspace/many").unwrap().len(), FILES);
    }
    fn write_big(&mut self, data: &[u8]) {
        // Through a handle, as FUSE and WASI write: buffered, committed on close.
        let st = self.vfs.write_file("/workspace/big", b"").unwrap();
        let fh = self.vfs.open_file(st.ino, OpenFlags::WRITE).unwrap();
        for (i, piece) in data.chunks(PIECE).enumerate() {
            self.vfs.write(fh, (i * PIECE) as u64, piece).unwrap();
        }
        self.vfs.release(fh).unwrap();
    }
    fn read_big(&mut self) {
        assert_eq!(self.vfs.read_file("/workspace/big").unwrap().len(), BIG);
    }
    fn copy_big(&mut self) {
        self.vfs.copy("/workspace/big", "/workspace/big2").unwrap();
    }
    fn rename_files(&mut self) {
        for i in 0..RENAMES {
            self.vfs
                .rename(format!("{W}/many/{}", name(i)), format!("{W}/many/r{i}"))
                .unwrap();
        }
    }
    fn unlink_files(&mut self) {
        for i in 0..RENAMES {
            self.vfs.remove_file(format!("{W}/many/r{i}")).unwrap();
        }
    }
    // Through the inode API, from the directory's inode, as FUSE and WASI change files.
    fn create_deep(&mut self) {
        self.deep = self.vfs.create_dir_all(format!("{W}/{DEEP}")).unwrap().ino;
        for i in 0..RENAMES {
            self.vfs
                .create(self.deep, OsStr::new(&name(i)), 0o644, Owner::default())
                .unwrap();
        }
    }
    fn unlink_deep(&mut self) {
        for i in 0..RENAMES {
            self.vfs.unlink(self.deep, OsStr::new(&name(i))).unwrap();
        }
    }
    fn delete_tree(&mut self) {
        for entry in self.vfs.read_dir(W).unwrap() {
            self.vfs.remove_all(Path::new(W).join(entry.name)).unwrap();
        }
    }
}

/// Runs every operation once on `target`, returning the time of each.
fn round(target: &mut dyn Target, small: &[u8], big: &[u8]) -> Vec<Duration> {
    let mut times = Vec::new();
    let mut time = |f: &mut dyn FnMut()| {
        let start = Instant::now();
        f();
        times.push(start.elapsed());
    };
    time(&mut || target.create_files(small));
    time(&mut || target.stat_files());
    time(&mut || target.stat_files());
    time(&mut || target.read_files());
    time(&mut || target.readdir());
    time(&mut || target.write_big(big));
    time(&mut || target.read_big());
    time(&mut || target.copy_big());
    time(&mut || target.rename_files());
    time(&mut || target.unlink_files());
    time(&mut || target.create_deep());
    time(&mut || target.unlink_deep());
    time(&mut || target.delete_tree());
    times
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.1}", d.as_secs_f64() * 1000.0)
}

/// Medians per operation over `rounds` rounds.
fn measure(
    make: &mut dyn FnMut() -> Box<dyn Target>,
    rounds: usize,
    small: &[u8],
    big: &[u8],
) -> Vec<Duration> {
    let mut all: Vec<Vec<Duration>> = vec![Vec::new(); OPS.len()];
    for _ in 0..rounds {
        let mut target = make();
        for (i, t) in round(target.as_mut(), small, big).into_iter().enumerate() {
            all[i].push(t);
        }
    }
    all.into_iter().map(median).collect()
}

/// 1,000 transactions of one `INSERT` each into a new database with the store's journal
/// settings (and its automatic checkpoint), the least any committed change can cost.
fn one_row_commits(path: &Path) -> Duration {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.execute_batch(
        "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;
         CREATE TABLE t (k INTEGER PRIMARY KEY, v BLOB NOT NULL);",
    )
    .unwrap();
    let mut insert = conn
        .prepare("INSERT INTO t (k, v) VALUES (?1, ?2)")
        .unwrap();
    let start = Instant::now();
    for i in 0..RENAMES {
        conn.execute_batch("BEGIN IMMEDIATE").unwrap();
        insert.execute((i as i64, &b"name"[..])).unwrap();
        conn.execute_batch("COMMIT").unwrap();
    }
    start.elapsed()
}

fn main() {
    let rounds: usize = std::env::var("BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    let small = vec![b'x'; 1024];
    let big: Vec<u8> = (0..BIG).map(|i| (i * 7 % 251) as u8).collect();
    let places = [
        ("disk (ext4)", std::env::temp_dir()),
        ("/dev/shm (tmpfs)", PathBuf::from("/dev/shm")),
    ];
    println!("computer-vfs against std::fs, median of {rounds} rounds (ratio = vfs / native)\n");
    for (label, base) in places {
        let dir = tempfile::tempdir_in(&base).unwrap();
        let native_root = dir.path().join("native");
        fs::create_dir(&native_root).unwrap();
        let native = measure(
            &mut || {
                Box::new(Native {
                    root: native_root.clone(),
                })
            },
            rounds,
            &small,
            &big,
        );
        let mut n = 0;
        let vfs = measure(
            &mut || {
                n += 1;
                Box::new(Workspace {
                    vfs: Vfs::open(dir.path().join(format!("w{n}.db"))).unwrap(),
                    deep: 0,
                })
            },
            rounds,
            &small,
            &big,
        );
        println!("## {label}\n");
        println!("| operation | native ms | vfs ms | ratio |");
        println!("|---|---:|---:|---:|");
        for (i, op) in OPS.iter().enumerate() {
            let ratio = vfs[i].as_secs_f64() / native[i].as_secs_f64().max(1e-9);
            println!("| {op} | {} | {} | {ratio:.2} |", ms(native[i]), ms(vfs[i]));
        }
        // The same 64 MiB write when it must be durable: fsync natively, `full_sync` for the VFS.
        let native_sync = median(
            (0..rounds)
                .map(|_| {
                    let start = Instant::now();
                    let mut f = fs::File::create(native_root.join("durable")).unwrap();
                    for piece in big.chunks(PIECE) {
                        f.write_all(piece).unwrap();
                    }
                    f.sync_all().unwrap();
                    let t = start.elapsed();
                    fs::remove_file(native_root.join("durable")).unwrap();
                    t
                })
                .collect(),
        );
        let options = VfsOptions {
            full_sync: true,
            ..Default::default()
        };
        let vfs_sync = median(
            (0..rounds)
                .map(|r| {
                    let mut target = Workspace {
                        vfs: Vfs::open_with(dir.path().join(format!("sync{r}.db")), &options)
                            .unwrap(),
                        deep: 0,
                    };
                    let start = Instant::now();
                    target.write_big(&big);
                    start.elapsed()
                })
                .collect(),
        );
        println!(
            "| write one 64 MiB file durably (fsync / full_sync) | {} | {} | {:.2} |",
            ms(native_sync),
            ms(vfs_sync),
            vfs_sync.as_secs_f64() / native_sync.as_secs_f64()
        );
        // The floor of any change that survives a crash of its process: a bare SQLite commit
        // of one row, in WAL mode with `synchronous=NORMAL` as the store runs, against the
        // native unlink of the same run.
        let floor = median(
            (0..rounds)
                .map(|r| one_row_commits(&dir.path().join(format!("floor{r}.db"))))
                .collect(),
        );
        let unlink = native[OPS
            .iter()
            .position(|op| *op == "unlink 1,000 files")
            .unwrap()];
        println!(
            "| floor: 1,000 one-row SQLite commits (WAL, `synchronous=NORMAL`) | {} | {} | {:.2} |",
            ms(unlink),
            ms(floor),
            floor.as_secs_f64() / unlink.as_secs_f64()
        );
        // Snapshots and forks of a 10,000-file workspace (no native equivalent).
        let ws = Vfs::open(dir.path().join("snap.db")).unwrap();
        let mut ws_target = Workspace { vfs: ws, deep: 0 };
        ws_target.create_files(&small);
        let start = Instant::now();
        ws_target.vfs.snapshot("s").unwrap();
        let snap = start.elapsed();
        let start = Instant::now();
        ws_target.vfs.restore_snapshot("s").unwrap();
        let restore = start.elapsed();
        let start = Instant::now();
        ws_target.vfs.fork("s", dir.path().join("fork.db")).unwrap();
        let fork = start.elapsed();
        println!("| snapshot of 10,000 files | | {} | |", ms(snap));
        println!("| restore of 10,000 files | | {} | |", ms(restore));
        println!(
            "| fork of 10,000 files into a new file | | {} | |\n",
            ms(fork)
        );
    }
}
