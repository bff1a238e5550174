//! What the audit log keeps of a call: arguments with long strings shortened (a `write` of a
//! large file must not copy it into the log) and a one-line summary of the result.

use computer::Workspace;
use computer::vfs::AuditEntry;
use serde_json::Value;

use crate::{Content, ToolError};

/// A call that is about to run, to be recorded when it ends.
pub(crate) struct Call {
    started: std::time::SystemTime,
    clock: std::time::Instant,
    origin: String,
    tool: String,
    args: String,
}

impl Call {
    /// `tool` (a tool's name, or an HTTP route's such as `files.write`) called through
    /// `origin` with `args` (shortened for the log).
    pub(crate) fn start(origin: &str, tool: &str, args: &Value) -> Call {
        Call {
            started: std::time::SystemTime::now(),
            clock: std::time::Instant::now(),
            origin: origin.to_string(),
            tool: tool.to_string(),
            args: shorten(args).to_string(),
        }
    }

    /// Records the call in `ws`'s audit log with its result's summary or error. A read-only
    /// workspace cannot keep a log; elsewhere a failed record must not fail the call the
    /// agent made, but it is said.
    pub(crate) fn finish(self, ws: &Workspace, summary: String, error: Option<String>) {
        let entry = AuditEntry {
            id: 0,
            started: nanos_since_epoch(self.started),
            duration: i64::try_from(self.clock.elapsed().as_nanos()).unwrap_or(i64::MAX),
            origin: self.origin,
            tool: self.tool,
            args: self.args,
            summary: summary.chars().take(KEEP_CHARS).collect(),
            error,
        };
        if !ws.fs().is_read_only()
            && let Err(e) = ws.fs().record_audit(&entry)
        {
            eprintln!(
                "computer-tools: could not record {} in the audit log: {e}",
                entry.tool
            );
        }
    }
}

/// Characters of one string argument, or of the summary, that the log keeps.
const KEEP_CHARS: usize = 200;

/// `args` with every string longer than [`KEEP_CHARS`] cut, and its length said.
pub(crate) fn shorten(args: &Value) -> Value {
    match args {
        Value::String(s) if s.chars().count() > KEEP_CHARS => {
            let head: String = s.chars().take(KEEP_CHARS).collect();
            Value::String(format!("{head}… [{} bytes]", s.len()))
        }
        Value::Array(items) => Value::Array(items.iter().map(shorten).collect()),
        Value::Object(map) => {
            Value::Object(map.iter().map(|(k, v)| (k.clone(), shorten(v))).collect())
        }
        other => other.clone(),
    }
}

/// The first line of the result's text, cut to [`KEEP_CHARS`]; empty for a failure (whose
/// error is logged whole).
pub(crate) fn summary(result: &Result<Vec<Content>, ToolError>) -> String {
    let Ok(parts) = result else {
        return String::new();
    };
    let text = parts.iter().find_map(|p| match p {
        Content::Text(t) => Some(t.as_str()),
        Content::Image { .. } => None,
    });
    let line = text.unwrap_or("").lines().next().unwrap_or("");
    line.chars().take(KEEP_CHARS).collect()
}

/// `t` in ns since the Unix epoch (0 before it).
pub(crate) fn nanos_since_epoch(t: std::time::SystemTime) -> i64 {
    t.duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}
