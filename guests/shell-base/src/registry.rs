//! [`Registry`]: every command the shell has besides its builtins, by name, each with its
//! usage and one line of help. One list (the utilities crate's `UTILITIES`, plus commands the
//! host provides at run time) gives lookup, `NAME --help`, `help`, `type`, `which` and what
//! `/usr/bin` lists.

use std::borrow::Cow;

use crate::context::Context;
use crate::runtime::Task;

/// A utility: runs with the shell's streams, returns its status.
pub type CommandFn = for<'a> fn(&'a mut dyn Context, &'a [String]) -> Task<'a, i32>;

/// Who runs a command.
#[derive(Clone, Copy)]
pub enum Run {
    /// A utility, through [`Context`].
    Native(CommandFn),
    /// The interpreter itself (`sh`, `bash`, `env`: they need its state, not a context).
    Interpreter,
    /// The host, through its `exec` import (a runtime it provides, such as an interpreter).
    Host,
}

/// One command.
#[derive(Clone)]
pub struct Utility {
    pub name: Cow<'static, str>,
    /// Other names it answers to, with the same usage and help.
    pub aliases: &'static [&'static str],
    pub run: Run,
    /// The synopsis (`cat [-nbsAETv] [FILE]...`).
    pub usage: Cow<'static, str>,
    /// What it does, in one line without a final period.
    pub about: Cow<'static, str>,
}

impl Utility {
    /// A built-in utility.
    pub const fn new(
        name: &'static str,
        run: Run,
        usage: &'static str,
        about: &'static str,
    ) -> Utility {
        Utility {
            name: Cow::Borrowed(name),
            aliases: &[],
            run,
            usage: Cow::Borrowed(usage),
            about: Cow::Borrowed(about),
        }
    }

    /// The same utility, answering to `aliases` too.
    pub const fn aliases(mut self, aliases: &'static [&'static str]) -> Utility {
        self.aliases = aliases;
        self
    }

    /// What `NAME --help` prints.
    pub fn help(&self) -> String {
        format!(
            "Usage: {}\n{}.\n\nBuilt into computer's shell: the options behave as the real tool's of \
             the same name (GNU's where there is one); `help` lists every command.\n",
            self.usage, self.about
        )
    }
}

/// Every command by name.
#[derive(Clone)]
pub struct Registry {
    entries: Vec<Utility>,
    /// Every name and alias with its entry, sorted by name.
    index: Vec<(Cow<'static, str>, usize)>,
}

impl Registry {
    /// The built-in utilities.
    pub fn new(utilities: &[Utility]) -> Registry {
        let mut registry = Registry {
            entries: Vec::new(),
            index: Vec::new(),
        };
        for u in utilities {
            registry.add(u.clone());
        }
        registry
    }

    /// Adds a command (one the host provides, known only at run time); it replaces any of the
    /// same name.
    pub fn add(&mut self, utility: Utility) {
        let i = self.entries.len();
        let names = std::iter::once(utility.name.clone())
            .chain(utility.aliases.iter().map(|a| Cow::Borrowed(*a)));
        for name in names {
            match self.index.binary_search_by(|(n, _)| n.as_ref().cmp(&name)) {
                Ok(at) => self.index[at].1 = i,
                Err(at) => self.index.insert(at, (name, i)),
            }
        }
        self.entries.push(utility);
    }

    /// The command called `name`.
    pub fn find(&self, name: &str) -> Option<&Utility> {
        let at = self
            .index
            .binary_search_by(|(n, _)| n.as_ref().cmp(name))
            .ok()?;
        Some(&self.entries[self.index[at].1])
    }

    /// Every name (aliases included), sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.index.iter().map(|(n, _)| n.as_ref())
    }

    /// What `NAME --help` prints for `name`.
    pub fn help(&self, name: &str) -> String {
        match self.find(name) {
            Some(u) => u.help(),
            None => format!("Usage: {name} [OPTION]... [ARG]...\nBuilt into computer's shell.\n"),
        }
    }
}

/// Commands whose `--help` is their own text, as the tool prints it.
const OWN_HELP: &[&str] = &["jq"];

/// Whether `argv` asks for the registry's help (`NAME --help`).
pub fn asks_help(argv: &[String]) -> bool {
    argv.len() == 2 && argv[1] == "--help" && !OWN_HELP.contains(&argv[0].as_str())
}

/// The directories whose entries stand for the built-in commands.
const STANDARD_DIRS: &[&str] = &["/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin"];

/// Builtins that are programs too on a GNU system, so `/usr/bin` lists them.
const PROGRAM_BUILTINS: &[&str] = &[
    "[", "echo", "false", "kill", "printf", "pwd", "test", "true",
];

impl Registry {
    /// For `/bin/NAME`, `/usr/bin/NAME` and the like: NAME, when it is one of these commands
    /// or a builtin (`is_builtin` says which).
    pub fn standard_path<'p>(
        &self,
        path: &'p str,
        is_builtin: impl Fn(&str) -> bool,
    ) -> Option<&'p str> {
        standard_path(path, |n| self.find(n).is_some() || is_builtin(n))
    }

    /// What `/bin` and `/usr/bin` list.
    pub fn standard_names(&self) -> Vec<&str> {
        standard_names(self.names())
    }
}

/// For `/bin/NAME`, `/usr/bin/NAME` (and the `sbin` and `local` ones): NAME, when the shell
/// has it built in (`known`). Scripts run `/usr/bin/env` and `/bin/echo` and test
/// `[ -x /bin/sh ]`; those paths hold nothing in a workspace, so they stand for the built-in
/// commands.
pub fn standard_path(path: &str, known: impl Fn(&str) -> bool) -> Option<&str> {
    let name = [
        "/usr/local/bin/",
        "/usr/bin/",
        "/bin/",
        "/usr/sbin/",
        "/sbin/",
    ]
    .iter()
    .find_map(|dir| path.strip_prefix(dir))?;
    (known(name) && !name.contains('/')).then_some(name)
}

/// The names `/bin` and `/usr/bin` list: every command (`commands`), and the builtins that
/// are programs too on a GNU system.
pub fn standard_names<'n>(commands: impl Iterator<Item = &'n str>) -> Vec<&'n str> {
    let mut names: Vec<&str> = commands.chain(PROGRAM_BUILTINS.iter().copied()).collect();
    names.sort_unstable();
    names.dedup();
    names
}

/// Whether `path` (absolute, when the workspace has nothing there) is `/bin` or `/usr/bin`:
/// a directory that lists the built-in commands.
pub fn is_standard_dir(path: &str) -> bool {
    let trimmed = path.trim_end_matches('/');
    STANDARD_DIRS.contains(&trimmed)
}

/// What reading `/usr/bin/NAME` gives: a note that NAME is built in.
pub fn standard_file_text(name: &str) -> String {
    format!("#!/bin/sh\n# {name}: built into computer's shell (`help` lists every command).\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nothing<'a>(_: &'a mut dyn Context, _: &'a [String]) -> Task<'a, i32> {
        Box::pin(async { 0 })
    }

    const LIST: &[Utility] = &[
        Utility::new(
            "grep",
            Run::Native(nothing),
            "grep PATTERN",
            "print lines that match",
        )
        .aliases(&["egrep"]),
        Utility::new(
            "cat",
            Run::Native(nothing),
            "cat [FILE]...",
            "concatenate files",
        ),
    ];

    #[test]
    fn names_and_aliases_are_found_and_listed_in_order() {
        let mut r = Registry::new(LIST);
        assert_eq!(r.find("egrep").map(|u| u.name.as_ref()), Some("grep"));
        assert!(r.find("sort").is_none());
        assert_eq!(r.names().collect::<Vec<_>>(), ["cat", "egrep", "grep"]);
        r.add(Utility {
            name: Cow::Owned("python3".into()),
            aliases: &["python"],
            run: Run::Host,
            usage: Cow::Owned("python3 [FILE]".into()),
            about: Cow::Owned("the host's Python".into()),
        });
        assert!(matches!(r.find("python").map(|u| u.run), Some(Run::Host)));
        assert!(
            r.help("python3")
                .starts_with("Usage: python3 [FILE]\nthe host's Python.\n")
        );
        assert!(r.help("nope").starts_with("Usage: nope [OPTION]..."));
    }

    #[test]
    fn standard_paths_stand_for_commands_and_builtins_only() {
        let r = Registry::new(LIST);
        let builtin = |n: &str| n == "echo";
        assert_eq!(r.standard_path("/usr/bin/cat", builtin), Some("cat"));
        assert_eq!(r.standard_path("/bin/echo", builtin), Some("echo"));
        assert_eq!(r.standard_path("/bin/nope", builtin), None);
        assert_eq!(r.standard_path("/usr/bin/x/cat", builtin), None);
        assert!(is_standard_dir("/usr/bin/"));
        assert!(r.standard_names().contains(&"["));
    }
}
