//! The interpreter as utilities see it: [`Context`] for [`Interp`]. This is the whole seam
//! between the two crates; a utility reaches nothing of the interpreter but this.

use std::path::PathBuf;
use std::time::Instant;

use shell_base::Context;
use shell_base::io::Io;
use shell_base::runtime::Task;

use crate::interp::Interp;

impl Context for Interp<'_> {
    fn io(&self) -> &Io {
        &self.io
    }

    fn path(&self, path: &str) -> PathBuf {
        self.shell.path(path)
    }

    fn cwd(&self) -> &str {
        &self.shell.cwd
    }

    fn var(&self, name: &str) -> Option<&str> {
        self.shell.get(name)
    }

    fn environment(&self) -> Vec<(String, String)> {
        self.shell.environment()
    }

    fn umask(&self) -> u32 {
        self.shell.umask
    }

    fn deadline(&self) -> Option<Instant> {
        self.shell.deadline
    }

    fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.shell.deadline = deadline;
    }

    fn random(&mut self) -> u32 {
        self.shell.random()
    }

    fn has_command(&self, name: &str) -> bool {
        self.shell.commands.find(name).is_some()
    }

    fn command_names(&self) -> Vec<&str> {
        self.shell.commands.names().collect()
    }

    fn is_builtin(&self, name: &str) -> bool {
        self.builtins.is_builtin(name)
    }

    fn run<'a>(&'a mut self, argv: Vec<String>) -> Task<'a, i32> {
        Box::pin(async move {
            // As a child process: its `exit` or `return` ends only it.
            let _ = self.run_argv(argv).await;
            self.shell.status
        })
    }

    fn run_script<'a>(&'a mut self, script: &'a str, io: Io) -> Task<'a, i32> {
        Box::pin(async move {
            let mut sub = crate::interp::subshell_of(self.shell);
            let mut interp = Interp::new(&mut sub, io, self.builtins);
            interp.run_source(script).await;
            interp.run_exit_trap().await;
            interp.shell.status
        })
    }

    fn run_on_host<'a>(&'a mut self, argv: Vec<String>) -> Task<'a, i32> {
        Box::pin(async move {
            self.host_exec(argv).await;
            self.shell.status
        })
    }
}
