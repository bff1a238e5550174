//! `computer` for Node.js: the workspace in process (napi-rs). A thin layer over the
//! `computer`, `computer-tools` and `computer-bucket` crates: blocking work runs on libuv's pool and settles a
//! Promise. The package's JavaScript (`index.js`) gives the API its final shape: errors with
//! `code` and `limit`, an async iterator for streaming, `AbortSignal`, the tools in the AI
//! SDK's and MCP's shapes; `index.d.ts` types it.

mod exec;
mod remote;
mod reply;
mod run;
mod workspace;

pub use exec::{ExecOptions, Job, Session};
pub use remote::BucketOptions;
pub use reply::Reply;
pub use run::{Cancel, Run};
pub use workspace::Workspace;
