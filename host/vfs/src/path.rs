//! Lexical path forms, the one place they are computed: every crate that turns a caller's
//! path into a workspace path (tools, git, the core's archives, buckets) uses these, so `..`
//! means the same everywhere. None of them looks at the tree; resolving through the tree
//! (symbolic links, the real parent of `..`) is the resolver's job.

use std::path::{Component, Path, PathBuf};

/// `path` made absolute with `.` and `..` worked out lexically, never above `/`
/// (`/a/../../b` → `/b`; a relative path is taken from `/`).
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::from("/");
    for part in path.components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(name) => out.push(name),
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
    out
}

/// `path` as a relative path that stays inside whatever it is joined to: `/` and `.` are
/// dropped, and `None` when it climbs with `..` (an archive member, a manifest entry).
pub fn inside(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::Normal(name) => out.push(name),
            Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
            Component::ParentDir => return None,
        }
    }
    Some(out)
}

/// A tidy absolute form of `path` for display (`a//b/` → `/a/b`); `..` is left to the
/// resolver, which knows where it leads.
pub fn tidy(path: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(path.len() + 1);
    for comp in path
        .split(|b| *b == b'/')
        .filter(|c| !c.is_empty() && *c != b".")
    {
        out.push(b'/');
        out.extend_from_slice(comp);
    }
    if out.is_empty() {
        out.push(b'/');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_dot_never_climbs_above_the_root() {
        for (raw, want) in [
            ("/a/../../b", "/b"),
            ("../../etc/passwd", "/etc/passwd"),
            ("/workspace/./x/..", "/workspace"),
            ("/", "/"),
            ("", "/"),
        ] {
            assert_eq!(normalize(Path::new(raw)), Path::new(want), "{raw}");
        }
    }

    #[test]
    fn inside_refuses_any_climb() {
        assert_eq!(inside(Path::new("/a/./b")), Some(PathBuf::from("a/b")));
        assert_eq!(inside(Path::new("a/../b")), None);
        assert_eq!(inside(Path::new("../x")), None);
    }

    #[test]
    fn tidy_keeps_dot_dot_for_the_resolver() {
        assert_eq!(tidy(b"a//b/./"), b"/a/b");
        assert_eq!(tidy(b"/a/../b"), b"/a/../b");
        assert_eq!(tidy(b""), b"/");
    }
}
