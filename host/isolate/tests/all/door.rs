//! The Python runtime's door (`host.call`), bridged to a component import, on small modules
//! of the runtime's shape built here: a request in the guest's memory reaches the host, the
//! answer is written into memory the guest's `host_alloc` gives, through a direct call and
//! through a table; a frame that is not the host's is answered `-1`; a request pointer past
//! the guest's memory traps the guest, not the host.

use std::sync::Arc;

use computer_isolate::{RunRequest, RunStatus};
use computer_vfs::Vfs;
use wasm_encoder::{
    CodeSection, ConstExpr, DataSection, ElementSection, Elements, EntityType, ExportKind,
    ExportSection, Function, FunctionSection, GlobalSection, GlobalType, ImportSection,
    Instruction, MemArg, MemorySection, MemoryType, Module, RefType, TableSection, TableType,
    TypeSection, ValType,
};

use crate::{isolate, text};

/// Where the frames are in the module's memory.
const HTTP_FRAME_AT: i32 = 100;
const OTHER_FRAME_AT: i32 = 400;
const HTTP_FRAME: &[u8] = b"{\"op\":\"http\",\"method\":\"GET\",\"url\":\"http://127.0.0.1:9/\"}\n";

/// A reactor of the runtime's shape (`host.call`, `host_alloc`, `memory`, `run`) whose `run`
/// sends `HTTP_FRAME` through the door by a direct call (its index padded, as linkers write) (its answer written to stdout; 10 if
/// the door failed), then a frame that is no request (`x`) through a table, and returns 20
/// plus what the door answered that. With `past_memory`, the first request's length runs past
/// the end of memory.
fn door_module(past_memory: bool) -> Vec<u8> {
    use Instruction::*;
    let mem = |offset| MemArg {
        offset,
        align: 2,
        memory_index: 0,
    };
    let mut types = TypeSection::new();
    types.ty().function([ValType::I32; 4], [ValType::I32]); // 0: host.call, fd_write
    types.ty().function([ValType::I32], [ValType::I32]); // 1: host_alloc
    types.ty().function([], [ValType::I32]); // 2: run
    let mut imports = ImportSection::new();
    imports.import(
        "wasi_snapshot_preview1",
        "fd_write",
        EntityType::Function(0),
    );
    imports.import("host", "call", EntityType::Function(0));
    let mut functions = FunctionSection::new();
    functions.function(1).function(2);
    let mut tables = TableSection::new();
    tables.table(TableType {
        element_type: RefType::FUNCREF,
        table64: false,
        minimum: 1,
        maximum: Some(1),
        shared: false,
    });
    let mut memories = MemorySection::new();
    memories.memory(MemoryType {
        minimum: 1,
        maximum: None,
        memory64: false,
        shared: false,
        page_size_log2: None,
    });
    let mut globals = GlobalSection::new();
    globals.global(
        GlobalType {
            val_type: ValType::I32,
            mutable: true,
            shared: false,
        },
        &ConstExpr::i32_const(4096),
    );
    let mut exports = ExportSection::new();
    exports.export("memory", ExportKind::Memory, 0);
    exports.export("host_alloc", ExportKind::Func, 2);
    exports.export("run", ExportKind::Func, 3);
    let mut elements = ElementSection::new();
    elements.active(
        Some(0),
        &ConstExpr::i32_const(0),
        Elements::Functions(std::borrow::Cow::Borrowed(&[1])),
    );
    let mut code = CodeSection::new();
    // host_alloc: a bump allocator from 4096.
    let mut alloc = Function::new([]);
    for i in [
        GlobalGet(0),
        GlobalGet(0),
        LocalGet(0),
        I32Add,
        GlobalSet(0),
        End,
    ] {
        alloc.instruction(&i);
    }
    code.function(&alloc);
    let length = if past_memory {
        i32::MAX
    } else {
        HTTP_FRAME.len() as i32
    };
    let mut run = Function::new([]);
    for i in [
        I32Const(HTTP_FRAME_AT),
        I32Const(length),
        I32Const(0),
        I32Const(4),
    ] {
        run.instruction(&i);
    }
    // `call 1` with its index padded to five bytes, as linkers write it (and CPython's is).
    run.raw([0x10, 0x81, 0x80, 0x80, 0x80, 0x00]);
    for i in [
        If(wasm_encoder::BlockType::Empty),
        I32Const(10),
        Return,
        End,
        // An iovec at 16 over the answer, written to fd 1.
        I32Const(16),
        I32Const(0),
        I32Load(mem(0)),
        I32Store(mem(0)),
        I32Const(20),
        I32Const(4),
        I32Load(mem(0)),
        I32Store(mem(0)),
        I32Const(1),
        I32Const(16),
        I32Const(1),
        I32Const(24),
        Call(0),
        Drop,
        // The same door through the table.
        I32Const(OTHER_FRAME_AT),
        I32Const(1),
        I32Const(0),
        I32Const(4),
        I32Const(0),
        CallIndirect {
            type_index: 0,
            table_index: 0,
        },
        I32Const(20),
        I32Add,
        End,
    ] {
        run.instruction(&i);
    }
    code.function(&run);
    let mut data = DataSection::new();
    data.active(0, &ConstExpr::i32_const(HTTP_FRAME_AT), HTTP_FRAME.to_vec());
    data.active(0, &ConstExpr::i32_const(OTHER_FRAME_AT), b"x".to_vec());
    let mut module = Module::new();
    module
        .section(&types)
        .section(&imports)
        .section(&functions)
        .section(&tables)
        .section(&memories)
        .section(&globals)
        .section(&exports)
        .section(&elements)
        .section(&code)
        .section(&data);
    module.finish()
}

fn run_door(past_memory: bool) -> computer_isolate::RunOutcome {
    let module = door_module(past_memory);
    let hash = *blake3::hash(&module).as_bytes();
    let program = isolate()
        .load_reactor_with(hash, &computer_isolate::python::WORLD, || Ok(module))
        .expect("the door is bridged and the module loads");
    isolate().run(
        &program,
        Arc::new(Vfs::in_memory().unwrap()),
        RunRequest {
            args: vec!["python".into()],
            ..RunRequest::default()
        },
    )
}

#[test]
fn door_answers_http_frames_and_no_host_for_the_rest() {
    let out = run_door(false);
    // No egress was given: the request is refused by the host, as the shell's curl is.
    let stdout = text(&out.stdout);
    assert_eq!(
        out.status,
        RunStatus::Exited(19),
        "{stdout} {}",
        text(&out.stderr)
    );
    let (head, body) = stdout.split_once('\n').expect("a JSON line");
    let head: serde_json::Value = serde_json::from_str(head).expect("JSON");
    assert_eq!(head["ok"], false);
    assert_eq!(head["kind"], "refused");
    assert!(
        head["message"]
            .as_str()
            .unwrap()
            .contains("this run has no network"),
        "{head}"
    );
    assert_eq!(body, "");
}

#[test]
fn door_request_past_the_guests_memory_traps_the_guest() {
    let out = run_door(true);
    assert!(
        matches!(out.status, RunStatus::Trapped(_)),
        "{:?} {}",
        out.status,
        text(&out.stderr)
    );
}
