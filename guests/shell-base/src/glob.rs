//! Pathname expansion over the workspace: a pattern (quoted characters already escaped) to
//! the sorted paths it matches, with `dotglob`, `globstar` (`**`), `nocaseglob` and `extglob`.

use std::path::{Path, PathBuf};

use crate::pattern::{MatchOptions, Pattern};

/// The `shopt` options pathname expansion follows.
#[derive(Clone, Copy, Debug, Default)]
pub struct GlobOptions {
    pub dotglob: bool,
    pub globstar: bool,
    pub nocaseglob: bool,
    pub extglob: bool,
}

/// Most paths one expansion may produce; more is an error named by the caller.
pub const MAX_GLOB_PATHS: usize = 1_000_000;

/// The paths matching `pattern`, relative to `cwd` unless it is absolute; empty when
/// nothing matches.
pub fn glob(cwd: &Path, pattern: &str, opts: GlobOptions) -> Vec<String> {
    let absolute = pattern.starts_with('/');
    let dirs_only = pattern.ends_with('/');
    let parts: Vec<&str> = pattern.split('/').filter(|p| !p.is_empty()).collect();
    if parts.is_empty() {
        return Vec::new();
    }
    let resolve = |p: &str| -> PathBuf {
        if p.is_empty() {
            cwd.to_path_buf()
        } else {
            cwd.join(p)
        }
    };
    let match_opts = MatchOptions {
        extglob: opts.extglob,
        nocase: opts.nocaseglob,
    };
    // Each candidate ends with '/' unless it is a final component.
    let mut found: Vec<String> = vec![if absolute { "/".into() } else { String::new() }];
    for (i, part) in parts.iter().enumerate() {
        let last = i + 1 == parts.len() && !dirs_only;
        let mut next = Vec::new();
        if *part == "**" && opts.globstar {
            for base in &found {
                if !base.is_empty() || !last {
                    next.push(base.clone());
                }
                descend(&resolve(base), base, opts.dotglob, last, &mut next);
                if next.len() > MAX_GLOB_PATHS {
                    return next;
                }
            }
            found = next;
            continue;
        }
        if !crate::pattern::has_glob(part, opts.extglob) {
            let literal = unescape(part);
            for base in &found {
                let candidate = format!("{base}{literal}");
                let meta = std::fs::symlink_metadata(resolve(&candidate));
                if last && meta.is_ok() {
                    next.push(candidate);
                } else if !last && resolve(&candidate).is_dir() {
                    next.push(format!("{candidate}/"));
                }
            }
            found = next;
            continue;
        }
        let pattern = Pattern::new(part, match_opts);
        let show_hidden = opts.dotglob || part.starts_with('.') || part.starts_with("\\.");
        for base in &found {
            let Ok(entries) = crate::dir::list(&resolve(base)) else {
                continue;
            };
            let names = (entries.into_iter().map(|e| e.name))
                .filter(|n| show_hidden || !n.starts_with('.'))
                .filter(|n| pattern.matches(n));
            for n in names {
                let candidate = format!("{base}{n}");
                if last {
                    next.push(candidate);
                } else if resolve(&candidate).is_dir() {
                    next.push(format!("{candidate}/"));
                }
            }
        }
        found = next;
    }
    found.retain(|p| !p.is_empty());
    found
}

/// Appends everything below `dir` (shown as `shown`, ending in '/' or empty), depth first in
/// name order: directories with a trailing '/' unless `files_too` (then files as well, and
/// nothing gets the slash). Symbolic links are not followed.
fn descend(dir: &Path, shown: &str, dotglob: bool, files_too: bool, out: &mut Vec<String>) {
    let Ok(entries) = crate::dir::list(dir) else {
        return;
    };
    let items = (entries.into_iter().map(|e| (e.name, e.kind.is_dir())))
        .filter(|(n, _)| dotglob || !n.starts_with('.'));
    for (name, is_dir) in items {
        if out.len() > MAX_GLOB_PATHS {
            return;
        }
        let path = format!("{shown}{name}");
        if is_dir {
            out.push(if files_too {
                path.clone()
            } else {
                format!("{path}/")
            });
            descend(
                &dir.join(&name),
                &format!("{path}/"),
                dotglob,
                files_too,
                out,
            );
        } else if files_too {
            out.push(path);
        }
    }
}

/// A pattern's literal text (backslash escapes removed).
pub fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(n) = chars.next() {
                out.push(n);
            }
        } else {
            out.push(c);
        }
    }
    out
}
