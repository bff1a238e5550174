//! Executing the AST: a program's lists ([`list`]), pipelines whose stages run concurrently
//! on the executor, each on a copy of the state as bash's subshells are ([`pipeline`]),
//! compound commands ([`compound`]), simple commands ([`simple`]), redirections
//! ([`redirect`], [`procsub`]) and command lookup: function → builtin → built-in command →
//! the host's `exec` ([`lookup`]; "command not found" when no backend has it).
//!
//! The interpreter names no builtin: they come as a table ([`Builtins`]) given to
//! [`Interp::new`], each entry registered in its own file under `builtins/`. Expansion
//! ([`crate::expand`]) reaches the interpreter only through [`Frame`].

use crate::cond::Conditions;
use std::rc::Rc;

use brush_parser::ast::{self, Command};

use crate::expand::{ExpandError, Frame};
use crate::state::{Flow, Origin, Shell};
use shell_base::io::{Io, Output};
use shell_base::runtime::Task;

pub mod assign;
mod compound;
mod context;
mod function;
mod host_process;
mod limits;
mod list;
mod lookup;
mod pipeline;
pub mod procsub;
mod redirect;
mod script;
mod select;
mod simple;
mod stdin_script;
mod trap;

pub use assign::{DeclArg, Pending};
pub use lookup::{Builtin, Builtins, Program};
use redirect::Redirect;

/// How many repairs one parse may make (each is a parse of its own, so a script's cost
/// grows with it): see [`crate::repair`]. Each `select` loop takes one.
const MAX_REPAIRS: usize = 256;

/// A syntax error was reached and reported: what follows it does not run.
struct SyntaxErrorReached;

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
    /// What the lines of the text being run are counted from: `eval`'s text goes on from
    /// the line its command ends on, as bash counts it.
    pub line_base: usize,
    /// The line the running simple command ends on.
    pub command_end: usize,
    /// Depth of `source` (where `return` is allowed outside functions).
    pub sourcing: u32,
    /// Set by `exec` without a command: this command's redirections stay.
    pub keep_redirections: bool,
    /// Aliases being expanded (an alias is not expanded inside itself).
    alias_stack: Vec<String>,
    /// The `>(cmd)` of `exec > >(cmd)`: they read what the shell writes until it ends.
    pub exec_substitutions: Vec<procsub::Substituted>,
    /// The builtins and the programs that need the interpreter (`sh`, `env`).
    pub builtins: &'static Builtins,
}

/// How a command ends: normally (its status in `$?`), or by `exit`, `return`, `break`...
pub type Outcome = Result<(), Flow>;

impl<'s> Interp<'s> {
    pub fn new(shell: &'s mut Shell, io: Io, builtins: &'static Builtins) -> Interp<'s> {
        Interp {
            shell,
            io,
            builtins,
            condition: 0,
            last_substitution: None,
            line: 1,
            line_base: 0,
            command_end: 1,
            sourcing: 0,
            keep_redirections: false,
            alias_stack: Vec::new(),
            exec_substitutions: Vec::new(),
        }
    }

    /// Writes a diagnostic to standard error, as bash does: `NAME: line N: MESSAGE`.
    pub async fn error(&self, msg: &str) {
        // bash names an error after the file its code was read from: a function's is where
        // it was defined ("environment" for `-c`, "main" for standard input), a sourced
        // file's own lines are that file's, the rest are `$0`'s.
        let name = match self.shell.funcname.last() {
            Some(f) => match self.shell.function_files.get(f) {
                Some(file) => file.clone(),
                None => self.shell.current_file(),
            },
            None => match self.shell.files.last() {
                Some((file, _)) => file.clone(),
                None => self.shell.name.clone(),
            },
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

    /// Parses and runs a script. On a syntax error, the complete commands before the one
    /// it is in run first, as bash reads and runs a script command by command; then the
    /// error is reported (status 2) and the script ends.
    /// It reads as bash's reader does: an assignment error abandons one complete command
    /// ([`Flow::Discard`]) and the next runs.
    pub async fn run_source(&mut self, src: &str) -> Option<Flow> {
        let origin = (self.shell.origin == Origin::Command).then_some("-c");
        self.run_parsed(src, origin, true)
            .await
            .unwrap_or(Some(Flow::Exit))
    }

    /// Runs source text that stands in a command of its reader's (an alias's text, a
    /// command substitution's): a [`Flow::Discard`] goes on up.
    pub async fn run_source_within(&mut self, src: &str) -> Option<Flow> {
        let origin = (self.shell.origin == Origin::Command).then_some("-c");
        self.run_parsed(src, origin, false)
            .await
            .unwrap_or(Some(Flow::Exit))
    }

    /// `eval`'s text: a syntax error there fails the command (status 2), not the shell.
    /// Its lines go on from the line the `eval` command ends on.
    pub async fn run_eval(&mut self, src: &str) -> Option<Flow> {
        let base = std::mem::replace(&mut self.line_base, self.command_end.saturating_sub(1));
        let flow = self
            .run_parsed(src, Some("eval"), true)
            .await
            .unwrap_or(None);
        self.line_base = base;
        flow
    }

    /// Runs `src`; on a syntax error, what precedes it, then the report (`Err`: the error
    /// was reached and reported).
    async fn run_parsed(
        &mut self,
        src: &str,
        origin: Option<&str>,
        reader: bool,
    ) -> Result<Option<Flow>, SyntaxErrorReached> {
        let error = match self.parse_text(src) {
            Ok(program) => return Ok(self.run_text(&program, reader).await),
            Err(e) => e,
        };
        if let Some((closed, line, warning)) = crate::syntax::closed_here_document(src, &error)
            && let Ok(program) = self.parse_text(&closed)
        {
            let name = self.shell.name.clone();
            let line = line + self.line_base;
            self.raw_error(&format!("{name}: line {line}: {warning}"))
                .await;
            return Ok(self.run_text(&program, reader).await);
        }
        if let Some(program) = crate::syntax::complete_prefix(src, &error, |t| self.parse_text(t))
            && let Some(flow) = self.run_text(&program, reader).await
        {
            return Ok(Some(flow));
        }
        self.report_syntax_error(src, &error, origin).await;
        Err(SyntaxErrorReached)
    }

    /// Runs a parsed source text as a source of its own (its lines are its own, for aliases).
    async fn run_text(&mut self, program: &ast::Program, reader: bool) -> Option<Flow> {
        self.shell.sources += 1;
        let outer = std::mem::replace(&mut self.shell.source, self.shell.sources);
        let flow = self.run_program(program, reader).await;
        self.shell.source = outer;
        flow
    }

    /// Parses a script (as brush-parser reads it, with the repairs of [`crate::repair`]).
    fn parse_text(&self, src: &str) -> Result<ast::Program, brush_parser::ParseError> {
        let parse = |text: &str| {
            brush_parser::Parser::new(std::io::Cursor::new(text.as_bytes()), &self.shell.parser)
                .parse_program()
        };
        let first = match parse(src) {
            Ok(program) => return Ok(program),
            Err(e) => e,
        };
        // Repair what bash parses and brush-parser does not where it stopped, and parse again
        // (for each such place, within a bound); report the first error if that does not
        // make the script parse.
        let mut text = src.to_string();
        let mut later: Option<brush_parser::ParseError> = None;
        let mut selects = Vec::new();
        for _ in 0..MAX_REPAIRS {
            let brush_parser::ParseError::ParsingNear(at) = later.as_ref().unwrap_or(&first) else {
                break;
            };
            let Some((repaired, select)) = crate::repair::repaired(&text, at) else {
                break;
            };
            crate::select::shift(&mut selects, &text, &repaired);
            selects.extend(select);
            text = repaired;
            match parse(&text) {
                Ok(mut program) => {
                    crate::select::mark(&mut program, &text, &selects);
                    return Ok(program);
                }
                Err(e) => later = Some(e),
            }
        }
        Err(first)
    }

    /// Reports a syntax error as bash words it; the status is 2.
    async fn report_syntax_error(
        &mut self,
        src: &str,
        e: &brush_parser::ParseError,
        origin: Option<&str>,
    ) {
        let origin = match origin {
            Some(o) => format!("{}: {o}", self.shell.name),
            None => self.shell.name.clone(),
        };
        let text: String = crate::syntax::messages(src, e)
            .into_iter()
            .map(|(line, msg)| format!("{origin}: line {}: {msg}\n", line + self.line_base))
            .collect();
        let _ = self.io.stderr.write_all(text.as_bytes()).await;
        self.shell.status = 2;
    }

    /// Runs a program's complete commands; as a `reader`, one a [`Flow::Discard`]
    /// abandoned is followed by the next.
    pub(crate) async fn run_program(
        &mut self,
        program: &ast::Program,
        reader: bool,
    ) -> Option<Flow> {
        for list in &program.complete_commands {
            match self.run_list(list).await {
                Ok(()) => {}
                Err(Flow::Discard) if reader => {}
                Err(flow) => return Some(flow),
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
                    let file = self.shell.current_file();
                    self.shell
                        .function_files
                        .insert(def.fname.value.clone(), file);
                    self.shell
                        .function_line_bases
                        .insert(def.fname.value.clone(), self.line_base);
                    self.shell
                        .functions
                        .insert(def.fname.value.clone(), Rc::new(def.body.clone()));
                    self.shell.status = 0;
                    Ok(())
                }
                Command::ExtendedTest(test, _) => {
                    if let Some(line) = test_line(&test.expr) {
                        self.line = line + self.line_base;
                    }
                    self.count_command().await?;
                    self.before_command(|| format!("[[ {} ]]", test.expr))
                        .await?;
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
                            e.1
                        }
                    };
                    Ok(())
                }
            }
        })
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

/// A subshell of `shell`: its copy with the traps reset as bash resets them: ignored signals
/// stay ignored, `ERR` stays under `set -E` and `DEBUG` and `RETURN` under `set -T`; `trap`
/// there lists the parent's until the subshell sets one.
pub fn subshell_of(shell: &Shell) -> Shell {
    let mut sub = shell.clone();
    let options = &shell.options;
    sub.parent_traps = Some(shell.traps.clone());
    sub.traps.retain(|name, action| match name.as_str() {
        "EXIT" => false,
        "ERR" => options.errtrace,
        "DEBUG" | "RETURN" => options.functrace,
        _ => action.is_empty(),
    });
    sub.subshell = true;
    // `break` and `continue` in a subshell have no loop of its own to leave.
    sub.loop_depth = 0;
    sub
}

impl Interp<'_> {
    /// Runs `src` in a subshell on `io`; its status.
    pub async fn run_source_in_subshell(&mut self, src: &str, io: Io) -> i32 {
        let mut sub = subshell_of(self.shell);
        sub.substitution_depth += 1;
        let mut interp = Interp::new(&mut sub, io, self.builtins);
        // Its lines count from the command's, as bash's do.
        interp.line = self.line;
        interp.line_base = self.line.saturating_sub(1);
        interp.run_source_within(src).await;
        interp.run_exit_trap().await;
        interp.shell.status
    }
}

impl Frame for Interp<'_> {
    fn shell(&self) -> &Shell {
        self.shell
    }

    fn shell_mut(&mut self) -> &mut Shell {
        self.shell
    }

    fn line(&self) -> usize {
        self.line
    }

    fn set_substitution_status(&mut self, status: i32) {
        self.last_substitution = Some(status);
        // `$?` later in the same command sees it, as in bash (`echo "$(false)$?"`: 1).
        self.shell.status = status;
    }

    fn error<'a>(&'a self, message: &'a str) -> Task<'a, ()> {
        Box::pin(Interp::error(self, message))
    }

    fn run_subshell<'a>(&'a mut self, src: &'a str, stdout: Output) -> Task<'a, i32> {
        let io = Io {
            stdout,
            ..self.io.clone()
        };
        Box::pin(async move { self.run_source_in_subshell(src, io).await })
    }

    fn standard_path<'p>(&self, path: &'p str) -> Option<&'p str> {
        Interp::standard_path(self, path)
    }
}
