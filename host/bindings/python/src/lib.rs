//! `computer` for Python: the workspace in process (PyO3). A thin layer over the
//! `computer` and `computer-tools` crates: every call goes to them, errors become Python's own
//! (`OSError` subclasses by errno, `computer.LimitExceeded` naming the limit), and the GIL is
//! released while the workspace works. The package around this module
//! (`python/computer/`) adds the asyncio variants and the type stubs.

mod buckets;
mod errors;
mod exec;
mod fs;
mod interrupt;
mod jobs;
mod remote;
mod tools;
mod worker;
mod workspace;

use pyo3::prelude::*;

/// The extension module `computer._computer`.
#[pymodule]
fn _computer(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<workspace::Workspace>()?;
    m.add_class::<workspace::Session>()?;
    m.add_class::<workspace::Snapshot>()?;
    m.add_class::<fs::Fs>()?;
    m.add_class::<fs::Stat>()?;
    m.add_class::<fs::Entry>()?;
    m.add_class::<exec::ExecResult>()?;
    m.add_class::<exec::ExecStream>()?;
    m.add_class::<exec::Event>()?;
    m.add_class::<jobs::Job>()?;
    m.add_class::<jobs::Cancel>()?;
    m.add_class::<remote::Git>()?;
    m.add_class::<remote::GitResult>()?;
    m.add_class::<remote::Net>()?;
    m.add_class::<tools::Tools>()?;
    m.add_class::<buckets::BucketStats>()?;
    m.add("ComputerError", py.get_type::<errors::ComputerError>())?;
    m.add("LimitExceeded", py.get_type::<errors::LimitExceeded>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
