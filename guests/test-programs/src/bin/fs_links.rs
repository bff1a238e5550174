//! Hard links, symlinks (relative, dangling, loops), read_link and symlink_metadata.
use std::fs;
use test_programs::{base, done, show, symlink};

fn main() {
    let b = base();
    fs::write(b.join("target"), b"T").unwrap();
    done("hard link", fs::hard_link(b.join("target"), b.join("hard")));
    done("write through hard link", fs::write(b.join("hard"), b"T2"));
    show("seen by other name", fs::read(b.join("target")));
    done("hard link to dir", fs::hard_link(&b, b.join("dirlink")));
    done(
        "hard link over existing",
        fs::hard_link(b.join("target"), b.join("hard")),
    );
    done("symlink", symlink("target", b.join("sym")));
    show("read through symlink", fs::read(b.join("sym")));
    show("read_link", fs::read_link(b.join("sym")));
    show(
        "symlink_metadata is symlink",
        fs::symlink_metadata(b.join("sym")).map(|m| m.file_type().is_symlink()),
    );
    show(
        "metadata follows",
        fs::metadata(b.join("sym")).map(|m| m.is_file()),
    );
    done("dangling", symlink("missing", b.join("dangling")));
    show("read dangling", fs::read(b.join("dangling")));
    show("dangling exists", fs::exists(b.join("dangling")));
    done("loop a", symlink("loop_b", b.join("loop_a")));
    done("loop b", symlink("loop_a", b.join("loop_b")));
    show("read loop", fs::read(b.join("loop_a")));
    fs::create_dir(b.join("real")).unwrap();
    fs::write(b.join("real/f"), b"in dir").unwrap();
    done("dir symlink", symlink("real", b.join("dirsym")));
    show("through dir symlink", fs::read(b.join("dirsym/f")));
    done("remove symlink", fs::remove_file(b.join("sym")));
    show("target survives", fs::read(b.join("target")));
    done("symlink over existing", symlink("x", b.join("target")));
}
