//! `read`, `write`, `ls` and `delete`.

use crate::CallContext;
use crate::tool::{Tool, text};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::{Content, MAX_IMAGE_BYTES, ToolError, Toolkit, at};

pub const READ_DESCRIPTION: &str = "Read a text file: lines with their numbers (as `cat -n`), \
from `offset` (1-based line) for `limit` lines; says how to read on when there is more. \
Binary files are described, not dumped.";
pub const WRITE_DESCRIPTION: &str = "Write a file (creating its directories); replaces what \
was there.";
pub const LS_DESCRIPTION: &str = "List a directory (directories end with `/`), optionally \
recursively, paged with `offset` and `limit`.";
pub const DELETE_DESCRIPTION: &str = "Delete a file, or a directory with `recursive`.";

/// `read`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadArgs {
    /// The file (relative paths are under /workspace).
    pub path: String,
    /// The first line to show (1-based).
    #[serde(default)]
    pub offset: Option<usize>,
    /// How many lines to show.
    #[serde(default)]
    pub limit: Option<usize>,
}

/// `write`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WriteArgs {
    /// The file (relative paths are under /workspace).
    pub path: String,
    /// Its whole new content.
    pub content: String,
}

/// `ls`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LsArgs {
    /// The directory (default /workspace).
    #[serde(default)]
    pub path: Option<String>,
    /// Everything below it, not just its entries.
    #[serde(default)]
    pub recursive: Option<bool>,
    /// How many entries to return.
    #[serde(default)]
    pub limit: Option<usize>,
    /// How many entries to skip.
    #[serde(default)]
    pub offset: Option<usize>,
}

/// `delete`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DeleteArgs {
    /// The file or directory.
    pub path: String,
    /// Delete a directory and everything in it.
    #[serde(default)]
    pub recursive: Option<bool>,
}

/// The image type of `data`, for the kinds multimodal models take.
pub fn image_mime(data: &[u8]) -> Option<&'static str> {
    if data.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if data.starts_with(&[0xff, 0xd8, 0xff]) {
        Some("image/jpeg")
    } else if data.starts_with(b"GIF87a") || data.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if data.len() > 12 && data.starts_with(b"RIFF") && &data[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    }
}

/// Whether `data` looks binary: a NUL byte, or not UTF-8, in its first 8 KiB.
pub fn is_binary(data: &[u8]) -> bool {
    let head = &data[..data.len().min(8192)];
    head.contains(&0)
        || match std::str::from_utf8(head) {
            Ok(_) => false,
            // A character cut at the 8 KiB mark is still text.
            Err(e) => e.error_len().is_some(),
        }
}

/// `read`: numbered lines; an image is described and returned as an image.
pub fn read(kit: &Toolkit, a: ReadArgs) -> Result<Vec<Content>, ToolError> {
    let path = kit.resolve(&a.path);
    let stat = kit.ws.fs().stat(&path).map_err(at(&path))?;
    if stat.is_dir() {
        return Err(ToolError::Failed(format!(
            "{} is a directory: use ls",
            path.display()
        )));
    }
    if stat.size > kit.limits.read_bytes {
        return Err(ToolError::Limit(format!(
            "{} has {} bytes, over the read limit of {} bytes: read parts of it with exec \
             (head -c, tail -n, sed -n 'A,Bp')",
            path.display(),
            stat.size,
            kit.limits.read_bytes
        )));
    }
    let data = kit.ws.fs().read_file(&path).map_err(at(&path))?;
    if let Some(mime) = image_mime(&data)
        && data.len() <= MAX_IMAGE_BYTES
    {
        use base64::Engine;
        let text = format!(
            "{} is an image ({mime}, {} bytes)",
            path.display(),
            data.len()
        );
        let base64 = base64::engine::general_purpose::STANDARD.encode(&data);
        return Ok(vec![Content::Text(text), Content::Image { mime, base64 }]);
    }
    Ok(vec![Content::Text(read_text(kit, &path, &data, &a)?)])
}

/// The lines `read` shows of a text file (or what a binary file is).
fn read_text(
    kit: &Toolkit,
    path: &std::path::Path,
    data: &[u8],
    a: &ReadArgs,
) -> Result<String, ToolError> {
    if is_binary(data) {
        return Ok(format!(
            "{} is a binary file ({} bytes); exec `xxd` or `file` on it to look inside",
            path.display(),
            data.len()
        ));
    }
    let text = String::from_utf8_lossy(data);
    let lines: Vec<&str> = text.lines().collect();
    if lines.is_empty() {
        return Ok(format!("{} is empty", path.display()));
    }
    let start = a.offset.unwrap_or(1).max(1);
    if start > lines.len() {
        return Err(ToolError::Failed(format!(
            "offset {start} is past the end: {} has {} lines",
            path.display(),
            lines.len()
        )));
    }
    let limit = a.limit.unwrap_or(kit.limits.read_lines).max(1);
    let end = (start - 1).saturating_add(limit).min(lines.len());
    let width = end.to_string().len().max(6);
    let mut out = String::new();
    for (k, line) in lines[start - 1..end].iter().enumerate() {
        let n = start + k;
        let max = kit.limits.line_chars;
        if line.chars().count() > max {
            let cut: String = line.chars().take(max).collect();
            out.push_str(&format!(
                "{n:>width$}\t{cut} [line cut at {max} characters of {}]\n",
                line.chars().count()
            ));
        } else {
            out.push_str(&format!("{n:>width$}\t{line}\n"));
        }
    }
    if end < lines.len() {
        out.push_str(&format!(
            "[{} more lines: read with offset={}]\n",
            lines.len() - end,
            end + 1
        ));
    }
    Ok(out)
}

pub fn write(kit: &Toolkit, a: WriteArgs) -> Result<String, ToolError> {
    let max = kit.limits.write_bytes;
    if a.content.len() > max {
        return Err(ToolError::Limit(format!(
            "content of {} bytes is over the write limit of {max} bytes",
            a.content.len()
        )));
    }
    let path = kit.resolve(&a.path);
    if let Some(parent) = path.parent() {
        kit.ws.fs().create_dir_all(parent).map_err(at(parent))?;
    }
    kit.ws
        .fs()
        .write_file(&path, a.content.as_bytes())
        .map_err(at(&path))?;
    Ok(format!(
        "wrote {} bytes to {}",
        a.content.len(),
        path.display()
    ))
}

pub fn ls(kit: &Toolkit, a: LsArgs) -> Result<String, ToolError> {
    let path = kit.resolve(a.path.as_deref().unwrap_or(computer::DEFAULT_CWD));
    let fs = kit.ws.fs();
    if !fs.stat(&path).map_err(at(&path))?.is_dir() {
        return Err(ToolError::Failed(format!(
            "{} is not a directory",
            path.display()
        )));
    }
    let mut names: Vec<String> = if a.recursive.unwrap_or(false) {
        fs.walk(&path)?
            .into_iter()
            .filter(|e| e.depth > 0)
            .map(|e| {
                let rel = e
                    .path
                    .strip_prefix(&path)
                    .unwrap_or(&e.path)
                    .display()
                    .to_string();
                if e.stat.is_dir() {
                    format!("{rel}/")
                } else {
                    rel
                }
            })
            .collect()
    } else {
        fs.read_dir(&path)?
            .into_iter()
            .map(|e| {
                let name = e.name.to_string_lossy().into_owned();
                if e.kind == computer::vfs::FileType::Dir {
                    format!("{name}/")
                } else {
                    name
                }
            })
            .collect()
    };
    names.sort();
    Ok(page(
        names,
        a.offset,
        a.limit.unwrap_or(kit.limits.results),
        "entries",
    ))
}

pub fn delete(kit: &Toolkit, a: DeleteArgs) -> Result<String, ToolError> {
    let path = kit.resolve(&a.path);
    let fs = kit.ws.fs();
    let stat = fs.lstat(&path).map_err(at(&path))?;
    if stat.is_dir() {
        if !a.recursive.unwrap_or(false) {
            return Err(ToolError::Failed(format!(
                "{} is a directory: pass recursive=true to delete it and everything in it",
                path.display()
            )));
        }
        if path == std::path::Path::new(computer::DEFAULT_CWD) || path == std::path::Path::new("/")
        {
            return Err(ToolError::Failed(format!(
                "{} cannot be deleted",
                path.display()
            )));
        }
        fs.remove_all(&path).map_err(at(&path))?;
    } else {
        fs.remove_file(&path).map_err(at(&path))?;
    }
    Ok(format!("deleted {}", path.display()))
}

/// One page of `items`, with a line saying how to get the next.
pub fn page(items: Vec<String>, offset: Option<usize>, limit: usize, what: &str) -> String {
    let total = items.len();
    let start = offset.unwrap_or(0).min(total);
    let end = start.saturating_add(limit.max(1)).min(total);
    let mut out: String = items[start..end].iter().map(|i| format!("{i}\n")).collect();
    if total == 0 {
        out.push_str(&format!("(no {what})\n"));
    } else if end < total {
        out.push_str(&format!(
            "[{} of {total} {what} shown: pass offset={end} for more]\n",
            end - start
        ));
    }
    out
}

impl Tool for ReadArgs {
    const NAME: &'static str = "read";
    const DESCRIPTION: &'static str = READ_DESCRIPTION;
    const WRITES: bool = false;

    fn call(self, kit: &Toolkit, _: CallContext) -> Result<Vec<Content>, ToolError> {
        read(kit, self)
    }
}

impl Tool for WriteArgs {
    const NAME: &'static str = "write";
    const DESCRIPTION: &'static str = WRITE_DESCRIPTION;
    const WRITES: bool = true;

    fn call(self, kit: &Toolkit, _: CallContext) -> Result<Vec<Content>, ToolError> {
        text(write(kit, self))
    }
}

impl Tool for LsArgs {
    const NAME: &'static str = "ls";
    const DESCRIPTION: &'static str = LS_DESCRIPTION;
    const WRITES: bool = false;

    fn call(self, kit: &Toolkit, _: CallContext) -> Result<Vec<Content>, ToolError> {
        text(ls(kit, self))
    }
}

impl Tool for DeleteArgs {
    const NAME: &'static str = "delete";
    const DESCRIPTION: &'static str = DELETE_DESCRIPTION;
    const WRITES: bool = true;

    fn call(self, kit: &Toolkit, _: CallContext) -> Result<Vec<Content>, ToolError> {
        text(delete(kit, self))
    }
}
