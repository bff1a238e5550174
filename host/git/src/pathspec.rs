//! Pathspecs: which repository paths a command's path arguments name.

use std::path::Path;

use gix::bstr::{BStr, ByteSlice};

use crate::error::Result;
use crate::repo::Session;

/// One path argument, made repository-relative.
#[derive(Debug, Clone)]
pub(crate) struct Spec {
    /// As the user wrote it (for messages).
    pub original: String,
    /// Repository-relative; empty for the whole worktree.
    pub rel: String,
    glob: bool,
}

impl Spec {
    /// Whether `path` (repository-relative) is named: equal, below it, or matched as a glob.
    pub fn matches(&self, path: &BStr) -> bool {
        if self.rel.is_empty() {
            return true;
        }
        if self.glob {
            return gix::glob::wildmatch(
                self.rel.as_bytes().as_bstr(),
                path,
                gix::glob::wildmatch::Mode::empty(),
            );
        }
        let rel = self.rel.as_bytes();
        path == rel || (path.starts_with(rel) && path.get(rel.len()) == Some(&b'/'))
    }
}

/// The path arguments as specs (relative to `cwd`).
pub(crate) fn parse(session: &Session<'_>, cwd: &Path, args: &[String]) -> Result<Vec<Spec>> {
    args.iter()
        .map(|arg| {
            let glob = arg.contains(['*', '?', '[']);
            let rel = session.rel_path(cwd, arg)?;
            Ok(Spec {
                original: arg.clone(),
                rel,
                glob,
            })
        })
        .collect()
}

/// Whether any spec matches `path`.
pub(crate) fn any(specs: &[Spec], path: &BStr) -> bool {
    specs.iter().any(|s| s.matches(path))
}
