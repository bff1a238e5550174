//! What the isolate's shell and its utilities share, with no WIT and no interpreter in it:
//!
//! - [`runtime`]: the single-threaded executor and the in-memory pipes between pipeline stages;
//! - [`io`]: a command's streams ([`io::Input`], [`io::Output`], [`io::Io`]);
//! - [`pattern`] and [`glob`]: shell patterns and pathname expansion;
//! - [`posix`]: POSIX regular expressions (BRE and ERE) translated for the `regex` crates;
//! - [`format`]: the printf engine that `printf`, `echo -e` and awk share;
//! - [`errno`]: the C library's wording of I/O errors; [`path`]: logical path text;
//! - [`dir`]: directory listings, in one host call where the host offers one;
//! - [`args`]: how utilities read their options (lexopt, with getopt's wording of errors);
//! - the seam: [`Context`] (what a utility sees of the shell that runs it), [`Host`] (the
//!   workspace, git and exec imports, whoever provides them) and [`Registry`] (every command
//!   by name, with its usage and help).
//!
//! It builds natively as well as for wasm32-wasip2, so everything here is unit-tested on the
//! developer's machine.

pub mod args;
pub mod clock;
pub mod context;
pub mod dir;
pub mod errno;
pub mod format;
pub mod glob;
pub mod host;
pub mod io;
pub mod path;
pub mod pattern;
pub mod posix;
pub mod registry;
pub mod runtime;

pub use context::Context;
pub use host::Host;
pub use registry::{CommandFn, Registry, Run, Utility};
