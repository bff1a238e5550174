//! Process substitution without processes or `/dev/fd`: `<(cmd)` runs `cmd` to completion
//! into a temporary file in the workspace's `/tmp` and stands for its path; `>(cmd)` stands
//! for an empty temporary file, and once the command using it is done, `cmd` reads it on
//! standard input. The files are removed afterwards. Each one, like a background job, is
//! `$!` once it has run, so `wait $!` works as in bash.

use std::cell::RefCell;
use std::rc::Rc;

use brush_parser::ast::{CompoundList, ProcessSubstitutionKind, SubshellCommand};

use crate::expand::ExpandError;
use crate::interp::Interp;
use shell_base::io::{Input, Io, Output};
use shell_base::runtime::Task;

/// Where the temporary files go.
const TMP_DIR: &str = "/tmp";

/// A `>(cmd)` waiting for its input, or a `<(cmd)` file to remove.
pub struct Substituted {
    pub path: String,
    /// For `>(cmd)`: `cmd`, and the streams of the shell where it appeared (not those of the
    /// command it feeds, which may write to it).
    reader: Option<(CompoundList, Io)>,
}

impl Substituted {
    /// `>(cmd)`: its file must stay until `cmd` has read it.
    pub fn is_output(&self) -> bool {
        self.reader.is_some()
    }
}

impl Interp<'_> {
    /// Sets up one process substitution; returns the path that replaces it.
    pub async fn process_substitution(
        &mut self,
        kind: &ProcessSubstitutionKind,
        sub: &SubshellCommand,
    ) -> Result<Substituted, ExpandError> {
        let path = self.temp_path()?;
        let file = std::fs::File::create(&path).map_err(|e| {
            ExpandError::new(format!("{path}: {}", shell_base::errno::io_message(&e)))
        })?;
        match kind {
            ProcessSubstitutionKind::Read => {
                let io = Io {
                    stdin: self.io.stdin.clone(),
                    stdout: Output::File(Rc::new(RefCell::new(file))),
                    stderr: self.io.stderr.clone(),
                    ..self.io.clone()
                };
                let status = self.run_in_subshell(&sub.list, io).await;
                self.finished_job(status);
                Ok(Substituted { path, reader: None })
            }
            ProcessSubstitutionKind::Write => Ok(Substituted {
                path,
                reader: Some((sub.list.clone(), self.io.clone())),
            }),
        }
    }

    /// After the command: runs each `>(cmd)` on what was written, and removes the files.
    /// (Boxed: a reader's subshell ends by finishing its own substitutions.)
    pub fn finish_substitutions(&mut self, done: Vec<Substituted>) -> Task<'_, ()> {
        Box::pin(async move {
            for s in done {
                if let Some((list, io)) = &s.reader
                    && let Ok(file) = std::fs::File::open(&s.path)
                {
                    let io = Io {
                        stdin: Input::File(Rc::new(RefCell::new(file))),
                        ..io.clone()
                    };
                    let status = self.run_in_subshell(list, io).await;
                    self.finished_job(status);
                }
                let _ = std::fs::remove_file(&s.path);
            }
        })
    }

    /// As the shell ends: the `>(cmd)` of `exec > >(cmd)`, which read all the shell wrote
    /// there.
    pub async fn finish_exec_substitutions(&mut self) {
        let done = std::mem::take(&mut self.exec_substitutions);
        self.finish_substitutions(done).await;
    }

    fn temp_path(&mut self) -> Result<String, ExpandError> {
        std::fs::create_dir_all(TMP_DIR).map_err(|e| {
            ExpandError::new(format!(
                "process substitution: {TMP_DIR}: {}",
                shell_base::errno::io_message(&e)
            ))
        })?;
        let n = self.shell.random() as u64 * 32768 + self.shell.random() as u64;
        Ok(format!("{TMP_DIR}/.computer-procsub-{n}"))
    }
}
