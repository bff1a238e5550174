//! The interpreter's state: variables, functions, positional parameters, cwd, options. A
//! subshell (and each stage of a pipeline, as in bash) works on a clone.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use brush_parser::ast;

use crate::vars::{Attrs, Value, Var};
use shell_base::Registry;

pub mod completion;
mod variables;

/// `set` options.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// `-e`: exit when a command fails.
    pub errexit: bool,
    /// `-u`: expanding an unset variable is an error.
    pub nounset: bool,
    /// `-o pipefail`: a pipeline fails if any stage fails.
    pub pipefail: bool,
    /// `-x`: print commands before running them.
    pub xtrace: bool,
    /// `-f`: no pathname expansion.
    pub noglob: bool,
    /// `-C`: `>` does not overwrite an existing file.
    pub noclobber: bool,
    /// `-a`: every variable assigned is exported.
    pub allexport: bool,
    /// `-v`: echo input lines (accepted; scripts are read whole).
    pub verbose: bool,
    /// `-n`: read commands without running them.
    pub noexec: bool,
    /// `-E`: functions, command substitutions and subshells inherit the `ERR` trap.
    pub errtrace: bool,
    /// `-T`: they inherit the `DEBUG` and `RETURN` traps.
    pub functrace: bool,
    /// `-o posix`: the errors POSIX says end a non-interactive shell end it (an assignment
    /// error with no command, a special builtin's redirection error).
    pub posix: bool,
}

impl Options {
    /// `set -o`'s options in bash's order, with whether each is on. Those bash has that do not
    /// apply here (job control, history, editing) are listed as off.
    pub fn listed(&self) -> Vec<(&'static str, bool)> {
        let o = self;
        vec![
            ("allexport", o.allexport),
            ("braceexpand", true),
            ("emacs", false),
            ("errexit", o.errexit),
            ("errtrace", o.errtrace),
            ("functrace", o.functrace),
            ("hashall", true),
            ("histexpand", false),
            ("history", false),
            ("ignoreeof", false),
            ("interactive-comments", true),
            ("keyword", false),
            ("monitor", false),
            ("noclobber", o.noclobber),
            ("noexec", o.noexec),
            ("noglob", o.noglob),
            ("nolog", false),
            ("notify", false),
            ("nounset", o.nounset),
            ("onecmd", false),
            ("physical", false),
            ("pipefail", o.pipefail),
            ("posix", o.posix),
            ("privileged", false),
            ("verbose", o.verbose),
            ("vi", false),
            ("xtrace", o.xtrace),
        ]
    }
}

/// `shopt` options.
#[derive(Clone, Debug, Default)]
pub struct Shopt {
    pub extglob: bool,
    pub nullglob: bool,
    pub failglob: bool,
    pub dotglob: bool,
    pub globstar: bool,
    pub nocaseglob: bool,
    pub nocasematch: bool,
    pub expand_aliases: bool,
    pub lastpipe: bool,
    pub xpg_echo: bool,
}

impl Shopt {
    /// The options `shopt` knows, with their current values.
    pub fn all(&self) -> [(&'static str, bool); 10] {
        [
            ("dotglob", self.dotglob),
            ("expand_aliases", self.expand_aliases),
            ("extglob", self.extglob),
            ("failglob", self.failglob),
            ("globstar", self.globstar),
            ("lastpipe", self.lastpipe),
            ("nocaseglob", self.nocaseglob),
            ("nocasematch", self.nocasematch),
            ("nullglob", self.nullglob),
            ("xpg_echo", self.xpg_echo),
        ]
    }

    /// Sets a named option; false for an unknown name.
    pub fn set(&mut self, name: &str, on: bool) -> bool {
        let slot = match name {
            "dotglob" => &mut self.dotglob,
            "expand_aliases" => &mut self.expand_aliases,
            "extglob" => &mut self.extglob,
            "failglob" => &mut self.failglob,
            "globstar" => &mut self.globstar,
            "lastpipe" => &mut self.lastpipe,
            "nocaseglob" => &mut self.nocaseglob,
            "nocasematch" => &mut self.nocasematch,
            "nullglob" => &mut self.nullglob,
            "xpg_echo" => &mut self.xpg_echo,
            _ => return false,
        };
        *slot = on;
        true
    }
}

/// Limits on what one script may do, each named in the error that stops it. Set by the
/// host through the environment (`COMPUTER_SH_MAX_*`), else these defaults.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Commands run in all (`COMPUTER_SH_MAX_COMMANDS`).
    pub commands: u64,
    /// Iterations of any one loop (`COMPUTER_SH_MAX_LOOP_ITERATIONS`).
    pub loop_iterations: u64,
    /// Function call depth (`COMPUTER_SH_MAX_CALL_DEPTH`).
    pub call_depth: u32,
    /// Bytes of one expanded word or variable value (`COMPUTER_SH_MAX_EXPANSION_BYTES`).
    pub expansion_bytes: usize,
}

impl Limits {
    fn from_env() -> Limits {
        fn var<T: std::str::FromStr>(name: &str, default: T) -> T {
            std::env::var(name)
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(default)
        }
        Limits {
            commands: var("COMPUTER_SH_MAX_COMMANDS", 10_000_000),
            loop_iterations: var("COMPUTER_SH_MAX_LOOP_ITERATIONS", 1_000_000),
            call_depth: var("COMPUTER_SH_MAX_CALL_DEPTH", 200),
            expansion_bytes: var("COMPUTER_SH_MAX_EXPANSION_BYTES", 64 << 20),
        }
    }
}

/// Why execution stops going straight on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// `break n`.
    Break(u32),
    /// `continue n`.
    Continue(u32),
    /// `return` from a function (or a sourced script).
    Return,
    /// `exit`, or an error that ends the shell (`set -e`, `${x:?}`).
    Exit,
    /// An assignment error with no command (`readonly r; r=1`): bash abandons the complete
    /// command it was running (the rest of its line, the function or loop around it) and
    /// reads on; a subshell ends. In POSIX mode such an error is an [`Flow::Exit`].
    Discard,
}

/// `alias NAME=VALUE` (`value` set) or `unalias NAME` run on `line` of source text `source`.
#[derive(Clone, Debug)]
pub struct AliasChange {
    pub source: u64,
    pub line: usize,
    pub value: Option<String>,
}

/// The most changes of one alias kept: enough for any script's lines, and a lookup stays
/// short however often a loop or `eval` redefines it.
const ALIAS_HISTORY: usize = 64;

/// How a script reached the shell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// `-c SCRIPT`: an expansion error under it ends the shell with 127, not 1.
    Command,
    /// `FILE` (or a sourced or interactive script).
    File,
    /// The script on standard input.
    Stdin,
}

/// A script read from stdin, as the stdin of its commands: read up to where the shell has
/// read it.
pub type ScriptInput = Rc<RefCell<std::io::Cursor<Vec<u8>>>>;

/// The interpreter state.
#[derive(Clone)]
pub struct Shell {
    pub vars: HashMap<String, Var>,
    /// Every command besides the builtins: the utilities and those the host provides.
    pub commands: Rc<Registry>,
    pub functions: HashMap<String, Rc<ast::FunctionBody>>,
    /// `$0`.
    pub name: String,
    /// How the script arrived: bash's statuses and messages differ between the three.
    pub origin: Origin,
    /// `$1`, `$2`, ...
    pub positional: Vec<String>,
    /// The working directory (absolute). Relative paths of every command resolve against it.
    pub cwd: String,
    /// `$?`.
    pub status: i32,
    /// `${PIPESTATUS[@]}` of the last pipeline.
    pub pipestatus: Vec<i32>,
    pub options: Options,
    pub shopt: Shopt,
    pub limits: Limits,
    /// Commands run so far (against `limits.commands`).
    pub commands_run: std::rc::Rc<std::cell::Cell<u64>>,
    /// `trap` actions by condition (`EXIT`, `ERR`, `RETURN`, `DEBUG`, signal names).
    pub traps: HashMap<String, String>,
    /// In a subshell until it sets a trap: its parent's traps, which `trap` lists there (as
    /// bash does, so that `$(trap -p)` shows the shell's own).
    pub parent_traps: Option<HashMap<String, String>>,
    /// `$BASH_COMMAND`: the command running or about to run (kept while a trap is set).
    pub bash_command: String,
    /// How many running functions hide the caller's `ERR` or `DEBUG` trap (it comes back,
    /// and reads `$BASH_COMMAND`, when they return).
    pub traps_hidden: u32,
    /// How many times a `RETURN` trap was set: a function runs it on return when it set one
    /// (functions do not inherit it, as bash without `set -T`).
    pub return_traps_set: u64,
    /// `alias` definitions.
    pub aliases: std::collections::BTreeMap<String, String>,
    /// `complete`'s specifications, by command name.
    pub completions: std::collections::BTreeMap<String, completion::Spec>,
    /// Every change `alias` and `unalias` made, where: bash expands aliases as it reads a
    /// line, so a command sees them as they were before its line ran ([`Shell::alias_at`]).
    pub alias_changes: HashMap<String, std::collections::VecDeque<AliasChange>>,
    /// The source text running (a script, `eval`'s, a trap's), and the last number given.
    pub source: u64,
    pub sources: u64,
    /// The script's text as the shell's stdin, when it read its script from stdin
    /// ([`Interp::run_stdin_source`](crate::Interp::run_stdin_source)).
    pub script_input: Option<ScriptInput>,
    /// `pushd`/`popd`'s stack, below the current directory (top first).
    pub dir_stack: Vec<String>,
    /// `umask`.
    pub umask: u32,
    /// What `history -s` added (a script records no history of its own).
    pub history: Vec<String>,
    /// Statuses of finished background jobs by id, for `wait` (jobs run to completion).
    pub jobs: Vec<(u32, i32)>,
    /// `$!`.
    pub last_job: Option<u32>,
    /// Whether the script ended the shell (`exit`, `set -e`), as an interactive session needs
    /// to know.
    pub exited: bool,
    /// Whether this is a subshell (an expansion error there exits with 1, not 127).
    pub subshell: bool,
    /// When the command `timeout` runs must stop (checked before each command, and by
    /// `sleep`: there are no processes to kill).
    pub deadline: Option<std::time::Instant>,
    /// Whether the shell is running a trap action (traps do not nest).
    pub in_trap: bool,
    /// Parsed words by their text, shared with subshells.
    pub word_cache:
        Rc<std::cell::RefCell<HashMap<String, Rc<Vec<brush_parser::word::WordPieceWithSource>>>>>,
    /// `getopts`' place: the `OPTIND` it last set and the character within that argument.
    pub getopts_index: (usize, usize),
    pub parser: brush_parser::ParserOptions,
    /// Depth of loops we are in (for `break`/`continue` validity).
    pub loop_depth: u32,
    /// Depth of function calls (limited against runaway recursion).
    pub call_depth: u32,
    /// How many command substitutions deep this shell runs: `set -x` repeats PS4's first
    /// character once more for each (bash's indirection level).
    pub substitution_depth: usize,
    /// For each running function, the variables it made local and their values outside.
    pub locals: Vec<Vec<(String, Option<Var>)>>,
    /// The `set` options of each running function that ran `local -`, by call depth (the
    /// length of `locals`), to be restored when it returns.
    pub local_options: Vec<(usize, Options)>,
    /// Names of the running functions, innermost last (`$FUNCNAME`).
    pub funcname: Vec<String>,
    /// The line each running function was called from, innermost last (`$BASH_LINENO`).
    pub call_lines: Vec<usize>,
    /// The file each function was defined in (`$BASH_SOURCE`).
    pub function_files: HashMap<String, String>,
    /// What each function's lines count from: 0, or more for one `eval` defined.
    pub function_line_bases: HashMap<String, usize>,
    /// The files being read, outermost first, each with the line of the `source` that read
    /// it (0 for the script itself).
    pub files: Vec<(String, usize)>,
    /// When the shell started (`$SECONDS`).
    pub started: std::time::Instant,
    /// State of `$RANDOM`'s generator.
    random_state: u32,
}

impl Shell {
    /// Where the script comes from; a file is the first of the files being read.
    pub fn set_origin(&mut self, origin: Origin) {
        self.origin = origin;
        self.files = match origin {
            Origin::File => vec![(self.name.clone(), 0)],
            _ => Vec::new(),
        };
    }

    /// The file a function defined now comes from, as bash names it: the file being read,
    /// or "environment" under `-c` and "main" on standard input.
    pub fn current_file(&self) -> String {
        match (self.files.last(), self.origin) {
            (Some((f, _)), _) => f.clone(),
            (None, Origin::Command) => "environment".into(),
            (None, Origin::Stdin) => "main".into(),
            (None, Origin::File) => self.name.clone(),
        }
    }

    /// Defines (`Some`) or removes alias `name` by a command on `line` of the running source.
    /// A loop running the same line again replaces its change, and each alias keeps its
    /// last 64 changes.
    pub fn change_alias(&mut self, line: usize, name: &str, value: Option<String>) {
        let source = self.source;
        let history = self.alias_changes.entry(name.to_string()).or_default();
        history.retain(|c| !(c.source == source && c.line == line));
        if history.len() == ALIAS_HISTORY {
            history.pop_front();
        }
        history.push_back(AliasChange {
            source,
            line,
            value: value.clone(),
        });
        match value {
            Some(v) => self.aliases.insert(name.to_string(), v),
            None => self.aliases.remove(name),
        };
    }

    /// Alias `name` as bash would have expanded it in a command on `line` of the running
    /// source: changes made on that line or later ones of the same text came after bash read
    /// it (`alias x=y; x` on one line finds no `x`; a function keeps the aliases of where it
    /// was written).
    pub fn alias_at(&self, name: &str, line: usize) -> Option<&str> {
        self.alias_changes
            .get(name)?
            .iter()
            .rev()
            .find(|c| !(c.source == self.source && c.line >= line))
            .and_then(|c| c.value.as_deref())
    }

    /// A new shell with bash's usual variables and the host's environment.
    pub fn new(name: String, positional: Vec<String>, commands: Rc<Registry>) -> Shell {
        let mut vars: HashMap<String, Var> = std::env::vars()
            .filter(|(k, _)| !k.starts_with("COMPUTER_SH_"))
            .map(|(k, v)| (k, Var::scalar(v, true)))
            .collect();
        let cwd = vars
            .get("PWD")
            .and_then(|v| match &v.value {
                Value::Scalar(s) => Some(s.clone()),
                _ => None,
            })
            .filter(|p| p.starts_with('/'))
            .unwrap_or_else(|| "/workspace".into());
        let mut set_default = |k: &str, v: &str, exported: bool| {
            vars.entry(k.to_string())
                .or_insert(Var::scalar(v, exported));
        };
        set_default("HOME", "/home/user", true);
        set_default("PATH", "/usr/bin:/bin", true);
        set_default("USER", "user", true);
        set_default("HOSTNAME", "computer", false);
        set_default("SHLVL", "1", true);
        set_default("IFS", " \t\n", false);
        set_default("PS1", "\\u@\\h:\\w\\$ ", false);
        set_default("PS2", "> ", false);
        set_default("PS4", "+ ", false);
        set_default("OPTIND", "1", false);
        set_default("OPTERR", "1", false);
        set_default("HOSTTYPE", "wasm32", false);
        set_default("OSTYPE", "wasi", false);
        set_default("MACHTYPE", "wasm32-unknown-wasi", false);
        set_default("SHELL", "/bin/bash", false);
        // Scripts test this to know they run in bash; ours follows bash 5.2.
        set_default("BASH_VERSION", "5.2.15(1)-release", false);
        // Who the shell runs as (`id`'s user), whatever the environment says, read-only
        // integers as in bash: scripts test `$EUID` before they do anything.
        for (name, value) in [("UID", "1000"), ("EUID", "1000"), ("PPID", "0")] {
            let mut var = Var::scalar(value, false);
            (var.attrs.readonly, var.attrs.integer) = (true, true);
            vars.insert(name.into(), var);
        }
        // `${BASH_VERSINFO[0]}` is what scripts compare to require bash 4 or 5.
        let mut versinfo = Var {
            value: Value::Array(
                ["5", "2", "15", "1", "release", "wasm32-unknown-wasi"]
                    .into_iter()
                    .enumerate()
                    .map(|(i, v)| (i as i64, v.to_string()))
                    .collect(),
            ),
            attrs: Default::default(),
        };
        versinfo.attrs.readonly = true;
        vars.insert("BASH_VERSINFO".into(), versinfo);
        vars.insert(
            "GROUPS".into(),
            Var {
                value: Value::Array([(0, "1000".to_string())].into_iter().collect()),
                attrs: Default::default(),
            },
        );
        vars.insert("PWD".into(), Var::scalar(cwd.clone(), true));
        Shell {
            vars,
            functions: HashMap::new(),
            commands,
            name,
            origin: Origin::File,
            positional,
            cwd,
            status: 0,
            pipestatus: vec![0],
            options: Options::default(),
            shopt: Shopt::default(),
            limits: Limits::from_env(),
            commands_run: Default::default(),
            traps: HashMap::new(),
            parent_traps: None,
            bash_command: String::new(),
            traps_hidden: 0,
            return_traps_set: 0,
            aliases: Default::default(),
            completions: Default::default(),
            alias_changes: HashMap::new(),
            source: 0,
            sources: 0,
            script_input: None,
            dir_stack: Vec::new(),
            umask: 0o022,
            history: Vec::new(),
            jobs: Vec::new(),
            last_job: None,
            in_trap: false,
            subshell: false,
            deadline: None,
            exited: false,
            getopts_index: (1, 1),
            word_cache: Default::default(),
            parser: brush_parser::ParserOptions::default(),
            loop_depth: 0,
            call_depth: 0,
            locals: Vec::new(),
            local_options: Vec::new(),
            substitution_depth: 0,
            funcname: Vec::new(),
            call_lines: Vec::new(),
            function_files: HashMap::new(),
            function_line_bases: HashMap::new(),
            files: Vec::new(),
            started: std::time::Instant::now(),
            random_state: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.subsec_nanos() | 1)
                .unwrap_or(1),
        }
    }

    /// `local NAME`: remembers the outer value, to be restored when the function returns.
    /// Outside a function it is an ordinary variable (bash refuses; we are lenient).
    pub fn make_local(&mut self, name: &str) {
        let outer = self.vars.get(name).cloned();
        if let Some(frame) = self.locals.last_mut()
            && !frame.iter().any(|(n, _)| n == name)
        {
            frame.push((name.to_string(), outer));
            // The local starts unset, keeping only the export flag (as bash's do).
            let exported = self.vars.get(name).is_some_and(|v| v.attrs.exported);
            let mut var = Var::default();
            var.attrs.exported = exported;
            self.vars.insert(name.to_string(), var);
        }
    }

    /// `local -`: the running function's `set` options come back when it returns.
    pub fn make_options_local(&mut self) {
        let depth = self.locals.len();
        if depth > 0 && self.local_options.last().is_none_or(|(d, _)| *d != depth) {
            self.local_options.push((depth, self.options.clone()));
        }
    }

    /// Enters a function call.
    pub fn push_locals(&mut self) {
        self.locals.push(Vec::new());
    }

    /// Leaves a function call, restoring what its `local`s hid.
    pub fn pop_locals(&mut self) {
        if let Some((depth, _)) = self.local_options.last()
            && *depth == self.locals.len()
            && let Some((_, options)) = self.local_options.pop()
        {
            self.options = options;
        }
        for (name, outer) in self.locals.pop().unwrap_or_default().into_iter().rev() {
            match outer {
                Some(v) => {
                    self.vars.insert(name, v);
                }
                None => {
                    self.vars.remove(&name);
                }
            }
        }
    }

    /// The environment passed to commands.
    pub fn environment(&self) -> Vec<(String, String)> {
        let mut env: Vec<(String, String)> = self
            .vars
            .iter()
            .filter(|(_, v)| v.attrs.exported)
            .filter_map(|(k, v)| match &v.value {
                Value::Scalar(s) => Some((k.clone(), s.clone())),
                _ => None,
            })
            .collect();
        env.sort();
        env
    }

    /// An absolute path for `path` (relative paths start at the shell's cwd).
    pub fn path(&self, path: &str) -> std::path::PathBuf {
        std::path::Path::new(&self.cwd).join(path)
    }

    /// `$RANDOM`: 0 to 32767 (xorshift; not for cryptography, like bash's).
    pub fn random(&mut self) -> u32 {
        let mut x = self.random_state;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.random_state = x;
        x % 32768
    }

    /// `$IFS`.
    pub fn ifs(&self) -> String {
        self.get("IFS").unwrap_or(" \t\n").to_string()
    }

    /// What joins the values of `$*`: IFS's first character (nothing when IFS is empty).
    pub fn ifs_joint(&self) -> String {
        self.get("IFS")
            .unwrap_or(" ")
            .chars()
            .next()
            .map(String::from)
            .unwrap_or_default()
    }
}

impl Var {
    /// A set scalar.
    pub fn scalar(value: impl Into<String>, exported: bool) -> Var {
        Var {
            value: Value::Scalar(value.into()),
            attrs: Attrs {
                exported,
                ..Attrs::default()
            },
        }
    }
}
