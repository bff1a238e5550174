//! `git <args>` as the git CLI runs it: the command line parsed, the command run, its output
//! and exit status returned.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::error::{GitError, Result};
use crate::repo::{Git, Session};

/// What a git command printed and its exit status.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Output {
    /// The exit status (0 success, 1 for "differences"/conflicts, 128 fatal, 129 usage).
    pub status: i32,
    /// Standard output.
    pub stdout: Vec<u8>,
    /// Standard error.
    pub stderr: Vec<u8>,
}

impl Output {
    pub(crate) fn ok(stdout: impl Into<Vec<u8>>) -> Output {
        Output {
            status: 0,
            stdout: stdout.into(),
            stderr: Vec::new(),
        }
    }

    /// Adds a line to standard error.
    pub(crate) fn note(mut self, line: &str) -> Output {
        self.stderr.extend_from_slice(line.as_bytes());
        self.stderr.push(b'\n');
        self
    }

    fn from_error(err: &GitError) -> Output {
        let prefix = match err {
            GitError::Usage(_) => "",
            GitError::Conflict(_) => "error: ",
            _ => "fatal: ",
        };
        Output {
            status: err.exit_code(),
            stdout: Vec::new(),
            stderr: format!("{prefix}{err}\n").into_bytes(),
        }
    }
}

/// Where and with what a command runs.
pub struct Invocation<'a> {
    /// The current directory (a workspace path).
    pub cwd: &'a Path,
    /// The command's environment (`GIT_AUTHOR_NAME`, `GIT_COMMITTER_DATE`, ...): never the
    /// host's.
    pub env: &'a HashMap<String, String>,
    /// Receives progress lines of long operations (clone, fetch).
    pub progress: Option<&'a (dyn Fn(&str) + Sync)>,
    /// Says when the caller's command must stop (its deadline passed, or it was cancelled):
    /// network work then ends with an error, as at the network time limit.
    pub stop: Option<&'a (dyn Fn() -> bool + Sync)>,
}

impl Invocation<'_> {
    pub(crate) fn var(&self, name: &str) -> Option<&str> {
        self.env
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }

    /// Whether the caller's command must stop now.
    pub(crate) fn stopped(&self) -> bool {
        self.stop.is_some_and(|stop| stop())
    }

    pub(crate) fn progress(&self, line: &str) {
        if let Some(progress) = self.progress {
            progress(line);
        }
    }

    /// `path` (relative to the current directory, or absolute) as a workspace path.
    pub(crate) fn resolve(&self, path: &str) -> PathBuf {
        computer_vfs::path::normalize(&self.cwd.join(path))
    }
}

impl Git {
    /// Runs `git <args>` the way the git CLI would: errors become git's messages on standard
    /// error and its exit codes, so callers can print the output as it is.
    pub fn run(&self, args: &[String], inv: &Invocation<'_>) -> Output {
        match self.dispatch(args, inv) {
            Ok(out) => out,
            Err(err) => Output::from_error(&err),
        }
    }

    fn dispatch(&self, args: &[String], inv: &Invocation<'_>) -> Result<Output> {
        let Some((global, args)) = crate::global::split(args) else {
            return Err(GitError::Usage(format!(
                "git: an option before the command that the isolate's git does not take (it takes -c, -C, --no-pager).\n\n{USAGE}"
            )));
        };
        if !global.config.is_empty() || !global.dirs.is_empty() {
            // `-C` directories one after the other; `-c` settings handed on as git does.
            let mut cwd = inv.cwd.to_path_buf();
            for dir in &global.dirs {
                cwd = computer_vfs::path::normalize(&cwd.join(dir));
                // As git's chdir: the directory must be there.
                let why = match self.vfs.stat(&cwd) {
                    Ok(st) if st.is_dir() => continue,
                    Ok(_) => "Not a directory",
                    Err(_) => "No such file or directory",
                };
                return Err(GitError::Failed(format!("cannot change to '{dir}': {why}")));
            }
            let mut env = inv.env.clone();
            if !global.config.is_empty() {
                let current = env.get(CONFIG_PARAMETERS).map(String::as_str);
                let value = crate::global::with_parameters(current, &global.config);
                env.insert(CONFIG_PARAMETERS.into(), value);
            }
            let inv = Invocation {
                cwd: &cwd,
                env: &env,
                progress: inv.progress,
                stop: inv.stop,
            };
            return self.dispatch(args, &inv);
        }
        let Some((name, rest)) = args.split_first() else {
            return Err(GitError::Usage(USAGE.into()));
        };
        let Some(command) = command(name) else {
            return Err(GitError::Usage(format!(
                "git: '{name}' is not a git command supported by the isolate's git. See 'git help'.\n\n{USAGE}"
            )));
        };
        let rest = rest.to_vec();
        match command.run {
            Run::Alone(run) => run(self, rest, inv),
            Run::InRepo(run) => self.with_repo(inv, command.writes, |s| run(s, rest, inv)),
        }
    }

    /// Runs `f` on the repository containing the current directory; when `writes`, copies
    /// what changed in `.git` back into the workspace afterwards (also after a failure, which
    /// may have written something before failing).
    fn with_repo(
        &self,
        inv: &Invocation<'_>,
        writes: bool,
        f: impl FnOnce(&Session<'_>) -> Result<Output>,
    ) -> Result<Output> {
        let session = self.discover(inv.cwd, inv.env)?;
        let out = f(&session);
        if writes {
            session.save()?;
        }
        out
    }
}

/// How a git command runs.
#[derive(Clone, Copy)]
pub(crate) enum Run {
    /// Outside any repository (`init`, `clone`, `version`).
    Alone(fn(&Git, Vec<String>, &Invocation<'_>) -> Result<Output>),
    /// In the repository that contains the current directory.
    InRepo(fn(&Session<'_>, Vec<String>, &Invocation<'_>) -> Result<Output>),
}

/// One git command [`Git::run`] implements.
#[derive(Clone, Copy)]
pub struct Command {
    /// What follows `git` (`commit`, `rev-parse`).
    pub name: &'static str,
    /// Whether it may change the repository, so `.git` is copied back into the workspace
    /// after it (also after a failure, which may have written something first).
    pub writes: bool,
    pub(crate) run: Run,
}

const fn alone(
    name: &'static str,
    run: fn(&Git, Vec<String>, &Invocation<'_>) -> Result<Output>,
) -> Command {
    Command {
        name,
        writes: false,
        run: Run::Alone(run),
    }
}

const fn in_repo(
    name: &'static str,
    writes: bool,
    run: fn(&Session<'_>, Vec<String>, &Invocation<'_>) -> Result<Output>,
) -> Command {
    Command {
        name,
        writes,
        run: Run::InRepo(run),
    }
}

fn version(_: &Git, _: Vec<String>, _: &Invocation<'_>) -> Result<Output> {
    Ok(Output::ok(format!(
        "git version 2.39.0 (computer {})\n",
        env!("CARGO_PKG_VERSION")
    )))
}

fn help(_: &Git, _: Vec<String>, _: &Invocation<'_>) -> Result<Output> {
    Ok(Output::ok(USAGE))
}

/// The commands [`Git::run`] implements, the one list its dispatch, [`supports`] and the
/// shell read (others answer with a usage error; callers such as the shell send them to the
/// real git in a container instead).
pub const COMMANDS: &[Command] = &[
    alone("init", crate::cmd_setup::init),
    alone("clone", crate::cmd_remote::clone),
    in_repo("fetch", true, crate::cmd_remote::fetch),
    in_repo("pull", true, crate::cmd_remote::pull),
    in_repo("push", true, crate::cmd_push::push),
    in_repo("remote", true, |s, rest, _| {
        crate::cmd_remote::remote(s, rest)
    }),
    in_repo("config", true, |s, rest, _| {
        crate::cmd_setup::config(s, rest)
    }),
    in_repo("status", false, crate::cmd_worktree::status),
    in_repo("add", true, crate::cmd_worktree::add),
    in_repo("rm", true, crate::cmd_worktree::rm),
    in_repo("mv", true, crate::cmd_worktree::mv),
    in_repo("commit", true, crate::cmd_history::commit),
    in_repo("log", false, crate::cmd_history::log),
    in_repo("show", false, |s, rest, _| {
        crate::cmd_history::show(s, rest)
    }),
    in_repo("diff", false, crate::cmd_history::diff),
    in_repo("rev-parse", false, crate::cmd_history::rev_parse),
    in_repo("ls-files", false, crate::cmd_worktree::ls_files),
    in_repo("branch", true, |s, rest, _| {
        crate::cmd_branch::branch(s, rest)
    }),
    in_repo("checkout", true, crate::cmd_branch::checkout),
    in_repo("switch", true, |s, rest, _| {
        crate::cmd_branch::switch(s, rest)
    }),
    in_repo("reset", true, crate::cmd_branch::reset),
    in_repo("restore", true, crate::cmd_worktree::restore),
    in_repo("stash", true, crate::cmd_stash::stash),
    alone("version", version),
    alone("--version", version),
    alone("help", help),
    alone("--help", help),
    alone("-h", help),
];

/// The command `git <name>` runs, if [`Git::run`] implements it.
pub fn command(name: &str) -> Option<&'static Command> {
    COMMANDS.iter().find(|c| c.name == name)
}

/// Whether [`Git::run`] implements `git <command>`.
pub fn supports(command: &str) -> bool {
    self::command(command).is_some()
}

/// Whether [`Git::run`] runs the whole command line `git <args>`: the options before the
/// command (`-c`, `-C`, `--no-pager`) and the command.
pub fn supports_line(args: &[String]) -> bool {
    // No command at all: this git's usage, which lists what it runs.
    crate::global::split(args).is_some_and(|(_, rest)| rest.first().is_none_or(|c| supports(c)))
}

/// What to say when `git <args>` is not for [`Git::run`] (see [`supports_line`]) and no other
/// backend can run the real git.
pub fn unsupported(args: &[String]) -> String {
    let why = match crate::global::split(args) {
        Some((_, [name, ..])) => {
            format!("'{name}' is not a command of the isolate's git (see 'git help')")
        }
        _ => "an option before the command that the isolate's git does not take (it takes -c, -C and --no-pager)".into(),
    };
    format!("git: {why}; the container backend runs the real git (--backend container, or auto)\n")
}

/// The variable through which `-c` settings reach the command (and which git reads from its
/// environment as well).
pub(crate) const CONFIG_PARAMETERS: &str = "GIT_CONFIG_PARAMETERS";

/// Splits `args` into options (and their values) and operands, the way git's parser does
/// (`--` ends options).
pub(crate) struct Args {
    pub flags: Vec<String>,
    pub values: HashMap<String, String>,
    pub operands: Vec<String>,
    /// Operands after `--`.
    pub paths: Vec<String>,
    pub dashdash: bool,
}

impl Args {
    /// Parses `args`; `with_value` lists the options that take a value (`-m msg`,
    /// `--depth=1`, `-n5`).
    pub fn parse(args: Vec<String>, with_value: &[&str]) -> Result<Args> {
        let mut out = Args {
            flags: Vec::new(),
            values: HashMap::new(),
            operands: Vec::new(),
            paths: Vec::new(),
            dashdash: false,
        };
        let mut iter = args.into_iter();
        while let Some(arg) = iter.next() {
            if out.dashdash {
                out.paths.push(arg);
            } else if arg == "--" {
                out.dashdash = true;
            } else if let Some(long) = arg.strip_prefix("--") {
                match long.split_once('=') {
                    Some((name, value)) => {
                        out.values.insert(format!("--{name}"), value.to_string());
                    }
                    None if with_value.contains(&arg.as_str()) => {
                        let value = iter.next().ok_or_else(|| {
                            GitError::Usage(format!("error: option `{long}' requires a value"))
                        })?;
                        out.values.insert(arg, value);
                    }
                    None => out.flags.push(arg),
                }
            } else if arg.len() > 1 && arg.starts_with('-') && arg != "-" {
                let split = arg.char_indices().nth(2).map_or(arg.len(), |(i, _)| i);
                let short = &arg[..split];
                if with_value.contains(&short) {
                    let value = if arg.len() > split {
                        arg[split..].to_string()
                    } else {
                        iter.next().ok_or_else(|| {
                            GitError::Usage(format!(
                                "error: switch `{}' requires a value",
                                &short[1..]
                            ))
                        })?
                    };
                    // `-m` may repeat: paragraphs.
                    match out.values.get_mut(short) {
                        Some(prev) if short == "-m" => {
                            prev.push_str("\n\n");
                            prev.push_str(&value);
                        }
                        _ => {
                            out.values.insert(short.to_string(), value);
                        }
                    }
                } else if arg[1..].chars().all(|c| c.is_ascii_digit()) {
                    // `-3` is `-n 3` for log.
                    out.values.insert("-n".into(), arg[1..].to_string());
                } else {
                    // Bundled short flags: `-am`, `-fd`.
                    let chars: Vec<char> = arg[1..].chars().collect();
                    for (i, c) in chars.iter().enumerate() {
                        let flag = format!("-{c}");
                        if with_value.contains(&flag.as_str()) {
                            let rest: String = chars[i + 1..].iter().collect();
                            let value = if rest.is_empty() {
                                iter.next().ok_or_else(|| {
                                    GitError::Usage(format!("error: switch `{c}' requires a value"))
                                })?
                            } else {
                                rest
                            };
                            out.values.insert(flag, value);
                            break;
                        }
                        out.flags.push(flag);
                    }
                }
            } else {
                out.operands.push(arg);
            }
        }
        Ok(out)
    }

    /// Whether any of `names` was given.
    pub fn has(&self, names: &[&str]) -> bool {
        self.flags.iter().any(|f| names.contains(&f.as_str()))
    }

    /// The value of the first of `names` that was given.
    pub fn value(&self, names: &[&str]) -> Option<&str> {
        names
            .iter()
            .find_map(|n| self.values.get(*n))
            .map(String::as_str)
    }

    /// Operands and paths after `--`, together.
    pub fn all_paths(&self) -> Vec<String> {
        self.operands.iter().chain(&self.paths).cloned().collect()
    }

    /// Fails on flags the command does not know (so nothing silently does the wrong thing).
    pub fn only(&self, command: &str, known: &[&str]) -> Result<()> {
        let known_values: Vec<&str> = known.to_vec();
        for flag in &self.flags {
            if !known.contains(&flag.as_str()) {
                return Err(GitError::Usage(format!(
                    "error: unknown option `{}' for 'git {command}' in the isolate's git",
                    flag.trim_start_matches('-')
                )));
            }
        }
        for name in self.values.keys() {
            if !known_values.contains(&name.as_str()) {
                return Err(GitError::Usage(format!(
                    "error: unknown option `{}' for 'git {command}' in the isolate's git",
                    name.trim_start_matches('-')
                )));
            }
        }
        Ok(())
    }
}

const USAGE: &str = "usage: git <command> [<args>]

The isolate's git (gix, in the workspace) supports:
   init, clone, fetch, pull (fast-forward), push, remote, config
   status, add, rm, mv, restore, commit, reset
   log, show, diff, rev-parse, ls-files
   branch, checkout, switch, stash
Other commands run with the real git in the container (backend: container).
";

/// `user.name` and `user.email` from a git configuration file (for a CLI whose user has a
/// `~/.gitconfig`; guests never see the host's).
pub fn identity_from_file(path: &Path) -> Option<(String, String)> {
    let file = crate::cmd_setup::load_config(path, gix::config::Source::User).ok()?;
    let name = file.raw_value("user.name").ok()?.to_string();
    let email = file.raw_value("user.email").ok()?.to_string();
    Some((name, email))
}
