//! Hostile or broken workspace files get clear errors, never a panic.

use computer_vfs::{SCHEMA_VERSION, Vfs, VfsError};

#[test]
fn a_file_that_is_not_sqlite_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("junk.db");
    std::fs::write(
        &path,
        b"this is not a database, just some text that is long enough....",
    )
    .unwrap();
    let err = Vfs::open(&path).unwrap_err();
    assert!(matches!(err, VfsError::NotAWorkspace(_)), "{err:?}");
    assert_eq!(
        err.to_string(),
        "not a computer workspace (file is not a database)"
    );
    // Nothing was changed in the file.
    assert!(std::fs::read(&path).unwrap().starts_with(b"this is not"));
}

#[test]
fn another_applications_database_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("other.db");
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch("CREATE TABLE t (x); INSERT INTO t VALUES (1);")
        .unwrap();
    drop(conn);
    let err = Vfs::open(&path).unwrap_err();
    assert!(err.to_string().contains("another application"), "{err}");
    let conn = rusqlite::Connection::open(&path).unwrap();
    let mode: String = conn
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(
        mode, "delete",
        "the foreign database's journal mode was changed"
    );
}

#[test]
fn a_newer_schema_is_refused_with_its_version() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("new.db");
    drop(Vfs::open(&path).unwrap());
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(&format!("PRAGMA user_version = {}", SCHEMA_VERSION + 1))
        .unwrap();
    drop(conn);
    let err = Vfs::open(&path).unwrap_err();
    assert!(matches!(err, VfsError::NewerSchema { .. }), "{err:?}");
    assert!(err.to_string().contains("upgrade computer"), "{err}");
}

#[test]
fn a_corrupted_database_is_reported_not_panicked_on() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("corrupt.db");
    {
        let vfs = Vfs::open(&path).unwrap();
        for i in 0..200 {
            vfs.write_file(format!("/workspace/f{i}"), vec![i as u8; 5000])
                .unwrap();
        }
    }
    // Overwrite pages in the middle of the file with garbage, keeping the header.
    let mut bytes = std::fs::read(&path).unwrap();
    assert!(
        bytes.len() > 64 * 1024,
        "the test needs a multi-page database"
    );
    for b in &mut bytes[16 * 1024..48 * 1024] {
        *b = 0xA5;
    }
    std::fs::write(&path, &bytes).unwrap();
    let outcome = Vfs::open(&path).and_then(|vfs| {
        vfs.check_integrity()?;
        for i in 0..200 {
            vfs.read_file(format!("/workspace/f{i}"))?;
        }
        Ok(())
    });
    let err = outcome.expect_err("corruption went unnoticed");
    assert!(
        matches!(err, VfsError::Corrupt(_) | VfsError::NotAWorkspace(_)),
        "unclear error for a corrupt database: {err:?}"
    );
}

#[test]
fn a_directory_given_as_workspace_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let err = Vfs::open(dir.path()).unwrap_err();
    assert!(err.to_string().contains("is a directory"), "{err}");
}
