//! [`Context`]: what a utility sees of the shell that runs it. Utilities never see the
//! interpreter's types; the interpreter implements this trait, and the utilities' unit tests
//! implement it over `std::fs`.

use std::path::PathBuf;
use std::time::Instant;

use crate::host::Host;
use crate::io::{Io, Output};
use crate::runtime::Task;

/// The shell as a utility sees it: its streams, working directory, variables and limits,
/// the host's imports, and a way back into the shell for the few utilities that run
/// commands (`xargs`, `find -exec`, `timeout`, awk's `system()`).
pub trait Context {
    /// The command's descriptors.
    fn io(&self) -> &Io;
    /// `path` resolved against the working directory (absolute paths stay as they are).
    fn path(&self, path: &str) -> PathBuf;
    /// The working directory, absolute.
    fn cwd(&self) -> &str;
    /// A shell variable's value, exported or not.
    fn var(&self, name: &str) -> Option<&str>;
    /// The exported variables, as a child process gets them.
    fn environment(&self) -> Vec<(String, String)>;
    /// The file mode creation mask.
    fn umask(&self) -> u32;
    /// When the run must stop (the host's time limit or `timeout`'s), if ever.
    fn deadline(&self) -> Option<Instant>;
    /// Sets the deadline (`timeout` narrows it for its command, then restores it).
    fn set_deadline(&mut self, deadline: Option<Instant>);
    /// A pseudo-random number (as `$RANDOM` gives them).
    fn random(&mut self) -> u32;
    /// Whether the shell has a command called `name` besides its builtins (a utility, or one
    /// the host provides).
    fn has_command(&self, name: &str) -> bool;
    /// The names of those commands, sorted.
    fn command_names(&self) -> Vec<&str>;
    /// Whether `name` is a builtin of the shell (`echo`, `cd`...).
    fn is_builtin(&self, name: &str) -> bool;
    /// The host's imports.
    fn host(&self) -> &'static dyn Host {
        crate::host::current()
    }
    /// Runs a command line (a function, builtin or utility) with this command's streams; its
    /// status. An `exit` in it ends only it.
    fn run<'a>(&'a mut self, argv: Vec<String>) -> Task<'a, i32>;
    /// Runs `script` in a subshell with `io`; its status (awk's `system()` and pipes).
    fn run_script<'a>(&'a mut self, script: &'a str, io: Io) -> Task<'a, i32>;
    /// Runs `argv` through the host's `exec` (another backend); its status, with the shell's
    /// own message when nothing there has it.
    fn run_on_host<'a>(&'a mut self, argv: Vec<String>) -> Task<'a, i32>;
}

/// Writes `text` to `out` ([`crate::format::output_bytes`]: raw bytes stay raw); 0, or 141 when
/// the pipe's reader is gone (as SIGPIPE would), or 1 when the write failed.
pub async fn print(out: &Output, text: &str) -> i32 {
    match out.write_all(&crate::format::output_bytes(text)).await {
        Ok(()) => 0,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => 141,
        Err(_) => 1,
    }
}

/// The status of a command stopped by `timeout` (or past the deadline it set).
pub const TIMED_OUT: i32 = 124;

/// Writes to stdout; a closed pipe gives 141 (as SIGPIPE would).
pub async fn out(sh: &dyn Context, text: &str) -> i32 {
    print(&sh.io().stdout, text).await
}

/// Writes `cmd: message` to standard error; returns 1.
pub async fn complain(sh: &dyn Context, msg: &str) -> i32 {
    let _ = sh
        .io()
        .stderr
        .write_all(format!("{msg}\n").as_bytes())
        .await;
    1
}
