//! Helpers shared by the test programs: our WIT bindings and a printer of outcomes that reads
//! the same on every host (so the VFS host and the cap-std oracle can be compared by text).

wit_bindgen::generate!({
    path: "../../wit",
    world: "computer:host/extensions",
    generate_all,
});

use std::fmt::Debug;

/// Prints `label: ok <value>` or `label: err <ErrorKind>`.
pub fn show<T: Debug>(label: &str, result: std::io::Result<T>) {
    match result {
        Ok(v) => println!("{label}: ok {v:?}"),
        Err(e) => println!("{label}: err {:?}", e.kind()),
    }
}

/// Prints `label: ok` or the error kind, dropping the value.
pub fn done<T>(label: &str, result: std::io::Result<T>) {
    show(label, result.map(|_| ()));
}

/// The directory a test works in (argv[1]), created fresh.
pub fn base() -> std::path::PathBuf {
    let base = std::env::args().nth(1).expect("usage: PROGRAM BASE_DIR");
    let base = std::path::PathBuf::from(base);
    std::fs::create_dir_all(&base).expect("create base dir");
    base
}

/// Creates a symlink (`std::os::wasi::fs::symlink_path` is unstable; this is the stable way).
pub fn symlink(
    target: impl AsRef<std::path::Path>,
    link: impl AsRef<std::path::Path>,
) -> std::io::Result<()> {
    #[allow(deprecated)]
    std::fs::soft_link(target, link)
}
