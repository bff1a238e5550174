//! The calling thread's last error, and the guard every entry point runs in: a Rust panic
//! never unwinds into C, it becomes an error.

use std::cell::RefCell;
use std::ffi::{CString, c_char};

thread_local! {
    static LAST: RefCell<Option<(CString, i32)>> = const { RefCell::new(None) };
}

/// Sets the thread's last error.
pub fn set(message: impl Into<String>, errno: i32) {
    let text = message.into().replace('\0', " ");
    let text = CString::new(text).unwrap_or_default();
    LAST.with(|l| *l.borrow_mut() = Some((text, errno)));
}

/// A workspace error as the last error (its errno when it is a filesystem error).
pub fn set_from(e: &computer::Error) {
    set(e.to_string(), e.errno().unwrap_or(0));
}

/// Runs `f`; a panic becomes the last error and `failed` is returned.
pub fn guard<T>(failed: T, f: impl FnOnce() -> T) -> T {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(v) => v,
        Err(_) => {
            set(
                "computer: internal error (a panic), the call did nothing reliable",
                0,
            );
            failed
        }
    }
}

/// The last error's message on this thread, or NULL if none. The string belongs to the
/// library and stays valid until the thread's next call into it.
#[unsafe(no_mangle)]
pub extern "C" fn computer_last_error() -> *const c_char {
    LAST.with(|l| match &*l.borrow() {
        Some((text, _)) => text.as_ptr(),
        None => std::ptr::null(),
    })
}

/// The last error's errno on this thread (`ENOENT` for a missing file...), 0 when it is
/// not a filesystem error or there is none.
#[unsafe(no_mangle)]
pub extern "C" fn computer_last_errno() -> i32 {
    LAST.with(|l| l.borrow().as_ref().map_or(0, |(_, errno)| *errno))
}
