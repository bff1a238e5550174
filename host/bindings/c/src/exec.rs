//! Running commands: collected, or with a callback that sees the output as it is written;
//! a cancel handle stops a running command from another thread.

use std::ffi::{c_char, c_void};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use computer::isolate::{CancelToken, LimitHit, OutputSink, RunStatus, Stream};
use computer::{ExecOutput, ExecRequest};

use crate::buffers::{arg, bytes, give_bytes};
use crate::error::{guard, set, set_from};
use crate::workspace::{ComputerWorkspace, handle};

/// Stops the commands it is given to: made with `computer_cancel_new`, triggered with
/// `computer_cancel` (from any thread), freed with `computer_cancel_free`.
pub struct ComputerCancel(CancelToken);

/// How to run a command; a NULL options pointer, or a zeroed struct, means the defaults.
#[repr(C)]
pub struct ComputerExecOptions {
    /// Working directory (NULL: /workspace).
    pub cwd: *const c_char,
    /// "auto" (NULL), "isolate" or "container".
    pub backend: *const c_char,
    /// Time limit in milliseconds (0: the default, 60 s).
    pub timeout_ms: u64,
    /// Standard input (`stdin_len` bytes; NULL for none).
    pub stdin_data: *const u8,
    /// Bytes at `stdin_data`.
    pub stdin_len: usize,
    /// A cancel handle that stops the command (NULL: none).
    pub cancel: *const ComputerCancel,
}

/// How a command ended. Filled by `computer_exec*`, freed with `computer_exec_result_free`.
#[repr(C)]
pub struct ComputerExecResult {
    /// The status a shell would report (124 after the time limit, 130 when cancelled).
    pub status: i32,
    /// Standard output (`stdout_len` bytes).
    pub stdout_data: *mut u8,
    /// Bytes at `stdout_data`.
    pub stdout_len: usize,
    /// Standard error (`stderr_len` bytes).
    pub stderr_data: *mut u8,
    /// Bytes at `stderr_data`.
    pub stderr_len: usize,
    /// The limit that stopped it ("timeout", "memory", "output", "instances"), or NULL. A
    /// static string: not freed.
    pub limit: *const c_char,
    /// Whether it was cancelled (1) or not (0).
    pub cancelled: i32,
}

/// Called with each chunk of output as it is written: `stream` 1 is stdout, 2 stderr. It
/// may run on a thread of the library's; calls never overlap. `data` is valid only during
/// the call.
pub type ComputerOutputFn =
    Option<unsafe extern "C" fn(user: *mut c_void, stream: i32, data: *const u8, len: usize)>;

/// A new cancel handle.
#[unsafe(no_mangle)]
pub extern "C" fn computer_cancel_new() -> *mut ComputerCancel {
    Box::into_raw(Box::new(ComputerCancel(CancelToken::new())))
}

/// Stops every command given this handle (now or later).
///
/// # Safety
/// `cancel` is NULL or a live handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn computer_cancel(cancel: *const ComputerCancel) {
    if !cancel.is_null() {
        // SAFETY: the caller promised a live handle.
        unsafe { &*cancel }.0.cancel();
    }
}

/// Frees a cancel handle (NULL is ignored) once no running command uses it.
///
/// # Safety
/// `cancel` is NULL or a live handle, not used after this call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn computer_cancel_free(cancel: *mut ComputerCancel) {
    if !cancel.is_null() {
        // SAFETY: made by `computer_cancel_new`, freed once.
        drop(unsafe { Box::from_raw(cancel) });
    }
}

fn limit_name(status: &RunStatus) -> *const c_char {
    let name: &'static std::ffi::CStr = match status {
        RunStatus::Limit(LimitHit::Timeout(_)) => c"timeout",
        RunStatus::Limit(LimitHit::Memory(_)) => c"memory",
        RunStatus::Limit(LimitHit::Output(_)) => c"output",
        RunStatus::Limit(LimitHit::Instances(_)) => c"instances",
        _ => return std::ptr::null(),
    };
    name.as_ptr()
}

/// The request for `command` with `options`; sets the last error when they are invalid.
///
/// # Safety
/// `options` is NULL or points to a valid `ComputerExecOptions` whose strings and buffers
/// outlive the call.
unsafe fn request(command: &str, options: *const ComputerExecOptions) -> Option<ExecRequest> {
    let mut req = ExecRequest::script(command);
    if options.is_null() {
        return Some(req);
    }
    // SAFETY: as promised by the caller.
    let o = unsafe { &*options };
    if !o.cwd.is_null() {
        // SAFETY: as promised by the caller.
        req.cwd = unsafe { arg(o.cwd, "cwd") }?.to_string();
    }
    if !o.backend.is_null() {
        // SAFETY: as promised by the caller.
        req.backend = match unsafe { arg(o.backend, "backend") }?.parse() {
            Ok(backend) => backend,
            Err(message) => {
                set(message, libc::EINVAL);
                return None;
            }
        };
    }
    if o.timeout_ms > 0 {
        req.limits.timeout = Duration::from_millis(o.timeout_ms);
    }
    // SAFETY: as promised by the caller.
    req.stdin = unsafe { bytes(o.stdin_data, o.stdin_len) }.to_vec();
    if !o.cancel.is_null() {
        // SAFETY: as promised by the caller.
        req.cancel = unsafe { &*o.cancel }.0.clone();
    }
    Some(req)
}

fn fill(out: &mut ComputerExecResult, o: ExecOutput) {
    let (stdout_data, stdout_len) = give_bytes(o.stdout);
    let (stderr_data, stderr_len) = give_bytes(o.stderr);
    *out = ComputerExecResult {
        status: o.status,
        stdout_data,
        stdout_len,
        stderr_data,
        stderr_len,
        limit: limit_name(&o.ended),
        cancelled: i32::from(o.ended == RunStatus::Cancelled),
    };
}

/// The C callback and its pointer, called under a lock so calls never overlap.
struct Callback {
    f: unsafe extern "C" fn(*mut c_void, i32, *const u8, usize),
    user: *mut c_void,
}

// SAFETY: the caller of `computer_exec_stream` gives a callback that may run on another
// thread (its documentation says so); the lock keeps calls from overlapping.
unsafe impl Send for Callback {}

/// Runs `command` (bash source) on the workspace and fills `*out` (free it with
/// `computer_exec_result_free`). With `on_output`, each chunk of output is passed to it as
/// it is written (and also collected in `*out`). A command that fails or hits a limit is
/// not an error: see `status` and `limit`. 0, or -1 when it could not run (nothing to free).
///
/// # Safety
/// `ws` is a live handle, `command` a NUL-terminated string, `options` NULL or valid,
/// `out` writable; `on_output`, if given, may be called from another thread with `user`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn computer_exec_stream(
    ws: *const ComputerWorkspace,
    command: *const c_char,
    options: *const ComputerExecOptions,
    on_output: ComputerOutputFn,
    user: *mut c_void,
    out: *mut ComputerExecResult,
) -> i32 {
    guard(-1, || {
        // SAFETY: as promised by the caller.
        let (Some(ws), Some(command)) = (unsafe { handle(ws) }, unsafe { arg(command, "command") })
        else {
            return -1;
        };
        if out.is_null() {
            set("out is NULL", libc::EINVAL);
            return -1;
        }
        // SAFETY: as promised by the caller.
        let Some(req) = (unsafe { request(command, options) }) else {
            return -1;
        };
        let sink: Option<OutputSink> = on_output.map(|f| {
            let callback = Mutex::new(Callback { f, user });
            Arc::new(move |stream: Stream, data: &[u8]| {
                let c = callback.lock().unwrap_or_else(|e| e.into_inner());
                let n = match stream {
                    Stream::Stdout => 1,
                    Stream::Stderr => 2,
                };
                // SAFETY: the caller gave this callback for this pointer.
                unsafe { (c.f)(c.user, n, data.as_ptr(), data.len()) };
            }) as OutputSink
        });
        match ws.exec_streaming(req, sink) {
            Ok(o) => {
                // SAFETY: checked non-NULL; the caller promised it writable.
                fill(unsafe { &mut *out }, o);
                0
            }
            Err(e) => {
                set_from(&e);
                -1
            }
        }
    })
}

/// `computer_exec_stream` without a callback: runs `command` and collects its output.
///
/// # Safety
/// As `computer_exec_stream`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn computer_exec(
    ws: *const ComputerWorkspace,
    command: *const c_char,
    options: *const ComputerExecOptions,
    out: *mut ComputerExecResult,
) -> i32 {
    // SAFETY: as promised by the caller.
    unsafe { computer_exec_stream(ws, command, options, None, std::ptr::null_mut(), out) }
}

/// Frees the buffers of a result (the struct itself is the caller's) and zeroes it.
///
/// # Safety
/// `result` is NULL or was filled by `computer_exec*` and not freed since.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn computer_exec_result_free(result: *mut ComputerExecResult) {
    if result.is_null() {
        return;
    }
    // SAFETY: as promised by the caller.
    let r = unsafe { &mut *result };
    // SAFETY: both buffers came from `give_bytes` with these lengths.
    unsafe {
        crate::buffers::computer_bytes_free(r.stdout_data, r.stdout_len);
        crate::buffers::computer_bytes_free(r.stderr_data, r.stderr_len);
    }
    r.stdout_data = std::ptr::null_mut();
    r.stderr_data = std::ptr::null_mut();
    r.stdout_len = 0;
    r.stderr_len = 0;
}
