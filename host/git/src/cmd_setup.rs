//! `git init` and `git config`.

use crate::cli::{Args, Invocation, Output};
use crate::error::{GitError, Result};
use crate::repo::{Git, Session};

/// `git init [-b NAME] [-q] [DIR]`.
pub(crate) fn init(git: &Git, args: Vec<String>, inv: &Invocation<'_>) -> Result<Output> {
    let args = Args::parse(args, &["-b", "--initial-branch"])?;
    args.only("init", &["-q", "--quiet", "-b", "--initial-branch"])?;
    let dir = inv.resolve(args.operands.first().map_or(".", String::as_str));
    git.vfs()
        .create_dir_all(&dir)
        .map_err(|e| GitError::failed(dir.display(), e))?;
    let session = git.open(&dir, inv.env)?;
    let shown = format!("{}/", session.git_dir.display());
    if session.host_git.exists() {
        return Ok(quiet(
            &args,
            format!("Reinitialized existing Git repository in {shown}\n"),
        ));
    }
    create(
        &session,
        args.value(&["-b", "--initial-branch"]).unwrap_or("master"),
    )?;
    session.save()?;
    Ok(quiet(
        &args,
        format!("Initialized empty Git repository in {shown}\n"),
    ))
}

/// Creates an empty repository in the session's host copy, HEAD on `branch`.
pub(crate) fn create(session: &Session<'_>, branch: &str) -> Result<()> {
    if !crate::refs::valid_branch_name(branch) {
        return Err(GitError::Failed(format!(
            "invalid initial branch name: '{branch}'"
        )));
    }
    let root = session
        .host_git
        .parent()
        .ok_or_else(|| GitError::Failed("bad cache directory".into()))?;
    gix::init(root)?;
    crate::mirror::write_host(
        &session.host_git.join("HEAD"),
        format!("ref: refs/heads/{branch}\n").as_bytes(),
        0o644,
    )?;
    Ok(())
}

fn quiet(args: &Args, text: String) -> Output {
    if args.has(&["-q", "--quiet"]) {
        Output::ok(Vec::new())
    } else {
        Output::ok(text)
    }
}

/// `git config [--local] KEY [VALUE]`, `--get`, `--unset`, `--list`.
pub(crate) fn config(session: &Session<'_>, args: Vec<String>) -> Result<Output> {
    let args = Args::parse(args, &["--get", "--unset"])?;
    args.only("config", &["--local", "--list", "-l", "--get", "--unset"])?;
    let path = session.host_git.join("config");
    let mut file = load_config(&path, gix::config::Source::Local)?;
    if args.has(&["--list", "-l"]) {
        let mut out = String::new();
        for section in file.sections() {
            let header = section.header();
            let prefix = match header.subsection_name() {
                Some(sub) => format!("{}.{sub}", header.name()),
                None => header.name().to_string(),
            };
            for name in section.body().value_names() {
                for value in section.body().values(&name) {
                    out.push_str(&format!(
                        "{}.{}={value}\n",
                        prefix.to_lowercase(),
                        name.to_lowercase()
                    ));
                }
            }
        }
        return Ok(Output::ok(out));
    }
    if let Some(key) = args.value(&["--unset"]) {
        let (section, sub, name) = split_key(key)?;
        let removed = file
            .section_mut(section, sub.map(gix::bstr::BStr::new))
            .ok()
            .and_then(|mut s| s.remove(name));
        if removed.is_none() {
            return Ok(Output {
                status: 5,
                ..Output::default()
            });
        }
        crate::mirror::write_host(&path, &file.to_bstring(), 0o600)?;
        return Ok(Output::ok(Vec::new()));
    }
    let (key, value) = match (args.value(&["--get"]), args.operands.as_slice()) {
        (Some(key), []) => (key, None),
        (None, [key]) => (key.as_str(), None),
        (None, [key, value]) => (key.as_str(), Some(value.as_str())),
        _ => {
            return Err(GitError::Usage(
                "usage: git config [--local] <name> [<value>]".into(),
            ));
        }
    };
    split_key(key)?;
    match value {
        None => match file.raw_value(key) {
            Ok(value) => Ok(Output::ok(format!("{value}\n"))),
            Err(_) => Ok(Output {
                status: 1,
                ..Output::default()
            }),
        },
        Some(value) => {
            file.set_raw_value(key, value)
                .map_err(|e| GitError::failed(format!("invalid key: {key}"), e))?;
            crate::mirror::write_host(&path, &file.to_bstring(), 0o600)?;
            Ok(Output::ok(Vec::new()))
        }
    }
}

/// `section.sub.name` as its three parts.
fn split_key(key: &str) -> Result<(&str, Option<&str>, &str)> {
    let bad = || GitError::Failed(format!("key does not contain a section: {key}"));
    let (section, rest) = key.split_once('.').ok_or_else(bad)?;
    let (sub, name) = match rest.rsplit_once('.') {
        Some((sub, name)) => (Some(sub), name),
        None => (None, rest),
    };
    if section.is_empty() || name.is_empty() {
        return Err(bad());
    }
    Ok((section, sub, name))
}

/// Sets `key = value` pairs in the repository's `config` (the host copy; saved with it).
pub(crate) fn set_config(host_git: &std::path::Path, values: &[(&str, &str)]) -> Result<()> {
    let path = host_git.join("config");
    let mut file = load_config(&path, gix::config::Source::Local)?;
    for (key, value) in values {
        file.set_raw_value(key, *value)
            .map_err(|e| GitError::failed(format!("config {key}"), e))?;
    }
    crate::mirror::write_host(&path, &file.to_bstring(), 0o600)?;
    Ok(())
}

/// A git configuration file (empty when missing), parsed without following includes.
pub(crate) fn load_config(
    path: &std::path::Path,
    source: gix::config::Source,
) -> Result<gix::config::File> {
    let mut bytes = std::fs::read(path).unwrap_or_default();
    Ok(gix::config::File::from_bytes_owned(
        &mut bytes,
        gix::config::file::Metadata::from(source),
        Default::default(),
    )?)
}
