//! Renames of files and directories, over existing targets, and their errors.
use std::fs;
use test_programs::{base, done, show};

fn main() {
    let b = base();
    fs::write(b.join("a"), b"A").unwrap();
    fs::write(b.join("b"), b"B").unwrap();
    done("file over file", fs::rename(b.join("a"), b.join("b")));
    show("b now", fs::read(b.join("b")));
    show("a gone", fs::exists(b.join("a")));
    fs::create_dir(b.join("d1")).unwrap();
    fs::write(b.join("d1/x"), b"x").unwrap();
    fs::create_dir(b.join("d2")).unwrap();
    done("dir over empty dir", fs::rename(b.join("d1"), b.join("d2")));
    show("moved content", fs::read(b.join("d2/x")));
    fs::create_dir(b.join("d3")).unwrap();
    done(
        "empty dir over non-empty",
        fs::rename(b.join("d3"), b.join("d2")),
    );
    done("file over dir", fs::rename(b.join("b"), b.join("d2")));
    done("dir over file", fs::rename(b.join("d2"), b.join("b")));
    done(
        "dir into itself",
        fs::rename(b.join("d2"), b.join("d2/inside")),
    );
    done("missing source", fs::rename(b.join("nope"), b.join("x")));
    done("into missing dir", fs::rename(b.join("b"), b.join("no/x")));
    done("to same name", fs::rename(b.join("b"), b.join("b")));
    show(
        "listing",
        fs::read_dir(&b).map(|rd| {
            let mut v: Vec<String> = rd
                .map(|e| e.unwrap().file_name().into_string().unwrap())
                .collect();
            v.sort();
            v
        }),
    );
}
