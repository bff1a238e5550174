//! Running traps: `EXIT` when the shell ends, `RETURN` when a function or sourced script
//! returns, `DEBUG` before each command, and the action of any trap with `$?` kept around it.

use crate::state::Flow;

use crate::interp::{Interp, Outcome};

impl Interp<'_> {
    /// Before a simple command, `[[ ]]`, `(( ))` or a `for`: notes its text as
    /// `$BASH_COMMAND` and runs the `DEBUG` trap. Only while an `ERR` or `DEBUG` trap is set
    /// or hidden by a running function (the text is what their actions read) and outside
    /// trap actions, so that an untrapped script pays one lookup.
    pub async fn before_command(&mut self, text: impl FnOnce() -> String) -> Outcome {
        let traps = &self.shell.traps;
        let watched =
            self.shell.traps_hidden > 0 || traps.contains_key("DEBUG") || traps.contains_key("ERR");
        if self.shell.in_trap || !watched {
            return Ok(());
        }
        self.shell.bash_command = text();
        self.run_debug_trap().await
    }

    /// The `DEBUG` trap's action, if one is set and no trap is running.
    pub async fn run_debug_trap(&mut self) -> Outcome {
        match self.shell.traps.get("DEBUG").cloned() {
            Some(action) if !self.shell.in_trap => self.run_trap(&action, true).await,
            _ => Ok(()),
        }
    }

    /// As a function that set it or a sourced script returns: the `RETURN` trap.
    pub async fn run_return_trap(&mut self) -> Outcome {
        match self.shell.traps.get("RETURN").cloned() {
            Some(action) if !self.shell.in_trap => self.run_trap(&action, false).await,
            _ => Ok(()),
        }
    }

    /// Runs a trap's action; `$?` is kept around it. With `at_line` (`DEBUG`, `ERR`), its
    /// `$LINENO` is the line of the command that set it off, as in bash.
    pub async fn run_trap(&mut self, action: &str, at_line: bool) -> Outcome {
        let status = self.shell.status;
        let was = std::mem::replace(&mut self.shell.in_trap, true);
        let base = self.line_base;
        if at_line {
            self.line_base = self.line.saturating_sub(1);
        }
        let flow = self.run_source(action).await;
        self.line_base = base;
        self.shell.in_trap = was;
        match flow {
            Some(Flow::Exit) => Err(Flow::Exit),
            _ => {
                self.shell.status = status;
                Ok(())
            }
        }
    }

    /// As the shell ends: runs the `EXIT` trap, once, then the readers of `exec > >(cmd)`.
    pub async fn run_exit_trap(&mut self) {
        if let Some(action) = self.shell.traps.remove("EXIT") {
            let status = self.shell.status;
            let was = std::mem::replace(&mut self.shell.in_trap, true);
            let flow = self.run_source(&action).await;
            self.shell.in_trap = was;
            if flow != Some(Flow::Exit) {
                self.shell.status = status;
            }
        }
        self.finish_exec_substitutions().await;
    }
}
