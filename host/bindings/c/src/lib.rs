//! `computer` for C: `libcomputer` (shared and static) and `include/computer.h`, generated
//! by cbindgen. A workspace is an opaque handle; no Rust type crosses the boundary; every
//! buffer the library returns is freed by the function its documentation names. A thin
//! layer over the `computer` and `computer-tools` crates, so that Go (cgo), Ruby, Swift and
//! others can bind to the workspace through their C FFI.

mod buffers;
mod error;
mod exec;
mod tools;
mod workspace;

pub use buffers::{computer_bytes_free, computer_string_free};
pub use error::{computer_last_errno, computer_last_error};
pub use exec::{
    ComputerCancel, ComputerExecOptions, ComputerExecResult, ComputerOutputFn, computer_cancel,
    computer_cancel_free, computer_cancel_new, computer_exec, computer_exec_result_free,
    computer_exec_stream,
};
pub use tools::{computer_tool_call, computer_tools_json};
pub use workspace::{
    ComputerWorkspace, computer_close, computer_fork, computer_list_dir, computer_open,
    computer_open_memory, computer_read_file, computer_remove, computer_restore, computer_snapshot,
    computer_write_file,
};
