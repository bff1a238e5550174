//! Compound commands: `{ }`, `( )` (a subshell), `if`, `while`/`until`, `for` (and `select`,
//! run by `select.rs`), arithmetic `for`, `case` and `(( ))`; `coproc` is refused (no
//! processes).

use crate::expand::Expand;

use brush_parser::ast::{self, CompoundCommand, CompoundList};

use crate::state::Flow;
use shell_base::io::Io;
use shell_base::pattern::{MatchOptions, Pattern};

use crate::interp::{Interp, Outcome};

impl Interp<'_> {
    pub(crate) async fn run_compound(&mut self, cc: &CompoundCommand) -> Outcome {
        // Its own line, for its errors and `$LINENO` in what it expands and the traps it sets
        // off (the commands inside set theirs).
        let loc = match cc {
            CompoundCommand::ForClause(f) => Some(&f.loc),
            CompoundCommand::ArithmeticForClause(f) => Some(&f.loc),
            CompoundCommand::CaseClause(c) => Some(&c.loc),
            CompoundCommand::Arithmetic(a) => Some(&a.loc),
            CompoundCommand::Subshell(s) => Some(&s.loc),
            _ => None,
        };
        if let Some(loc) = loc {
            self.line = loc.start.line + self.line_base;
        }
        match cc {
            CompoundCommand::BraceGroup(g) => self.run_list(&g.list).await,
            CompoundCommand::Subshell(s) => {
                self.shell.status = self.run_in_subshell(&s.list, self.io.clone()).await;
                Ok(())
            }
            CompoundCommand::IfClause(c) => {
                self.condition += 1;
                let r = self.run_list(&c.condition).await;
                self.condition -= 1;
                r?;
                if self.shell.status == 0 {
                    return self.run_list(&c.then).await;
                }
                for e in c.elses.iter().flatten() {
                    match &e.condition {
                        Some(cond) => {
                            self.condition += 1;
                            let r = self.run_list(cond).await;
                            self.condition -= 1;
                            r?;
                            if self.shell.status == 0 {
                                return self.run_list(&e.body).await;
                            }
                        }
                        None => return self.run_list(&e.body).await,
                    }
                }
                self.shell.status = 0;
                Ok(())
            }
            CompoundCommand::WhileClause(w) | CompoundCommand::UntilClause(w) => {
                let until = matches!(cc, CompoundCommand::UntilClause(_));
                let mut last = 0;
                self.shell.loop_depth += 1;
                let mut iterations = 0;
                let result = loop {
                    if let Err(f) = self.loop_tick(&mut iterations).await {
                        break Err(f);
                    }
                    self.condition += 1;
                    let r = self.run_list(&w.0).await;
                    self.condition -= 1;
                    if let Err(f) = r {
                        break Err(f);
                    }
                    if (self.shell.status == 0) == until {
                        break Ok(());
                    }
                    match self.run_list(&w.1.list).await {
                        Ok(()) => last = self.shell.status,
                        Err(Flow::Break(n)) if n > 1 => break Err(Flow::Break(n - 1)),
                        Err(Flow::Break(_)) => {
                            last = 0;
                            break Ok(());
                        }
                        Err(Flow::Continue(n)) if n > 1 => break Err(Flow::Continue(n - 1)),
                        Err(Flow::Continue(_)) => last = 0,
                        Err(f) => break Err(f),
                    }
                };
                self.shell.loop_depth -= 1;
                if !matches!(result, Err(Flow::Exit | Flow::Return | Flow::Discard)) {
                    self.shell.status = last;
                }
                result
            }
            CompoundCommand::ForClause(f) => {
                let (name, select) = crate::select::loop_name(f);
                self.before_command(|| {
                    let keyword = if select { "select" } else { "for" };
                    let mut text = format!("{keyword} {name}");
                    if let Some(words) = &f.values {
                        text.push_str(" in");
                        for w in words {
                            text.push(' ');
                            text.push_str(&w.value);
                        }
                    }
                    text
                })
                .await?;
                let values = match &f.values {
                    Some(words) => {
                        let mut all = Vec::new();
                        for w in words {
                            match self.expand_fields(&w.value).await {
                                Ok(v) => all.extend(v),
                                Err(e) => return self.expansion_failed(e).await,
                            }
                        }
                        all
                    }
                    None => self.shell.positional.clone(),
                };
                if !crate::vars::is_name(name) {
                    self.error(&format!("`{name}': not a valid identifier"))
                        .await;
                    self.shell.status = 1;
                    return Ok(());
                }
                if select {
                    return self.run_select(name, values, &f.body).await;
                }
                self.shell.loop_depth += 1;
                self.shell.status = 0;
                let mut result = Ok(());
                let mut iterations = 0;
                for v in values {
                    if let Err(f) = self.loop_tick(&mut iterations).await {
                        result = Err(f);
                        break;
                    }
                    match self.shell.vars.get_mut(name) {
                        // bash's `for` gives a nameref a new target, not its target a value.
                        Some(var) if var.attrs.nameref => {
                            var.value = crate::vars::Value::Scalar(v);
                        }
                        _ => self.shell.set(name, v),
                    }
                    match self.run_list(&f.body.list).await {
                        Ok(()) => {}
                        Err(Flow::Break(n)) if n > 1 => {
                            result = Err(Flow::Break(n - 1));
                            break;
                        }
                        Err(Flow::Break(_)) => break,
                        Err(Flow::Continue(n)) if n > 1 => {
                            result = Err(Flow::Continue(n - 1));
                            break;
                        }
                        Err(Flow::Continue(_)) => {}
                        Err(f) => {
                            result = Err(f);
                            break;
                        }
                    }
                }
                self.shell.loop_depth -= 1;
                result
            }
            CompoundCommand::ArithmeticForClause(f) => {
                if let Some(init) = &f.initializer
                    && let Err(e) = self.arith_text(&init.value).await
                {
                    return self.expansion_failed(e).await;
                }
                self.shell.loop_depth += 1;
                let mut result = Ok(());
                let mut iterations = 0;
                loop {
                    if let Err(f) = self.loop_tick(&mut iterations).await {
                        result = Err(f);
                        break;
                    }
                    // An empty condition (`for ((;;))`) is true.
                    if let Some(cond) = &f.condition
                        && !cond.value.trim().is_empty()
                    {
                        match self.arith_text(&cond.value).await {
                            Ok(0) => break,
                            Ok(_) => {}
                            Err(e) => {
                                result = self.expansion_failed(e).await;
                                break;
                            }
                        }
                    }
                    match self.run_list(&f.body.list).await {
                        Ok(()) | Err(Flow::Continue(1)) => {}
                        Err(Flow::Break(1)) => break,
                        Err(Flow::Break(n)) => {
                            result = Err(Flow::Break(n - 1));
                            break;
                        }
                        Err(Flow::Continue(n)) => {
                            result = Err(Flow::Continue(n - 1));
                            break;
                        }
                        Err(f) => {
                            result = Err(f);
                            break;
                        }
                    }
                    if let Some(upd) = &f.updater
                        && let Err(e) = self.arith_text(&upd.value).await
                    {
                        result = self.expansion_failed(e).await;
                        break;
                    }
                }
                self.shell.loop_depth -= 1;
                result
            }
            CompoundCommand::CaseClause(c) => {
                let value = match self.expand_string(&c.value.value).await {
                    Ok(v) => v,
                    Err(e) => return self.expansion_failed(e).await,
                };
                self.shell.status = 0;
                let mut fall_through = false;
                for item in &c.cases {
                    let mut matched = fall_through;
                    if !matched {
                        for p in &item.patterns {
                            match self.expand_pattern(&p.value).await {
                                Ok(pat)
                                    if Pattern::new(
                                        &pat,
                                        MatchOptions {
                                            extglob: true,
                                            nocase: self.shell.shopt.nocasematch,
                                        },
                                    )
                                    .matches(&value) =>
                                {
                                    matched = true;
                                    break;
                                }
                                Ok(_) => {}
                                Err(e) => return self.expansion_failed(e).await,
                            }
                        }
                    }
                    if !matched {
                        continue;
                    }
                    if let Some(cmd) = &item.cmd {
                        self.run_list(cmd).await?;
                    }
                    match item.post_action {
                        ast::CaseItemPostAction::ExitCase => return Ok(()),
                        ast::CaseItemPostAction::UnconditionallyExecuteNextCaseItem => {
                            fall_through = true
                        }
                        ast::CaseItemPostAction::ContinueEvaluatingCases => fall_through = false,
                    }
                }
                Ok(())
            }
            CompoundCommand::Arithmetic(a) => {
                self.before_command(|| format!("(({}))", a.expr.value))
                    .await?;
                match self.arith_text(&a.expr.value).await {
                    Ok(v) => self.shell.status = (v == 0) as i32,
                    // An expansion error (`set -u`, `${x:?}`) ends the shell; an arithmetic
                    // one fails this command.
                    Err(e) if e.status != 1 => return self.expansion_failed(e).await,
                    // bash names the command its error came from.
                    Err(e) => {
                        self.error(&format!("((: {}", e.message)).await;
                        self.shell.status = 1;
                    }
                }
                Ok(())
            }
            CompoundCommand::Coprocess(_) => {
                self.error("coproc: not supported").await;
                self.shell.status = 2;
                Ok(())
            }
        }
    }

    /// Runs a list in a copy of the shell (a subshell: its variables, cwd and traps stay
    /// inside); returns its status.
    pub async fn run_in_subshell(&mut self, list: &CompoundList, io: Io) -> i32 {
        let mut sub = crate::interp::subshell_of(self.shell);
        let mut interp = Interp::new(&mut sub, io, self.builtins);
        interp.line = self.line;
        interp.line_base = self.line_base;
        let _ = interp.run_list(list).await;
        interp.run_exit_trap().await;
        interp.shell.status
    }
}
