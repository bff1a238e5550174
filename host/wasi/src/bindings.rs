//! Host bindings for `wasi:filesystem@0.2.12`, generated over the vendored WIT in `wit/deps`.
//! `wasi:io` and `wasi:clocks` are wasmtime-wasi's own types, so streams and pollables share
//! one `ResourceTable` with the rest of WASI; the two filesystem resources are ours.

wasmtime::component::bindgen!({
    path: [
        "../../wit/deps/io.wit",
        "../../wit/deps/clocks.wit",
        "../../wit/deps/filesystem.wit",
    ],
    inline: "
        package computer:wasi-fs;
        world filesystem {
            import wasi:filesystem/types@0.2.12;
            import wasi:filesystem/preopens@0.2.12;
        }
    ",
    world: "computer:wasi-fs/filesystem",
    imports: { default: trappable },
    require_store_data_send: true,
    trappable_error_type: { "wasi:filesystem/types.error-code" => crate::FsError },
    with: {
        "wasi:io": wasmtime_wasi_io::bindings::wasi::io,
        "wasi:clocks": wasmtime_wasi::p2::bindings::clocks,
        "wasi:filesystem/types.descriptor": crate::descriptor::Descriptor,
        "wasi:filesystem/types.directory-entry-stream": crate::descriptor::DirStream,
    },
});
