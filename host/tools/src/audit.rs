//! What the audit log keeps of a call: arguments with long strings shortened (a `write` of a
//! large file must not copy it into the log) and a one-line summary of the result.

use serde_json::Value;

use crate::{Content, ToolError};

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
