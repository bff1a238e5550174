//! Host bindings of our own interfaces (`computer:host/exec`, `git`, `http`, `workspace`), generated
//! from the same `wit/` that guests generate theirs from.

wasmtime::component::bindgen!({
    path: "../../wit",
    world: "computer:host/extensions",
    imports: { default: trappable },
    require_store_data_send: true,
    with: {
        "wasi:io": wasmtime_wasi_io::bindings::wasi::io,
        "wasi:filesystem": computer_wasi::bindings::wasi::filesystem,
        "wasi:clocks": wasmtime_wasi::p2::bindings::clocks,
        "computer:host/exec.process": crate::exec::Process,
    },
});
