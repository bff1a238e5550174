//! Create, read, overwrite, create_new, read_to_string, and the errors of each.
use std::fs;
use test_programs::{base, done, show};

fn main() {
    let b = base();
    done("write", fs::write(b.join("a.txt"), b"hello"));
    show("read", fs::read(b.join("a.txt")));
    done("overwrite", fs::write(b.join("a.txt"), b"bye"));
    show("read again", fs::read_to_string(b.join("a.txt")));
    done("create_new existing", fs::File::create_new(b.join("a.txt")));
    done("create_new fresh", fs::File::create_new(b.join("b.txt")));
    show("read empty", fs::read(b.join("b.txt")));
    show("read missing", fs::read(b.join("nope")));
    done(
        "write into missing dir",
        fs::write(b.join("no/such/file"), b"x"),
    );
    done("write a directory", fs::write(&b, b"x"));
    show("read a directory", fs::read(&b));
    show("exists", fs::exists(b.join("a.txt")));
    show("exists missing", fs::exists(b.join("zzz")));
}
