//! Which parts of a workspace repository's `config` the host's git applies.
//!
//! The repository's `.git/config` is written by the guest, so it is untrusted: a key like
//! `credential.helper`, `core.sshCommand`, `core.askPass`, `http.proxy`, `include.path` or
//! `core.worktree` would make the host run a program, read a host file or reach a network on
//! the guest's behalf. The host copy of `.git` therefore gets only the keys on the allowlist
//! below (remotes, branches, identity, plain core settings). Everything else stays in the
//! workspace's own `config`, for the container's real git, and is merged back untouched when
//! an operation changes the host copy.

use gix::bstr::{BStr, ByteSlice};
use gix::config::File;

/// The keys of `section` (with or without a subsection) that the host may apply.
fn allowed(section: &str, has_subsection: bool, key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    match (section.to_ascii_lowercase().as_str(), has_subsection) {
        ("core", false) => matches!(
            key.as_str(),
            "repositoryformatversion"
                | "filemode"
                | "bare"
                | "logallrefupdates"
                | "ignorecase"
                | "precomposeunicode"
                | "symlinks"
                | "abbrev"
        ),
        ("remote", true) => matches!(
            key.as_str(),
            "url" | "pushurl" | "fetch" | "push" | "tagopt" | "prune" | "mirror"
        ),
        ("branch", true) => matches!(
            key.as_str(),
            "remote" | "merge" | "rebase" | "pushremote" | "description"
        ),
        ("user" | "author" | "committer", false) => matches!(key.as_str(), "name" | "email"),
        ("init", false) => key == "defaultbranch",
        ("extensions", false) => key == "objectformat",
        ("pull", false) => matches!(key.as_str(), "rebase" | "ff"),
        ("push", false) => matches!(key.as_str(), "default" | "autosetupremote"),
        ("fetch", false) => key == "prune",
        ("advice", false) => true,
        _ => false,
    }
}

/// Whether the host may apply the setting `name` (`section.key` or
/// `section.subsection.key`) given on the command line (`git -c`) or in
/// `GIT_CONFIG_PARAMETERS`: the guest's, so held to the same allowlist.
pub(crate) fn allows(name: &str) -> bool {
    let Some((section, rest)) = name.split_once('.') else {
        return false;
    };
    match rest.rsplit_once('.') {
        Some((_subsection, key)) => allowed(section, true, key),
        None => allowed(section, false, rest),
    }
}

/// The allowed part of `config` (`keep = true`) or the rest (`keep = false`), as a config
/// file's text. Comments are dropped; values keep their meaning.
pub(crate) fn split(config: &[u8], keep: bool) -> crate::Result<Vec<u8>> {
    let file = parse(config)?;
    let mut out = File::new(gix::config::file::Metadata::from(
        gix::config::Source::Local,
    ));
    for section in file.sections() {
        let header = section.header();
        let name = header.name().to_str_lossy().into_owned();
        let sub = header.subsection_name().map(BStr::to_owned);
        let mut names: Vec<String> = Vec::new();
        for key in section.body().value_names() {
            if !names.iter().any(|n| n.eq_ignore_ascii_case(&key)) {
                names.push(key);
            }
        }
        let wanted: Vec<&String> = names
            .iter()
            .filter(|k| allowed(&name, sub.is_some(), k) == keep)
            .collect();
        if wanted.is_empty() {
            continue;
        }
        let mut target = out
            .new_section(name.clone(), sub.clone())
            .map_err(|e| crate::GitError::failed("config", e))?;
        for key in wanted {
            let values = section.body().values(key);
            if values.is_empty() || section.body().value_implicit(key) == Some(None) {
                target
                    .push(key.as_str(), None::<&BStr>)
                    .map_err(|e| crate::GitError::failed("config", e))?;
            }
            for value in &values {
                target
                    .push(key.as_str(), Some(value.as_bstr()))
                    .map_err(|e| crate::GitError::failed("config", e))?;
            }
        }
    }
    Ok(out.to_bstring().into())
}

/// The host copy's `config` after an operation, merged with what the workspace's `config`
/// (`original`) had outside the allowlist.
pub(crate) fn merge(host: &[u8], original: &[u8]) -> crate::Result<Vec<u8>> {
    let mut merged = host.to_vec();
    let rest = split(original, false)?;
    if !rest.is_empty() {
        if !merged.is_empty() && !merged.ends_with(b"\n") {
            merged.push(b'\n');
        }
        merged.extend_from_slice(&rest);
    }
    Ok(merged)
}

fn parse(config: &[u8]) -> crate::Result<File> {
    let mut bytes = config.to_vec();
    Ok(File::from_bytes_owned(
        &mut bytes,
        gix::config::file::Metadata::from(gix::config::Source::Local),
        Default::default(),
    )?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_line_settings_meet_the_same_allowlist() {
        for ok in [
            "user.name",
            "user.email",
            "remote.origin.url",
            "branch.main.merge",
            "core.abbrev",
        ] {
            assert!(allows(ok), "{ok}");
        }
        for refused in [
            "include.path",
            "credential.helper",
            "core.sshCommand",
            "core.pager",
            "core.fsmonitor",
            "http.proxy",
            "remote.origin.uploadpack",
            "name",
        ] {
            assert!(!allows(refused), "{refused}");
        }
    }

    const HOSTILE: &str = "[core]\n\trepositoryformatversion = 0\n\tsshCommand = touch /tmp/x\n\
        \tworktree = /\n[credential]\n\thelper = !touch /tmp/pwned\n[remote \"origin\"]\n\
        \turl = https://example.com/r.git\n\tuploadpack = evil\n[include]\n\tpath = /etc/shadow\n\
        [user]\n\tname = \"A U\"\n";

    #[test]
    fn only_allowed_keys_reach_the_host() {
        let kept = String::from_utf8(split(HOSTILE.as_bytes(), true).unwrap()).unwrap();
        assert!(kept.contains("repositoryformatversion = 0"), "{kept}");
        assert!(kept.contains("url = https://example.com/r.git"), "{kept}");
        assert!(kept.contains("name = A U"), "{kept}");
        for bad in [
            "sshCommand",
            "worktree",
            "helper",
            "uploadpack",
            "include",
            "shadow",
        ] {
            assert!(!kept.contains(bad), "{bad} in {kept}");
        }
    }

    #[test]
    fn the_rest_is_merged_back_after_a_change() {
        let kept = split(HOSTILE.as_bytes(), true).unwrap();
        let mut changed = String::from_utf8(kept).unwrap();
        changed.push_str("[remote \"up\"]\n\turl = /workspace/up\n");
        let merged = merge(changed.as_bytes(), HOSTILE.as_bytes()).unwrap();
        let file = parse(&merged).unwrap();
        let get = |k: &str| file.raw_value(k).ok().map(|v| v.to_string());
        assert_eq!(get("remote.up.url").as_deref(), Some("/workspace/up"));
        assert_eq!(
            get("credential.helper").as_deref(),
            Some("!touch /tmp/pwned")
        );
        assert_eq!(get("remote.origin.uploadpack").as_deref(), Some("evil"));
        assert_eq!(
            get("remote.origin.url").as_deref(),
            Some("https://example.com/r.git")
        );
    }
}
