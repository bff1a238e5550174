//! Positional writes and reads, sparse files, append, truncate.
use std::fs::{self, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use test_programs::{base, done, show};

fn main() {
    let b = base();
    let p = b.join("f");
    let mut f = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(&p)
        .unwrap();
    done("write", f.write_all(b"0123456789"));
    done("seek", f.seek(SeekFrom::Start(3)));
    done("overwrite middle", f.write_all(b"abc"));
    done("seek past end", f.seek(SeekFrom::Start(20)));
    done("sparse write", f.write_all(b"END"));
    drop(f);
    show("content", fs::read(&p));
    let mut f = OpenOptions::new().append(true).open(&p).unwrap();
    done("append", f.write_all(b"++"));
    drop(f);
    show("after append", fs::read(&p));
    let f = OpenOptions::new().write(true).open(&p).unwrap();
    done("truncate down", f.set_len(5));
    show("len", fs::metadata(&p).map(|m| m.len()));
    done("extend", f.set_len(8));
    drop(f);
    show("after extend", fs::read(&p));
    let mut f = fs::File::open(&p).unwrap();
    let mut buf = [0u8; 4];
    done("seek read", f.seek(SeekFrom::Start(2)));
    show("read 4", f.read(&mut buf).map(|n| buf[..n].to_vec()));
    // Big writes across chunk boundaries.
    let big: Vec<u8> = (0..700_000u32).map(|i| (i % 251) as u8).collect();
    done("big write", fs::write(b.join("big"), &big));
    show(
        "big read matches",
        fs::read(b.join("big")).map(|d| d == big),
    );
    let mut f = OpenOptions::new().write(true).open(b.join("big")).unwrap();
    done("seek big", f.seek(SeekFrom::Start(262_140)));
    done("write across boundary", f.write_all(&[7u8; 10]));
    drop(f);
    show(
        "boundary bytes",
        fs::read(b.join("big")).map(|d| d[262_138..262_152].to_vec()),
    );
    done(
        "read-only write",
        fs::File::open(&p).and_then(|mut f| f.write_all(b"x")),
    );
}
