//! The `computer:host/git` import: guests run git on the host (computer-git on gix, over
//! the same workspace) through a [`GitHandler`] the embedder provides. `run` takes a command
//! line; the typed functions are shortcuts over it.

use crate::bindings::computer::host::git;
use crate::state::State;

/// What a git command line printed and its exit status.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GitOutput {
    /// Exit status, as the git CLI's.
    pub status: i32,
    /// Standard output.
    pub stdout: Vec<u8>,
    /// Standard error.
    pub stderr: Vec<u8>,
}

/// Runs git command lines for guests.
pub trait GitHandler: Send + Sync + 'static {
    /// Runs `git <args>` in `cwd` with the guest's `env`. `None`: this git does not implement
    /// the command (the guest may run the real git elsewhere).
    fn run(&self, cwd: &str, args: &[String], env: &[(String, String)]) -> Option<GitOutput>;

    /// As [`GitHandler::run`], for a guest whose run must end when `stop` says so (its
    /// deadline passed or it was cancelled): network work should give up then. By default,
    /// `run`.
    fn run_stoppable(
        &self,
        cwd: &str,
        args: &[String],
        env: &[(String, String)],
        stop: &(dyn Fn() -> bool + Sync),
    ) -> Option<GitOutput> {
        let _ = stop;
        self.run(cwd, args, env)
    }
}

/// The handler of a runtime without git: every call is `unsupported`.
#[derive(Debug, Default)]
pub struct NoGit;

impl GitHandler for NoGit {
    fn run(&self, _: &str, _: &[String], _: &[(String, String)]) -> Option<GitOutput> {
        None
    }
}

type GitResult<T> = wasmtime::Result<Result<T, git::Error>>;

impl State {
    /// Runs a git command line for the guest, stopping its network work with the run.
    fn git_line(&self, cwd: &str, args: &[String], env: &[(String, String)]) -> Option<GitOutput> {
        let (cancel, deadline) = (self.host.cancel.clone(), self.host.deadline.clone());
        let stop = move || cancel.is_cancelled() || deadline.passed();
        self.before_blocking();
        self.host.git.run_stoppable(cwd, args, env, &stop)
    }

    fn git(&self, cwd: &str, args: Vec<String>) -> Result<GitOutput, git::Error> {
        let env = self.host.env.clone();
        match self.git_line(cwd, &args, &env) {
            None => Err(git::Error::Unsupported(format!(
                "git {} is not available here",
                args.first().map_or("", String::as_str)
            ))),
            Some(out) if out.status == 0 => Ok(out),
            Some(out) => Err(classify(&out)),
        }
    }

    fn git_text(&self, cwd: &str, args: Vec<String>) -> Result<String, git::Error> {
        self.git(cwd, args)
            .map(|out| String::from_utf8_lossy(&out.stdout).into_owned())
    }
}

/// A failed command's error variant, from git's message.
fn classify(out: &GitOutput) -> git::Error {
    let text = String::from_utf8_lossy(&out.stderr);
    let message = text
        .trim()
        .trim_start_matches("fatal: ")
        .trim_start_matches("error: ")
        .to_string();
    if message.contains("not a git repository") {
        git::Error::NotARepository(message)
    } else if message.contains("unable to access") {
        git::Error::Network(message)
    } else if message.contains("did not match")
        || message.contains("unknown revision")
        || message.contains("does not exist")
        || message.contains("invalid reference")
    {
        git::Error::NotFound(message)
    } else if out.status == 1 {
        git::Error::Conflict(message)
    } else {
        git::Error::Failed(message)
    }
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

impl git::Host for State {
    fn clone(&mut self, opts: git::CloneOptions) -> GitResult<()> {
        let mut args = strings(&["clone", "-q"]);
        if let Some(depth) = opts.depth {
            args.extend(["--depth".into(), depth.to_string()]);
        }
        if let Some(branch) = opts.branch {
            args.extend(["--branch".into(), branch]);
        }
        args.extend(["--".into(), opts.url, opts.dir]);
        Ok(self.git(crate::DEFAULT_CWD, args).map(|_| ()))
    }

    fn status(&mut self, dir: String, porcelain: bool) -> GitResult<String> {
        let mut args = strings(&["status"]);
        if porcelain {
            args.push("--porcelain".into());
        }
        Ok(self.git_text(&dir, args))
    }

    fn diff(
        &mut self,
        dir: String,
        cached: bool,
        old_rev: Option<String>,
        new_rev: Option<String>,
    ) -> GitResult<String> {
        let mut args = strings(&["diff"]);
        if cached {
            args.push("--cached".into());
        }
        args.extend(old_rev);
        args.extend(new_rev);
        Ok(self.git_text(&dir, args))
    }

    fn add(&mut self, dir: String, paths: Vec<String>) -> GitResult<()> {
        let mut args = strings(&["add", "--"]);
        args.extend(paths);
        Ok(self.git(&dir, args).map(|_| ()))
    }

    fn commit(&mut self, dir: String, message: String) -> GitResult<String> {
        let committed = self.git(
            &dir,
            vec!["commit".into(), "-q".into(), "-m".into(), message],
        );
        Ok(committed.and_then(|_| {
            self.git_text(&dir, strings(&["rev-parse", "HEAD"]))
                .map(|id| id.trim().to_string())
        }))
    }

    fn log(&mut self, dir: String, max_count: u32) -> GitResult<Vec<git::CommitInfo>> {
        let args = vec![
            "log".into(),
            format!("--max-count={max_count}"),
            "--format=%H%n%an%n%ae%n%at%n%s".into(),
        ];
        Ok(self.git_text(&dir, args).map(|text| {
            let lines: Vec<&str> = text.lines().collect();
            lines
                .chunks(5)
                .filter(|c| c.len() == 5)
                .map(|c| git::CommitInfo {
                    id: c[0].into(),
                    author: c[1].into(),
                    email: c[2].into(),
                    time: c[3].parse().unwrap_or(0),
                    summary: c[4].into(),
                })
                .collect()
        }))
    }

    fn checkout(&mut self, dir: String, target: String, create: bool) -> GitResult<()> {
        let mut args = strings(&["checkout", "-q"]);
        if create {
            args.push("-b".into());
        }
        args.push(target);
        Ok(self.git(&dir, args).map(|_| ()))
    }

    fn branch(&mut self, dir: String) -> GitResult<Vec<String>> {
        Ok(self.git_text(&dir, strings(&["branch"])).map(|text| {
            let mut current = Vec::new();
            let mut others = Vec::new();
            for line in text.lines() {
                match line.strip_prefix("* ") {
                    Some(name) => current.push(name.to_string()),
                    None => others.push(line.trim_start().to_string()),
                }
            }
            current.extend(others);
            current
        }))
    }

    fn run(
        &mut self,
        cwd: String,
        args: Vec<String>,
        env: Vec<(String, String)>,
    ) -> GitResult<git::Output> {
        Ok(match self.git_line(&cwd, &args, &env) {
            Some(out) => Ok(git::Output {
                status: out.status,
                stdout: out.stdout,
                stderr: out.stderr,
            }),
            None => Err(git::Error::Unsupported(format!(
                "git {} is not implemented by the isolate's git",
                args.first().map_or("", String::as_str)
            ))),
        })
    }
}
