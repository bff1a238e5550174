//! Path resolution from the root, as the kernel does it: `..` moves to the real parent (and
//! stays at `/` at the root, so no path ever escapes), symlinks are followed with a limit.

use std::collections::VecDeque;

use crate::error::{Result, VfsError};
use crate::tx::Tx;
use crate::types::{FileType, Ino, PATH_MAX, ROOT_INO, SYMLINK_MAX, Stat};
use crate::util::check_name;

/// Where a path led.
#[derive(Debug)]
pub(crate) struct Resolved {
    /// The directory holding the last component (for `/`, the root itself).
    pub parent: Ino,
    /// The last component, or `None` when the path named a directory by `/`, `.` or `..`.
    pub name: Option<Vec<u8>>,
    /// The inode the path names, if it exists.
    pub found: Option<Stat>,
    /// The path ended with `/`: it must name a directory.
    pub trailing_slash: bool,
}

impl Resolved {
    /// The inode, or ENOENT (ENOTDIR when a trailing slash names a non-directory).
    pub fn stat(self) -> Result<Stat> {
        self.found.ok_or(VfsError::NotFound)
    }

    /// Parent and name of an entry to create; EEXIST if it exists.
    pub fn for_create(self) -> Result<(Ino, Vec<u8>)> {
        match (self.found, self.name) {
            (Some(_), _) | (None, None) => Err(VfsError::Exists),
            (None, Some(name)) => Ok((self.parent, name)),
        }
    }

    /// Parent and name of an existing entry (to remove or rename); `/` and `..` are busy.
    pub fn for_entry(self) -> Result<(Ino, Vec<u8>, Stat)> {
        let found = self.found.ok_or(VfsError::NotFound)?;
        match self.name {
            Some(name) => Ok((self.parent, name, found)),
            None => Err(VfsError::Busy),
        }
    }
}

/// Checks a whole path and splits it into components.
fn components(path: &[u8]) -> Result<VecDeque<Vec<u8>>> {
    if path.contains(&0) {
        return Err(VfsError::Invalid("path contains a NUL byte"));
    }
    if path.len() >= PATH_MAX {
        return Err(VfsError::NameTooLong);
    }
    Ok(path
        .split(|b| *b == b'/')
        .filter(|c| !c.is_empty() && *c != b".")
        .map(<[u8]>::to_vec)
        .collect())
}

impl Tx<'_> {
    /// Resolves `path` (absolute; a relative path is taken from the root). With `follow_last`, a
    /// symlink in the last component is followed; a trailing slash always follows it.
    pub(crate) fn resolve(&self, path: &[u8], follow_last: bool) -> Result<Resolved> {
        if path.is_empty() {
            return Err(VfsError::NotFound);
        }
        let trailing_slash = path.len() > 1 && path.ends_with(b"/")
            || path.ends_with(b"/.")
            || path.ends_with(b"/..");
        let mut comps = components(path)?;
        // The directories from the root to the current one: `..` pops.
        let mut stack: Vec<Ino> = vec![ROOT_INO];
        let mut links = 0u32;
        while let Some(comp) = comps.pop_front() {
            let dir = *stack.last().unwrap_or(&ROOT_INO);
            if comp == b".." {
                if stack.len() > 1 {
                    stack.pop();
                }
                continue;
            }
            check_name(&comp)?;
            let is_last = comps.is_empty();
            let Some(st) = self.lookup_entry(dir, &comp)? else {
                if is_last {
                    return Ok(Resolved {
                        parent: dir,
                        name: Some(comp),
                        found: None,
                        trailing_slash,
                    });
                }
                return Err(VfsError::NotFound);
            };
            let ino = st.ino;
            match st.kind {
                FileType::Symlink if !is_last || follow_last || trailing_slash => {
                    links += 1;
                    if links > SYMLINK_MAX {
                        return Err(VfsError::Loop);
                    }
                    let target = self.readlink(ino)?;
                    if target.starts_with(b"/") {
                        stack.truncate(1);
                    }
                    let mut expanded = components(&target)?;
                    expanded.extend(comps);
                    comps = expanded;
                    if comps.is_empty() {
                        // A link to "/" (or to "."): it names the directory we are in.
                        break;
                    }
                }
                _ if is_last => {
                    if trailing_slash && st.kind != FileType::Dir {
                        return Err(VfsError::NotDir);
                    }
                    return Ok(Resolved {
                        parent: dir,
                        name: Some(comp),
                        found: Some(st),
                        trailing_slash,
                    });
                }
                FileType::Dir => stack.push(ino),
                _ => return Err(VfsError::NotDir),
            }
        }
        let ino = *stack.last().unwrap_or(&ROOT_INO);
        let parent = if stack.len() > 1 {
            stack[stack.len() - 2]
        } else {
            ROOT_INO
        };
        Ok(Resolved {
            parent,
            name: None,
            found: Some(self.stat(ino)?),
            trailing_slash,
        })
    }

    /// The inode `path` names, following every symlink.
    pub(crate) fn resolve_ino(&self, path: &[u8]) -> Result<Stat> {
        self.resolve(path, true)?.stat()
    }
}
