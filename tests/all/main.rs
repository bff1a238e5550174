//! Integration tests of the workspace store, and checks of the shell crates (their unit tests
//! run natively, their modules free of import cycles): one binary, one module per area.

mod bad_input;
mod concurrency;
mod crash;
mod embedding;
mod exec;
mod guest_units;
mod model;
mod module_cycles;
mod transfer;
