//! Command lookup: function → builtin → built-in command (a utility of the registry, or a
//! program of the interpreter's own) → the host's `exec`. Also the tables the builtins and
//! programs are registered in, and assignments that hold for one command only.

use brush_parser::ast;

use crate::interp::assign::{DeclArg, Pending};
use crate::interp::script::PathCommand;
use crate::interp::{Interp, Outcome};
use shell_base::Run;
use shell_base::host::{ExecError, ExecRequest};
use shell_base::runtime::Task;

/// How a builtin runs: on the interpreter, with its arguments (not its name); its status is
/// in `$?` when it returns `Ok`.
pub type BuiltinFn = for<'a, 's> fn(&'a mut Interp<'s>, &'a [String]) -> Task<'a, Outcome>;

/// How a declaration builtin runs: with its name and arguments, `name=value` ones already
/// expanded as assignments; its status.
pub type DeclarationFn = for<'a, 's> fn(&'a mut Interp<'s>, &'a str, Vec<DeclArg>) -> Task<'a, i32>;

/// One builtin, registered in its own file under `builtins/`.
#[derive(Clone, Copy)]
pub struct Builtin {
    pub name: &'static str,
    pub run: BuiltinFn,
    /// The synopsis `help NAME` shows, without the name (`[-L|-P] [dir]`).
    pub usage: &'static str,
    /// What it does, in one line without a final period.
    pub about: &'static str,
    /// One of POSIX's special builtins (`break`, `:`, `.`, `eval`, `exec`, `exit`, `export`,
    /// `readonly`, `return`, `set`, `shift`, `times`, `trap`, `unset`...).
    pub special: bool,
    /// A declaration utility: its `name=value` arguments are assignments (`declare a=(1 2)`
    /// makes an array), so they are expanded as such and passed here instead of `run`.
    pub declaration: Option<DeclarationFn>,
}

/// A program that needs the interpreter itself (`sh`, `env`): found in the registry of
/// utilities, run here.
#[derive(Clone, Copy)]
pub struct Program {
    pub name: &'static str,
    pub run: for<'a, 's> fn(&'a mut Interp<'s>, &'a [String]) -> Task<'a, i32>,
}

/// The builtins (sorted by name) and the interpreter's programs.
pub struct Builtins {
    pub builtins: &'static [Builtin],
    pub programs: &'static [Program],
}

impl Builtins {
    /// The builtin called `name`.
    pub fn get(&self, name: &str) -> Option<&'static Builtin> {
        let list = self.builtins;
        list.binary_search_by(|b| b.name.cmp(name))
            .ok()
            .map(|i| &list[i])
    }

    pub fn is_builtin(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// The names, sorted.
    pub fn names(&self) -> impl Iterator<Item = &'static str> + use<> {
        let list = self.builtins;
        list.iter().map(|b| b.name)
    }

    fn program(&self, name: &str) -> Option<&'static Program> {
        let list = self.programs;
        list.iter().find(|p| p.name == name)
    }
}

impl Interp<'_> {
    /// Runs the builtin `argv[0]` (which must be one); sets `$?`.
    pub fn run_builtin<'a>(
        &'a mut self,
        builtin: &'static Builtin,
        argv: &'a [String],
    ) -> Task<'a, Outcome> {
        (builtin.run)(self, &argv[1..])
    }
    /// Function → builtin → built-in command → the host. Assignments before the command
    /// hold for it only (exported to it).
    pub(crate) async fn dispatch(
        &mut self,
        argv: Vec<String>,
        assignments: Vec<Pending>,
    ) -> Outcome {
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

    pub(crate) fn restore(&mut self, saved: Vec<(String, Option<crate::vars::Var>)>) {
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
        if let Some(b) = self.builtins.get(&name) {
            return self.run_builtin(b, &argv).await;
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
                Run::Interpreter => match self.builtins.program(&argv[0]) {
                    Some(program) => (program.run)(self, argv).await,
                    None => 127,
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
            .standard_path(path, |name| self.builtins.is_builtin(name))
    }

    /// The built-in command a standard path such as `/usr/bin/env` stands for, when the
    /// workspace holds nothing at that path.
    fn standard_command<'p>(&self, path: &'p str) -> Option<&'p str> {
        self.standard_path(path)
            .filter(|_| std::fs::symlink_metadata(self.shell.path(path)).is_err())
    }

    /// The text to run instead of a simple command whose name is an alias (with
    /// `expand_aliases` on): the alias's value followed by the rest of the command.
    pub(crate) fn alias_for(&self, sc: &ast::SimpleCommand) -> Option<String> {
        if !self.shell.shopt.expand_aliases {
            return None;
        }
        let word = &sc.word_or_name.as_ref()?.value;
        let value = self.shell.alias_at(word, self.line)?;
        if self.alias_stack.contains(word) {
            return None;
        }
        // Assignments and redirections before the command word stay before it.
        let mut text = String::new();
        for item in sc.prefix.iter().flat_map(|p| p.0.iter()) {
            text.push_str(&item.to_string());
            text.push(' ');
        }
        text.push_str(value);
        // An alias that ends in a blank has the next word checked for an alias too.
        let mut words = sc.suffix.iter().flat_map(|s| s.0.iter()).peekable();
        while text.ends_with([' ', '\t'])
            && let Some(ast::CommandPrefixOrSuffixItem::Word(w)) = words.peek()
            && let Some(value) = self.shell.alias_at(&w.value, self.line)
        {
            text.push_str(value);
            words.next();
        }
        for item in words {
            text.push(' ');
            text.push_str(&item.to_string());
        }
        Some(text)
    }

    /// Runs source text in place of a command (alias expansion).
    pub(crate) async fn run_source_inline(&mut self, src: &str, alias: &str) -> Outcome {
        self.alias_stack.push(alias.to_string());
        let flow = self.run_source_within(src).await;
        self.alias_stack.pop();
        match flow {
            Some(f) => Err(f),
            None => Ok(()),
        }
    }

    pub(crate) async fn invoke(&mut self, argv: Vec<String>, name: &str) -> Outcome {
        if let Some(body) = self.shell.functions.get(name).cloned() {
            return self.call_function(name, body, argv[1..].to_vec()).await;
        }
        if let Some(b) = self.builtins.get(name) {
            return self.run_builtin(b, &argv).await;
        }
        if self.shell.commands.find(name).is_some() {
            self.shell.status = self.run_utility(&argv).await;
            return Ok(());
        }
        if let Some(base) = self.standard_command(name) {
            let mut argv = argv;
            argv[0] = base.to_string();
            let base = base.to_string();
            return Box::pin(self.invoke(argv, &base)).await;
        }
        self.host_exec(argv).await;
        Ok(())
    }

    /// Runs a command no builtin has: a script named by its path through its interpreter
    /// ([`script`](crate::interp::script)), anything else through the host's `exec` import.
    pub async fn host_exec(&mut self, argv: Vec<String>) {
        if !argv[0].contains('/') {
            return self.host_exec_for(argv, None).await;
        }
        match self.path_command(&argv) {
            PathCommand::Host => self.host_exec_for(argv, None).await,
            PathCommand::Refused(why) => {
                self.error(&format!("{}: {why}", argv[0])).await;
                self.shell.status = 126;
            }
            PathCommand::TooDeep(interp) => {
                // bash says this one from the child it forked: no line number.
                let name = self.shell.name.clone();
                self.raw_error(&format!(
                    "{name}: {}: {interp}: bad interpreter: Too many levels of symbolic links",
                    argv[0]
                ))
                .await;
                self.shell.status = 126;
            }
            PathCommand::Script(line) => {
                let script = argv[0].clone();
                self.run_interpreter(line, &script).await;
            }
        }
    }

    /// Runs a script's interpreter line: a standard path (`/usr/bin/env`, `/bin/sh`) as the
    /// built-in command it stands for, else the host's; an interpreter nobody has fails as
    /// bash 5.2 says (`cannot execute: required file not found`, 127).
    async fn run_interpreter(&mut self, mut line: Vec<String>, script: &str) {
        if let Some(base) = self.standard_command(&line[0]) {
            line[0] = base.to_string();
        }
        // `execve` knows no functions.
        if self.builtins.is_builtin(&line[0]) || self.shell.commands.find(&line[0]).is_some() {
            let _ = Box::pin(self.run_argv_skipping_functions(line)).await;
        } else {
            self.host_exec_for(line, Some(script)).await;
        }
    }

    /// Runs `argv` on the host; `script` is the script it interprets, for the message when
    /// the host has no such program.
    async fn host_exec_for(&mut self, argv: Vec<String>, script: Option<&str>) {
        let request = ExecRequest {
            argv: argv.clone(),
            cwd: self.shell.cwd.clone(),
            env: self.shell.environment(),
        };
        // A process elsewhere cannot say how much of the script it read, so it reads none.
        let mut io = self.io.clone();
        if self.is_script_input(&io.stdin) {
            io.stdin = shell_base::io::Input::Null;
        }
        let ran = match shell_base::host::current().spawn(&request) {
            Ok(process) => crate::interp::host_process::join(process, &io).await,
            Err(e) => Err(e),
        };
        match ran {
            Ok(status) => self.shell.status = status,
            Err(ExecError::NotFound) if let Some(script) = script => {
                // bash 5.2's words for `execve`'s ENOENT on a script that exists.
                self.error(&format!(
                    "{script}: cannot execute: required file not found"
                ))
                .await;
                self.shell.status = 127;
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
}
