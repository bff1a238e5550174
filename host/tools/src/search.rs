//! `find` (glob patterns with `**`) and `grep` (regular expressions or plain text).

use crate::tool::{Tool, text};
use crate::{CallContext, Content};
use globset::GlobBuilder;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::fs::{is_binary, page};
use crate::{ToolError, Toolkit, at};

pub const FIND_DESCRIPTION: &str = "Find files by glob pattern (`**/*.rs`, `src/*.toml`) below \
a directory; paths relative to it, paged with `offset` and `limit`.";
pub const GREP_DESCRIPTION: &str = "Search file contents below a path for a regular \
expression (or plain text with regex=false): `path:line:text`, with optional context lines \
and an `include` glob on file names; binary files are skipped.";

/// `find`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FindArgs {
    /// The directory to search (default /workspace).
    #[serde(default)]
    pub path: Option<String>,
    /// A glob matched against paths relative to `path` (`**` crosses directories).
    pub pattern: String,
    /// How many paths to return.
    #[serde(default)]
    pub limit: Option<usize>,
    /// How many paths to skip.
    #[serde(default)]
    pub offset: Option<usize>,
}

/// `grep`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GrepArgs {
    /// A file or directory (default /workspace).
    #[serde(default)]
    pub path: Option<String>,
    /// What to look for.
    pub pattern: String,
    /// `pattern` is a regular expression (default true); false: plain text.
    #[serde(default)]
    pub regex: Option<bool>,
    /// Ignore case.
    #[serde(default)]
    pub ignore_case: Option<bool>,
    /// Lines of context before and after each match.
    #[serde(default)]
    pub context: Option<usize>,
    /// Only files whose name matches this glob (`*.rs`).
    #[serde(default)]
    pub include: Option<String>,
    /// How many lines to return.
    #[serde(default)]
    pub limit: Option<usize>,
    /// How many lines to skip.
    #[serde(default)]
    pub offset: Option<usize>,
}

fn invalid(tool: &str, reason: impl ToString) -> ToolError {
    ToolError::InvalidArgs {
        tool: tool.into(),
        reason: reason.to_string(),
    }
}

pub fn find(kit: &Toolkit, a: FindArgs) -> Result<String, ToolError> {
    let base = kit.resolve(a.path.as_deref().unwrap_or(computer::DEFAULT_CWD));
    let glob = GlobBuilder::new(&a.pattern)
        .literal_separator(true)
        .build()
        .map_err(|e| invalid("find", e))?
        .compile_matcher();
    let mut found: Vec<String> = kit
        .ws
        .fs()
        .walk(&base)
        .map_err(at(&base))?
        .into_iter()
        .filter(|e| e.depth > 0)
        .filter_map(|e| {
            let rel = e.path.strip_prefix(&base).ok()?.to_path_buf();
            glob.is_match(&rel).then(|| rel.display().to_string())
        })
        .collect();
    found.sort();
    Ok(page(
        found,
        a.offset,
        a.limit.unwrap_or(kit.limits.results),
        "matches",
    ))
}

pub fn grep(kit: &Toolkit, a: GrepArgs) -> Result<String, ToolError> {
    let base = kit.resolve(a.path.as_deref().unwrap_or(computer::DEFAULT_CWD));
    let source = if a.regex.unwrap_or(true) {
        a.pattern.clone()
    } else {
        regex::escape(&a.pattern)
    };
    let re = regex::RegexBuilder::new(&source)
        .case_insensitive(a.ignore_case.unwrap_or(false))
        .size_limit(1 << 22)
        .build()
        .map_err(|e| invalid("grep", e))?;
    let include = match &a.include {
        Some(g) => Some(
            GlobBuilder::new(g)
                .build()
                .map_err(|e| invalid("grep", e))?
                .compile_matcher(),
        ),
        None => None,
    };
    let fs = kit.ws.fs();
    let files: Vec<std::path::PathBuf> = fs
        .walk(&base)
        .map_err(at(&base))?
        .into_iter()
        .filter(|e| e.stat.kind == computer::vfs::FileType::File)
        .map(|e| e.path)
        .filter(|p| {
            include
                .as_ref()
                .is_none_or(|g| p.file_name().is_some_and(|n| g.is_match(n)))
        })
        .collect();
    let context = a.context.unwrap_or(0);
    let mut lines = Vec::new();
    for file in files {
        let Ok(data) = fs.read_file(&file) else {
            continue;
        };
        if is_binary(&data) {
            continue;
        }
        let text = String::from_utf8_lossy(&data);
        let all: Vec<&str> = text.lines().collect();
        let mut last_shown: Option<usize> = None;
        for (i, line) in all.iter().enumerate() {
            if !re.is_match(line) {
                continue;
            }
            let from = i.saturating_sub(context);
            let to = (i + context).min(all.len() - 1);
            if context > 0 && last_shown.is_some_and(|l| from > l + 1) {
                lines.push("--".to_string());
            }
            let start = last_shown.map_or(from, |l| from.max(l + 1));
            for (k, shown) in all.iter().enumerate().take(to + 1).skip(start) {
                let sep = if k == i || re.is_match(shown) {
                    ':'
                } else {
                    '-'
                };
                lines.push(format!("{}{sep}{}{sep}{shown}", file.display(), k + 1));
            }
            last_shown = Some(to);
        }
    }
    Ok(page(
        lines,
        a.offset,
        a.limit.unwrap_or(kit.limits.results),
        "matching lines",
    ))
}

impl Tool for FindArgs {
    const NAME: &'static str = "find";
    const DESCRIPTION: &'static str = FIND_DESCRIPTION;
    const WRITES: bool = false;

    fn call(self, kit: &Toolkit, _: CallContext) -> Result<Vec<Content>, ToolError> {
        text(find(kit, self))
    }
}

impl Tool for GrepArgs {
    const NAME: &'static str = "grep";
    const DESCRIPTION: &'static str = GREP_DESCRIPTION;
    const WRITES: bool = false;

    fn call(self, kit: &Toolkit, _: CallContext) -> Result<Vec<Content>, ToolError> {
        text(grep(kit, self))
    }
}
