//! Memory crossing the boundary: C strings in, and buffers and strings out, each freed by
//! the matching `computer_*_free`.

use std::ffi::{CStr, CString, c_char};

/// A C string argument as `&str`; sets the last error (naming `what`) when it is NULL or
/// not UTF-8.
///
/// # Safety
/// `s` is NULL or a NUL-terminated string that outlives the call.
pub unsafe fn arg<'a>(s: *const c_char, what: &str) -> Option<&'a str> {
    if s.is_null() {
        crate::error::set(format!("{what} is NULL"), libc::EINVAL);
        return None;
    }
    // SAFETY: the caller promised a NUL-terminated string.
    match unsafe { CStr::from_ptr(s) }.to_str() {
        Ok(s) => Some(s),
        Err(_) => {
            crate::error::set(format!("{what} is not UTF-8"), libc::EINVAL);
            None
        }
    }
}

/// A (pointer, length) argument as a slice (NULL with length 0 is empty).
///
/// # Safety
/// `data` points to `len` readable bytes, or `len` is 0.
pub unsafe fn bytes<'a>(data: *const u8, len: usize) -> &'a [u8] {
    if len == 0 || data.is_null() {
        return &[];
    }
    // SAFETY: the caller promised `len` readable bytes.
    unsafe { std::slice::from_raw_parts(data, len) }
}

/// Hands `data` to C: freed with `computer_bytes_free(ptr, len)`.
pub fn give_bytes(data: Vec<u8>) -> (*mut u8, usize) {
    let boxed = data.into_boxed_slice();
    let len = boxed.len();
    (Box::into_raw(boxed).cast::<u8>(), len)
}

/// Hands a string to C: freed with `computer_string_free`.
pub fn give_string(s: String) -> *mut c_char {
    CString::new(s.replace('\0', " "))
        .unwrap_or_default()
        .into_raw()
}

/// Frees a buffer this library returned with its length. NULL is ignored.
///
/// # Safety
/// `data` and `len` are exactly as returned, and not freed before.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn computer_bytes_free(data: *mut u8, len: usize) {
    if data.is_null() {
        return;
    }
    // SAFETY: made by `give_bytes` from a boxed slice of `len` bytes.
    drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(data, len)) });
}

/// Frees a string this library returned. NULL is ignored.
///
/// # Safety
/// `s` is as returned, and not freed before.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn computer_string_free(s: *mut c_char) {
    if !s.is_null() {
        // SAFETY: made by `give_string` with `CString::into_raw`.
        drop(unsafe { CString::from_raw(s) });
    }
}
