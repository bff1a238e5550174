//! The limits every command and loop iteration counts against (`COMPUTER_SH_MAX_COMMANDS`,
//! `COMPUTER_SH_MAX_LOOP_ITERATIONS`) and the deadline of `timeout`.

use crate::state::Flow;

use crate::interp::{Interp, Outcome};

impl Interp<'_> {
    /// Counts a loop iteration against the limit.
    pub(crate) async fn loop_tick(&mut self, iterations: &mut u64) -> Outcome {
        *iterations += 1;
        let limit = self.shell.limits.loop_iterations;
        if *iterations > limit {
            self.error(&format!(
                "loop iteration limit of {limit} exceeded (COMPUTER_SH_MAX_LOOP_ITERATIONS)"
            ))
            .await;
            self.shell.status = 1;
            return Err(Flow::Exit);
        }
        Ok(())
    }

    /// Counts a command against the limit.
    pub(crate) async fn count_command(&mut self) -> Outcome {
        if self
            .shell
            .deadline
            .is_some_and(|d| std::time::Instant::now() >= d)
        {
            // Under `timeout`, past the deadline: the command stops there.
            self.shell.status = shell_base::context::TIMED_OUT;
            return Err(Flow::Exit);
        }
        let run = self.shell.commands_run.get() + 1;
        self.shell.commands_run.set(run);
        if run > self.shell.limits.commands {
            self.error(&format!(
                "command limit of {} exceeded (COMPUTER_SH_MAX_COMMANDS)",
                self.shell.limits.commands
            ))
            .await;
            self.shell.status = 1;
            return Err(Flow::Exit);
        }
        Ok(())
    }
}
