//! The agent toolkit: `read`, `write`, `edit`, `ls`, `find`, `grep`, `delete`, `exec` and
//! `job` (background commands) over a [`computer::Workspace`], each with a JSON schema generated from its argument type, in the
//! shapes models already know. The MCP and HTTP servers call [`Toolkit::call`]; no logic lives
//! in them.
//!
//! Paths are the computer's absolute paths (`/workspace/src/main.rs`); a relative path resolves
//! against `/workspace`. Every limit (lines read, bytes written, results listed, output kept)
//! has a default and an error that names it.

mod audit;
mod edit;
mod exec;
mod fs;
pub mod http;
mod jobs;
pub mod mcp;
mod search;
mod shapes;
mod slots;
mod tool;

use computer::Workspace;
use computer::isolate::{CancelToken, OutputSink};
use serde_json::Value;

pub use edit::{Edit, EditArgs};
pub use exec::ExecArgs;
pub use fs::{DeleteArgs, LsArgs, ReadArgs, WriteArgs};
pub use jobs::JobArgs;
pub use search::{FindArgs, GrepArgs};
pub use slots::{ExecSlot, ExecSlots};
use tool::TOOLS;
pub use tool::Tool;

/// Limits on what one tool call may read, write or return.
#[derive(Debug, Clone)]
pub struct ToolLimits {
    /// Lines `read` returns when no `limit` is given.
    pub read_lines: usize,
    /// Characters of one line `read` shows before cutting it.
    pub line_chars: usize,
    /// Largest file `write` and `edit` accept, in bytes.
    pub write_bytes: usize,
    /// Results `ls`, `find` and `grep` return when no `limit` is given.
    pub results: usize,
    /// Bytes of each output stream `exec` returns.
    pub exec_output: usize,
    /// Largest file `read` loads, in bytes (beyond it, `exec` with `head`/`sed -n`).
    pub read_bytes: u64,
    /// Longest `timeout` an `exec` may ask for.
    pub max_exec_timeout: std::time::Duration,
}

impl Default for ToolLimits {
    fn default() -> ToolLimits {
        ToolLimits {
            read_lines: 2000,
            line_chars: 2000,
            write_bytes: 10 << 20,
            results: 500,
            exec_output: 64 << 10,
            read_bytes: 64 << 20,
            max_exec_timeout: std::time::Duration::from_secs(3600),
        }
    }
}

/// Why a tool call failed: said to the model as the tool's error text.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// No such tool.
    #[error("unknown tool {0:?}")]
    UnknownTool(String),
    /// The arguments do not fit the tool's schema.
    #[error("invalid arguments for {tool}: {reason}")]
    InvalidArgs {
        /// The tool.
        tool: String,
        /// What was wrong.
        reason: String,
    },
    /// A tool that changes the workspace was called in read-only mode.
    #[error("{0} is not available: this toolkit is read-only")]
    ReadOnly(String),
    /// A limit was hit; the text says which.
    #[error("{0}")]
    Limit(String),
    /// The server is running as many commands as it may; the text says which limit.
    #[error("{0}")]
    Busy(String),
    /// A path the call needs does not exist.
    #[error("{0}")]
    NotFound(String),
    /// The call cannot be done as asked (an edit that does not match...).
    #[error("{0}")]
    Failed(String),
}

impl ToolError {
    /// The errno this error stands for, where one does: `ENOENT` for a missing path,
    /// `EINVAL` for an unknown tool or bad arguments, `EROFS` for a write in read-only mode.
    pub fn errno(&self) -> Option<i32> {
        match self {
            ToolError::NotFound(_) => Some(libc::ENOENT),
            ToolError::UnknownTool(_) | ToolError::InvalidArgs { .. } => Some(libc::EINVAL),
            ToolError::ReadOnly(_) => Some(libc::EROFS),
            ToolError::Limit(_) | ToolError::Busy(_) | ToolError::Failed(_) => None,
        }
    }
}

impl From<computer::Error> for ToolError {
    fn from(e: computer::Error) -> ToolError {
        match e {
            // The workspace's limits are on things at once (jobs): busy until one ends.
            computer::Error::Limit { message, .. } => ToolError::Busy(message),
            e => ToolError::Failed(e.to_string()),
        }
    }
}

impl From<computer::VfsError> for ToolError {
    fn from(e: computer::VfsError) -> ToolError {
        ToolError::Failed(e.to_string())
    }
}

/// A piece of a tool's result.
#[derive(Debug, Clone, PartialEq)]
pub enum Content {
    /// Text for the model.
    Text(String),
    /// An image, for multimodal clients (`read` of a PNG, JPEG, GIF or WebP file).
    Image {
        /// Its MIME type.
        mime: &'static str,
        /// Its bytes in base64.
        base64: String,
    },
}

/// What a caller can do while a call runs.
#[derive(Default, Clone)]
pub struct CallContext {
    /// Sees `exec`'s stdout and stderr as they are written.
    pub on_output: Option<OutputSink>,
    /// Stops `exec` when cancelled (the result is status 130, as after Ctrl-C).
    pub cancel: Option<CancelToken>,
}

/// Largest image `read` returns as an image, in bytes.
pub const MAX_IMAGE_BYTES: usize = 5 << 20;

/// A tool as a model sees it.
#[derive(Debug, Clone)]
pub struct ToolDef {
    /// Its name.
    pub name: &'static str,
    /// What it does and when to use it.
    pub description: &'static str,
    /// The JSON schema of its arguments.
    pub input_schema: Value,
    /// Whether it changes the workspace.
    pub writes: bool,
}

/// The tools over one workspace.
pub struct Toolkit {
    ws: Workspace,
    read_only: bool,
    limits: ToolLimits,
    origin: &'static str,
    exec_slots: Option<std::sync::Arc<ExecSlots>>,
}

impl Toolkit {
    /// Every tool, over `ws`.
    pub fn new(ws: Workspace) -> Toolkit {
        Toolkit {
            ws,
            read_only: false,
            limits: ToolLimits::default(),
            origin: "library",
            exec_slots: None,
        }
    }

    /// `exec` takes one of `slots` while its command runs (a server's limit on commands at
    /// once); by default there is no such limit.
    pub fn with_exec_slots(mut self, slots: std::sync::Arc<ExecSlots>) -> Toolkit {
        self.exec_slots = Some(slots);
        self
    }

    /// Names the server that takes the calls (`mcp`, `mcp-http`, `http`) in the audit log.
    pub fn with_origin(mut self, origin: &'static str) -> Toolkit {
        self.origin = origin;
        self
    }

    /// Only `read`, `ls`, `find` and `grep`.
    pub fn read_only(mut self) -> Toolkit {
        self.read_only = true;
        self
    }

    /// With other limits.
    pub fn with_limits(mut self, limits: ToolLimits) -> Toolkit {
        self.limits = limits;
        self
    }

    /// The workspace the tools work on.
    pub fn workspace(&self) -> &Workspace {
        &self.ws
    }

    /// The tools offered (without the writing ones in read-only mode).
    pub fn tools(&self) -> Vec<ToolDef> {
        tool_defs(self.read_only)
    }

    /// Runs tool `name` with JSON `args`: the text for the model (an image read is described).
    pub fn call(&self, name: &str, args: Value) -> Result<String, ToolError> {
        self.call_text(name, args, CallContext::default())
    }

    /// As [`Toolkit::call`], with a way to stop `exec` and watch its output
    /// ([`CallContext`]).
    pub fn call_text(
        &self,
        name: &str,
        args: Value,
        context: CallContext,
    ) -> Result<String, ToolError> {
        let parts = self.call_with(name, args, context)?;
        Ok(parts
            .into_iter()
            .filter_map(|p| match p {
                Content::Text(t) => Some(t),
                Content::Image { .. } => None,
            })
            .collect())
    }

    /// As [`Toolkit::call`], with images as images: `read` of a PNG, JPEG, GIF or WebP file
    /// (up to [`MAX_IMAGE_BYTES`]) gives its description and the image, for clients that
    /// show images to the model.
    pub fn call_content(&self, name: &str, args: Value) -> Result<Vec<Content>, ToolError> {
        self.call_with(name, args, CallContext::default())
    }

    /// As [`Toolkit::call_content`], with a way to watch `exec`'s output as it is written
    /// (for progress notifications) and to stop it. Every call is recorded in the
    /// workspace's audit log.
    pub fn call_with(
        &self,
        name: &str,
        args: Value,
        context: CallContext,
    ) -> Result<Vec<Content>, ToolError> {
        let call = audit::Call::start(self.origin, name, &args);
        let result = self.dispatch(name, args, context);
        call.finish(
            &self.ws,
            audit::summary(&result),
            result.as_ref().err().map(ToString::to_string),
        );
        result
    }

    fn dispatch(
        &self,
        name: &str,
        args: Value,
        context: CallContext,
    ) -> Result<Vec<Content>, ToolError> {
        let Some(tool) = TOOLS.iter().find(|t| t.name == name) else {
            return Err(ToolError::UnknownTool(name.to_string()));
        };
        if tool.writes && self.read_only {
            return Err(ToolError::ReadOnly(name.to_string()));
        }
        // A `grep` or `find` reads many files: one read transaction for all of them while
        // nothing is committed. Over when the call returns.
        let vfs = self.ws.vfs();
        let _hold = (!tool.writes).then(|| vfs.hold_reads());
        (tool.call)(self, args, context)
    }

    /// The absolute path a tool argument names, with `.` and `..` worked out (never above `/`),
    /// so that checks such as "not /workspace itself" see the real target.
    fn resolve(&self, path: &str) -> std::path::PathBuf {
        computer::vfs::path::normalize(&self.ws.resolve(path))
    }
}

/// The tools, as a model sees them (without the writing ones when `read_only`).
pub fn tool_defs(read_only: bool) -> Vec<ToolDef> {
    TOOLS
        .iter()
        .filter(|t| !read_only || !t.writes)
        .map(|t| ToolDef {
            name: t.name,
            description: t.description,
            input_schema: (t.schema)(),
            writes: t.writes,
        })
        .collect()
}

/// A workspace error about `path`, said with the path.
fn at(path: &std::path::Path) -> impl Fn(computer::VfsError) -> ToolError + '_ {
    move |e| {
        let message = format!("{}: {e}", path.display());
        if e.errno() == libc::ENOENT {
            ToolError::NotFound(message)
        } else {
            ToolError::Failed(message)
        }
    }
}
