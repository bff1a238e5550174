//! Where a big file's bytes could go: one 64 MiB file written in 32 MiB transactions (as a
//! handle's buffer commits it) into a database of the store's schema, in each of the ways
//! issue 25 names, against a native write of the same bytes on the same disk in the same run.
//! Rows: the store's way (256 KiB chunks bound as values, 4 KiB pages), incremental blob I/O,
//! bigger chunks, bigger pages, chunks in a file of their own beside the database, and the
//! store's way with the automatic checkpoint off (the checkpoint then timed on its own). Each
//! row also times 1,000 small transactions (an unlink's shape) on the same database, since a
//! page size is the whole database's. `cargo bench -p computer-vfs --bench chunk_store [DIR]`
//! (DIR defaults to a directory under the target directory: on disk, not tmpfs).

use rusqlite::{Connection, MAIN_DB};
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::time::Instant;

const BIG: usize = 64 << 20;
const TX: usize = 32 << 20;

fn open(path: &str, page: u32) -> Connection {
    for s in ["", "-wal", "-shm", ".pack"] {
        let _ = std::fs::remove_file(format!("{path}{s}"));
    }
    let c = Connection::open(path).unwrap();
    c.execute_batch(&format!("PRAGMA page_size={page}"))
        .unwrap();
    let _: String = c
        .query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))
        .unwrap();
    c.execute_batch("PRAGMA synchronous=NORMAL; PRAGMA cache_size=-32768;
      CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
      INSERT INTO meta VALUES ('bytes_stored', 0);
      CREATE TABLE chunks (id INTEGER PRIMARY KEY, hash BLOB NOT NULL UNIQUE, data BLOB NOT NULL);
      CREATE TABLE packed (id INTEGER PRIMARY KEY, hash BLOB NOT NULL UNIQUE, off INTEGER, len INTEGER);
      CREATE TABLE file_chunks (ino INTEGER NOT NULL, idx INTEGER NOT NULL, chunk INTEGER NOT NULL, PRIMARY KEY (ino, idx)) WITHOUT ROWID;
      CREATE INDEX file_chunks_by_chunk ON file_chunks (chunk);
      CREATE TRIGGER chunks_added AFTER INSERT ON chunks BEGIN
        UPDATE meta SET value = value + length(NEW.data) WHERE key = 'bytes_stored'; END;
      CREATE TABLE dentries (parent INTEGER NOT NULL, name BLOB NOT NULL, ino INTEGER NOT NULL, PRIMARY KEY (parent, name)) WITHOUT ROWID;
      CREATE INDEX dentries_by_ino ON dentries (ino);").unwrap();
    c
}

#[derive(Clone, Copy, PartialEq)]
enum How {
    Bind,
    Blob,
    Pack,
}

fn write(
    c: &Connection,
    data: &[u8],
    cs: usize,
    how: How,
    pack: Option<&std::fs::File>,
) -> (f64, f64) {
    let mut commit = 0.0;
    let t0 = Instant::now();
    let mut end = 0u64;
    for (t, txdata) in data.chunks(TX).enumerate() {
        c.execute_batch("BEGIN IMMEDIATE").unwrap();
        for (i, piece) in txdata.chunks(cs).enumerate() {
            let idx = (t * TX / cs + i) as i64;
            let _old: Option<i64> = c
                .prepare_cached("SELECT chunk FROM file_chunks WHERE ino=1 AND idx=?1")
                .unwrap()
                .query_row([idx], |r| r.get(0))
                .ok();
            let h = blake3::hash(piece);
            let hb = h.as_bytes().as_slice();
            let id = match how {
                How::Bind => {
                    c.prepare_cached("INSERT INTO chunks (hash, data) VALUES (?1, ?2)")
                        .unwrap()
                        .execute((hb, piece))
                        .unwrap();
                    c.last_insert_rowid()
                }
                How::Blob => {
                    c.prepare_cached("INSERT INTO chunks (hash, data) VALUES (?1, zeroblob(?2))")
                        .unwrap()
                        .execute((hb, piece.len() as i64))
                        .unwrap();
                    let id = c.last_insert_rowid();
                    let mut b = c.blob_open(MAIN_DB, "chunks", "data", id, false).unwrap();
                    b.write_all(piece).unwrap();
                    id
                }
                How::Pack => {
                    pack.unwrap().write_all_at(piece, end).unwrap();
                    c.prepare_cached("INSERT INTO packed (hash, off, len) VALUES (?1, ?2, ?3)")
                        .unwrap()
                        .execute((hb, end as i64, piece.len() as i64))
                        .unwrap();
                    end += piece.len() as u64;
                    c.last_insert_rowid()
                }
            };
            c.prepare_cached("INSERT INTO file_chunks (ino, idx, chunk) VALUES (1, ?1, ?2)")
                .unwrap()
                .execute((idx, id))
                .unwrap();
        }
        let tc = Instant::now();
        c.execute_batch("COMMIT").unwrap();
        commit += tc.elapsed().as_secs_f64();
    }
    (t0.elapsed().as_secs_f64() * 1e3, commit * 1e3)
}

fn unlinks(c: &Connection) -> f64 {
    for i in 0..1000 {
        c.execute(
            "INSERT INTO dentries VALUES (1, ?1, ?2)",
            (format!("f{i:05}"), i + 100),
        )
        .unwrap();
    }
    let t0 = Instant::now();
    for i in 0..1000 {
        c.execute_batch("BEGIN IMMEDIATE").unwrap();
        c.execute(
            "DELETE FROM dentries WHERE parent=1 AND name=?1",
            [format!("f{i:05}")],
        )
        .unwrap();
        c.execute("UPDATE meta SET value=value+1 WHERE key='bytes_stored'", [])
            .unwrap();
        c.execute_batch("COMMIT").unwrap();
    }
    t0.elapsed().as_secs_f64() * 1e3 / 1000.0 * 1e3
}

fn med(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn main() {
    let dir = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with("--"))
        .unwrap_or_else(|| {
            concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../target/chunk-store-bench"
            )
            .into()
        });
    std::fs::create_dir_all(&dir).unwrap();
    let mut data = vec![0u8; BIG];
    let mut x: u64 = 0x9e3779b97f4a7c15;
    for w in data.chunks_mut(8) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        w.copy_from_slice(&x.to_le_bytes());
    }
    let rounds = 5;
    let native = med((0..rounds)
        .map(|_| {
            let p = format!("{dir}/native");
            let _ = std::fs::remove_file(&p);
            let t = Instant::now();
            let mut f = std::fs::File::create(&p).unwrap();
            for piece in data.chunks(1 << 20) {
                f.write_all(piece).unwrap();
            }
            drop(f);
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect());
    println!("native write 64 MiB: {native:.1} ms");
    let db = format!("{dir}/w.db");
    for (label, page, cs, how) in [
        ("bind 256K chunks, 4K pages", 4096, 256 << 10, How::Bind),
        ("blob 256K chunks, 4K pages", 4096, 256 << 10, How::Blob),
        ("bind 1M chunks, 4K pages", 4096, 1 << 20, How::Bind),
        ("bind 4M chunks, 4K pages", 4096, 4 << 20, How::Bind),
        ("bind 256K chunks, 8K pages", 8192, 256 << 10, How::Bind),
        ("bind 256K chunks, 16K pages", 16384, 256 << 10, How::Bind),
        ("bind 256K chunks, 64K pages", 65536, 256 << 10, How::Bind),
        (
            "pack file 256K chunks, 4K pages",
            4096,
            256 << 10,
            How::Pack,
        ),
        ("bind 256K, no autocheckpoint", 4096, 256 << 10, How::Bind),
    ] {
        let noauto = label.contains("no autocheckpoint");
        let mut ts = vec![];
        let mut cs_ = vec![];
        let mut us = vec![];
        for _ in 0..rounds {
            let c = open(&db, page);
            let pack = std::fs::OpenOptions::new()
                .create(true)
                .read(true)
                .write(true)
                .open(format!("{db}.pack"))
                .unwrap();
            if noauto {
                c.execute_batch("PRAGMA wal_autocheckpoint=0").unwrap();
            }
            let (t, cm) = write(&c, &data, cs, how, Some(&pack));
            if noauto {
                let t0 = Instant::now();
                c.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))
                    .unwrap();
                println!(
                    "   checkpoint after: {:.1} ms",
                    t0.elapsed().as_secs_f64() * 1e3
                );
            }
            ts.push(t);
            cs_.push(cm);
            us.push(unlinks(&c));
        }
        let t = med(ts);
        println!(
            "{label:36} {t:7.1} ms  {:5.2}x  (commit+ckpt {:6.1} ms)  unlink tx {:5.1} us",
            t / native,
            med(cs_),
            med(us)
        );
    }
}
