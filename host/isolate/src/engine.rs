//! The runtime: one wasmtime `Engine` per process (pooling allocator, epoch interruption), a
//! linker, compiled components kept in memory and on disk, and the ticker that drives
//! timeouts.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use wasmtime::component::{Component, InstancePre, Linker};
use wasmtime::{Config, Engine, InstanceAllocationStrategy, PoolingAllocationConfig};
use wasmtime_wasi::p2::bindings::CommandPre;

use crate::error::IsolateError;
use crate::state::{State, linker};

/// How often the epoch advances: the resolution of timeouts and cancellation.
pub(crate) const TICK: Duration = Duration::from_millis(10);

/// Configuration of a runtime.
#[derive(Debug, Clone)]
pub struct IsolateConfig {
    /// Where compiled components are cached (`None`: compile in every process).
    pub cache_dir: Option<PathBuf>,
    /// Use the pooling allocator (fast instantiation, memory reserved up front).
    pub pooling: bool,
    /// Instances alive at once (pooling only).
    pub max_instances: u32,
    /// The largest memory limit any run may ask for (pooling reserves this per slot).
    pub max_memory: u64,
}

impl Default for IsolateConfig {
    fn default() -> Self {
        IsolateConfig {
            cache_dir: default_cache_dir(),
            pooling: true,
            max_instances: 64,
            max_memory: 4 << 30,
        }
    }
}

/// Where compiled components are cached, the first that can be used of:
/// `$COMPUTER_CACHE_DIR/components`, `$XDG_CACHE_HOME/computer/components`,
/// `$HOME/.cache/computer/components`, the same under the home in the password database
/// (cron, systemd units and some CI steps run without `HOME`), and last
/// `$TMPDIR/computer-UID/components` (made 0700; refused unless this user owns it and no one
/// else can reach it, since whoever can write there could run code as this user). `None` only
/// when none can be made: then every process compiles its components again (the shell takes
/// seconds).
pub fn default_cache_dir() -> Option<PathBuf> {
    let env = |name: &str| std::env::var_os(name);
    cache_dirs(
        env("COMPUTER_CACHE_DIR"),
        env("XDG_CACHE_HOME"),
        env("HOME"),
        passwd_home,
    )
    .into_iter()
    .chain(std::iter::once_with(private_temp_dir).flatten())
    .find(|dir| crate::cache::usable_dir(dir))
}

/// The cache directories these settings name, best first (without the temp dir);
/// `passwd_home` is asked only when neither `HOME` nor the first two are set.
fn cache_dirs(
    computer_cache_dir: Option<std::ffi::OsString>,
    xdg_cache_home: Option<std::ffi::OsString>,
    home: Option<std::ffi::OsString>,
    passwd_home: impl FnOnce() -> Option<PathBuf>,
) -> Vec<PathBuf> {
    dirs_of(
        [computer_cache_dir, xdg_cache_home, home],
        ".cache",
        "components",
        passwd_home,
    )
}

/// The data directories (of installed runtimes) these settings name, best first, as
/// [`cache_dirs`] does: `$COMPUTER_DATA_DIR/runtimes`, `$XDG_DATA_HOME/computer/runtimes`,
/// `HOME/.local/share/computer/runtimes`.
pub(crate) fn data_dirs(
    computer_data_dir: Option<std::ffi::OsString>,
    xdg_data_home: Option<std::ffi::OsString>,
    home: Option<std::ffi::OsString>,
    passwd_home: impl FnOnce() -> Option<PathBuf>,
) -> Vec<PathBuf> {
    dirs_of(
        [computer_data_dir, xdg_data_home, home],
        ".local/share",
        "runtimes",
        passwd_home,
    )
}

/// `[ours/leaf, xdg/computer/leaf, home/in_home/computer/leaf]` for those set to absolute
/// paths (as the XDG spec says of its variables: a relative or empty value is ignored), the
/// home from `passwd_home` when none is.
fn dirs_of(
    [ours, xdg, home]: [Option<std::ffi::OsString>; 3],
    in_home: &str,
    leaf: &str,
    passwd_home: impl FnOnce() -> Option<PathBuf>,
) -> Vec<PathBuf> {
    let absolute = |v: std::ffi::OsString| Some(PathBuf::from(v)).filter(|p| p.is_absolute());
    let mut dirs = Vec::new();
    if let Some(dir) = ours.and_then(absolute) {
        dirs.push(dir.join(leaf));
    }
    if let Some(dir) = xdg.and_then(absolute) {
        dirs.push(dir.join("computer").join(leaf));
    }
    let home = home.and_then(absolute);
    let unset = dirs.is_empty() && home.is_none();
    if let Some(home) = home.or_else(|| unset.then(passwd_home).flatten()) {
        dirs.push(home.join(in_home).join("computer").join(leaf));
    }
    dirs
}

/// The effective user's home directory in the password database.
pub(crate) fn passwd_home() -> Option<PathBuf> {
    let user = nix::unistd::User::from_uid(nix::unistd::Uid::effective()).ok()??;
    Some(user.dir).filter(|d| d.is_absolute())
}

/// `$TMPDIR/computer-UID/components`, its parent made private to this user, or `None` if
/// someone else got there first.
fn private_temp_dir() -> Option<PathBuf> {
    let uid = nix::unistd::Uid::effective();
    let temp = Some(std::env::temp_dir()).filter(|t| t.is_absolute())?;
    let base = temp.join(format!("computer-{uid}"));
    crate::cache::private_dir(&base).then(|| base.join("components"))
}

/// A compiled component, ready to instantiate.
pub struct Program {
    pub(crate) entry: Entry,
    /// BLAKE3 hash of the wasm it came from.
    pub hash: [u8; 32],
}

/// How a program is run.
pub(crate) enum Entry {
    /// A command component: its `wasi:cli/run` export.
    Command(CommandPre<State>),
    /// A reactor made from a WASI 0.1 module: its `run: func() -> s32` export, whose result
    /// is the exit status.
    Reactor(InstancePre<State>),
}

/// Compiled components kept in memory; past it, those not running are dropped (a guest can
/// make and run components without end).
pub const MAX_PROGRAMS: usize = 64;

/// The native stack a guest may use (deep recursion in a guest stops here with a named
/// error). CPython for WASI needs 8 MiB (its own runner gives it that; with 1 MiB it aborts
/// in deep imports). Guests run on fibers of [`ASYNC_STACK`], not on the caller's stack.
pub(crate) const WASM_STACK: usize = 8 << 20;

/// A guest's fiber stack: its wasm stack and room for the host functions it calls. Only the
/// pages a guest touches are backed by memory.
const ASYNC_STACK: usize = WASM_STACK + (2 << 20);

/// Runs WebAssembly components against workspaces. Create one per process and share it.
pub struct Isolate {
    pub(crate) engine: Engine,
    linker: Linker<State>,
    config: IsolateConfig,
    programs: Mutex<HashMap<[u8; 32], Arc<Program>>>,
    ticker_stop: Arc<AtomicBool>,
    /// Runs in progress (the pooling allocator has room for `max_instances`).
    running: std::sync::atomic::AtomicU32,
}

/// A run's place among the instances alive at once; given back when dropped.
pub(crate) struct Slot<'a>(&'a std::sync::atomic::AtomicU32);

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

impl std::fmt::Debug for Isolate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Isolate")
            .field("config", &self.config)
            .finish()
    }
}

impl Isolate {
    /// A runtime with the given configuration.
    pub fn new(config: IsolateConfig) -> Result<Isolate, IsolateError> {
        let mut c = Config::new();
        c.wasm_component_model(true);
        c.max_wasm_stack(WASM_STACK);
        c.async_stack_size(ASYNC_STACK);
        c.epoch_interruption(true);
        // For profiling guests: `perf` finds the compiled functions' names in /tmp/perf-PID.map.
        if std::env::var_os("COMPUTER_PERFMAP").is_some() {
            c.profiler(wasmtime::ProfilingStrategy::PerfMap);
        }
        if config.pooling {
            let mut pool = PoolingAllocationConfig::default();
            let n = config.max_instances;
            pool.total_component_instances(n)
                .total_core_instances(n * 16)
                .total_memories(n * 2)
                .total_tables(n * 16)
                .max_core_instances_per_component(64)
                .max_memories_per_component(8)
                .max_tables_per_component(64)
                // CPython's instance state (its many functions and globals) is 1.5 MB.
                .max_component_instance_size(4 << 20)
                .max_core_instance_size(8 << 20)
                .table_elements(200_000)
                .max_memory_size(config.max_memory as usize)
                .total_stacks(n)
                // A store's GC heap (exceptions are objects on it) takes a memory's slot.
                .total_gc_heaps(n);
            c.allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
        }
        let engine = Engine::new(&c).map_err(IsolateError::engine)?;
        let linker = linker(&engine).map_err(IsolateError::engine)?;
        let ticker_stop = Arc::new(AtomicBool::new(false));
        {
            let (engine, stop) = (engine.clone(), Arc::clone(&ticker_stop));
            std::thread::Builder::new()
                .name("isolate-epoch".into())
                .spawn(move || {
                    while !stop.load(Ordering::Relaxed) {
                        std::thread::sleep(TICK);
                        engine.increment_epoch();
                    }
                })
                .map_err(|e| IsolateError::Engine(format!("starting the epoch ticker: {e}")))?;
        }
        Ok(Isolate {
            engine,
            linker,
            config,
            programs: Mutex::new(HashMap::new()),
            ticker_stop,
            running: std::sync::atomic::AtomicU32::new(0),
        })
    }

    /// The limit on runs at once.
    pub(crate) fn max_instances(&self) -> u32 {
        self.config.max_instances
    }

    /// A place for one more run, or `None` when `max_instances` are running (with the pooling
    /// allocator, whose slots they are; without it nothing is counted against the limit).
    pub(crate) fn slot(&self) -> Option<Slot<'_>> {
        let n = self.running.fetch_add(1, Ordering::AcqRel);
        let slot = Slot(&self.running);
        (!self.config.pooling || n < self.config.max_instances).then_some(slot)
    }

    /// Compiles a component (or takes it from the memory or disk cache) and links it.
    pub fn load(&self, wasm: &[u8]) -> Result<Arc<Program>, IsolateError> {
        self.load_hashed(wasm, crate::cache::wasm_hash(wasm))
    }

    /// [`Isolate::load`] for a component whose BLAKE3 hash is known already (computed when it
    /// was built, as for the embedded shell): hashing megabytes is a good part of a one-shot
    /// run's start. The hash keys the caches: a wrong one would run another component.
    pub fn load_hashed(&self, wasm: &[u8], hash: [u8; 32]) -> Result<Arc<Program>, IsolateError> {
        if let Some(p) = self.kept(&hash) {
            return Ok(p);
        }
        if !wasm.starts_with(b"\0asm") {
            return Err(IsolateError::InvalidComponent(
                "not a WebAssembly binary (no \\0asm header)".into(),
            ));
        }
        let component = self.compile(wasm, &hash, None)?;
        let pre = self.instantiate_pre(&component)?;
        let pre = CommandPre::new(pre).map_err(|e| {
            IsolateError::Link(if crate::adapt::is_core_module(wasm) {
                format!(
                    "a WASI 0.1 module without `_start` (a reactor, not a command): nothing \
                     to run ({e:#})"
                )
            } else {
                format!("not a command component (it must export wasi:cli/run): {e:#}")
            })
        })?;
        let program = Arc::new(Program {
            entry: Entry::Command(pre),
            hash,
        });
        Ok(self.keep(hash, program))
    }

    /// Loads a WASI 0.1 reactor module (no `_start`) whose own imports and exports `world`
    /// types, and which exports `run: func() -> s32` (a language runtime such as CPython for
    /// WASI): adapted, compiled (or taken from the caches) and linked. `hash` is the BLAKE3
    /// hash of the module, which `wasm` reads only when no cache has it compiled.
    pub fn load_reactor_with(
        &self,
        hash: [u8; 32],
        world: &crate::adapt::ModuleWorld,
        wasm: impl FnOnce() -> Result<Vec<u8>, IsolateError>,
    ) -> Result<Arc<Program>, IsolateError> {
        let key = crate::adapt::world_key(&hash, world);
        if let Some(p) = self.kept(&key) {
            return Ok(p);
        }
        let component = match self.cached(&key) {
            Some(component) => component,
            None => {
                let wasm = wasm()?;
                if !crate::adapt::is_core_module(&wasm) {
                    return Err(IsolateError::InvalidComponent(
                        "not a WebAssembly core module".into(),
                    ));
                }
                self.compile(&wasm, &hash, Some(world))?
            }
        };
        let pre = self.instantiate_pre(&component)?;
        if component.get_export_index(None, "run").is_none() {
            return Err(IsolateError::Link(
                "the module's world exports no `run`".into(),
            ));
        }
        let program = Arc::new(Program {
            entry: Entry::Reactor(pre),
            hash,
        });
        Ok(self.keep(key, program))
    }

    /// The artifact cached on disk under `key`, mapped.
    fn cached(&self, key: &[u8; 32]) -> Option<Component> {
        let dir = self.config.cache_dir.as_ref()?;
        crate::cache::load(
            &self.engine,
            &crate::cache::artifact_path(dir, &self.engine, key),
        )
    }

    /// The program kept in memory under `key`.
    fn kept(&self, key: &[u8; 32]) -> Option<Arc<Program>> {
        let programs = self.programs.lock().unwrap_or_else(|e| e.into_inner());
        programs.get(key).map(Arc::clone)
    }

    /// Keeps `program` in memory under `key` and gives it back.
    fn keep(&self, key: [u8; 32], program: Arc<Program>) -> Arc<Program> {
        let mut programs = self.programs.lock().unwrap_or_else(|e| e.into_inner());
        if programs.len() >= MAX_PROGRAMS {
            // Guests can make components without end: keep the ones in use.
            programs.retain(|_, p| Arc::strong_count(p) > 1);
        }
        programs.insert(key, Arc::clone(&program));
        program
    }

    fn instantiate_pre(&self, component: &Component) -> Result<InstancePre<State>, IsolateError> {
        self.linker
            .instantiate_pre(component)
            .map_err(|e| IsolateError::Link(format!("{e:#}")))
    }

    /// Compiles `wasm` (a component, or a WASI 0.1 core module adapted into one, in `world`
    /// if given), or maps the artifact cached for it.
    fn compile(
        &self,
        wasm: &[u8],
        hash: &[u8; 32],
        world: Option<&crate::adapt::ModuleWorld>,
    ) -> Result<Component, IsolateError> {
        let module = crate::adapt::is_core_module(wasm);
        let key = match world {
            Some(world) => crate::adapt::world_key(hash, world),
            None if module => crate::adapt::artifact_key(hash),
            None => *hash,
        };
        if let Some(component) = self.cached(&key) {
            return Ok(component);
        }
        let adapted;
        let wasm = if module {
            adapted = crate::adapt::component_from_module_in(wasm, world)?;
            &adapted[..]
        } else {
            wasm
        };
        let component = Component::new(&self.engine, wasm)
            .map_err(|e| IsolateError::InvalidComponent(format!("{e:#}")))?;
        if let Some(dir) = &self.config.cache_dir {
            let path = crate::cache::artifact_path(dir, &self.engine, &key);
            // A cache that cannot be written only costs time later.
            let _ = crate::cache::store(dir, &path, &component);
            crate::cache::trim(dir, crate::cache::MAX_CACHE_BYTES);
        }
        Ok(component)
    }

    /// Loads a component from a host file.
    pub fn load_file(&self, path: &std::path::Path) -> Result<Arc<Program>, IsolateError> {
        let wasm = std::fs::read(path)
            .map_err(|e| IsolateError::InvalidComponent(format!("{}: {e}", path.display())))?;
        self.load(&wasm)
    }
}

impl Drop for Isolate {
    fn drop(&mut self) {
        self.ticker_stop.store(true, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_is_found_without_home() {
        let never = || -> Option<PathBuf> { panic!("the password database is not needed") };
        let dirs = cache_dirs(
            Some("/c".into()),
            Some("/x".into()),
            Some("/h".into()),
            never,
        );
        let want = [
            "/c/components",
            "/x/computer/components",
            "/h/.cache/computer/components",
        ];
        assert_eq!(dirs, want.map(PathBuf::from));
        let dirs = cache_dirs(None, Some("rel".into()), Some("/h".into()), never);
        assert_eq!(dirs, [PathBuf::from("/h/.cache/computer/components")]);
        let dirs = cache_dirs(None, None, None, || Some("/home/u".into()));
        assert_eq!(dirs, [PathBuf::from("/home/u/.cache/computer/components")]);
        let dirs = cache_dirs(Some("".into()), Some("".into()), Some("".into()), || {
            Some("/home/u".into())
        });
        assert_eq!(dirs, [PathBuf::from("/home/u/.cache/computer/components")]);
        assert!(cache_dirs(None, None, None, || None).is_empty());
        // This machine's user has an entry (root, in CI), so HOME unset still caches.
        assert!(passwd_home().is_some_and(|h| h.is_absolute()));
        // And with no home at all, the temp dir serves.
        let temp = private_temp_dir().expect("a private temp dir");
        assert!(temp.starts_with(std::env::temp_dir()));
    }
}
