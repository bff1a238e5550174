//! The data of one store (one execution) and the linker that serves it: wasmtime-wasi for cli,
//! clocks, random, io and sockets (no network is granted), our filesystem over the VFS, and
//! our own interfaces. All share one `ResourceTable`.

use std::sync::Arc;

use computer_wasi::{WasiFsCtx, WasiFsCtxView, WasiFsView};
use wasmtime::Engine;
use wasmtime::component::{HasSelf, Linker, ResourceTable};
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

use crate::limits::MemoryLimiter;
use computer_exec::{CancelToken, Deadline, ExecHandler};

/// What our own interfaces need.
pub(crate) struct HostCtx {
    pub(crate) exec: Arc<dyn ExecHandler>,
    pub(crate) git: Arc<dyn crate::git::GitHandler>,
    /// The workspace's network egress, if the guest may have any.
    pub(crate) network: Option<computer_net::Egress>,
    /// HTTP requests made so far (bounded by [`crate::http::MAX_REQUESTS`]).
    pub(crate) requests: u32,
    /// The environment the guest started with (for the typed git calls).
    pub(crate) env: Vec<(String, String)>,
    pub(crate) cancel: CancelToken,
    pub(crate) deadline: Deadline,
    pub(crate) output_limit: u64,
}

/// The data of one store.
pub struct State {
    pub(crate) wasi: WasiCtx,
    pub(crate) table: ResourceTable,
    pub(crate) fs: WasiFsCtx,
    pub(crate) limiter: MemoryLimiter,
    pub(crate) host: HostCtx,
}

impl State {
    /// Before a host call that may block for long (a nested command, git, a request): the
    /// workspace's read transaction held between the guest's reads is let go, as at every
    /// tick, so that the wait never keeps other connections' checkpoints back.
    pub(crate) fn before_blocking(&self) {
        self.fs.vfs.release_reads();
    }
}

impl WasiView for State {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}

impl wasmtime_wasi_io::IoView for State {
    fn table(&mut self) -> &mut ResourceTable {
        &mut self.table
    }
}

impl WasiFsView for State {
    fn fs(&mut self) -> WasiFsCtxView<'_> {
        WasiFsCtxView {
            ctx: &self.fs,
            table: &mut self.table,
        }
    }
}

/// The linker for every component we run.
pub(crate) fn linker(engine: &Engine) -> wasmtime::Result<Linker<State>> {
    use wasmtime_wasi::cli::{WasiCli, WasiCliView as _};
    use wasmtime_wasi::clocks::{WasiClocks, WasiClocksView as _};
    use wasmtime_wasi::p2::bindings::{cli, clocks, random, sockets};
    use wasmtime_wasi::random::WasiRandom;
    use wasmtime_wasi::sockets::{WasiSockets, WasiSocketsView as _};

    let mut l = Linker::<State>::new(engine);
    wasmtime_wasi_io::add_to_linker_async(&mut l)?;
    clocks::wall_clock::add_to_linker::<State, WasiClocks>(&mut l, State::clocks)?;
    clocks::monotonic_clock::add_to_linker::<State, WasiClocks>(&mut l, State::clocks)?;
    random::random::add_to_linker::<State, WasiRandom>(&mut l, |s| s.wasi.random())?;
    random::insecure::add_to_linker::<State, WasiRandom>(&mut l, |s| s.wasi.random())?;
    random::insecure_seed::add_to_linker::<State, WasiRandom>(&mut l, |s| s.wasi.random())?;
    cli::exit::add_to_linker::<State, WasiCli>(&mut l, State::cli)?;
    cli::environment::add_to_linker::<State, WasiCli>(&mut l, State::cli)?;
    cli::stdin::add_to_linker::<State, WasiCli>(&mut l, State::cli)?;
    cli::stdout::add_to_linker::<State, WasiCli>(&mut l, State::cli)?;
    cli::stderr::add_to_linker::<State, WasiCli>(&mut l, State::cli)?;
    cli::terminal_input::add_to_linker::<State, WasiCli>(&mut l, State::cli)?;
    cli::terminal_output::add_to_linker::<State, WasiCli>(&mut l, State::cli)?;
    cli::terminal_stdin::add_to_linker::<State, WasiCli>(&mut l, State::cli)?;
    cli::terminal_stdout::add_to_linker::<State, WasiCli>(&mut l, State::cli)?;
    cli::terminal_stderr::add_to_linker::<State, WasiCli>(&mut l, State::cli)?;
    sockets::tcp_create_socket::add_to_linker::<State, WasiSockets>(&mut l, State::sockets)?;
    sockets::instance_network::add_to_linker::<State, WasiSockets>(&mut l, State::sockets)?;
    sockets::network::add_to_linker::<State, WasiSockets>(
        &mut l,
        &Default::default(),
        State::sockets,
    )?;
    sockets::ip_name_lookup::add_to_linker::<State, WasiSockets>(&mut l, State::sockets)?;
    sockets::tcp::add_to_linker::<State, WasiSockets>(&mut l, State::sockets)?;
    sockets::udp::add_to_linker::<State, WasiSockets>(&mut l, State::sockets)?;
    sockets::udp_create_socket::add_to_linker::<State, WasiSockets>(&mut l, State::sockets)?;
    computer_wasi::add_to_linker(&mut l)?;
    use crate::bindings::computer::host::{exec, git, http, process, workspace};
    process::add_to_linker::<State, HasSelf<State>>(&mut l, |s| s)?;
    exec::add_to_linker::<State, HasSelf<State>>(&mut l, |s| s)?;
    git::add_to_linker::<State, HasSelf<State>>(&mut l, |s| s)?;
    http::add_to_linker::<State, HasSelf<State>>(&mut l, |s| s)?;
    workspace::add_to_linker::<State, HasSelf<State>>(&mut l, |s| s)?;
    // The one import of CPython for WASI beyond WASI, bridged (see `door.rs`).
    l.instance("door")?.func_wrap(
        "call",
        |mut store: wasmtime::StoreContextMut<'_, State>, (frame,): (Vec<u8>,)| {
            Ok((crate::python_net::answer(store.data_mut(), &frame),))
        },
    )?;
    Ok(l)
}
