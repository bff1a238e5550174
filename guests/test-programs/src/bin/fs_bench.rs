//! File operations for the throughput benchmark: argv[1] is the base, argv[2] the count.
use std::fs;
use std::time::Instant;

fn main() {
    let base = std::path::PathBuf::from(std::env::args().nth(1).unwrap());
    let n: usize = std::env::args().nth(2).unwrap().parse().unwrap();
    fs::create_dir_all(&base).unwrap();
    let data = vec![b'x'; 1024];
    let t = Instant::now();
    for i in 0..n {
        fs::write(base.join(format!("f{i}")), &data).unwrap();
    }
    let create = t.elapsed();
    let t = Instant::now();
    for i in 0..n {
        std::hint::black_box(fs::metadata(base.join(format!("f{i}"))).unwrap());
    }
    let stat = t.elapsed();
    let t = Instant::now();
    for i in 0..n {
        std::hint::black_box(fs::read(base.join(format!("f{i}"))).unwrap());
    }
    let read = t.elapsed();
    let t = Instant::now();
    let listed = fs::read_dir(&base).unwrap().count();
    let readdir = t.elapsed();
    assert_eq!(listed, n);
    let big = vec![7u8; 16 << 20];
    let t = Instant::now();
    fs::write(base.join("big"), &big).unwrap();
    let write_big = t.elapsed();
    let t = Instant::now();
    assert_eq!(fs::read(base.join("big")).unwrap().len(), big.len());
    let read_big = t.elapsed();
    let t = Instant::now();
    fs::remove_dir_all(&base).unwrap();
    let remove = t.elapsed();
    for (name, d) in [
        ("create", create),
        ("stat", stat),
        ("read", read),
        ("readdir", readdir),
        ("write 16 MiB", write_big),
        ("read 16 MiB", read_big),
        ("remove tree", remove),
    ] {
        println!("{name}\t{}", d.as_nanos());
    }
}
