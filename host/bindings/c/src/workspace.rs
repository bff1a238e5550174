//! The workspace handle, its files, snapshots and forks.

use std::ffi::c_char;

use computer::Workspace;

use crate::buffers::{arg, bytes, give_bytes, give_string};
use crate::error::{guard, set_from};

/// An open workspace: an opaque handle, closed with `computer_close`. One handle may be
/// used from several threads at once.
pub struct ComputerWorkspace(pub(crate) Workspace);

/// The handle behind a pointer; sets the last error when it is NULL.
///
/// # Safety
/// `ws` is NULL or a handle from `computer_open*`/`computer_fork`, not closed.
pub(crate) unsafe fn handle<'a>(ws: *const ComputerWorkspace) -> Option<&'a Workspace> {
    if ws.is_null() {
        crate::error::set("the workspace handle is NULL", libc::EINVAL);
        return None;
    }
    // SAFETY: the caller promised a live handle.
    Some(unsafe { &(*ws).0 })
}

fn boxed(r: computer::Result<Workspace>) -> *mut ComputerWorkspace {
    match r {
        Ok(ws) => Box::into_raw(Box::new(ComputerWorkspace(ws))),
        Err(e) => {
            set_from(&e);
            std::ptr::null_mut()
        }
    }
}

fn status(r: computer::Result<()>) -> i32 {
    match r {
        Ok(()) => 0,
        Err(e) => {
            set_from(&e);
            -1
        }
    }
}

/// A filesystem call on `path` (relative paths start at /workspace), its error naming it.
fn at<T>(
    ws: &Workspace,
    path: &str,
    f: impl FnOnce(&computer::Vfs, &std::path::Path) -> Result<T, computer::VfsError>,
) -> computer::Result<T> {
    let path = ws.resolve(path);
    f(ws.fs(), &path).map_err(|source| computer::Error::Fs { path, source })
}

/// Opens the workspace file at `path`, creating it if missing. NULL on error.
///
/// # Safety
/// `path` is a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn computer_open(path: *const c_char) -> *mut ComputerWorkspace {
    guard(std::ptr::null_mut(), || {
        // SAFETY: as promised by the caller.
        let Some(path) = (unsafe { arg(path, "path") }) else {
            return std::ptr::null_mut();
        };
        boxed(Workspace::open(path))
    })
}

/// A throwaway workspace in memory. NULL on error.
#[unsafe(no_mangle)]
pub extern "C" fn computer_open_memory() -> *mut ComputerWorkspace {
    guard(std::ptr::null_mut(), || boxed(Workspace::in_memory()))
}

/// Closes a handle (NULL is ignored). Commands still running on it keep the workspace open
/// until they end.
///
/// # Safety
/// `ws` is NULL or a live handle, not used after this call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn computer_close(ws: *mut ComputerWorkspace) {
    if !ws.is_null() {
        // SAFETY: made by `Box::into_raw` in `boxed`, closed once.
        drop(unsafe { Box::from_raw(ws) });
    }
}

/// Writes `len` bytes at `data` as the whole file `path`, making missing parent
/// directories. 0, or -1 on error.
///
/// # Safety
/// `ws` is a live handle, `path` a NUL-terminated string, `data` holds `len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn computer_write_file(
    ws: *const ComputerWorkspace,
    path: *const c_char,
    data: *const u8,
    len: usize,
) -> i32 {
    guard(-1, || {
        // SAFETY: as promised by the caller.
        let (Some(ws), Some(path)) = (unsafe { handle(ws) }, unsafe { arg(path, "path") }) else {
            return -1;
        };
        // SAFETY: as promised by the caller.
        let data = unsafe { bytes(data, len) };
        status(at(ws, path, |fs, p| fs.write_file(p, data).map(drop)))
    })
}

/// Reads the file `path`: its bytes in `*data` and `*len`, freed with
/// `computer_bytes_free(*data, *len)`. 0, or -1 on error (nothing to free).
///
/// # Safety
/// `ws` is a live handle, `path` a NUL-terminated string, `data` and `len` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn computer_read_file(
    ws: *const ComputerWorkspace,
    path: *const c_char,
    data: *mut *mut u8,
    len: *mut usize,
) -> i32 {
    guard(-1, || {
        // SAFETY: as promised by the caller.
        let (Some(ws), Some(path)) = (unsafe { handle(ws) }, unsafe { arg(path, "path") }) else {
            return -1;
        };
        if data.is_null() || len.is_null() {
            crate::error::set("data or len is NULL", libc::EINVAL);
            return -1;
        }
        match at(ws, path, |fs, p| fs.read_file(p)) {
            Ok(content) => {
                let (ptr, n) = give_bytes(content);
                // SAFETY: both checked non-NULL; the caller promised them writable.
                unsafe {
                    *data = ptr;
                    *len = n;
                }
                0
            }
            Err(e) => {
                set_from(&e);
                -1
            }
        }
    })
}

/// The names in directory `path`, each followed by a newline (sorted), freed with
/// `computer_string_free`. NULL on error.
///
/// # Safety
/// `ws` is a live handle, `path` a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn computer_list_dir(
    ws: *const ComputerWorkspace,
    path: *const c_char,
) -> *mut c_char {
    guard(std::ptr::null_mut(), || {
        // SAFETY: as promised by the caller.
        let (Some(ws), Some(path)) = (unsafe { handle(ws) }, unsafe { arg(path, "path") }) else {
            return std::ptr::null_mut();
        };
        match at(ws, path, |fs, p| fs.read_dir(p)) {
            Ok(entries) => give_string(
                entries
                    .iter()
                    .map(|e| format!("{}\n", e.name.to_string_lossy()))
                    .collect(),
            ),
            Err(e) => {
                set_from(&e);
                std::ptr::null_mut()
            }
        }
    })
}

/// Removes a file or an empty directory (any tree when `recursive` is not 0). 0, or -1.
///
/// # Safety
/// `ws` is a live handle, `path` a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn computer_remove(
    ws: *const ComputerWorkspace,
    path: *const c_char,
    recursive: i32,
) -> i32 {
    guard(-1, || {
        // SAFETY: as promised by the caller.
        let (Some(ws), Some(path)) = (unsafe { handle(ws) }, unsafe { arg(path, "path") }) else {
            return -1;
        };
        status(at(ws, path, |fs, p| {
            match (recursive, fs.lstat(p)?.is_dir()) {
                (0, true) => fs.remove_dir(p),
                (0, false) => fs.remove_file(p),
                _ => fs.remove_all(p),
            }
        }))
    })
}

/// Takes a snapshot named `name`. 0, or -1.
///
/// # Safety
/// `ws` is a live handle, `name` a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn computer_snapshot(
    ws: *const ComputerWorkspace,
    name: *const c_char,
) -> i32 {
    guard(-1, || {
        // SAFETY: as promised by the caller.
        let (Some(ws), Some(name)) = (unsafe { handle(ws) }, unsafe { arg(name, "name") }) else {
            return -1;
        };
        status(ws.snapshot(name).map(drop))
    })
}

/// Puts the workspace back as it was at snapshot `name`. 0, or -1.
///
/// # Safety
/// `ws` is a live handle, `name` a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn computer_restore(
    ws: *const ComputerWorkspace,
    name: *const c_char,
) -> i32 {
    guard(-1, || {
        // SAFETY: as promised by the caller.
        let (Some(ws), Some(name)) = (unsafe { handle(ws) }, unsafe { arg(name, "name") }) else {
            return -1;
        };
        status(ws.restore(name))
    })
}

/// A new workspace file at `path` holding snapshot `name`: a new handle (close it too), or
/// NULL on error.
///
/// # Safety
/// `ws` is a live handle, `name` and `path` NUL-terminated strings.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn computer_fork(
    ws: *const ComputerWorkspace,
    name: *const c_char,
    path: *const c_char,
) -> *mut ComputerWorkspace {
    guard(std::ptr::null_mut(), || {
        // SAFETY: as promised by the caller.
        let (Some(ws), Some(name), Some(path)) = (
            unsafe { handle(ws) },
            unsafe { arg(name, "name") },
            unsafe { arg(path, "path") },
        ) else {
            return std::ptr::null_mut();
        };
        boxed(ws.fork(name, path))
    })
}
