//! Redirections over the shell's own descriptor table (WASI has no `dup` or `pipe`):
//! `< > >> >| <> &> &>> n>&m n<&m n>&- <<< <<`, numeric descriptors and `{var}>file`.

use crate::expand::Expand;
use std::cell::RefCell;
use std::rc::Rc;

use brush_parser::ast::{IoFileRedirectKind as K, IoFileRedirectTarget as T, IoRedirect};

use crate::expand::ExpandError;
use crate::interp::Interp;
use crate::interp::procsub::Substituted;
use shell_base::errno::io_message;
use shell_base::io::{Fd, Input, Io, Output};

/// A redirection, with the variable of a `{var}>file` form.
#[derive(Clone)]
pub struct Redirect {
    pub redirect: IoRedirect,
    pub var: Option<String>,
}

/// Lowest descriptor `{var}>` allocates, as bash.
const FIRST_VAR_FD: i32 = 10;

impl Interp<'_> {
    /// Applies redirections to a copy of the current streams. A process substitution among
    /// them goes to `substituted`, for the caller to finish after the command (also when a
    /// later redirection fails).
    pub async fn redirect(
        &mut self,
        redirects: &[Redirect],
        substituted: &mut Vec<Substituted>,
    ) -> Result<Io, String> {
        let mut io = self.io.clone();
        for r in redirects {
            self.redirect_one(&mut io, r, substituted).await?;
        }
        Ok(io)
    }

    async fn redirect_one(
        &mut self,
        io: &mut Io,
        r: &Redirect,
        substituted: &mut Vec<Substituted>,
    ) -> Result<(), String> {
        let fd_for = |io: &Io, given: Option<i32>, default: i32| -> i32 {
            match (&r.var, given) {
                (Some(_), _) => (FIRST_VAR_FD..)
                    .find(|n| io.get(*n).is_none())
                    .unwrap_or(FIRST_VAR_FD),
                (None, Some(n)) => n,
                (None, None) => default,
            }
        };
        match &r.redirect {
            IoRedirect::File(given, kind, target) => {
                let default = if matches!(kind, K::Read | K::ReadAndWrite | K::DuplicateInput) {
                    0
                } else {
                    1
                };
                let fd = fd_for(io, *given, default);
                if let Some(var) = &r.var {
                    self.shell.set(var, fd.to_string());
                }
                let word = match target {
                    T::Filename(w) | T::Duplicate(w) => self.expand_target(&w.value).await?,
                    T::Fd(n) => n.to_string(),
                    T::ProcessSubstitution(k, sub) => {
                        let s = self
                            .process_substitution(k, sub)
                            .await
                            .map_err(|e| e.message)?;
                        let opened = open(std::path::Path::new(&s.path), kind);
                        substituted.push(s);
                        set_file(io, fd, kind, opened?);
                        return Ok(());
                    }
                };
                let dup = matches!(kind, K::DuplicateOutput | K::DuplicateInput)
                    || matches!(target, T::Fd(_));
                if dup {
                    return self.duplicate(io, fd, kind, &word);
                }
                if let Some(source) = dev_fd(&word) {
                    return self.duplicate(io, fd, kind, &source.to_string());
                }
                if matches!(kind, K::Write) && self.shell.options.noclobber && word != "/dev/null" {
                    let path = self.shell.path(&word);
                    if std::fs::metadata(&path).is_ok_and(|m| m.is_file()) {
                        return Err(format!("{word}: cannot overwrite existing file"));
                    }
                }
                let file =
                    open(&self.target_path(&word), kind).map_err(|e| format!("{word}: {e}"))?;
                set_file(io, fd, kind, file);
            }
            IoRedirect::OutputAndError(w, append) => {
                let word = self.expand_target(&w.value).await?;
                let kind = if *append { K::Append } else { K::Write };
                let file =
                    open(&self.target_path(&word), &kind).map_err(|e| format!("{word}: {e}"))?;
                let out = Output::File(Rc::new(RefCell::new(file)));
                io.stdout = out.clone();
                io.stderr = out;
            }
            IoRedirect::HereString(given, w) => {
                let text = self.expand_string(&w.value).await.map_err(|e| e.message)?;
                let fd = fd_for(io, *given, 0);
                io.set(
                    fd,
                    Fd::input(Input::bytes(format!("{text}\n").into_bytes())),
                );
            }
            IoRedirect::HereDocument(given, doc) => {
                let mut body = doc.doc.value.clone();
                if doc.remove_tabs {
                    body = body
                        .lines()
                        .map(|l| l.trim_start_matches('\t'))
                        .collect::<Vec<_>>()
                        .join("\n")
                        + if body.ends_with('\n') { "\n" } else { "" };
                }
                if doc.requires_expansion {
                    body = self.expand_heredoc(&body).await.map_err(|e| e.message)?;
                }
                let fd = fd_for(io, *given, 0);
                io.set(fd, Fd::input(Input::bytes(body.into_bytes())));
            }
        }
        Ok(())
    }

    /// `n>&m`, `n<&m`, `n>&-`; `>&file` sends both stdout and stderr to a file.
    fn duplicate(&mut self, io: &mut Io, fd: i32, kind: &K, word: &str) -> Result<(), String> {
        if word == "-" {
            io.close(fd);
            return Ok(());
        }
        let (number, close_after) = match word.strip_suffix('-') {
            Some(n) => (n, true),
            None => (word, false),
        };
        let Ok(source) = number.parse::<i32>() else {
            if matches!(kind, K::DuplicateOutput) {
                let file =
                    open(&self.target_path(word), &K::Write).map_err(|e| format!("{word}: {e}"))?;
                let out = Output::File(Rc::new(RefCell::new(file)));
                io.stdout = out.clone();
                io.stderr = out;
                return Ok(());
            }
            return Err(format!("{word}: ambiguous redirect"));
        };
        let Some(endpoint) = io.get(source) else {
            return Err(format!("{source}: Bad file descriptor"));
        };
        io.set(fd, endpoint);
        if close_after {
            io.close(source);
        }
        Ok(())
    }

    async fn expand_target(&mut self, raw: &str) -> Result<String, String> {
        let fields = self
            .expand_fields(raw)
            .await
            .map_err(|e: ExpandError| e.message)?;
        match fields.as_slice() {
            [one] => Ok(one.clone()),
            _ => Err(format!("{raw}: ambiguous redirect")),
        }
    }

    fn target_path(&self, word: &str) -> std::path::PathBuf {
        if word == "/dev/null" || word.starts_with("/dev/std") {
            std::path::PathBuf::from(word)
        } else {
            self.shell.path(word)
        }
    }
}

/// Opens a redirection's file; `/dev/stdout`-style names and `/dev/null` are handled by the
/// caller's table only through real paths here.
fn open(path: &std::path::Path, kind: &K) -> Result<std::fs::File, String> {
    let mut o = std::fs::OpenOptions::new();
    match kind {
        K::Read | K::DuplicateInput => o.read(true),
        K::Append => o.append(true).create(true),
        K::ReadAndWrite => o.read(true).write(true).create(true),
        _ => o.write(true).create(true).truncate(true),
    };
    o.open(path).map_err(|e| io_message(&e))
}

fn set_file(io: &mut Io, fd: i32, kind: &K, file: std::fs::File) {
    let file = Rc::new(RefCell::new(file));
    let endpoint = match kind {
        K::Read | K::DuplicateInput => Fd::input(Input::File(file)),
        K::ReadAndWrite => Fd {
            input: Some(Input::File(Rc::clone(&file))),
            output: Some(Output::File(file)),
        },
        _ => Fd::output(Output::File(file)),
    };
    io.set(fd, endpoint);
}

/// The descriptor a `/dev/stdin`, `/dev/stdout`, `/dev/stderr` or `/dev/fd/N` name stands for.
fn dev_fd(word: &str) -> Option<i32> {
    match word {
        "/dev/stdin" => Some(0),
        "/dev/stdout" => Some(1),
        "/dev/stderr" => Some(2),
        _ => word.strip_prefix("/dev/fd/")?.parse().ok(),
    }
}
