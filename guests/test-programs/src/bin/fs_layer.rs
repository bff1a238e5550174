//! What a guest can do with a read-only layer (argv[1], e.g. `/usr/local`) beside the
//! workspace (argv[2], a directory to work in): read and list it, copy out of it; every change
//! to it fails, a rename or hard link between it and the workspace crosses devices, and `..`
//! and symlinks in it stay inside it.
use std::fs;
use std::io::Write;
use test_programs::{done, show, symlink};

fn main() {
    let layer = std::env::args().nth(1).expect("usage: fs_layer LAYER BASE");
    let b = std::path::PathBuf::from(std::env::args().nth(2).expect("a base dir"));
    fs::create_dir_all(&b).expect("create base dir");
    let file = format!("{layer}/lib/std.txt");
    show("read", fs::read_to_string(&file));
    show(
        "list",
        fs::read_dir(format!("{layer}/lib")).map(|rd| {
            let mut names: Vec<String> = rd
                .filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect();
            names.sort();
            names
        }),
    );
    show("stat size", fs::metadata(&file).map(|m| m.len()));
    done("copy out", fs::copy(&file, b.join("copied.txt")));
    show("copied", fs::read_to_string(b.join("copied.txt")));
    done("create", fs::write(format!("{layer}/lib/new.txt"), "x"));
    done("overwrite", fs::write(&file, "changed"));
    done(
        "append",
        fs::OpenOptions::new()
            .append(true)
            .open(&file)
            .and_then(|mut f| f.write_all(b"more")),
    );
    done("mkdir", fs::create_dir(format!("{layer}/made")));
    done("remove", fs::remove_file(&file));
    done("rmdir", fs::remove_dir(format!("{layer}/lib/empty")));
    done("symlink", symlink("std.txt", format!("{layer}/lib/link")));
    done(
        "rename inside",
        fs::rename(&file, format!("{layer}/lib/moved.txt")),
    );
    done("rename out", fs::rename(&file, b.join("moved.txt")));
    done(
        "rename in",
        fs::rename(b.join("copied.txt"), format!("{layer}/lib/in.txt")),
    );
    done("hard link out", fs::hard_link(&file, b.join("linked.txt")));
    done(
        "set mtime",
        fs::File::open(&file).and_then(|f| f.set_modified(std::time::SystemTime::UNIX_EPOCH)),
    );
    show("unchanged", fs::read_to_string(&file));
    show(
        "dotdot stays inside",
        fs::read_to_string(format!("{layer}/lib/../../../../lib/std.txt")),
    );
    show(
        "absolute symlink stays inside",
        fs::read_to_string(format!("{layer}/lib/abs")),
    );
    show(
        "workspace still writable",
        fs::write(b.join("after.txt"), "ok"),
    );
}
