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
//! inside the workspace (it is the guest's whole filesystem). `/dev/null`, `/dev/zero`,
//! `/dev/random` and `/dev/urandom` are provided (reads of the last two give the host's random
//! bytes).
//!
//! Layers: read-only file trees of the host's own (a language runtime's standard library,
//! shared by every workspace) can be given to a guest as further preopened directories at
//! fixed paths ([`Layer`], [`WasiFsCtx::with_layers`]). Each is a `Vfs` of its own; a
//! descriptor knows which it belongs to, so paths, `..` and symlinks stay inside it, a change
//! through it fails with `read-only` (EROFS), and a link or rename between it and the
//! workspace with `cross-device`.

#[allow(missing_docs)] // generated
pub mod bindings;
pub mod descriptor;
pub mod error;
mod host;
mod recent;

use std::sync::Arc;

use computer_vfs::Vfs;
use wasmtime::component::{HasData, Linker, ResourceTable};

pub use error::{FsError, FsResult, error_code};
pub use host::descriptor_type;

/// The name the guest sees for its one preopened directory.
pub const ROOT_PREOPEN: &str = "/";

/// A read-only tree the guest sees at `path` (an absolute path other than `/`, such as
/// `/usr/local`), beside the workspace.
#[derive(Debug, Clone)]
pub struct Layer {
    /// Where the guest sees it.
    pub path: String,
    /// What it holds (opened read-only or not, nothing in it can be changed through WASI).
    pub vfs: Arc<Vfs>,
}

/// The filesystem a store's guest sees.
#[derive(Debug)]
pub struct WasiFsCtx {
    /// The workspace.
    pub vfs: Arc<Vfs>,
    /// Read-only layers, preopened after the workspace (descriptors name them by index + 1).
    pub(crate) layers: Vec<Layer>,
    /// What the guest just listed or stat'ed, for `metadata-hash-at`.
    pub(crate) recent: std::sync::Mutex<recent::Recent>,
}

impl WasiFsCtx {
    /// The filesystem of `vfs`.
    pub fn new(vfs: Arc<Vfs>) -> WasiFsCtx {
        WasiFsCtx {
            vfs,
            layers: Vec::new(),
            recent: Default::default(),
        }
    }

    /// The filesystem of `vfs` with read-only `layers` beside it. A layer's path must be
    /// absolute, plain (no `.`, `..` or empty parts) and not `/`; one path is given once.
    pub fn with_layers(vfs: Arc<Vfs>, layers: Vec<Layer>) -> Result<WasiFsCtx, String> {
        for (i, layer) in layers.iter().enumerate() {
            let parts: Vec<&str> = layer.path.split('/').collect();
            let plain = parts.len() >= 2
                && parts[0].is_empty()
                && parts[1..]
                    .iter()
                    .all(|p| !p.is_empty() && *p != "." && *p != "..");
            if !plain {
                return Err(format!(
                    "a layer's path must be absolute and plain, not `/`: {:?}",
                    layer.path
                ));
            }
            if layers[..i].iter().any(|l| l.path == layer.path) {
                return Err(format!("two layers at {}", layer.path));
            }
        }
        Ok(WasiFsCtx {
            layers,
            ..WasiFsCtx::new(vfs)
        })
    }

    /// Whether the guest's absolute `path` may lie at or below a layer (the guest's
    /// `wasi:filesystem` reaches the layer there, not the workspace). Any `..` counts as
    /// may: the caller then goes through `wasi:filesystem`, which knows.
    pub fn reaches_layer(&self, path: &str) -> bool {
        let parts = || path.split('/').filter(|p| !p.is_empty() && *p != ".");
        if parts().any(|p| p == "..") {
            return !self.layers.is_empty();
        }
        self.layers.iter().any(|layer| {
            let mut within = parts();
            layer
                .path
                .split('/')
                .filter(|p| !p.is_empty())
                .all(|l| within.next() == Some(l))
        })
    }

    /// Forgets what the guest last listed and stat'ed: a change made outside
    /// `wasi:filesystem` (the workspace interface) may have removed it.
    pub fn forget_recent(&self) {
        self.recent
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_reaches_a_layer_however_it_is_spelled() {
        let vfs = Arc::new(Vfs::in_memory().unwrap());
        let layer = Layer {
            path: "/usr/local".into(),
            vfs: Arc::clone(&vfs),
        };
        let ctx = WasiFsCtx::with_layers(Arc::clone(&vfs), vec![layer]).unwrap();
        for at in [
            "/usr/local",
            "/usr/local/",
            "/usr/local/lib",
            "//usr/./local//lib",
            "/w/../usr/local/lib",
            "/usr/..",
        ] {
            assert!(ctx.reaches_layer(at), "{at}");
        }
        for beside in ["/", "/usr", "/usr/localx", "/usr/lib/local", "/w"] {
            assert!(!ctx.reaches_layer(beside), "{beside}");
        }
        // Without layers nothing does, `..` or not.
        assert!(!WasiFsCtx::new(vfs).reaches_layer("/w/../usr/local"));
    }
}
