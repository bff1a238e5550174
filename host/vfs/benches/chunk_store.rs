//! Where a big file's bytes could go: one 64 MiB file written in 32 MiB transactions (as a
//! handle's buffer commits it) into a database of the store's schema, in each of the ways
//! issue 25 names, against a native write of the same bytes on the same disk in the same run.
//! Rows: the store's way (256 KiB chunks bound as values, 4 KiB pages), incremental blob I/O,
//! bigger chunks, bigger pages, chunks in a file of their own beside the database, and the
//! store's way with the automatic checkpoint off (the checkpoint then timed on its own). Each
//! row also times 1,000 small transactions (an unlink's shape) on the same database, since a
//! page size is the whole database's. `cargo bench -p computer-vfs --bench chunk_store [DIR]`
//! (DIR defaults to a directory under the target directory: on disk, not tmpfs).

use std::fs::File;
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::time::Instant;

use computer_vfs::Vfs;
use rusqlite::{Connection, MAIN_DB};

const BIG: usize = 64 << 20;
/// What a handle's buffer commits at once.
const TX: usize = 32 << 20;
const ROUNDS: usize = 5;
const SMALL_TXS: usize = 1000;

/// How a chunk's bytes are stored.
#[derive(Clone, Copy)]
enum How {
    /// Bound as a statement's value (the store's way).
    Bind,
    /// `zeroblob`, then written through `sqlite3_blob_write`.
    Blob,
    /// Appended to a file of their own; the row holds the offset.
    Pack,
}

struct Way {
    label: &'static str,
    page_size: u32,
    chunk: usize,
    how: How,
    autocheckpoint: bool,
}

/// A fresh workspace file made by the store itself (its schema and settings), with `page_size`.
fn open(path: &str, page_size: u32) -> Connection {
    for suffix in ["", "-wal", "-shm", ".pack"] {
        let _ = std::fs::remove_file(format!("{path}{suffix}"));
    }
    drop(Vfs::open(path).unwrap());
    let c = Connection::open(path).unwrap();
    // A page size changes only outside WAL mode, by rebuilding the file.
    c.execute_batch(&format!(
        "PRAGMA journal_mode=DELETE; PRAGMA page_size={page_size}; VACUUM;
         PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA cache_size=-32768;
         CREATE TABLE packed (id INTEGER PRIMARY KEY, hash BLOB NOT NULL UNIQUE,
                              off INTEGER NOT NULL, len INTEGER NOT NULL);"
    ))
    .unwrap();
    c
}

/// Writes `data` as file 1's chunks; returns (total, commits) in ms.
fn write(c: &Connection, data: &[u8], way: &Way, pack: &File) -> (f64, f64) {
    let mut commit = 0.0;
    let start = Instant::now();
    let mut end = 0u64;
    for (t, tx) in data.chunks(TX).enumerate() {
        c.execute_batch("BEGIN IMMEDIATE").unwrap();
        for (i, piece) in tx.chunks(way.chunk).enumerate() {
            let idx = (t * TX / way.chunk + i) as i64;
            // The store looks up the chunk it replaces.
            let _old: Option<i64> = c
                .prepare_cached("SELECT chunk FROM file_chunks WHERE ino = 1 AND idx = ?1")
                .unwrap()
                .query_row([idx], |r| r.get(0))
                .ok();
            let hash = blake3::hash(piece);
            let hash = hash.as_bytes().as_slice();
            let id = match way.how {
                How::Bind => {
                    c.prepare_cached("INSERT INTO chunks (hash, data) VALUES (?1, ?2)")
                        .unwrap()
                        .execute((hash, piece))
                        .unwrap();
                    c.last_insert_rowid()
                }
                How::Blob => {
                    c.prepare_cached("INSERT INTO chunks (hash, data) VALUES (?1, zeroblob(?2))")
                        .unwrap()
                        .execute((hash, piece.len() as i64))
                        .unwrap();
                    let id = c.last_insert_rowid();
                    let mut blob = c.blob_open(MAIN_DB, "chunks", "data", id, false).unwrap();
                    blob.write_all(piece).unwrap();
                    id
                }
                How::Pack => {
                    pack.write_all_at(piece, end).unwrap();
                    c.prepare_cached("INSERT INTO packed (hash, off, len) VALUES (?1, ?2, ?3)")
                        .unwrap()
                        .execute((hash, end as i64, piece.len() as i64))
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
        let committing = Instant::now();
        c.execute_batch("COMMIT").unwrap();
        commit += ms(committing);
    }
    (ms(start), commit)
}

/// µs per transaction that deletes one entry and updates one counter (an unlink's shape).
fn small_transactions(c: &Connection) -> f64 {
    for i in 0..SMALL_TXS {
        c.execute(
            "INSERT INTO dentries (parent, name, ino) VALUES (1, ?1, ?2)",
            (format!("f{i:05}"), i + 100),
        )
        .unwrap();
    }
    let start = Instant::now();
    for i in 0..SMALL_TXS {
        c.execute_batch("BEGIN IMMEDIATE").unwrap();
        c.execute(
            "DELETE FROM dentries WHERE parent = 1 AND name = ?1",
            [format!("f{i:05}")],
        )
        .unwrap();
        c.execute(
            "UPDATE meta SET value = value + 1 WHERE key = 'bytes_stored'",
            [],
        )
        .unwrap();
        c.execute_batch("COMMIT").unwrap();
    }
    ms(start) * 1e3 / SMALL_TXS as f64
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1e3
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
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
    // Random bytes: zeros would be holes and repeats deduplicated.
    let mut data = vec![0u8; BIG];
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for word in data.chunks_mut(8) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        word.copy_from_slice(&x.to_le_bytes());
    }
    let native_path = format!("{dir}/native");
    let native = median(
        (0..ROUNDS)
            .map(|_| {
                let _ = std::fs::remove_file(&native_path);
                let start = Instant::now();
                let mut f = File::create(&native_path).unwrap();
                for piece in data.chunks(1 << 20) {
                    f.write_all(piece).unwrap();
                }
                drop(f);
                ms(start)
            })
            .collect(),
    );
    println!("native write of 64 MiB in 1 MiB writes: {native:.1} ms\n");
    println!("| way | ms | ratio | commits ms | checkpoint after ms | small transaction µs |");
    println!("|---|---:|---:|---:|---:|---:|");
    let way = |label, page_size, chunk, how, autocheckpoint| Way {
        label,
        page_size,
        chunk,
        how,
        autocheckpoint,
    };
    let db = format!("{dir}/w.db");
    for way in [
        way(
            "the store's: 256 KiB chunks bound, 4 KiB pages",
            4096,
            256 << 10,
            How::Bind,
            true,
        ),
        way("incremental blob I/O", 4096, 256 << 10, How::Blob, true),
        way("1 MiB chunks", 4096, 1 << 20, How::Bind, true),
        way("4 MiB chunks", 4096, 4 << 20, How::Bind, true),
        way("8 KiB pages", 8192, 256 << 10, How::Bind, true),
        way("16 KiB pages", 16384, 256 << 10, How::Bind, true),
        way("64 KiB pages", 65536, 256 << 10, How::Bind, true),
        way(
            "chunks in a file beside the database",
            4096,
            256 << 10,
            How::Pack,
            true,
        ),
        way(
            "the store's, automatic checkpoint off",
            4096,
            256 << 10,
            How::Bind,
            false,
        ),
    ] {
        let (mut totals, mut commits, mut checkpoints, mut smalls) =
            (vec![], vec![], vec![], vec![]);
        for _ in 0..ROUNDS {
            let c = open(&db, way.page_size);
            let pack = File::options()
                .create(true)
                .truncate(true)
                .read(true)
                .write(true)
                .open(format!("{db}.pack"))
                .unwrap();
            if !way.autocheckpoint {
                c.execute_batch("PRAGMA wal_autocheckpoint = 0").unwrap();
            }
            let (total, commit) = write(&c, &data, &way, &pack);
            totals.push(total);
            commits.push(commit);
            if !way.autocheckpoint {
                let start = Instant::now();
                c.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))
                    .unwrap();
                checkpoints.push(ms(start));
            }
            smalls.push(small_transactions(&c));
        }
        let total = median(totals);
        let checkpoint = if checkpoints.is_empty() {
            String::new()
        } else {
            format!("{:.1}", median(checkpoints))
        };
        println!(
            "| {} | {total:.1} | {:.1} | {:.1} | {checkpoint} | {:.1} |",
            way.label,
            total / native,
            median(commits),
            median(smalls),
        );
    }
    // Only what this run made: DIR may hold other things.
    for made in [
        native_path,
        db.clone(),
        format!("{db}-wal"),
        format!("{db}-shm"),
        format!("{db}.pack"),
    ] {
        let _ = std::fs::remove_file(made);
    }
}
