//! Errors of the runtime (a guest that ran and failed is not one: see `RunOutcome`).

/// Why a component could not be run.
#[derive(Debug, thiserror::Error)]
pub enum IsolateError {
    /// The bytes are not a valid WebAssembly component.
    #[error("invalid component: {0}")]
    InvalidComponent(String),
    /// The component needs imports the host does not provide, or exports no `wasi:cli/run`.
    #[error("cannot link component: {0}")]
    Link(String),
    /// The engine could not be set up or failed outside the guest.
    #[error("wasm engine: {0}")]
    Engine(String),
}

impl IsolateError {
    pub(crate) fn engine(e: wasmtime::Error) -> IsolateError {
        IsolateError::Engine(format!("{e:#}"))
    }
}
