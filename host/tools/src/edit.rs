//! `edit`: exact replacements, all or nothing, with a unified diff of what changed.

use crate::tool::{Tool, text};
use crate::{CallContext, Content};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::fs::is_binary;
use crate::{ToolError, Toolkit, at};

pub const DESCRIPTION: &str = "Edit a file by replacing text: each `old_text` must occur \
exactly once (or set `replace_all`); all edits apply or none does. Returns a unified diff; \
`dry_run` shows the diff without writing. If an exact match fails, a match that ignores \
trailing whitespace and quote or dash variants is tried.";

/// One replacement.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Edit {
    /// The text to replace, exactly as it is in the file.
    pub old_text: String,
    /// What to put instead.
    pub new_text: String,
    /// Replace every occurrence (else `old_text` must occur once).
    #[serde(default)]
    pub replace_all: Option<bool>,
}

/// `edit`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EditArgs {
    /// The file (relative paths are under /workspace).
    pub path: String,
    /// The replacements, applied in order.
    pub edits: Vec<Edit>,
    /// Show the diff, change nothing.
    #[serde(default)]
    pub dry_run: Option<bool>,
}

/// Folds the variants a model may type differently: curly quotes and dashes, trailing blanks.
fn loose(text: &str) -> String {
    text.lines()
        .map(|l| {
            l.trim_end()
                .chars()
                .map(|c| match c {
                    '\u{2018}' | '\u{2019}' | '\u{201b}' => '\'',
                    '\u{201c}' | '\u{201d}' | '\u{201f}' => '"',
                    '\u{2010}'..='\u{2015}' => '-',
                    c => c,
                })
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Applies one edit to `text`; the error says why it cannot.
fn apply(text: &str, e: &Edit, n: usize) -> Result<String, String> {
    if e.old_text.is_empty() {
        return Err(format!("edit {n}: old_text is empty"));
    }
    let count = text.matches(&e.old_text).count();
    let all = e.replace_all.unwrap_or(false);
    match count {
        1 => return Ok(text.replacen(&e.old_text, &e.new_text, 1)),
        c if c > 1 && all => return Ok(text.replace(&e.old_text, &e.new_text)),
        c if c > 1 => {
            return Err(format!(
                "edit {n}: old_text occurs {c} times; add surrounding lines to make it unique, \
                 or set replace_all"
            ));
        }
        _ => {}
    }
    // No exact match: compare line by line with the variants folded.
    let want: Vec<String> = loose(&e.old_text).lines().map(str::to_string).collect();
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let folded: Vec<String> = lines.iter().map(|l| loose(l)).collect();
    if want.is_empty() {
        return Err(format!("edit {n}: old_text was not found"));
    }
    let hits: Vec<usize> = (0..folded.len().saturating_sub(want.len() - 1))
        .filter(|&i| folded[i..i + want.len()] == want[..])
        .collect();
    match hits.as_slice() {
        [i] => {
            let before: String = lines[..*i].concat();
            let after: String = lines[i + want.len()..].concat();
            let replaced = &lines[*i..i + want.len()].concat();
            let keep_newline = replaced.ends_with('\n') && !e.new_text.ends_with('\n');
            Ok(format!(
                "{before}{}{}{after}",
                e.new_text,
                if keep_newline { "\n" } else { "" }
            ))
        }
        [] => Err(format!(
            "edit {n}: old_text was not found (not even ignoring trailing whitespace and quote \
             or dash variants); read the file to copy the text exactly"
        )),
        many => Err(format!(
            "edit {n}: old_text matches {} places once whitespace and quotes are folded; make \
             it unique",
            many.len()
        )),
    }
}

pub fn edit(kit: &Toolkit, a: EditArgs) -> Result<String, ToolError> {
    if a.edits.is_empty() {
        return Err(ToolError::InvalidArgs {
            tool: "edit".into(),
            reason: "edits is empty".into(),
        });
    }
    let path = kit.resolve(&a.path);
    let data = kit.ws.fs().read_file(&path).map_err(at(&path))?;
    if is_binary(&data) {
        return Err(ToolError::Failed(format!(
            "{} is a binary file; edit changes text",
            path.display()
        )));
    }
    let before = String::from_utf8_lossy(&data).into_owned();
    let mut after = before.clone();
    for (k, e) in a.edits.iter().enumerate() {
        after = apply(&after, e, k + 1).map_err(ToolError::Failed)?;
    }
    if after.len() > kit.limits.write_bytes {
        return Err(ToolError::Limit(format!(
            "the edited file would be {} bytes, over the write limit of {} bytes",
            after.len(),
            kit.limits.write_bytes
        )));
    }
    let name = path.display().to_string();
    let diff = similar::TextDiff::from_lines(&before, &after)
        .unified_diff()
        .context_radius(3)
        .header(&name, &name)
        .to_string();
    if !a.dry_run.unwrap_or(false) {
        kit.ws
            .fs()
            .write_file(&path, after.as_bytes())
            .map_err(at(&path))?;
    }
    Ok(if diff.is_empty() {
        "no change".to_string()
    } else {
        diff
    })
}

impl Tool for EditArgs {
    const NAME: &'static str = "edit";
    const DESCRIPTION: &'static str = DESCRIPTION;
    const WRITES: bool = true;

    fn call(self, kit: &Toolkit, _: CallContext) -> Result<Vec<Content>, ToolError> {
        text(edit(kit, self))
    }
}
