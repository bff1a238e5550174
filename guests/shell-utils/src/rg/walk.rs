//! What rg searches: the paths it was given (or the working directory), walked with the
//! `ignore` crate as ripgrep walks them (`.gitignore`, `.ignore`, `.rgignore`, hidden files,
//! globs, types), in name order. The shell's working directory is not the process's, so
//! walks start from absolute paths and each path is shown as the user wrote it.

use std::path::{Path, PathBuf};

use ignore::WalkBuilder;
use ignore::overrides::{Override, OverrideBuilder};
use ignore::types::{Types, TypesBuilder};

use super::follow::{Entry, Walk};

use super::options::{Options, TypeChange};

/// A path to search: as given, and absolute.
pub struct Root {
    /// As the user wrote it; `None` for the working directory searched by default, whose
    /// entries are shown without a `./` prefix.
    pub given: Option<String>,
    pub absolute: PathBuf,
    /// Whether ripgrep would walk this with its one-thread walker (with `--sort`, or for
    /// one file), whose errors name the operation (`IO error for operation on PATH: ...`).
    pub sequential: bool,
}

impl Root {
    /// How `path` (under this root) is shown.
    pub fn shown(&self, path: &Path) -> PathBuf {
        let rest = path.strip_prefix(&self.absolute).unwrap_or(path);
        match &self.given {
            None => rest.to_path_buf(),
            Some(given) if rest.as_os_str().is_empty() => PathBuf::from(given),
            Some(given) => Path::new(given).join(rest),
        }
    }

    /// An error of the walk, with its paths shown as the user wrote them.
    pub fn message(&self, err: &ignore::Error) -> String {
        self.message_at(err, None)
    }

    /// `err`, found at `path` (the innermost path an error names).
    fn message_at(&self, err: &ignore::Error, path: Option<&Path>) -> String {
        match err {
            ignore::Error::Partial(errs) => errs
                .iter()
                .map(|e| self.message_at(e, path))
                .collect::<Vec<_>>()
                .join("\n"),
            ignore::Error::WithLineNumber { line, err } => {
                format!("line {line}: {}", self.message_at(err, path))
            }
            ignore::Error::WithPath { path, err } => {
                let inner = self.message_at(err, Some(path));
                format!("{}: {inner}", self.shown(path).display())
            }
            ignore::Error::WithDepth { err, .. } => self.message_at(err, path),
            ignore::Error::Loop { ancestor, child } => format!(
                "File system loop found: {} points to an ancestor {}",
                self.shown(child).display(),
                self.shown(ancestor).display()
            ),
            ignore::Error::Io(e) => {
                // A directory walk's error wraps the I/O error, and says where.
                let walked = e.get_ref().and_then(|inner| inner.source());
                match (
                    walked.and_then(|s| s.downcast_ref::<std::io::Error>()),
                    path,
                ) {
                    (Some(io), _) if !self.sequential => os_message(io),
                    (Some(io), Some(path)) => format!(
                        "IO error for operation on {}: {}",
                        self.shown(path).display(),
                        os_message(io)
                    ),
                    _ => os_message(e),
                }
            }
            other => other.to_string(),
        }
    }
}

/// An I/O error as ripgrep prints it on Linux: the C library's words and the errno.
pub fn os_message(e: &std::io::Error) -> String {
    use std::io::ErrorKind as K;
    let errno = match e.kind() {
        K::NotFound => 2,
        K::PermissionDenied => 13,
        K::AlreadyExists => 17,
        K::NotADirectory => 20,
        K::IsADirectory => 21,
        K::InvalidInput => 22,
        K::DirectoryNotEmpty => 39,
        _ => return shell_base::errno::io_message(e),
    };
    format!("{} (os error {errno})", shell_base::errno::io_message(e))
}

/// The `-g`/`--iglob` overrides, matched against paths under the working directory.
pub fn overrides(o: &Options, cwd: &Path) -> Result<Override, String> {
    if o.globs.is_empty() && o.iglobs.is_empty() {
        return Ok(Override::empty());
    }
    let mut b = OverrideBuilder::new(cwd);
    if o.glob_case_insensitive {
        b.case_insensitive(true).map_err(|e| e.to_string())?;
    }
    for g in &o.globs {
        b.add(g).map_err(|e| e.to_string())?;
    }
    b.case_insensitive(true).map_err(|e| e.to_string())?;
    for g in &o.iglobs {
        b.add(g).map_err(|e| e.to_string())?;
    }
    b.build().map_err(|e| e.to_string())
}

/// ripgrep's file types with `-t`, `-T`, `--type-add` and `--type-clear` applied.
pub fn types(o: &Options) -> Result<Types, String> {
    let mut b = TypesBuilder::new();
    b.add_defaults();
    for change in &o.types {
        match change {
            TypeChange::Select(name) => {
                b.select(name);
            }
            TypeChange::Negate(name) => {
                b.negate(name);
            }
            TypeChange::Clear(name) => {
                b.clear(name);
            }
            TypeChange::Add(def) => {
                b.add_def(def).map_err(|e| e.to_string())?;
            }
        }
    }
    b.build().map_err(|e| e.to_string())
}

/// A walk of `root` with `o`'s filters, and the errors of `--ignore-file`.
pub fn walk<'a>(
    o: &'a Options,
    root: &Root,
    cwd: &'a Path,
    overrides: &'a Override,
    types: &'a Types,
) -> (Walk<'a>, Vec<String>) {
    let no_ignore = o.no_ignore;
    let mut errors = Vec::new();
    let mut ignore_files = Vec::new();
    if !no_ignore {
        for file in &o.ignore_files {
            let path = cwd.join(file);
            match WalkBuilder::new(cwd).add_ignore(&path) {
                Some(e) => errors.push(root.message(&e)),
                None => ignore_files.push(path),
            }
        }
    }
    let make = move |path: &Path, max_depth: Option<usize>| {
        let mut b = WalkBuilder::new(path);
        for file in &ignore_files {
            b.add_ignore(file);
        }
        b.max_depth(max_depth)
            .max_filesize(o.max_filesize)
            .overrides(overrides.clone())
            .types(types.clone())
            .hidden(!o.hidden)
            .parents(!no_ignore && !o.no_ignore_parent)
            .ignore(!no_ignore && !o.no_ignore_dot)
            // The user's global gitignore is the host's business, not the workspace's.
            .git_global(false)
            .git_ignore(!no_ignore && !o.no_ignore_vcs)
            .git_exclude(!no_ignore && !o.no_ignore_vcs)
            .require_git(!o.no_require_git)
            .current_dir(cwd)
            .sort_by_file_name(|a, b| a.cmp(b));
        if !no_ignore && !o.no_ignore_dot {
            b.add_custom_ignore_filename(".rgignore");
        }
        b.build()
    };
    let walk = Walk::new(&root.absolute, o.max_depth, o.follow, Box::new(make));
    (walk, errors)
}

/// Whether a walked entry is searched: a file, or anything named on the command line
/// that is not a directory.
pub fn is_haystack(entry: &Entry) -> bool {
    if entry.depth == 0 {
        return !entry.is_dir;
    }
    entry.is_file
}
