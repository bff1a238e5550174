//! A directory of 1,000 entries: every name comes back once, with its type.
use std::fs;
use test_programs::{base, show};

fn main() {
    let b = base();
    fs::create_dir(b.join("big")).unwrap();
    for i in 0..1000 {
        fs::write(b.join(format!("big/f{i:04}")), b"").unwrap();
    }
    fs::create_dir(b.join("big/sub")).unwrap();
    let mut names: Vec<(String, bool)> = fs::read_dir(b.join("big"))
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().into_string().unwrap(),
                e.file_type().unwrap().is_dir(),
            )
        })
        .collect();
    names.sort();
    println!("count: {}", names.len());
    println!("first: {:?} last: {:?}", names.first(), names.last());
    let dirs = names.iter().filter(|(_, d)| *d).count();
    println!("dirs: {dirs}");
    let expected: Vec<String> = (0..1000).map(|i| format!("f{i:04}")).collect();
    let got: Vec<String> = names
        .iter()
        .filter(|(_, d)| !d)
        .map(|(n, _)| n.clone())
        .collect();
    println!("all names: {}", got == expected);
    show(
        "read_dir of a file",
        fs::read_dir(b.join("big/f0001")).map(|_| ()),
    );
    show("read_dir missing", fs::read_dir(b.join("nope")).map(|_| ()));
}
