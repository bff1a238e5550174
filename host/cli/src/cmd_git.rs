//! `computer git ARGS...`: git on the workspace's repositories, run by the host (gix) over the
//! same files the shell and the container see, printing what git prints with git's exit
//! status. Unlike guests, the CLI's user may clone from host paths, and their identity comes
//! from `GIT_*` variables or `~/.gitconfig`.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Result;
use clap::Args;
use computer::gitlib::Invocation;
use computer::{GitOptions, Workspace};

#[derive(Debug, Args)]
pub struct GitArgs {
    /// The directory to run in (a workspace path; relative paths start at /workspace).
    #[arg(short = 'C', long = "cwd", value_name = "DIR", default_value = computer::DEFAULT_CWD)]
    cwd: String,
    /// The git command line, e.g. `clone URL`, `status`, `log --oneline`.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, required = true)]
    args: Vec<String>,
}

pub fn git(ws: &Workspace, args: GitArgs) -> Result<ExitCode> {
    ws.set_git_options(GitOptions {
        host_paths: true,
        // The user's own command, like their own `git`: the workspace's network policy
        // holds the guests, not the person at the terminal.
        network_policy: false,
        ..GitOptions::default()
    });
    let git = ws.git()?;
    let cwd = ws.resolve(&args.cwd);
    let env = environment();
    let bar = progress_bar();
    let report = {
        let bar = bar.clone();
        move |line: &str| {
            if let Some(bar) = &bar {
                bar.set_message(line.to_string());
            }
        }
    };
    let out = git.run(
        &args.args,
        &Invocation {
            cwd: &cwd,
            env: &env,
            progress: Some(&report),
            stop: None,
        },
    );
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    std::io::stdout().write_all(&out.stdout)?;
    std::io::stderr().write_all(&out.stderr)?;
    Ok(ExitCode::from(out.status.clamp(0, 255) as u8))
}

/// The host's `GIT_*` identity and date variables, and `~/.gitconfig`'s identity when they
/// are not set.
fn environment() -> std::collections::HashMap<String, String> {
    let mut env: std::collections::HashMap<String, String> = std::env::vars()
        .filter(|(k, _)| k.starts_with("GIT_AUTHOR_") || k.starts_with("GIT_COMMITTER_"))
        .collect();
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let files = [
        std::env::var_os("XDG_CONFIG_HOME").map(|d| PathBuf::from(d).join("git/config")),
        home.as_ref().map(|h| h.join(".config/git/config")),
        home.map(|h| h.join(".gitconfig")),
    ];
    if let Some((name, email)) = files
        .into_iter()
        .flatten()
        .find_map(|f| computer::gitlib::identity_from_file(&f))
    {
        for role in ["AUTHOR", "COMMITTER"] {
            env.entry(format!("GIT_{role}_NAME"))
                .or_insert(name.clone());
            env.entry(format!("GIT_{role}_EMAIL"))
                .or_insert(email.clone());
        }
    }
    env
}

/// A spinner with the latest progress line of a clone or fetch, on a terminal only.
fn progress_bar() -> Option<Arc<indicatif::ProgressBar>> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = indicatif::ProgressBar::new_spinner();
    bar.enable_steady_tick(std::time::Duration::from_millis(120));
    Some(Arc::new(bar))
}
