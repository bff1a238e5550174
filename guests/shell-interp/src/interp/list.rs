//! Lists and and-or lists: `;`, `&` (a job run to completion at once, as `$!`), `&&`, `||`,
//! with `set -e` applied where bash applies it and the ERR trap after a failure.

use brush_parser::ast::{self, CompoundList, SeparatorOperator};

use crate::state::Flow;
use shell_base::io::Input;
use shell_base::runtime::Task;

use crate::interp::{Interp, Outcome};

impl Interp<'_> {
    pub fn run_list<'a>(&'a mut self, list: &'a CompoundList) -> Task<'a, Outcome> {
        Box::pin(async move {
            for item in &list.0 {
                if self.shell.options.noexec {
                    return Ok(());
                }
                if matches!(item.1, SeparatorOperator::Async) {
                    // No processes: a background job runs to completion now, in a subshell
                    // (documented); `$!` and `wait` see it as finished.
                    let list = CompoundList(vec![ast::CompoundListItem(
                        item.0.clone(),
                        SeparatorOperator::Sequence,
                    )]);
                    // Its stdin is empty (`/dev/null`) when it would be the shell's own, as
                    // bash's is without job control.
                    let mut io = self.io.clone();
                    if matches!(io.stdin, Input::Stdin) || self.is_script_input(&io.stdin) {
                        io.stdin = Input::Null;
                    }
                    let status = self.run_in_subshell(&list, io).await;
                    self.finished_job(status);
                    self.shell.status = 0;
                    continue;
                }
                self.run_and_or(&item.0).await?;
            }
            Ok(())
        })
    }

    pub(crate) async fn run_and_or(&mut self, aol: &ast::AndOrList) -> Outcome {
        let has_more = !aol.additional.is_empty();
        if has_more {
            self.condition += 1;
        }
        let first = self.run_pipeline(&aol.first).await;
        if has_more {
            self.condition -= 1;
        }
        first?;
        for (i, next) in aol.additional.iter().enumerate() {
            let last = i + 1 == aol.additional.len();
            let (run, pipeline) = match next {
                ast::AndOr::And(p) => (self.shell.status == 0, p),
                ast::AndOr::Or(p) => (self.shell.status != 0, p),
            };
            if run {
                if !last {
                    self.condition += 1;
                }
                let r = self.run_pipeline(pipeline).await;
                if !last {
                    self.condition -= 1;
                }
                r?;
            }
        }
        Ok(())
    }

    /// After a pipeline: on failure outside conditions, runs the `ERR` trap and ends the
    /// shell under `set -e`.
    pub(crate) async fn after_pipeline(&mut self) -> Outcome {
        if self.shell.status == 0 || self.condition > 0 {
            return Ok(());
        }
        if let Some(action) = self.shell.traps.get("ERR").cloned()
            && !self.shell.in_trap
        {
            self.run_trap(&action, true).await?;
        }
        if self.shell.options.errexit {
            return Err(Flow::Exit);
        }
        Ok(())
    }
}
