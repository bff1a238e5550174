//! The runtime: one wasmtime `Engine` per process (pooling allocator, epoch interruption), a
//! linker, compiled components kept in memory and on disk, and the ticker that drives
//! timeouts.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use wasmtime::component::{Component, Linker};
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
    // As the XDG spec says of its variables: a relative (or empty) value is ignored.
    let absolute = |v: std::ffi::OsString| Some(PathBuf::from(v)).filter(|p| p.is_absolute());
    let mut dirs = Vec::new();
    if let Some(dir) = computer_cache_dir.and_then(absolute) {
        dirs.push(dir.join("components"));
    }
    if let Some(dir) = xdg_cache_home.and_then(absolute) {
        dirs.push(dir.join("computer").join("components"));
    }
    let home = home.and_then(absolute);
    let unset = dirs.is_empty() && home.is_none();
    if let Some(home) = home.or_else(|| unset.then(passwd_home).flatten()) {
        dirs.push(home.join(".cache").join("computer").join("components"));
    }
    dirs
}

/// The effective user's home directory in the password database.
fn passwd_home() -> Option<PathBuf> {
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
    pub(crate) pre: CommandPre<State>,
    /// BLAKE3 hash of the wasm it came from.
    pub hash: [u8; 32],
}

/// Compiled components kept in memory; past it, those not running are dropped (a guest can
/// make and run components without end).
pub const MAX_PROGRAMS: usize = 64;

/// The native stack a guest may use (deep recursion in a guest stops here with a named
/// error). Guests run on the caller's thread, so this must fit in the 2 MiB that Rust gives
/// spawned threads, with room for the host's own frames.
pub(crate) const WASM_STACK: usize = 1 << 20;

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
        c.epoch_interruption(true);
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
                .max_component_instance_size(1 << 20)
                .max_core_instance_size(8 << 20)
                .table_elements(200_000)
                .max_memory_size(config.max_memory as usize)
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
        if let Some(p) = self
            .programs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&hash)
        {
            return Ok(Arc::clone(p));
        }
        if !wasm.starts_with(b"\0asm") {
            return Err(IsolateError::InvalidComponent(
                "not a WebAssembly binary (no \\0asm header)".into(),
            ));
        }
        let component = self.compile(wasm, &hash)?;
        let pre = self
            .linker
            .instantiate_pre(&component)
            .map_err(|e| IsolateError::Link(format!("{e:#}")))?;
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
        let program = Arc::new(Program { pre, hash });
        let mut programs = self.programs.lock().unwrap_or_else(|e| e.into_inner());
        if programs.len() >= MAX_PROGRAMS {
            // Guests can make components without end: keep the ones in use.
            programs.retain(|_, p| Arc::strong_count(p) > 1);
        }
        programs.insert(hash, Arc::clone(&program));
        Ok(program)
    }

    /// Compiles `wasm` (a component, or a WASI 0.1 core module adapted into one), or maps
    /// the artifact cached for it.
    fn compile(&self, wasm: &[u8], hash: &[u8; 32]) -> Result<Component, IsolateError> {
        let module = crate::adapt::is_core_module(wasm);
        let key = if module {
            crate::adapt::artifact_key(hash)
        } else {
            *hash
        };
        let cached = self
            .config
            .cache_dir
            .as_ref()
            .map(|dir| (dir, crate::cache::artifact_path(dir, &self.engine, &key)));
        if let Some((_, path)) = &cached
            && let Some(component) = crate::cache::load(&self.engine, path)
        {
            return Ok(component);
        }
        let adapted;
        let wasm = if module {
            adapted = crate::adapt::component_from_module(wasm)?;
            &adapted[..]
        } else {
            wasm
        };
        let component = Component::new(&self.engine, wasm)
            .map_err(|e| IsolateError::InvalidComponent(format!("{e:#}")))?;
        if let Some((dir, path)) = cached {
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
