//! `computer-wasi`: the standard `wasi:filesystem` 0.2 interface implemented over the
//! workspace VFS, so that any WASI component (Rust std, Python, C) sees the workspace as its
//! own filesystem, with `/` as its one preopened directory.
//!
//! # Architecture
//! wasmtime-wasi's filesystem is tied to cap-std and cannot sit on SQLite, so [`bindings`]
//! runs `bindgen!` over the vendored WASI WIT itself, reusing wasmtime-wasi's `wasi:io` and
//! `wasi:clocks` types (streams share one `ResourceTable` with the rest of WASI), and maps the
//! `descriptor` and `directory-entry-stream` resources to [`descriptor::Descriptor`] and
//! [`descriptor::DirStream`]. The trait implementations stay thin: rights checks, path joining,
//! one VFS call; errors go through the VFS's one errno mapping ([`error::error_code`]).
//!
//! Following wasmtime-wasi's shape: a context ([`WasiFsCtx`]), a borrowed view
//! ([`WasiFsCtxView`]) that the host traits are implemented on, a view trait the store data
//! implements ([`WasiFsView`]), and a `HasData` marker ([`WasiFs`]).
//!
//! Paths: the guest's `..` is resolved by the VFS and stops at `/`; absolute symlinks resolve
//! inside the workspace (it is the guest's whole filesystem). `/dev/null` is provided.

#[allow(missing_docs)] // generated
pub mod bindings;
pub mod descriptor;
pub mod error;
mod host;

use std::sync::Arc;

use computer_vfs::Vfs;
use wasmtime::component::{HasData, Linker, ResourceTable};

pub use error::{FsError, FsResult, error_code};

/// The name the guest sees for its one preopened directory.
pub const ROOT_PREOPEN: &str = "/";

/// The filesystem a store's guest sees.
#[derive(Debug)]
pub struct WasiFsCtx {
    /// The workspace.
    pub vfs: Arc<Vfs>,
    /// Inode numbers of entries the guest just listed or stat'ed, keyed by (directory inode,
    /// path, follow). wasi-libc asks `metadata-hash-at` right after `stat-at` and for every
    /// `read_dir` entry; this answers those without another transaction. Any change the guest
    /// makes clears it; a concurrent change elsewhere can make a number stale, the same race
    /// `d_ino` has on POSIX.
    pub(crate) recent: std::sync::Mutex<std::collections::HashMap<(u64, String, bool), u64>>,
}

impl WasiFsCtx {
    /// The filesystem of `vfs`.
    pub fn new(vfs: Arc<Vfs>) -> WasiFsCtx {
        WasiFsCtx {
            vfs,
            recent: Default::default(),
        }
    }
}

/// What the host traits are implemented on: the context and the store's resource table
/// (the same table wasmtime-wasi's streams live in).
pub struct WasiFsCtxView<'a> {
    /// The context.
    pub ctx: &'a WasiFsCtx,
    /// The store's resource table.
    pub table: &'a mut ResourceTable,
}

/// Implemented by store data that offers the workspace filesystem.
pub trait WasiFsView: Send {
    /// A view of the context and the resource table.
    fn fs(&mut self) -> WasiFsCtxView<'_>;
}

/// The `HasData` marker for [`add_to_linker`].
pub struct WasiFs;

impl HasData for WasiFs {
    type Data<'a> = WasiFsCtxView<'a>;
}

/// Adds `wasi:filesystem/types` and `wasi:filesystem/preopens` to a linker.
pub fn add_to_linker<T: WasiFsView + 'static>(linker: &mut Linker<T>) -> wasmtime::Result<()> {
    bindings::wasi::filesystem::types::add_to_linker::<T, WasiFs>(linker, T::fs)?;
    bindings::wasi::filesystem::preopens::add_to_linker::<T, WasiFs>(linker, T::fs)?;
    Ok(())
}
