//! Integration tests of the workspace store: one binary, one module per area.

mod bad_input;
mod concurrency;
mod crash;
mod exec;
mod guest_units;
mod model;
mod transfer;
