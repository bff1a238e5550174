//! `computer-components`: the guest components of `computer`, built from `guests/` for
//! `wasm32-wasip2` by this crate's build script and embedded as bytes.
//!
//! - One constant per test program (`guests/test-programs/src/bin/*.rs`), e.g. [`HELLO`],
//!   and [`TEST_PROGRAMS`] listing them all.
//! - [`foreach_test_program!`] calls a macro for every test program; the runtime's tests use
//!   it to refer to one test function per program, so a program without a test fails to compile.
//! - [`RUST_HELLO`]: the Rust example guest (`guests/examples/rust-hello`).
//! - [`SHELL`]: the shell interpreter (`guests/shell`), and [`SHELL_HASH`], its BLAKE3 hash.
//!
//! Set `COMPUTER_GUESTS_DIR` to a folder of prebuilt `.wasm` files to skip the nested build.

include!(concat!(env!("OUT_DIR"), "/components.rs"));
