//! `computer sh` on a terminal: a prompt with the working directory, line editing and history
//! (rustyline), continuation lines for unfinished input (`> `), and one session, so variables,
//! functions and cwd last from line to line. History is kept in `~/.computer_history`.

use std::process::ExitCode;

use anyhow::{Context, Result};
use computer::{Backend, ExecRequest, Program, Workspace};
use rustyline::error::ReadlineError;

use crate::cmd_run::{RunOptions, forward_output};

/// What the shell says when input stops in the middle of a command.
const UNFINISHED: &[&str] = &["unexpected end of file", "unexpected EOF while looking for"];

fn history_file() -> Option<std::path::PathBuf> {
    std::env::var_os("HOME").map(|h| std::path::Path::new(&h).join(".computer_history"))
}

/// `~`-shortened for the prompt when under `/home/user`.
fn prompt_dir(cwd: &str) -> String {
    match cwd.strip_prefix("/home/user") {
        Some(rest) if rest.is_empty() || rest.starts_with('/') => format!("~{rest}"),
        _ => cwd.to_string(),
    }
}

/// Whether `src` is a command cut short (so another line should follow).
fn unfinished(ws: &Workspace, src: &str) -> Result<bool> {
    let check = ws.exec(ExecRequest {
        program: Program::Shell(vec!["-n".into(), "-c".into(), src.into()]),
        backend: Backend::Auto,
        ..ExecRequest::script("")
    })?;
    let stderr = String::from_utf8_lossy(&check.stderr);
    Ok(check.status == 2 && UNFINISHED.iter().any(|m| stderr.contains(m)))
}

pub fn run(ws: &Workspace, options: &RunOptions) -> Result<ExitCode> {
    let session = ws.session();
    let mut editor = rustyline::DefaultEditor::new().context("start line editing")?;
    let history = history_file();
    if let Some(h) = &history {
        let _ = editor.load_history(h);
    }
    let env = options.env()?;
    let limits = options.limits()?;
    let mut cwd = options.cwd(ws);
    let mut status = 0;
    let mut pending = String::new();
    loop {
        let prompt = if pending.is_empty() {
            format!("computer:{}$ ", prompt_dir(&cwd))
        } else {
            "> ".to_string()
        };
        let line = match editor.readline(&prompt) {
            Ok(line) => line,
            Err(ReadlineError::Interrupted) => {
                pending.clear();
                continue;
            }
            Err(ReadlineError::Eof) => break,
            Err(e) => return Err(e).context("read a line"),
        };
        pending.push_str(&line);
        pending.push('\n');
        if pending.trim().is_empty() {
            pending.clear();
            continue;
        }
        if unfinished(ws, &pending)? {
            continue;
        }
        let _ = editor.add_history_entry(pending.trim_end());
        let request = ExecRequest {
            program: Program::Script(std::mem::take(&mut pending)),
            backend: Backend::Auto,
            cwd: cwd.clone(),
            env: env.clone(),
            stdin: Vec::new(),
            limits,
            cancel: Default::default(),
        };
        let out = session.exec_streaming(request, Some(forward_output()))?;
        crate::cmd_run::report("sh", &out.ended, out.status);
        status = out.status;
        if session.exited() {
            break;
        }
        if let Some(dir) = session.cwd() {
            cwd = dir;
        }
    }
    if let Some(h) = &history {
        let _ = editor.save_history(h);
    }
    Ok(ExitCode::from((status & 0xff) as u8))
}
