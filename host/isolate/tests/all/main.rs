//! Tests of the isolate runtime with real components built from `guests/`.
//! Every test program has a test named after it (checked at compile time below).

mod conformance;
mod door;
mod examples;
mod guests;
mod hostile;
mod http_server;
mod shell;

use std::sync::{Arc, OnceLock};

use computer_isolate::{Isolate, IsolateConfig, RunOutcome, RunRequest};
use computer_vfs::Vfs;

/// One runtime for all tests, as in a real process.
pub fn isolate() -> &'static Arc<Isolate> {
    static ISOLATE: OnceLock<Arc<Isolate>> = OnceLock::new();
    ISOLATE.get_or_init(|| {
        Arc::new(
            Isolate::new(IsolateConfig {
                cache_dir: None,
                ..IsolateConfig::default()
            })
            .expect("isolate runtime"),
        )
    })
}

/// Runs `wasm` with `args` on `vfs`.
pub fn run_on(vfs: &Arc<Vfs>, wasm: &[u8], args: &[&str], req: RunRequest) -> RunOutcome {
    let program = isolate().load(wasm).expect("load component");
    let mut args_v = vec!["guest".to_string()];
    args_v.extend(args.iter().map(|s| s.to_string()));
    isolate().run(
        &program,
        Arc::clone(vfs),
        RunRequest {
            args: args_v,
            ..req
        },
    )
}

/// Runs `wasm` on a fresh in-memory workspace.
pub fn run(wasm: &[u8], args: &[&str]) -> (Arc<Vfs>, RunOutcome) {
    let vfs = Arc::new(Vfs::in_memory().unwrap());
    let out = run_on(&vfs, wasm, args, RunRequest::default());
    (vfs, out)
}

/// Bytes as text, for messages and comparisons.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

// A test program without a test of the same name fails to compile here.
macro_rules! has_test {
    ($name:ident) => {
        #[allow(unused_imports)]
        use crate::tests_by_program::$name as _;
    };
}
computer_components::foreach_test_program!(has_test);

/// The test of each test program, by the program's name.
mod tests_by_program {
    pub use crate::conformance::{
        fs_create_read, fs_links, fs_metadata, fs_offsets, fs_readdir, fs_rename,
    };
    pub use crate::examples::{fs_bench, hello};
    pub use crate::guests::{fs_escape, fs_layer, host_exec, host_workspace, stdio_env};
    pub use crate::hostile::{
        hostile_loop, hostile_memory, hostile_output, hostile_sleep, hostile_socket, trap_panic,
    };
}
