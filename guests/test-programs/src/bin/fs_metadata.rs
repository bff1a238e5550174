//! Sizes, types, timestamps set and read back, directory removal rules.
use std::fs;
use std::time::{Duration, SystemTime};
use test_programs::{base, done, show};

fn main() {
    let b = base();
    fs::write(b.join("f"), vec![1u8; 1234]).unwrap();
    show("len", fs::metadata(b.join("f")).map(|m| m.len()));
    show("is_file", fs::metadata(b.join("f")).map(|m| m.is_file()));
    show("dir is_dir", fs::metadata(&b).map(|m| m.is_dir()));
    let when = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
    let f = fs::File::options().write(true).open(b.join("f")).unwrap();
    done("set_modified", f.set_modified(when));
    drop(f);
    show(
        "modified",
        fs::metadata(b.join("f"))
            .and_then(|m| m.modified())
            .map(|t| t.duration_since(SystemTime::UNIX_EPOCH).unwrap().as_secs()),
    );
    let recent = fs::metadata(b.join("f")).and_then(|m| m.accessed()).is_ok();
    println!("accessed available: {recent}");
    fs::write(b.join("new"), b"").unwrap();
    let age = fs::metadata(b.join("new"))
        .and_then(|m| m.modified())
        .map(|t| SystemTime::now().duration_since(t).unwrap_or_default());
    println!(
        "fresh mtime within a minute: {}",
        age.map(|a| a < Duration::from_secs(60)).unwrap_or(false)
    );
    fs::create_dir_all(b.join("d/e")).unwrap();
    done("remove non-empty dir", fs::remove_dir(b.join("d")));
    done("remove_file on dir", fs::remove_file(b.join("d")));
    done("remove_dir on file", fs::remove_dir(b.join("f")));
    done("mkdir existing", fs::create_dir(b.join("d")));
    done("create_dir_all existing", fs::create_dir_all(b.join("d/e")));
    done("remove_dir_all", fs::remove_dir_all(b.join("d")));
    show("gone", fs::exists(b.join("d")));
    done("stat through file", fs::metadata(b.join("f/x")));
}
