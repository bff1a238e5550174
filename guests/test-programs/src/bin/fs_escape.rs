//! Attempts to leave the workspace: `..` past the root and absolute symlinks. On the VFS they
//! stay inside (the root is the guest's whole world); the host's files are never reachable.
use std::fs;
use test_programs::{base, done, show, symlink};

fn main() {
    let b = base();
    let host_file = std::env::args().nth(2).expect("a host file to look for");
    show("absolute host path", fs::read(&host_file));
    show(
        "dotdot host path",
        fs::read(format!("../../../../../..{host_file}")),
    );
    show(
        "dotdot from base",
        fs::read(
            b.join("../../../../..")
                .join(host_file.trim_start_matches('/')),
        ),
    );
    done("absolute symlink", symlink(&host_file, b.join("abs")));
    show("through absolute symlink", fs::read(b.join("abs")));
    done(
        "dotdot symlink",
        symlink("../../../../../../../..", b.join("up")),
    );
    show(
        "through dotdot symlink",
        fs::read(b.join("up").join(host_file.trim_start_matches('/'))),
    );
    show(
        "root listing has workspace",
        fs::read_dir("/").map(|rd| {
            rd.filter_map(|e| e.ok())
                .any(|e| e.file_name() == "workspace")
        }),
    );
    show(
        "parent of root is root",
        fs::canonicalize("/..").map(|p| p.display().to_string()),
    );
}
