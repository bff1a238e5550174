//! Ctrl-C for a call that blocks Python's main thread in Rust.
//!
//! Python's own SIGINT handler only notes the signal; `KeyboardInterrupt` is raised between
//! bytecodes, never while a call into Rust blocks. So for the length of a call on the main
//! thread a handler of ours takes SIGINT and cancels the command; then Python's handler is
//! put back and the signal raised again for it, and the caller gets its `KeyboardInterrupt`
//! as usual. This costs two `sigaction` calls (about a microsecond); running the call on
//! another thread while this one waited for signals cost 100 µs (two wake-ups).
// `sigaction`, `raise` and the handler's read of a pointer: libc calls with no safe
// wrapper, and a signal handler's access to the caller's token (see `Installed::drop`).
#![allow(unsafe_code)]

use std::ptr;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering::SeqCst};

use computer::isolate::CancelToken;
use pyo3::prelude::*;

/// The token of the call running on the main thread, while our handler is installed.
static TARGET: AtomicPtr<CancelToken> = AtomicPtr::new(ptr::null_mut());
/// Handlers running now (on any thread): the token is not let go while one may read it.
static IN_HANDLER: AtomicUsize = AtomicUsize::new(0);
/// Whether a SIGINT came while ours was installed.
static CAUGHT: AtomicBool = AtomicBool::new(false);

/// Runs `f` with the GIL released. On the main thread a Ctrl-C cancels `cancel`; once `f`
/// has returned (the command stopped), Python's handler gets the signal and its exception
/// (`KeyboardInterrupt`) is raised.
pub fn run<T: Send>(
    py: Python<'_>,
    cancel: &CancelToken,
    f: impl FnOnce() -> T + Send,
) -> PyResult<T> {
    let Some(installed) = is_main_thread().then(|| Installed::new(cancel)).flatten() else {
        return Ok(py.detach(f));
    };
    let out = py.detach(f);
    if installed.remove() {
        // SAFETY: raise sends the signal to this thread, whose handler is Python's again.
        unsafe { libc::raise(libc::SIGINT) };
        py.check_signals()?;
    }
    Ok(out)
}

extern "C" fn on_sigint(_: libc::c_int) {
    IN_HANDLER.fetch_add(1, SeqCst);
    let target = TARGET.load(SeqCst);
    if !target.is_null() {
        // SAFETY: `Installed` keeps the token alive until no handler is running (below);
        // `cancel` is an atomic store, safe in a signal handler.
        unsafe { (*target).cancel() };
    }
    CAUGHT.store(true, SeqCst);
    IN_HANDLER.fetch_sub(1, SeqCst);
}

/// Our handler, installed in place of `previous` while the token is borrowed.
struct Installed<'a> {
    previous: libc::sigaction,
    _token: &'a CancelToken,
    removed: bool,
}

impl<'a> Installed<'a> {
    /// Installs the handler, or `None` when SIGINT is ignored or has its default action
    /// (then Python would not raise for it either).
    fn new(token: &'a CancelToken) -> Option<Installed<'a>> {
        // SAFETY: zeroed sigaction values are valid "no handler, no flags" ones to fill in;
        // the pointers given to sigaction are to initialized values.
        let (mut ours, mut previous): (libc::sigaction, libc::sigaction) =
            unsafe { (std::mem::zeroed(), std::mem::zeroed()) };
        if unsafe { libc::sigaction(libc::SIGINT, ptr::null(), &mut previous) } != 0
            || matches!(previous.sa_sigaction, libc::SIG_IGN | libc::SIG_DFL)
        {
            return None;
        }
        ours.sa_sigaction = on_sigint as *const () as libc::sighandler_t;
        // Restarted system calls: the command runs on this thread and must not see EINTR.
        ours.sa_flags = libc::SA_RESTART | libc::SA_ONSTACK;
        TARGET.store(ptr::from_ref(token).cast_mut(), SeqCst);
        CAUGHT.store(false, SeqCst);
        // SAFETY: as above.
        if unsafe { libc::sigaction(libc::SIGINT, &ours, ptr::null_mut()) } != 0 {
            TARGET.store(ptr::null_mut(), SeqCst);
            return None;
        }
        Some(Installed {
            previous,
            _token: token,
            removed: false,
        })
    }

    /// Puts the previous handler back; whether a SIGINT came meanwhile.
    fn remove(mut self) -> bool {
        self.restore();
        CAUGHT.load(SeqCst)
    }

    fn restore(&mut self) {
        if self.removed {
            return;
        }
        self.removed = true;
        // SAFETY: `previous` is what sigaction gave back.
        unsafe { libc::sigaction(libc::SIGINT, &self.previous, ptr::null_mut()) };
        TARGET.store(ptr::null_mut(), SeqCst);
        // A handler that read the pointer before it was cleared has counted itself in
        // first (all SeqCst), so once none is running none can reach the token.
        while IN_HANDLER.load(SeqCst) != 0 {
            std::hint::spin_loop();
        }
    }
}

impl Drop for Installed<'_> {
    fn drop(&mut self) {
        self.restore();
    }
}

/// Whether this is the process's main thread, the one Python runs signal handlers in.
#[cfg(target_os = "linux")]
fn is_main_thread() -> bool {
    // SAFETY: gettid has no preconditions.
    u32::try_from(unsafe { libc::gettid() }).is_ok_and(|tid| tid == std::process::id())
}

#[cfg(target_os = "macos")]
fn is_main_thread() -> bool {
    // SAFETY: pthread_main_np has no preconditions.
    unsafe { libc::pthread_main_np() == 1 }
}

/// Elsewhere a call is not interrupted: Ctrl-C is raised when it returns.
#[cfg(not(any(target_os = "linux", target_os = "macos")))]
fn is_main_thread() -> bool {
    false
}
