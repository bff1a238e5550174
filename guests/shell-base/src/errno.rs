//! Error wording: the C library's message for an I/O error, as GNU tools print it
//! (`No such file or directory`), whether the error came from std or from WASI's errno.

/// The C library's wording for an I/O error.
pub fn io_message(e: &std::io::Error) -> String {
    use std::io::ErrorKind as K;
    match e.kind() {
        K::NotFound => "No such file or directory".into(),
        K::PermissionDenied => "Permission denied".into(),
        K::AlreadyExists => "File exists".into(),
        K::IsADirectory => "Is a directory".into(),
        K::NotADirectory => "Not a directory".into(),
        K::DirectoryNotEmpty => "Directory not empty".into(),
        _ => match e.raw_os_error() {
            Some(n) => wasi_or_native(e, n),
            None => e.to_string(),
        },
    }
}

/// WASI's errno numbers, for kinds std does not name.
#[cfg(target_os = "wasi")]
fn wasi_or_native(e: &std::io::Error, n: i32) -> String {
    match n {
        2 => "Permission denied".into(),
        10 => "Device or resource busy".into(),
        20 => "File exists".into(),
        22 => "File too large".into(),
        28 => "Invalid argument".into(),
        31 => "Is a directory".into(),
        32 => "Too many levels of symbolic links".into(),
        37 => "File name too long".into(),
        44 => "No such file or directory".into(),
        51 => "No space left on device".into(),
        54 => "Not a directory".into(),
        55 => "Directory not empty".into(),
        // Opening a FIFO, socket or device node in the workspace: nothing stands behind it.
        60 => "No such device or address".into(),
        63 => "Operation not permitted".into(),
        69 => "Read-only file system".into(),
        75 => "Invalid cross-device link".into(),
        _ => e.to_string(),
    }
}

/// Natively (the utilities' unit tests) the host's own message, without std's
/// ` (os error N)`.
#[cfg(not(target_os = "wasi"))]
fn wasi_or_native(e: &std::io::Error, n: i32) -> String {
    let text = e.to_string();
    match text.strip_suffix(&format!(" (os error {n})")) {
        Some(message) => message.to_string(),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::io_message;
    use std::io::{Error, ErrorKind};

    #[test]
    fn kinds_and_wasi_numbers_read_as_the_c_library_says() {
        assert_eq!(
            io_message(&Error::from(ErrorKind::NotFound)),
            "No such file or directory"
        );
        assert_eq!(
            io_message(&Error::from(ErrorKind::AlreadyExists)),
            "File exists"
        );
        #[cfg(target_os = "wasi")]
        assert_eq!(
            io_message(&Error::from_raw_os_error(51)),
            "No space left on device"
        );
        #[cfg(target_os = "wasi")]
        assert_eq!(
            io_message(&Error::from_raw_os_error(60)),
            "No such device or address"
        );
        #[cfg(target_os = "linux")]
        assert_eq!(
            io_message(&Error::from_raw_os_error(28)),
            "No space left on device"
        );
    }
}
