//! Executing the AST: lists, and-or lists, pipelines (stages run concurrently on the
//! executor, each on a copy of the state as bash's subshells are), simple and compound
//! commands, redirections, and command lookup: function → builtin → built-in command → the
//! host's `exec` (other backends; "command not found" when none has it).

use std::rc::Rc;

use brush_parser::ast::{
    self, Command, CompoundCommand, CompoundList, IoFileRedirectKind, IoFileRedirectTarget,
    IoRedirect, SeparatorOperator,
};

use crate::expand::ExpandError;
use crate::io::{Input, Io, Output};
use crate::runtime::{Task, join_all, pipe};
use crate::state::{Flow, MAX_CALL_DEPTH, Shell, pattern_match};

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
        }
    }

    /// Writes a diagnostic to standard error, as bash does: `NAME: line N: MESSAGE`.
    pub async fn error(&self, msg: &str) {
        let text = format!("{}: line {}: {msg}\n", self.shell.name, self.line);
        let _ = self.io.stderr.write_all(text.as_bytes()).await;
    }

    /// Parses and runs a script. A syntax error is reported and runs nothing (status 2).
    pub async fn run_source(&mut self, src: &str) -> Option<Flow> {
        let mut parser =
            brush_parser::Parser::new(std::io::Cursor::new(src.as_bytes()), &self.shell.parser);
        let program = match parser.parse_program() {
            Ok(p) => p,
            Err(e) => {
                self.error(&format!("syntax error: {e}")).await;
                self.shell.status = 2;
                return Some(Flow::Exit);
            }
        };
        for list in &program.complete_commands {
            if let Err(flow) = self.run_list(list).await {
                return Some(flow);
            }
        }
        None
    }

    pub fn run_list<'a>(&'a mut self, list: &'a CompoundList) -> Task<'a, Outcome> {
        Box::pin(async move {
            for item in &list.0 {
                if matches!(item.1, SeparatorOperator::Async) {
                    // No processes: a background job runs to completion now (documented).
                    self.run_and_or(&item.0).await?;
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

    /// Ends the shell on failure under `set -e` (outside conditions).
    fn check_errexit(&self) -> Outcome {
        if self.shell.options.errexit && self.shell.status != 0 && self.condition == 0 {
            return Err(Flow::Exit);
        }
        Ok(())
    }

    async fn run_pipeline(&mut self, p: &ast::Pipeline) -> Outcome {
        if p.bang {
            self.condition += 1;
        }
        let result = if p.seq.len() == 1 {
            let r = self.run_command(&p.seq[0]).await;
            self.shell.pipestatus = vec![self.shell.status];
            r
        } else {
            self.run_stages(&p.seq).await
        };
        if p.bang {
            self.condition -= 1;
            if result.is_ok() {
                self.shell.status = (self.shell.status == 0) as i32;
            }
            return result;
        }
        result?;
        self.check_errexit()
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
                stderr: self.io.stderr.clone(),
            };
            let mut sub = self.shell.clone();
            tasks.push(Box::pin(async move {
                let mut interp = Interp::new(&mut sub, io);
                let _ = interp.run_command(cmd).await;
                let status = interp.shell.status;
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
                    if let Some(r) = redirects {
                        match self.redirect(&r.0).await {
                            Ok(io) => self.io = io,
                            Err(msg) => {
                                self.error(&msg).await;
                                self.shell.status = 1;
                                return Ok(());
                            }
                        }
                    }
                    let result = self.run_compound(cc).await;
                    self.io = saved;
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
                    self.shell.status = match self.extended_test(&test.expr).await {
                        Ok(true) => 0,
                        Ok(false) => 1,
                        Err(e) => {
                            self.error(&e.0).await;
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
                let mut sub = self.shell.clone();
                let status = {
                    let mut interp = Interp::new(&mut sub, self.io.clone());
                    let _ = interp.run_list(&s.list).await;
                    interp.shell.status
                };
                self.shell.status = status;
                self.check_errexit()
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
                let result = loop {
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
                        Err(Flow::Break(_)) => break Ok(()),
                        Err(Flow::Continue(n)) if n > 1 => break Err(Flow::Continue(n - 1)),
                        Err(Flow::Continue(_)) => last = 0,
                        Err(f) => break Err(f),
                    }
                };
                self.shell.loop_depth -= 1;
                self.shell.status = last;
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
                for v in values {
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
                loop {
                    if let Some(cond) = &f.condition {
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
                                Ok(pat) if pattern_match(&pat, &value) => {
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
                    Err(e) => return self.expansion_failed(e).await,
                }
                self.check_errexit()
            }
            CompoundCommand::Coprocess(_) => {
                self.error("coproc: not supported").await;
                self.shell.status = 2;
                Ok(())
            }
        }
    }

    /// Reports an expansion error; it ends a non-interactive shell with status 127, as in bash.
    async fn expansion_failed(&mut self, e: ExpandError) -> Outcome {
        self.error(&e.0).await;
        self.shell.status = 127;
        Err(Flow::Exit)
    }

    async fn run_simple(&mut self, sc: &ast::SimpleCommand) -> Outcome {
        let mut assignments = Vec::new();
        let mut words: Vec<&ast::Word> = Vec::new();
        let mut redirects = Vec::new();
        for item in sc.prefix.iter().flat_map(|p| p.0.iter()) {
            match item {
                ast::CommandPrefixOrSuffixItem::AssignmentWord(a, _) => assignments.push(a),
                ast::CommandPrefixOrSuffixItem::IoRedirect(r) => redirects.push(r.clone()),
                ast::CommandPrefixOrSuffixItem::Word(w) => words.push(w),
                ast::CommandPrefixOrSuffixItem::ProcessSubstitution(..) => {}
            }
        }
        words.extend(sc.word_or_name.iter());
        for item in sc.suffix.iter().flat_map(|s| s.0.iter()) {
            match item {
                ast::CommandPrefixOrSuffixItem::Word(w) => words.push(w),
                ast::CommandPrefixOrSuffixItem::IoRedirect(r) => redirects.push(r.clone()),
                ast::CommandPrefixOrSuffixItem::AssignmentWord(_, w) => words.push(w),
                ast::CommandPrefixOrSuffixItem::ProcessSubstitution(..) => {}
            }
        }
        let line = sc
            .word_or_name
            .as_ref()
            .and_then(|w| w.loc.as_ref())
            .map(|l| l.start.line)
            .unwrap_or(self.line);
        self.line = line;
        self.last_substitution = None;
        let mut argv = Vec::new();
        for w in &words {
            match self.expand_fields(&w.value).await {
                Ok(f) => argv.extend(f),
                Err(e) => return self.expansion_failed(e).await,
            }
        }
        // Scalar assignments (the environment of a command); array ones apply at once.
        let mut values = Vec::new();
        for a in &assignments {
            let (name, index) = match &a.name {
                ast::AssignmentName::VariableName(n) => (n.clone(), None),
                ast::AssignmentName::ArrayElementName(n, i) => (n.clone(), Some(i.clone())),
            };
            match &a.value {
                ast::AssignmentValue::Scalar(w) => {
                    let value = match self.expand_string(&w.value).await {
                        Ok(v) => v,
                        Err(e) => return self.expansion_failed(e).await,
                    };
                    if let Some(index) = index {
                        let i = match self.arith_text(&index).await {
                            Ok(i) => i,
                            Err(e) => return self.expansion_failed(e).await,
                        };
                        let value = match (a.append, self.shell.element(&name, i)) {
                            (true, Some(old)) => format!("{old}{value}"),
                            _ => value,
                        };
                        self.shell.set_element(&name, i, value);
                        continue;
                    }
                    let value = if a.append {
                        format!("{}{value}", self.shell.get(&name).unwrap_or(""))
                    } else {
                        value
                    };
                    values.push((name, value));
                }
                ast::AssignmentValue::Array(items) => {
                    let mut elements = Vec::new();
                    for (key, w) in items {
                        let key = match key {
                            Some(k) => match self.arith_text(&k.value).await {
                                Ok(i) => Some(i),
                                Err(e) => return self.expansion_failed(e).await,
                            },
                            None => None,
                        };
                        match self.expand_fields(&w.value).await {
                            Ok(v) if key.is_some() => elements.push((key, v.join(" "))),
                            Ok(v) => elements.extend(v.into_iter().map(|x| (None, x))),
                            Err(e) => return self.expansion_failed(e).await,
                        }
                    }
                    self.shell.set_array(&name, elements, a.append);
                }
            }
        }
        let subst_status = self.last_substitution.unwrap_or(0);
        let io = match self.redirect(&redirects).await {
            Ok(io) => io,
            Err(msg) => {
                self.error(&msg).await;
                self.shell.status = 1;
                return self.check_errexit();
            }
        };
        if argv.is_empty() {
            for (name, value) in values {
                self.shell.set(&name, value);
            }
            self.shell.status = subst_status;
            return Ok(());
        }
        if self.shell.options.xtrace {
            let _ = io
                .stderr
                .write_all(format!("+ {}\n", argv.join(" ")).as_bytes())
                .await;
        }
        let saved = std::mem::replace(&mut self.io, io);
        let result = self.dispatch(argv, values).await;
        self.io = saved;
        result?;
        self.check_errexit()
    }

    /// Function → builtin → built-in command → the host.
    async fn dispatch(&mut self, argv: Vec<String>, assignments: Vec<(String, String)>) -> Outcome {
        let name = argv[0].clone();
        if let Some(body) = self.shell.functions.get(&name).cloned() {
            if self.shell.call_depth >= MAX_CALL_DEPTH {
                self.error(&format!(
                    "{name}: maximum function nesting level exceeded ({MAX_CALL_DEPTH})"
                ))
                .await;
                self.shell.status = 1;
                return Err(Flow::Exit);
            }
            let saved_args = std::mem::replace(&mut self.shell.positional, argv[1..].to_vec());
            for (k, v) in &assignments {
                self.shell.set(k, v.clone());
            }
            self.shell.call_depth += 1;
            self.shell.push_locals();
            self.shell.funcname.push(name.clone());
            let result = self
                .run_command(&Command::Compound(body.0.clone(), body.1.clone()))
                .await;
            self.shell.funcname.pop();
            self.shell.pop_locals();
            self.shell.call_depth -= 1;
            self.shell.positional = saved_args;
            return match result {
                Err(Flow::Return) => Ok(()),
                other => other,
            };
        }
        if crate::builtins::is_builtin(&name) {
            for (k, v) in &assignments {
                self.shell.set(k, v.clone());
            }
            return crate::builtins::run(self, &argv).await;
        }
        if let Some(cmd) = crate::commands::find(&name) {
            self.shell.status = cmd(self, &argv).await;
            return Ok(());
        }
        self.host_exec(argv, assignments).await;
        Ok(())
    }

    /// Runs a command no builtin has through the host's `exec` import.
    async fn host_exec(&mut self, argv: Vec<String>, assignments: Vec<(String, String)>) {
        use crate::bindings::computer::host::exec;
        let stdin = match &self.io.stdin {
            Input::Null => Vec::new(),
            input => input.read_all().await.unwrap_or_default(),
        };
        let mut env = self.shell.environment();
        env.retain(|(k, _)| !assignments.iter().any(|(a, _)| a == k));
        env.extend(assignments);
        let cmd = exec::Command {
            argv: argv.clone(),
            source: None,
            cwd: Some(self.shell.cwd.clone()),
            env,
            stdin: Some(stdin),
            backend: None,
            timeout_ms: None,
        };
        match exec::run(&cmd) {
            Ok(out) => {
                let _ = self.io.stdout.write_all(&out.stdout).await;
                let _ = self.io.stderr.write_all(&out.stderr).await;
                self.shell.status = out.status;
            }
            Err(exec::Error::NotFound(_)) => {
                self.error(&format!("{}: command not found", argv[0])).await;
                self.shell.status = 127;
            }
            Err(exec::Error::Unavailable(m) | exec::Error::Limit(m) | exec::Error::Invalid(m)) => {
                self.error(&format!("{}: {m}", argv[0])).await;
                self.shell.status = 126;
            }
        }
    }

    /// Applies redirections to a copy of the current streams.
    async fn redirect(&mut self, redirects: &[IoRedirect]) -> Result<Io, String> {
        let mut io = self.io.clone();
        for r in redirects {
            match r {
                IoRedirect::File(fd, kind, target) => {
                    let fd = fd.unwrap_or(match kind {
                        IoFileRedirectKind::Read
                        | IoFileRedirectKind::ReadAndWrite
                        | IoFileRedirectKind::DuplicateInput => 0,
                        _ => 1,
                    });
                    let word = match target {
                        IoFileRedirectTarget::Filename(w) | IoFileRedirectTarget::Duplicate(w) => {
                            self.expand_string(&w.value).await.map_err(|e| e.0)?
                        }
                        IoFileRedirectTarget::Fd(n) => n.to_string(),
                        IoFileRedirectTarget::ProcessSubstitution(..) => {
                            return Err("process substitution: not supported yet".into());
                        }
                    };
                    let dup = matches!(
                        kind,
                        IoFileRedirectKind::DuplicateOutput | IoFileRedirectKind::DuplicateInput
                    ) || matches!(target, IoFileRedirectTarget::Fd(_));
                    if dup {
                        match (fd, word.as_str()) {
                            (1, "2") => io.stdout = io.stderr.clone(),
                            (2, "1") => io.stderr = io.stdout.clone(),
                            (_, "-") => set_output(&mut io, fd, Output::Null)?,
                            (0, "0") | (1, "1") | (2, "2") => {}
                            _ => return Err(format!("{word}: Bad file descriptor")),
                        }
                        continue;
                    }
                    let path = if word == "/dev/null" {
                        std::path::PathBuf::from("/dev/null")
                    } else {
                        self.shell.path(&word)
                    };
                    let file = match kind {
                        IoFileRedirectKind::Read => std::fs::File::open(&path),
                        IoFileRedirectKind::Append => std::fs::OpenOptions::new()
                            .append(true)
                            .create(true)
                            .open(&path),
                        IoFileRedirectKind::ReadAndWrite => std::fs::OpenOptions::new()
                            .read(true)
                            .write(true)
                            .create(true)
                            .truncate(false)
                            .open(&path),
                        _ => std::fs::File::create(&path),
                    }
                    .map_err(|e| format!("{word}: {}", io_message(&e)))?;
                    let file = Rc::new(std::cell::RefCell::new(file));
                    match kind {
                        IoFileRedirectKind::Read => io.stdin = Input::File(file),
                        IoFileRedirectKind::ReadAndWrite if fd == 0 => io.stdin = Input::File(file),
                        _ => set_output(&mut io, fd, Output::File(file))?,
                    }
                }
                IoRedirect::OutputAndError(w, append) => {
                    let word = self.expand_string(&w.value).await.map_err(|e| e.0)?;
                    let path = self.shell.path(&word);
                    let file = if *append {
                        std::fs::OpenOptions::new()
                            .append(true)
                            .create(true)
                            .open(&path)
                    } else {
                        std::fs::File::create(&path)
                    }
                    .map_err(|e| format!("{word}: {}", io_message(&e)))?;
                    let out = Output::File(Rc::new(std::cell::RefCell::new(file)));
                    io.stdout = out.clone();
                    io.stderr = out;
                }
                IoRedirect::HereString(_, w) => {
                    let text = self.expand_string(&w.value).await.map_err(|e| e.0)?;
                    io.stdin = Input::Bytes(Rc::new(std::cell::RefCell::new(
                        std::io::Cursor::new(format!("{text}\n").into_bytes()),
                    )));
                }
                IoRedirect::HereDocument(_, doc) => {
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
                        body = self.expand_heredoc(&body).await.map_err(|e| e.0)?;
                    }
                    io.stdin = Input::Bytes(Rc::new(std::cell::RefCell::new(
                        std::io::Cursor::new(body.into_bytes()),
                    )));
                }
            }
        }
        Ok(io)
    }

    async fn expand_heredoc(&mut self, body: &str) -> Result<String, ExpandError> {
        let pieces = brush_parser::word::parse_heredoc(body, &self.shell.parser)
            .map_err(|e| ExpandError(format!("bad substitution: {e}")))?;
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

    async fn extended_test(&mut self, e: &ast::ExtendedTestExpr) -> Result<bool, ExpandError> {
        use ast::{BinaryPredicate as B, ExtendedTestExpr as E, UnaryPredicate as U};
        Ok(match e {
            E::And(a, b) => {
                Box::pin(self.extended_test(a)).await? && Box::pin(self.extended_test(b)).await?
            }
            E::Or(a, b) => {
                Box::pin(self.extended_test(a)).await? || Box::pin(self.extended_test(b)).await?
            }
            E::Not(a) => !Box::pin(self.extended_test(a)).await?,
            E::Parenthesized(a) => Box::pin(self.extended_test(a)).await?,
            E::UnaryTest(op, w) => {
                let v = self.expand_string(&w.value).await?;
                let meta = || std::fs::metadata(self.shell.path(&v));
                match op {
                    U::StringHasZeroLength => v.is_empty(),
                    U::StringHasNonZeroLength => !v.is_empty(),
                    U::FileExists => meta().is_ok(),
                    U::FileExistsAndIsDir => meta().is_ok_and(|m| m.is_dir()),
                    U::FileExistsAndIsRegularFile => meta().is_ok_and(|m| m.is_file()),
                    U::FileExistsAndIsSymlink => std::fs::symlink_metadata(self.shell.path(&v))
                        .is_ok_and(|m| m.file_type().is_symlink()),
                    U::FileExistsAndIsNotZeroLength => meta().is_ok_and(|m| m.len() > 0),
                    U::FileExistsAndIsReadable
                    | U::FileExistsAndIsWritable
                    | U::FileExistsAndIsExecutable => meta().is_ok(),
                    U::ShellVariableIsSetAndAssigned => self.shell.get(&v).is_some(),
                    _ => return Err(ExpandError(format!("{op:?}: test not supported yet"))),
                }
            }
            E::BinaryTest(op, l, r) => {
                let left = self.expand_string(&l.value).await?;
                let num = |s: &str| {
                    s.trim()
                        .parse::<i64>()
                        .map_err(|_| ExpandError(format!("{s}: integer expression expected")))
                };
                match op {
                    B::StringExactlyMatchesPattern => {
                        pattern_match(&self.expand_pattern(&r.value).await?, &left)
                    }
                    B::StringDoesNotExactlyMatchPattern => {
                        !pattern_match(&self.expand_pattern(&r.value).await?, &left)
                    }
                    B::StringExactlyMatchesString => left == self.expand_string(&r.value).await?,
                    B::StringDoesNotExactlyMatchString => {
                        left != self.expand_string(&r.value).await?
                    }
                    B::LeftSortsBeforeRight => left < self.expand_string(&r.value).await?,
                    B::LeftSortsAfterRight => left > self.expand_string(&r.value).await?,
                    B::ArithmeticEqualTo => {
                        num(&left)? == num(&self.expand_string(&r.value).await?)?
                    }
                    B::ArithmeticNotEqualTo => {
                        num(&left)? != num(&self.expand_string(&r.value).await?)?
                    }
                    B::ArithmeticLessThan => {
                        num(&left)? < num(&self.expand_string(&r.value).await?)?
                    }
                    B::ArithmeticLessThanOrEqualTo => {
                        num(&left)? <= num(&self.expand_string(&r.value).await?)?
                    }
                    B::ArithmeticGreaterThan => {
                        num(&left)? > num(&self.expand_string(&r.value).await?)?
                    }
                    B::ArithmeticGreaterThanOrEqualTo => {
                        num(&left)? >= num(&self.expand_string(&r.value).await?)?
                    }
                    _ => return Err(ExpandError(format!("{op:?}: test not supported yet"))),
                }
            }
        })
    }
}

fn set_output(io: &mut Io, fd: i32, out: Output) -> Result<(), String> {
    match fd {
        1 => io.stdout = out,
        2 => io.stderr = out,
        n => {
            return Err(format!(
                "{n}: redirection of this descriptor not supported yet"
            ));
        }
    }
    Ok(())
}

/// The C library's wording for an I/O error.
pub fn io_message(e: &std::io::Error) -> String {
    use std::io::ErrorKind as K;
    match e.kind() {
        K::NotFound => "No such file or directory".into(),
        K::PermissionDenied => "Permission denied".into(),
        K::AlreadyExists => "File exists".into(),
        K::IsADirectory => "Is a directory".into(),
        K::NotADirectory => "Not a directory".into(),
        K::DirectoryNotEmpty => "Directory not empty".into(),
        _ => e.to_string(),
    }
}
