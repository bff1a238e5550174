//! Pipelines: `!`, `time`, and stages that run concurrently as tasks on the executor, each
//! on its own copy of the state (as bash's subshells), joined by bounded pipes; `PIPESTATUS`
//! and `pipefail`.

use std::rc::Rc;

use brush_parser::ast::{self, Command};

use shell_base::io::{Input, Io, Output};
use shell_base::runtime::{Task, join_all, pipe};

use crate::interp::{Interp, Outcome};

impl Interp<'_> {
    pub(crate) async fn run_pipeline(&mut self, p: &ast::Pipeline) -> Outcome {
        if p.bang {
            self.condition += 1;
        }
        let started = std::time::Instant::now();
        let result = if p.seq.len() == 1 {
            let r = self.run_command(&p.seq[0]).await;
            self.shell.pipestatus = vec![self.shell.status];
            r
        } else {
            self.run_stages(&p.seq).await
        };
        if let Some(timed) = &p.timed {
            // No processes here, so no CPU times of their own: user and sys read 0.
            let real = started.elapsed().as_secs_f64();
            let text = match timed {
                ast::PipelineTimed::Timed(_) => format!(
                    "\nreal\t{}m{:.3}s\nuser\t0m0.000s\nsys\t0m0.000s\n",
                    (real / 60.0).floor(),
                    real % 60.0
                ),
                ast::PipelineTimed::TimedWithPosixOutput(_) => {
                    format!("real {real:.2}\nuser 0.00\nsys 0.00\n")
                }
            };
            let _ = self.io.stderr.write_all(text.as_bytes()).await;
        }
        if p.bang {
            self.condition -= 1;
            if result.is_ok() {
                self.shell.status = (self.shell.status == 0) as i32;
            }
            return result;
        }
        result?;
        self.after_pipeline().await
    }

    /// Runs pipeline stages concurrently, joined by pipes. Under `shopt -s lastpipe` the
    /// last stage runs in this shell (bash does so without job control, as here).
    pub(crate) async fn run_stages(&mut self, seq: &[Command]) -> Outcome {
        let mut flow = Ok(());
        let mut tasks: Vec<Task<'_, i32>> = Vec::new();
        let mut next_input = self.io.stdin.clone();
        let lastpipe = self.shell.shopt.lastpipe;
        let (seq, here) = match seq.split_last() {
            Some((last, rest)) if lastpipe => (rest, Some(last)),
            _ => (seq, None),
        };
        for (i, cmd) in seq.iter().enumerate() {
            let last = i + 1 == seq.len() && here.is_none();
            let (stdout, reader) = if last {
                (self.io.stdout.clone(), None)
            } else {
                let (w, r) = pipe();
                (Output::Pipe(Rc::new(w)), Some(Input::Pipe(Rc::new(r))))
            };
            let io = Io {
                stdin: std::mem::replace(&mut next_input, reader.unwrap_or(Input::Null)),
                stdout,
                ..self.io.clone()
            };
            let mut sub = self.shell.clone();
            sub.subshell = true;
            let builtins = self.builtins;
            tasks.push(Box::pin(async move {
                let mut interp = Interp::new(&mut sub, io, builtins);
                let _ = interp.run_command(cmd).await;
                let status = interp.shell.status;
                interp.finish_exec_substitutions().await;
                drop(interp); // closes this stage's pipe ends
                status
            }));
        }
        if let Some(cmd) = here {
            let flow = &mut flow;
            let io = Io {
                stdin: next_input,
                ..self.io.clone()
            };
            let this = &mut *self;
            tasks.push(Box::pin(async move {
                let saved = std::mem::replace(&mut this.io, io);
                *flow = this.run_command(cmd).await;
                this.io = saved;
                this.shell.status
            }));
        }
        let statuses = join_all(tasks).await;
        // `exit`, `return`, `break` in a last stage run here act here.
        flow?;
        self.shell.status = if self.shell.options.pipefail {
            statuses
                .iter()
                .rev()
                .copied()
                .find(|s| *s != 0)
                .unwrap_or(0)
        } else {
            statuses.last().copied().unwrap_or(0)
        };
        self.shell.pipestatus = statuses;
        Ok(())
    }
}
