//! Executing the AST: lists, and-or lists, pipelines (stages run concurrently on the
//! executor, each on a copy of the state as bash's subshells are), simple and compound
//! commands, redirections, and command lookup: function → builtin → built-in command → the
//! host's `exec` (other backends; "command not found" when none has it).

use std::rc::Rc;

use brush_parser::ast::{
    self, Command, CompoundCommand, CompoundList, IoRedirect, SeparatorOperator,
};

use crate::assign::Pending;
use crate::builtins::declare::DeclArg;
use crate::expand::ExpandError;
use crate::redirect::Redirect;
use crate::state::{Flow, Shell};
use shell_base::Run;
use shell_base::host::{ExecError, ExecRequest};
use shell_base::io::{Input, Io, Output};
use shell_base::pattern::{MatchOptions, Pattern};
use shell_base::runtime::{Task, join_all, pipe};

/// Runs code on a shell state with given streams.
pub struct Interp<'s> {
    pub shell: &'s mut Shell,
    pub io: Io,
    /// Inside `if`/`while` conditions and `&&`/`||` left sides, where `set -e` does not apply.
    condition: u32,
    /// Status of the last command substitution in the current command (the status of a
    /// command that only assigns).
    pub last_substitution: Option<i32>,
    /// Line of the command being run (for messages).
    pub line: usize,
    /// Depth of `source` (where `return` is allowed outside functions).
    pub sourcing: u32,
    /// Set by `exec` without a command: this command's redirections stay.
    pub keep_redirections: bool,
    /// Aliases being expanded (an alias is not expanded inside itself).
    alias_stack: Vec<String>,
    /// The `>(cmd)` of `exec > >(cmd)`: they read what the shell writes until it ends.
    pub exec_substitutions: Vec<crate::procsub::Substituted>,
}

type Outcome = Result<(), Flow>;

impl<'s> Interp<'s> {
    pub fn new(shell: &'s mut Shell, io: Io) -> Interp<'s> {
        Interp {
            shell,
            io,
            condition: 0,
            last_substitution: None,
            line: 1,
            sourcing: 0,
            keep_redirections: false,
            alias_stack: Vec::new(),
            exec_substitutions: Vec::new(),
        }
    }

    /// Writes a diagnostic to standard error, as bash does: `NAME: line N: MESSAGE`.
    pub async fn error(&self, msg: &str) {
        // bash -c names functions' errors after "environment", where it finds their text.
        let name = if !self.shell.funcname.is_empty() && self.shell.origin.as_deref() == Some("-c")
        {
            "environment"
        } else {
            &self.shell.name
        };
        let text = format!("{name}: line {}: {msg}\n", self.line);
        let _ = self.io.stderr.write_all(text.as_bytes()).await;
    }

    /// Writes a line to standard error as it is (usage lines carry no prefix in bash).
    pub async fn raw_error(&self, msg: &str) {
        let _ = self
            .io
            .stderr
            .write_all(format!("{msg}\n").as_bytes())
            .await;
    }

    /// Parses and runs a script. A syntax error is reported and runs nothing (status 2).
    pub async fn run_source(&mut self, src: &str) -> Option<Flow> {
        let origin = self.shell.origin.clone();
        let Some(program) = self.parse(src, origin.as_deref()).await else {
            return Some(Flow::Exit);
        };
        self.run_program(&program).await
    }

    /// `eval`'s text: a syntax error there fails the command (status 2), not the shell.
    pub async fn run_eval(&mut self, src: &str) -> Option<Flow> {
        let program = self.parse(src, Some("eval")).await?;
        self.run_program(&program).await
    }

    /// Parses a script; a syntax error is reported (naming `origin`, as `-c` or `eval`)
    /// and gives `None` with status 2.
    async fn parse(&mut self, src: &str, origin: Option<&str>) -> Option<ast::Program> {
        let parse = |text: &str| {
            brush_parser::Parser::new(std::io::Cursor::new(text.as_bytes()), &self.shell.parser)
                .parse_program()
        };
        let parsed = parse(src).or_else(|e| {
            // brush-parser reads the `;;` of `for ((;;))` as `case`'s terminator: retry with
            // the header spaced out, and report the first error if that fails too.
            crate::syntax::spaced_arithmetic_for(src)
                .and_then(|spaced| parse(&spaced).ok())
                .ok_or(e)
        });
        match parsed {
            Ok(p) => Some(p),
            Err(e) => {
                let origin = match origin {
                    Some(o) => format!("{}: {o}", self.shell.name),
                    None => self.shell.name.clone(),
                };
                let text: String = crate::syntax::messages(src, &e)
                    .into_iter()
                    .map(|(line, msg)| format!("{origin}: line {line}: {msg}\n"))
                    .collect();
                let _ = self.io.stderr.write_all(text.as_bytes()).await;
                self.shell.status = 2;
                None
            }
        }
    }

    async fn run_program(&mut self, program: &ast::Program) -> Option<Flow> {
        for list in &program.complete_commands {
            if let Err(flow) = self.run_list(list).await {
                return Some(flow);
            }
        }
        None
    }

    /// Records a job that already ran (a background list or a process substitution) as
    /// `$!`, for `wait`.
    pub fn finished_job(&mut self, status: i32) {
        let id = 1000 + self.shell.jobs.len() as u32;
        self.shell.jobs.push((id, status));
        self.shell.last_job = Some(id);
    }

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
                    let status = self.run_in_subshell(&list, self.io.clone()).await;
                    self.finished_job(status);
                    self.shell.status = 0;
                    continue;
                }
                self.run_and_or(&item.0).await?;
            }
            Ok(())
        })
    }

    async fn run_and_or(&mut self, aol: &ast::AndOrList) -> Outcome {
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
    async fn after_pipeline(&mut self) -> Outcome {
        if self.shell.status == 0 || self.condition > 0 {
            return Ok(());
        }
        if let Some(action) = self.shell.traps.get("ERR").cloned()
            && !self.shell.in_trap
        {
            self.run_trap(&action).await?;
        }
        if self.shell.options.errexit {
            return Err(Flow::Exit);
        }
        Ok(())
    }

    /// As a function that set it or a sourced script returns: the `RETURN` trap.
    pub async fn run_return_trap(&mut self) -> Outcome {
        match self.shell.traps.get("RETURN").cloned() {
            Some(action) if !self.shell.in_trap => self.run_trap(&action).await,
            _ => Ok(()),
        }
    }

    /// Runs a trap's action; `$?` is kept around it.
    pub async fn run_trap(&mut self, action: &str) -> Outcome {
        let status = self.shell.status;
        let was = std::mem::replace(&mut self.shell.in_trap, true);
        let flow = self.run_source(action).await;
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

    /// Runs a list in a copy of the shell (a subshell: its variables, cwd and traps stay
    /// inside); returns its status.
    pub async fn run_in_subshell(&mut self, list: &CompoundList, io: Io) -> i32 {
        let mut sub = self.shell.clone();
        sub.traps.clear();
        sub.subshell = true;
        let mut interp = Interp::new(&mut sub, io);
        interp.line = self.line;
        let _ = interp.run_list(list).await;
        interp.run_exit_trap().await;
        interp.shell.status
    }

    async fn run_pipeline(&mut self, p: &ast::Pipeline) -> Outcome {
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

    /// Runs pipeline stages concurrently, joined by pipes.
    async fn run_stages(&mut self, seq: &[Command]) -> Outcome {
        let mut tasks: Vec<Task<'_, i32>> = Vec::new();
        let mut next_input = self.io.stdin.clone();
        for (i, cmd) in seq.iter().enumerate() {
            let last = i + 1 == seq.len();
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
            tasks.push(Box::pin(async move {
                let mut interp = Interp::new(&mut sub, io);
                let _ = interp.run_command(cmd).await;
                let status = interp.shell.status;
                interp.finish_exec_substitutions().await;
                drop(interp); // closes this stage's pipe ends
                status
            }));
        }
        let statuses = join_all(tasks).await;
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

    pub fn run_command<'a>(&'a mut self, cmd: &'a Command) -> Task<'a, Outcome> {
        Box::pin(async move {
            match cmd {
                Command::Simple(sc) => self.run_simple(sc).await,
                Command::Compound(cc, redirects) => {
                    let saved = self.io.clone();
                    let mut substituted = Vec::new();
                    if let Some(r) = redirects {
                        let list: Vec<Redirect> =
                            r.0.iter()
                                .map(|r| Redirect {
                                    redirect: r.clone(),
                                    var: None,
                                })
                                .collect();
                        match self.redirect(&list, &mut substituted).await {
                            Ok(io) => self.io = io,
                            Err(msg) => {
                                self.error(&msg).await;
                                self.shell.status = 1;
                                self.finish_substitutions(substituted).await;
                                return Ok(());
                            }
                        }
                    }
                    let result = self.run_compound(cc).await;
                    self.io = saved;
                    self.finish_substitutions(substituted).await;
                    result
                }
                Command::Function(def) => {
                    self.shell
                        .functions
                        .insert(def.fname.value.clone(), Rc::new(def.body.clone()));
                    self.shell.status = 0;
                    Ok(())
                }
                Command::ExtendedTest(test, _) => {
                    if let Some(line) = test_line(&test.expr) {
                        self.line = line;
                    }
                    self.count_command().await?;
                    self.shell.status = match self.extended_test(&test.expr).await {
                        Ok(true) => 0,
                        Ok(false) => 1,
                        Err(e) if crate::arith::is_unbound(&e.0) => {
                            return self.expansion_failed(ExpandError::new(e.0)).await;
                        }
                        Err(e) => {
                            if !e.0.is_empty() {
                                self.error(&e.0).await;
                            }
                            2
                        }
                    };
                    Ok(())
                }
            }
        })
    }

    async fn run_compound(&mut self, cc: &CompoundCommand) -> Outcome {
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
                if !matches!(result, Err(Flow::Exit | Flow::Return)) {
                    self.shell.status = last;
                }
                result
            }
            CompoundCommand::ForClause(f) => {
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
                self.shell.loop_depth += 1;
                self.shell.status = 0;
                let mut result = Ok(());
                let mut iterations = 0;
                for v in values {
                    if let Err(f) = self.loop_tick(&mut iterations).await {
                        result = Err(f);
                        break;
                    }
                    self.shell.set(&f.variable_name, v);
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
                match self.arith_text(&a.expr.value).await {
                    Ok(v) => self.shell.status = (v == 0) as i32,
                    // An expansion error (`set -u`, `${x:?}`) ends the shell; an arithmetic
                    // one fails this command.
                    Err(e) if e.status != 1 => return self.expansion_failed(e).await,
                    Err(e) => {
                        self.error(&e.message).await;
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

    /// Reports an expansion error; it ends a non-interactive shell, as in bash (status 127
    /// for parameter errors, 1 for arithmetic ones).
    pub async fn expansion_failed(&mut self, e: ExpandError) -> Outcome {
        self.error(&e.message).await;
        self.shell.status = if self.shell.subshell { 1 } else { e.status };
        Err(Flow::Exit)
    }

    async fn run_simple(&mut self, sc: &ast::SimpleCommand) -> Outcome {
        enum Item<'w> {
            Word(&'w ast::Word),
            Assign(&'w ast::Assignment, &'w ast::Word),
            ProcSub(&'w ast::ProcessSubstitutionKind, &'w ast::SubshellCommand),
        }
        let mut assignments = Vec::new();
        let mut items: Vec<Item> = Vec::new();
        let mut redirects = Vec::new();
        let mut pending_fd_var = None;
        for item in sc.prefix.iter().flat_map(|p| p.0.iter()) {
            match item {
                ast::CommandPrefixOrSuffixItem::AssignmentWord(a, _) => assignments.push(a),
                ast::CommandPrefixOrSuffixItem::IoRedirect(r) => redirects.push(Redirect {
                    redirect: r.clone(),
                    var: None,
                }),
                ast::CommandPrefixOrSuffixItem::Word(w) => items.push(Item::Word(w)),
                ast::CommandPrefixOrSuffixItem::ProcessSubstitution(k, s) => {
                    items.push(Item::ProcSub(k, s))
                }
            }
        }
        items.extend(sc.word_or_name.iter().map(Item::Word));
        let suffix: Vec<&ast::CommandPrefixOrSuffixItem> =
            sc.suffix.iter().flat_map(|s| s.0.iter()).collect();
        for (i, item) in suffix.iter().enumerate() {
            match item {
                // `{var}>file`: the word names the variable that gets the new descriptor.
                ast::CommandPrefixOrSuffixItem::Word(w)
                    if fd_variable(&w.value).is_some()
                        && matches!(
                            suffix.get(i + 1),
                            Some(ast::CommandPrefixOrSuffixItem::IoRedirect(
                                IoRedirect::File(None, ..)
                            ))
                        ) =>
                {
                    pending_fd_var = fd_variable(&w.value);
                }
                ast::CommandPrefixOrSuffixItem::Word(w) => items.push(Item::Word(w)),
                ast::CommandPrefixOrSuffixItem::IoRedirect(r) => redirects.push(Redirect {
                    redirect: r.clone(),
                    var: pending_fd_var.take(),
                }),
                ast::CommandPrefixOrSuffixItem::AssignmentWord(a, w) => {
                    items.push(Item::Assign(a, w))
                }
                ast::CommandPrefixOrSuffixItem::ProcessSubstitution(k, s) => {
                    items.push(Item::ProcSub(k, s))
                }
            }
        }
        if let Some(line) = sc
            .word_or_name
            .as_ref()
            .and_then(|w| w.loc.as_ref())
            .map(|l| l.start.line)
        {
            self.line = line;
        }
        self.count_command().await?;
        if let Some(text) = self.alias_for(sc) {
            let name = sc
                .word_or_name
                .as_ref()
                .map(|w| w.value.clone())
                .unwrap_or_default();
            return self.run_source_inline(&text, &name).await;
        }
        self.last_substitution = None;
        let mut argv: Vec<String> = Vec::new();
        let mut decl_args: Vec<DeclArg> = Vec::new();
        let mut declaring = false;
        let mut substituted = Vec::new();
        for item in &items {
            let expanded = match item {
                Item::Word(w) => self.expand_fields(&w.value).await,
                Item::Assign(a, _) if declaring => match self.expand_assignment(a).await {
                    Ok(p) => {
                        decl_args.push(DeclArg::Assign(p));
                        continue;
                    }
                    Err(e) => Err(e),
                },
                Item::Assign(_, w) => self.expand_fields(&w.value).await,
                Item::ProcSub(kind, sub) => match self.process_substitution(kind, sub).await {
                    Ok(s) => {
                        let path = s.path.clone();
                        substituted.push(s);
                        Ok(vec![path])
                    }
                    Err(e) => Err(e),
                },
            };
            match expanded {
                Ok(fields) => {
                    let first = argv.is_empty();
                    argv.extend(fields.iter().cloned());
                    if first && !argv.is_empty() {
                        declaring = crate::builtins::is_declaration(&argv[0])
                            && !self.shell.functions.contains_key(&argv[0]);
                        decl_args.extend(fields.into_iter().skip(1).map(DeclArg::Word));
                    } else if declaring {
                        decl_args.extend(fields.into_iter().map(DeclArg::Word));
                    }
                }
                Err(e) => return self.expansion_failed(e).await,
            }
        }
        let mut pending = Vec::new();
        for a in &assignments {
            match self.expand_assignment(a).await {
                Ok(p) => pending.push(p),
                Err(e) => return self.expansion_failed(e).await,
            }
        }
        let subst_status = self.last_substitution.unwrap_or(0);
        let io = match self.redirect(&redirects, &mut substituted).await {
            Ok(io) => io,
            Err(msg) => {
                self.error(&msg).await;
                self.shell.status = 1;
                self.finish_substitutions(substituted).await;
                return Ok(());
            }
        };
        if argv.is_empty() {
            if self.shell.options.xtrace {
                let ps4 = self.shell.get("PS4").unwrap_or("+ ").to_string();
                let text: String = pending
                    .iter()
                    .map(|p| match &p.value {
                        crate::assign::Assigned::Scalar(v) => {
                            format!(
                                "{ps4}{}{}={}\n",
                                p.name,
                                if p.append { "+" } else { "" },
                                xtrace_word(v)
                            )
                        }
                        crate::assign::Assigned::Array(items) => {
                            let items: Vec<String> =
                                items.iter().map(|(_, v)| xtrace_word(v)).collect();
                            format!("{ps4}{}=({})\n", p.name, items.join(" "))
                        }
                    })
                    .collect();
                let _ = io.stderr.write_all(text.as_bytes()).await;
            }
            for p in pending {
                if let Err(msg) = self.apply_assignment(p) {
                    self.error(&msg).await;
                    self.shell.status = 1;
                    return Err(Flow::Exit);
                }
            }
            self.shell.status = subst_status;
            return Ok(());
        }
        if self.shell.options.xtrace {
            let ps4 = self.shell.get("PS4").unwrap_or("+ ").to_string();
            let words: Vec<String> = argv.iter().map(|a| xtrace_word(a)).collect();
            let _ = io
                .stderr
                .write_all(format!("{ps4}{}\n", words.join(" ")).as_bytes())
                .await;
        }
        let saved = std::mem::replace(&mut self.io, io);
        if self.shell.options.allexport && declaring {
            self.shell.status = 0;
        }
        let result = if declaring {
            let status = crate::builtins::declare(self, &argv[0], decl_args).await;
            self.shell.status = status;
            Ok(())
        } else {
            self.dispatch(argv, pending).await
        };
        if std::mem::take(&mut self.keep_redirections) {
            // `exec > >(cmd)`: `cmd` reads what the shell writes from here on, so it runs
            // as the shell ends.
            let (exec, done) = substituted.into_iter().partition(|s| s.is_output());
            self.exec_substitutions.extend::<Vec<_>>(exec);
            substituted = done;
        } else {
            self.io = saved;
        }
        self.finish_substitutions(substituted).await;
        result
    }

    /// Counts a loop iteration against the limit.
    async fn loop_tick(&mut self, iterations: &mut u64) -> Outcome {
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
    async fn count_command(&mut self) -> Outcome {
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

    /// Function → builtin → built-in command → the host. Assignments before the command
    /// hold for it only (exported to it).
    async fn dispatch(&mut self, argv: Vec<String>, assignments: Vec<Pending>) -> Outcome {
        let name = argv[0].clone();
        let mut saved = Vec::new();
        for p in assignments {
            let target = self.shell.resolve(&p.name);
            saved.push((target.clone(), self.shell.vars.get(&target).cloned()));
            if let Err(msg) = self.apply_assignment(p) {
                // bash reports it and runs the command anyway.
                self.error(&msg).await;
                continue;
            }
            if let Some(v) = self.shell.vars.get_mut(&target) {
                v.attrs.exported = true;
            }
        }
        let result = self.invoke(argv, &name).await;
        self.restore(saved);
        result
    }

    fn restore(&mut self, saved: Vec<(String, Option<crate::vars::Var>)>) {
        for (name, old) in saved.into_iter().rev() {
            match old {
                Some(v) => self.shell.vars.insert(name, v),
                None => self.shell.vars.remove(&name),
            };
        }
    }

    /// Runs a command line already expanded (`exec`, `command`).
    pub async fn run_argv(&mut self, argv: Vec<String>) -> Outcome {
        let name = argv[0].clone();
        self.invoke(argv, &name).await
    }

    /// Runs a command skipping shell functions (`command NAME`).
    pub async fn run_argv_skipping_functions(&mut self, argv: Vec<String>) -> Outcome {
        let name = argv[0].clone();
        if crate::builtins::is_builtin(&name) {
            return Box::pin(crate::builtins::run(self, &argv)).await;
        }
        if self.shell.commands.find(&name).is_some() {
            self.shell.status = self.run_utility(&argv).await;
            return Ok(());
        }
        self.host_exec(argv).await;
        Ok(())
    }

    /// Runs the command `argv[0]` of the registry: its help for `NAME --help`, else the
    /// utility, the interpreter's own (`sh`, `bash`, `env`) or the host's; its status.
    pub fn run_utility<'a>(&'a mut self, argv: &'a [String]) -> Task<'a, i32> {
        Box::pin(async move {
            let Some(found) = self.shell.commands.find(&argv[0]) else {
                return 127;
            };
            if shell_base::registry::asks_help(argv) {
                let help = found.help();
                let _ = self.io.stdout.write_all(help.as_bytes()).await;
                return 0;
            }
            match found.run {
                Run::Native(run) => run(self, argv).await,
                Run::Interpreter => match argv[0].as_str() {
                    "env" => crate::env::env(self, argv).await,
                    _ => crate::child::sh(self, argv).await,
                },
                Run::Host => {
                    self.host_exec(argv.to_vec()).await;
                    self.shell.status
                }
            }
        })
    }

    /// For `/usr/bin/NAME` and the like: NAME, when the shell has it built in.
    pub fn standard_path<'p>(&self, path: &'p str) -> Option<&'p str> {
        self.shell
            .commands
            .standard_path(path, crate::builtins::is_builtin)
    }

    /// The text to run instead of a simple command whose name is an alias (with
    /// `expand_aliases` on): the alias's value followed by the rest of the command.
    fn alias_for(&self, sc: &ast::SimpleCommand) -> Option<String> {
        if !self.shell.shopt.expand_aliases || sc.prefix.is_some() {
            return None;
        }
        let word = &sc.word_or_name.as_ref()?.value;
        let value = self.shell.aliases.get(word)?;
        if self.alias_stack.contains(word) {
            return None;
        }
        let text = sc.to_string();
        let rest = text.strip_prefix(word.as_str())?;
        Some(format!("{value}{rest}"))
    }

    /// Runs source text in place of a command (alias expansion).
    async fn run_source_inline(&mut self, src: &str, alias: &str) -> Outcome {
        self.alias_stack.push(alias.to_string());
        let flow = self.run_source(src).await;
        self.alias_stack.pop();
        match flow {
            Some(f) => Err(f),
            None => Ok(()),
        }
    }

    async fn invoke(&mut self, argv: Vec<String>, name: &str) -> Outcome {
        if let Some(body) = self.shell.functions.get(name).cloned() {
            return self.call_function(name, body, argv[1..].to_vec()).await;
        }
        if crate::builtins::is_builtin(name) {
            return crate::builtins::run(self, &argv).await;
        }
        if self.shell.commands.find(name).is_some() {
            self.shell.status = self.run_utility(&argv).await;
            return Ok(());
        }
        if let Some(base) = self.standard_path(name)
            && std::fs::symlink_metadata(self.shell.path(name)).is_err()
        {
            let mut argv = argv;
            argv[0] = base.to_string();
            let base = base.to_string();
            return Box::pin(self.invoke(argv, &base)).await;
        }
        self.host_exec(argv).await;
        Ok(())
    }

    /// Calls a shell function with its own positional parameters and local scope.
    pub async fn call_function(
        &mut self,
        name: &str,
        body: Rc<ast::FunctionBody>,
        args: Vec<String>,
    ) -> Outcome {
        let limit = self.shell.limits.call_depth;
        if self.shell.call_depth >= limit {
            self.error(&format!(
                "{name}: maximum function nesting level exceeded ({limit}, COMPUTER_SH_MAX_CALL_DEPTH)"
            ))
            .await;
            self.shell.status = 1;
            return Err(Flow::Exit);
        }
        let saved_args = std::mem::replace(&mut self.shell.positional, args);
        self.shell.call_depth += 1;
        self.shell.push_locals();
        self.shell.funcname.push(name.to_string());
        let traps_set = self.shell.return_traps_set;
        let result = self
            .run_command(&Command::Compound(body.0.clone(), body.1.clone()))
            .await;
        let mut result = match result {
            Err(Flow::Return) => Ok(()),
            other => other,
        };
        if self.shell.return_traps_set != traps_set
            && result.is_ok()
            && let Err(f) = self.run_return_trap().await
        {
            result = Err(f);
        }
        self.shell.funcname.pop();
        self.shell.pop_locals();
        self.shell.call_depth -= 1;
        self.shell.positional = saved_args;
        result
    }

    /// Runs a command no builtin has through the host's `exec` import.
    pub async fn host_exec(&mut self, argv: Vec<String>) {
        let stdin = match &self.io.stdin {
            Input::Null => Vec::new(),
            input => input.read_all().await.unwrap_or_default(),
        };
        let request = ExecRequest {
            argv: argv.clone(),
            cwd: self.shell.cwd.clone(),
            env: self.shell.environment(),
            stdin,
        };
        match shell_base::host::current().exec(&request) {
            Ok(out) => {
                let _ = self.io.stdout.write_all(&out.stdout).await;
                let _ = self.io.stderr.write_all(&out.stderr).await;
                self.shell.status = out.status;
            }
            Err(ExecError::NotFound) => {
                // A path names a file, not a command to look up: bash says the file is missing.
                let why = if argv[0].contains('/') {
                    "No such file or directory"
                } else {
                    "command not found"
                };
                self.error(&format!("{}: {why}", argv[0])).await;
                self.shell.status = 127;
            }
            Err(ExecError::Refused(m)) => {
                self.error(&format!("{}: {m}", argv[0])).await;
                self.shell.status = 126;
            }
        }
    }

    pub async fn expand_heredoc(&mut self, body: &str) -> Result<String, ExpandError> {
        let pieces = brush_parser::word::parse_heredoc(body, &self.shell.parser)
            .map_err(|e| ExpandError::new(format!("bad substitution: {e}")))?;
        let mut out = String::new();
        for p in pieces {
            // Re-render each piece as a double-quoted word so quotes stay literal.
            let text = &body[p.start_index..p.end_index];
            match p.piece {
                brush_parser::word::WordPiece::Text(t) => out.push_str(&t),
                _ => out.push_str(&self.expand_string(&format!("\"{text}\"")).await?),
            }
        }
        Ok(out)
    }
}

/// The line a `[[ ]]` starts on.
fn test_line(e: &ast::ExtendedTestExpr) -> Option<usize> {
    use ast::ExtendedTestExpr as E;
    match e {
        E::And(a, _) | E::Or(a, _) | E::Not(a) | E::Parenthesized(a) => test_line(a),
        E::UnaryTest(_, w) | E::BinaryTest(_, w, _) => w.loc.as_ref().map(|l| l.start.line),
    }
}

/// How `set -x` shows a word: quoted when the shell would not read it back as it is.
fn xtrace_word(word: &str) -> String {
    if !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./=:,+@%^".contains(c))
    {
        word.to_string()
    } else {
        crate::quote::single(word, true)
    }
}

/// The name in a `{name}` word (a `{var}>file` redirection's variable).
fn fd_variable(word: &str) -> Option<String> {
    let name = word.strip_prefix('{')?.strip_suffix('}')?;
    crate::vars::is_name(name).then(|| name.to_string())
}
