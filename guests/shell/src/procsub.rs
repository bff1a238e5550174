//! Process substitution without processes or `/dev/fd`: `<(cmd)` runs `cmd` to completion
//! into a temporary file in the workspace's `/tmp` and stands for its path; `>(cmd)` stands
//! for an empty temporary file, and once the command using it is done, `cmd` reads it on
//! standard input. The files are removed afterwards.

use std::cell::RefCell;
use std::rc::Rc;

use brush_parser::ast::{ProcessSubstitutionKind, SubshellCommand};

use crate::exec::Interp;
use crate::expand::ExpandError;
use crate::io::{Input, Io, Output};

/// Where the temporary files go.
const TMP_DIR: &str = "/tmp";

/// A `>(cmd)` waiting for its input, or a `<(cmd)` file to remove.
pub struct Substituted<'a> {
    pub path: String,
    pub reader: Option<&'a SubshellCommand>,
}

impl Interp<'_> {
    /// Sets up one process substitution; returns the path that replaces it.
    pub async fn process_substitution<'a>(
        &mut self,
        kind: &ProcessSubstitutionKind,
        sub: &'a SubshellCommand,
    ) -> Result<Substituted<'a>, ExpandError> {
        let path = self.temp_path()?;
        let file = std::fs::File::create(&path)
            .map_err(|e| ExpandError::new(format!("{path}: {}", crate::exec::io_message(&e))))?;
        match kind {
            ProcessSubstitutionKind::Read => {
                let io = Io {
                    stdin: self.io.stdin.clone(),
                    stdout: Output::File(Rc::new(RefCell::new(file))),
                    stderr: self.io.stderr.clone(),
                    ..self.io.clone()
                };
                self.run_in_subshell(&sub.list, io).await;
                Ok(Substituted { path, reader: None })
            }
            ProcessSubstitutionKind::Write => Ok(Substituted {
                path,
                reader: Some(sub),
            }),
        }
    }

    /// After the command: runs each `>(cmd)` on what was written, and removes the files.
    pub async fn finish_substitutions(&mut self, done: Vec<Substituted<'_>>) {
        for s in done {
            if let Some(sub) = s.reader
                && let Ok(file) = std::fs::File::open(&s.path)
            {
                let io = Io {
                    stdin: Input::File(Rc::new(RefCell::new(file))),
                    stdout: self.io.stdout.clone(),
                    stderr: self.io.stderr.clone(),
                    ..self.io.clone()
                };
                self.run_in_subshell(&sub.list, io).await;
            }
            let _ = std::fs::remove_file(&s.path);
        }
    }

    fn temp_path(&mut self) -> Result<String, ExpandError> {
        std::fs::create_dir_all(TMP_DIR).map_err(|e| {
            ExpandError::new(format!(
                "process substitution: {TMP_DIR}: {}",
                crate::exec::io_message(&e)
            ))
        })?;
        let n = self.shell.random() as u64 * 32768 + self.shell.random() as u64;
        Ok(format!("{TMP_DIR}/.computer-procsub-{n}"))
    }
}
