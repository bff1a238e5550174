//! `wasi:filesystem` conformance: each program runs on our VFS host and, as the oracle, on
//! wasmtime-wasi's own cap-std filesystem over a real directory. Their outputs must be equal.
//! The same programs built for wasm32-wasip1 (core modules) run through the preview 1 adapter
//! on both, and must print what the wasip2 build prints.

use std::sync::OnceLock;

use wasmtime::component::{Component, Linker, ResourceTable};
use wasmtime::{Config, Engine, Store};
use wasmtime_wasi::p2::bindings::Command;
use wasmtime_wasi::p2::pipe::MemoryOutputPipe;
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

use crate::{run, text};

struct Oracle {
    ctx: WasiCtx,
    table: ResourceTable,
}

impl WasiView for Oracle {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.ctx,
            table: &mut self.table,
        }
    }
}

fn oracle_engine() -> &'static Engine {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    ENGINE.get_or_init(|| Engine::new(&Config::new()).unwrap())
}

/// Runs `wasm BASE` with a real temporary directory preopened as `/`; returns stdout.
fn run_oracle(wasm: &[u8], base: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let engine = oracle_engine();
    let adapted;
    let wasm = if wasm.get(4..8) == Some(&[1, 0, 0, 0]) {
        adapted = computer_isolate::component_from_module(wasm).unwrap();
        &adapted[..]
    } else {
        wasm
    };
    let component = Component::new(engine, wasm).unwrap();
    let mut linker: Linker<Oracle> = Linker::new(engine);
    wasmtime_wasi::p2::add_to_linker_async(&mut linker).unwrap();
    let stdout = MemoryOutputPipe::new(1 << 20);
    let mut b = WasiCtx::builder();
    b.args(&["guest", base])
        .stdout(stdout.clone())
        .preopened_dir(
            dir.path(),
            "/",
            wasmtime_wasi::filesystem::FsPerms::ReadWrite,
        )
        .unwrap();
    let mut store = Store::new(
        engine,
        Oracle {
            ctx: b.build(),
            table: ResourceTable::new(),
        },
    );
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let cmd = Command::instantiate_async(&mut store, &component, &linker)
            .await
            .unwrap();
        let _ = cmd.wasi_cli_run().call_run(&mut store).await;
    });
    text(&stdout.contents())
}

/// Runs `wasm` on our host and on the oracle; returns the output, which must be the same.
fn conforms(wasm: &[u8]) -> String {
    let (_, ours) = run(wasm, &["/workspace/case"]);
    let oracle = run_oracle(wasm, "/case");
    assert_eq!(
        ours.status,
        computer_isolate::RunStatus::Exited(0),
        "{}",
        text(&ours.stderr)
    );
    let ours = text(&ours.stdout);
    assert!(!ours.is_empty());
    if ours != oracle {
        let diff: Vec<String> = ours
            .lines()
            .zip(oracle.lines())
            .filter(|(a, b)| a != b)
            .map(|(a, b)| format!("  ours:   {a}\n  oracle: {b}"))
            .collect();
        panic!(
            "differs from wasmtime-wasi on a real directory:\n{}\n--- ours\n{ours}--- oracle\n{oracle}",
            diff.join("\n")
        );
    }
    ours
}

/// Where the preview 1 adapter answers otherwise than WASI 0.2 does, on every host (the oracle
/// agrees): reading a directory's descriptor gives EBADF (Rust's `Uncategorized`), not EISDIR.
const ADAPTER_DIFFERS: &[(&str, &str)] = &[(
    "read a directory: err IsADirectory",
    "read a directory: err Uncategorized",
)];

/// [`conforms`] for the wasip1 build of a program, whose output must also be the wasip2
/// build's, but for [`ADAPTER_DIFFERS`].
fn conforms_as_wasip1(p1: &[u8], p2: &[u8]) {
    let ours = conforms(p1);
    let (_, p2_out) = run(p2, &["/workspace/case"]);
    let mut want = text(&p2_out.stdout);
    for (p2_line, p1_line) in ADAPTER_DIFFERS {
        want = want.replace(p2_line, p1_line);
    }
    assert_eq!(ours, want, "the wasip1 build prints otherwise");
}

#[test]
pub fn fs_create_read() {
    conforms(computer_components::FS_CREATE_READ);
}

#[test]
fn fs_create_read_wasip1() {
    use computer_components::{FS_CREATE_READ, FS_CREATE_READ_P1};
    conforms_as_wasip1(FS_CREATE_READ_P1, FS_CREATE_READ);
}

#[test]
pub fn fs_offsets() {
    conforms(computer_components::FS_OFFSETS);
}

#[test]
fn fs_offsets_wasip1() {
    use computer_components::{FS_OFFSETS, FS_OFFSETS_P1};
    conforms_as_wasip1(FS_OFFSETS_P1, FS_OFFSETS);
}

#[test]
pub fn fs_rename() {
    conforms(computer_components::FS_RENAME);
}

#[test]
fn fs_rename_wasip1() {
    use computer_components::{FS_RENAME, FS_RENAME_P1};
    conforms_as_wasip1(FS_RENAME_P1, FS_RENAME);
}

#[test]
pub fn fs_links() {
    conforms(computer_components::FS_LINKS);
}

#[test]
fn fs_links_wasip1() {
    use computer_components::{FS_LINKS, FS_LINKS_P1};
    conforms_as_wasip1(FS_LINKS_P1, FS_LINKS);
}

#[test]
pub fn fs_readdir() {
    conforms(computer_components::FS_READDIR);
}

#[test]
fn fs_readdir_wasip1() {
    use computer_components::{FS_READDIR, FS_READDIR_P1};
    conforms_as_wasip1(FS_READDIR_P1, FS_READDIR);
}

#[test]
pub fn fs_metadata() {
    conforms(computer_components::FS_METADATA);
}

#[test]
fn fs_metadata_wasip1() {
    use computer_components::{FS_METADATA, FS_METADATA_P1};
    conforms_as_wasip1(FS_METADATA_P1, FS_METADATA);
}
