//! `computer-isolate`: the isolate backend. WebAssembly components (WASI 0.2), and WASI 0.1
//! core modules adapted into components, run by wasmtime against a workspace, in a fresh
//! store per execution, with limits.
//!
//! # Architecture
//! - [`Isolate`] owns the one `Engine` of the process (component model, pooling allocator,
//!   epoch interruption driven by a 10 ms ticker), the linker, and compiled components:
//!   [`Isolate::load`] compiles once, keeps the result in memory, and caches wasmtime's
//!   serialized artifact on disk keyed by the wasm's hash and the engine's configuration. A
//!   core module (`wasm32-wasip1`) is first adapted with wasmtime's preview 1 adapter
//!   ([`component_from_module`]); a reactor module (no `_start`, a `run` export) is
//!   adapted against a small world of its own ([`ModuleWorld`], [`Isolate::load_reactor_with`]).
//! - [`python`]: CPython for WASI as `python3`, a reactor run over the workspace with its
//!   standard library as a read-only [`Layer`] ([`RunRequest::layers`]) shared by every
//!   workspace; [`python::PythonCommands`] hands the shell's `python3` command lines to it.
//! - [`Isolate::run`] makes a fresh `Store` per execution: args, env, cwd (`PWD`), stdin;
//!   stdout/stderr streamed to [`RunRequest::on_output`] and collected; limits ([`Limits`]):
//!   wall-clock timeout (epoch callback + an async timeout for guests waiting in the host),
//!   memory (a `ResourceLimiter`), output bytes; cancellation through a [`CancelToken`].
//!   The outcome says which limit stopped a guest, if one did.
//! - The guest sees the workspace through `wasi:filesystem` ([`computer_wasi`]), wasmtime-wasi
//!   for cli/clocks/random/io/sockets (no network granted), and our `computer:host` interfaces:
//!   `exec` (through an [`ExecHandler`]), `workspace`, `git` (through a [`GitHandler`];
//!   [`NoGit`] answers `unsupported`), and `http` (through the workspace's network policy,
//!   [`RunRequest::network`]; refused without it).
//!
//! # Example
//! ```no_run
//! use std::sync::Arc;
//! use computer_isolate::{Isolate, IsolateConfig, RunRequest};
//!
//! let isolate = Isolate::new(IsolateConfig::default())?;
//! let program = isolate.load(&std::fs::read("hello.wasm")?)?;
//! let vfs = Arc::new(computer_vfs::Vfs::in_memory()?);
//! let outcome = isolate.run(&program, vfs, RunRequest::default());
//! print!("{}", String::from_utf8_lossy(&outcome.stdout));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod adapt;
#[allow(missing_docs)] // generated
pub mod bindings;
mod cache;
mod components;
mod door;
mod engine;
mod error;
mod exec;
mod extensions;
mod git;
mod http;
mod limits;
mod output;
pub mod python;
mod python_net;
mod run;
mod state;

pub use adapt::{ModuleWorld, Rewrite, component_from_module, component_from_module_in};
pub use components::WorkspaceComponents;
pub use computer_exec::{
    CancelToken, Deadline, ExecCommand, ExecError, ExecHandler, NoBackends, OutputSink, Stream,
};
pub use computer_wasi::Layer;
pub use engine::{Isolate, IsolateConfig, Program, default_cache_dir};
pub use error::IsolateError;
pub use exec::Process;
pub use git::{GitHandler, GitOutput, NoGit};
pub use http::MAX_REQUESTS;
pub use limits::{LimitHit, Limits};
pub use run::{RunOutcome, RunRequest, RunStatus};
pub use state::State;

/// Where guests start, and where relative paths resolve.
pub const DEFAULT_CWD: &str = "/workspace";
