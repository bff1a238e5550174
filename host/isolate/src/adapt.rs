//! WASI 0.1 (preview 1) core modules made into components, so that what `wasm32-wasip1`
//! toolchains emit (C with wasi-libc, Rust, Zig, TinyGo...) runs over our `wasi:filesystem`
//! like any component. The adapter is the one of the wasmtime release we run
//! (`wasi-preview1-component-adapter-provider`): it implements every preview 1 function on
//! the preview 2 interfaces the linker already provides, and `wit-component` joins the two.

use wasi_preview1_component_adapter_provider::{
    WASI_SNAPSHOT_PREVIEW1_ADAPTER_NAME, WASI_SNAPSHOT_PREVIEW1_COMMAND_ADAPTER,
    WASI_SNAPSHOT_PREVIEW1_REACTOR_ADAPTER,
};

use crate::error::IsolateError;

/// Whether `wasm` is a core module (version 1) rather than a component.
pub(crate) fn is_core_module(wasm: &[u8]) -> bool {
    wasm.starts_with(b"\0asm") && wasm.get(4..8) == Some(&[1, 0, 0, 0])
}

/// The cache key of the component made from the module whose hash is `module_hash`: the
/// adapter is part of what is compiled, so it is part of the key.
pub(crate) fn artifact_key(module_hash: &[u8; 32]) -> [u8; 32] {
    let mut h = blake3::Hasher::new();
    h.update(b"wasip1 module, proc_exit routed to exit-with-code, adapted by ");
    h.update(blake3::hash(WASI_SNAPSHOT_PREVIEW1_COMMAND_ADAPTER).as_bytes());
    h.update(module_hash);
    h.finalize().into()
}

/// The world of a WASI 0.1 module's own imports and exports beyond WASI (a runtime's host
/// function, its `run` export), in WIT: `wit-component` needs it to type them.
#[derive(Debug, Clone, Copy)]
pub struct ModuleWorld {
    /// The WIT source: one package holding the world.
    pub wit: &'static str,
    /// The world's name in it.
    pub world: &'static str,
    /// A rewrite of the module that makes its imports fit the world (such as the Python
    /// runtime's door, [`crate::door`]), and a name that changes with what it writes (part
    /// of the compiled artifact's key).
    pub prepare: Option<(&'static str, Rewrite)>,
}

/// A rewrite of a core module: the new module, or why it cannot be rewritten.
pub type Rewrite = fn(&[u8]) -> Result<Vec<u8>, String>;

/// The cache key of the component made from the module `module_hash` in `world`.
pub(crate) fn world_key(module_hash: &[u8; 32], world: &ModuleWorld) -> [u8; 32] {
    let mut h = blake3::Hasher::new();
    h.update(&artifact_key(module_hash));
    h.update(world.world.as_bytes());
    h.update(&[0]);
    h.update(world.wit.as_bytes());
    if let Some((version, _)) = world.prepare {
        h.update(&[0]);
        h.update(version.as_bytes());
    }
    h.finalize().into()
}

/// Makes a component of a WASI 0.1 core module: a command (it exports `_start`) gets the
/// command adapter and exports `wasi:cli/run`; anything else the reactor adapter.
///
/// A module that imports anything beyond `wasi_snapshot_preview1` fails here, naming the
/// import: nothing on the host answers it.
pub fn component_from_module(module: &[u8]) -> Result<Vec<u8>, IsolateError> {
    component_from_module_in(module, None)
}

/// [`component_from_module`] for a module whose other imports and exports `world` types.
pub fn component_from_module_in(
    module: &[u8],
    world: Option<&ModuleWorld>,
) -> Result<Vec<u8>, IsolateError> {
    let invalid = |e: String| IsolateError::InvalidComponent(e);
    let adapter = if exports_start(module)? {
        WASI_SNAPSHOT_PREVIEW1_COMMAND_ADAPTER
    } else {
        WASI_SNAPSHOT_PREVIEW1_REACTOR_ADAPTER
    };
    // The module may come from a guest (a `.wasm` file in the workspace): a panic in the
    // encoder on crafted input must fail this load, not the host.
    std::panic::catch_unwind(|| {
        let mut module = exit_with_code(module).map_err(invalid)?;
        if let Some((_, prepare)) = world.and_then(|w| w.prepare) {
            module = prepare(&module).map_err(invalid)?;
        }
        if let Some(world) = world {
            embed_world(&mut module, "world.wit", world.wit, world.world).map_err(invalid)?;
        }
        wit_component::ComponentEncoder::default()
            .validate(true)
            .module(&module)
            .and_then(|e| e.adapter(WASI_SNAPSHOT_PREVIEW1_ADAPTER_NAME, adapter))
            .and_then(|mut e| e.encode())
            .map_err(|e| {
                IsolateError::InvalidComponent(format!(
                    "a WASI 0.1 module that cannot be adapted: {e:#}"
                ))
            })
    })
    .unwrap_or_else(|_| {
        Err(IsolateError::InvalidComponent(
            "a WASI 0.1 module that cannot be adapted: the adapter failed on it".into(),
        ))
    })
}

/// Whether the module exports a function named `_start` (a command, as wasi-libc's
/// `crt1-command.o` and Rust's `bin` targets make).
fn exports_start(module: &[u8]) -> Result<bool, IsolateError> {
    for payload in wasmparser::Parser::new(0).parse_all(module) {
        let payload = payload.map_err(|e| IsolateError::InvalidComponent(e.to_string()))?;
        if let wasmparser::Payload::ExportSection(exports) = payload {
            for export in exports {
                let export = export.map_err(|e| IsolateError::InvalidComponent(e.to_string()))?;
                if export.name == "_start" && export.kind == wasmparser::ExternalKind::Func {
                    return Ok(true);
                }
            }
        }
    }
    Ok(false)
}

/// The interface `proc_exit` is routed to, and the world that imports it.
const EXIT_WIT: &str = r#"
package wasi:cli@0.2.12;

@since(version = 0.2.0)
interface exit {
  @since(version = 0.2.0)
  exit: func(status: result);
  @since(version = 0.2.12)
  exit-with-code: func(status-code: u8);
}

world proc-exit {
  import exit;
}
"#;
const EXIT_INTERFACE: &str = "wasi:cli/exit@0.2.12";

/// `module` with its import of `wasi_snapshot_preview1.proc_exit` taken by
/// `wasi:cli/exit.exit-with-code` instead of the adapter, whose `proc_exit` keeps only
/// success or failure (`exit(3)` would reach the host as 1). Both take one `i32`, and the
/// canonical ABI keeps its low 8 bits, as POSIX does of an exit status. Only the import
/// section is rewritten (import indices stay), and the world naming the interface is
/// embedded for `wit-component`.
fn exit_with_code(module: &[u8]) -> Result<Vec<u8>, String> {
    use wasm_encoder::Section;
    use wasm_encoder::reencode::{Reencode, RoundtripReencoder};

    let mut section = None;
    for payload in wasmparser::Parser::new(0).parse_all(module) {
        match payload.map_err(|e| e.to_string())? {
            wasmparser::Payload::ImportSection(reader) => {
                section = Some(reader);
                break;
            }
            // Imports come before code: none were found.
            wasmparser::Payload::CodeSectionStart { .. } => break,
            _ => {}
        }
    }
    let Some(reader) = section else {
        return Ok(module.to_vec());
    };
    let content = reader.range();
    let mut imports = wasm_encoder::ImportSection::new();
    let mut routed = false;
    for import in reader.into_imports() {
        let import = import.map_err(|e| e.to_string())?;
        let (from, name) = match (import.module, import.name) {
            ("wasi_snapshot_preview1", "proc_exit") => {
                routed = true;
                (EXIT_INTERFACE, "exit-with-code")
            }
            other => other,
        };
        let ty = RoundtripReencoder
            .entity_type(import.ty)
            .map_err(|e| e.to_string())?;
        imports.import(from, name, ty);
    }
    if !routed {
        return Ok(module.to_vec());
    }
    let start = section_start(module, content.clone()).ok_or("a malformed import section")?;
    let mut out = Vec::with_capacity(module.len() + 512);
    out.extend_from_slice(&module[..start]);
    imports.append_to(&mut out);
    out.extend_from_slice(&module[content.end..]);
    embed_world(&mut out, "proc-exit.wit", EXIT_WIT, "proc-exit")?;
    Ok(out)
}

/// Appends the world `world` of `wit` to `module` as a `component-type` section (several
/// are merged by `wit-component`).
fn embed_world(module: &mut Vec<u8>, file: &str, wit: &str, world: &str) -> Result<(), String> {
    let mut resolve = wit_parser::Resolve::default();
    let package = resolve
        .push_source(file, wit)
        .map_err(|e| format!("{e:#}"))?;
    let world = resolve
        .select_world(&[package], Some(world))
        .map_err(|e| format!("{e:#}"))?;
    wit_component::embed_component_metadata(
        module,
        &resolve,
        world,
        wit_component::StringEncoding::UTF8,
    )
    .map_err(|e| format!("{e:#}"))
}

/// Where the section whose content is `content` starts: its id byte, then its size in LEB128
/// (which may be padded, so it is read back rather than assumed).
fn section_start(module: &[u8], content: std::ops::Range<usize>) -> Option<usize> {
    let size = content.end - content.start;
    (content.start.saturating_sub(6)..content.start.saturating_sub(1)).find(|&at| {
        let mut reader = wasmparser::BinaryReader::new(&module[at + 1..content.start], 0);
        module[at] == 2 && reader.read_var_u32().ok() == u32::try_from(size).ok() && reader.eof()
    })
}
