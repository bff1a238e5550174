//! A [`Context`] over the machine's own files, for the utilities' unit tests: a temporary
//! working directory, stdin from bytes, stdout and stderr captured, and the registry's own
//! utilities as the only commands (`xargs` and `find -exec` run them).

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::Instant;

use shell_base::io::{Input, Io, Output};
use shell_base::runtime::{Task, block_on};
use shell_base::{Context, Registry, Run};

/// A utility's run: its status and what it wrote.
#[derive(Debug)]
pub struct Ran {
    pub status: i32,
    pub stdout: String,
    pub stderr: String,
}

/// A context rooted in a fresh temporary directory.
pub struct Native {
    dir: tempfile::TempDir,
    cwd: String,
    io: Io,
    stdout: Rc<RefCell<Vec<u8>>>,
    stderr: Rc<RefCell<Vec<u8>>>,
    vars: BTreeMap<String, String>,
    commands: Registry,
    deadline: Option<Instant>,
}

impl Native {
    pub fn new() -> Native {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let cwd = dir.path().to_string_lossy().into_owned();
        let stdout = Rc::new(RefCell::new(Vec::new()));
        let stderr = Rc::new(RefCell::new(Vec::new()));
        Native {
            dir,
            cwd,
            io: Io {
                stdin: Input::Null,
                stdout: Output::Capture(Rc::clone(&stdout)),
                stderr: Output::Capture(Rc::clone(&stderr)),
                extra: Vec::new(),
            },
            stdout,
            stderr,
            vars: BTreeMap::from([("USER".into(), "user".into())]),
            commands: Registry::new(crate::UTILITIES),
            deadline: None,
        }
    }

    /// Sends stdout to `out` instead of the capture.
    pub fn set_stdout(&mut self, out: Output) {
        self.io.stdout = out;
    }

    /// The working directory.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// Writes `text` to `name` under the working directory (making its parents).
    pub fn write(&self, name: &str, text: &str) -> &Native {
        let path = self.dir.path().join(name);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
        self
    }

    /// What `name` under the working directory holds.
    pub fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.dir.path().join(name)).expect("read")
    }

    /// Runs `argv` (the utility `argv[0]`, as the shell would) with `stdin`.
    pub fn run(&mut self, argv: &[&str], stdin: &str) -> Ran {
        self.io.stdin = Input::bytes(stdin.as_bytes().to_vec());
        self.stdout.borrow_mut().clear();
        self.stderr.borrow_mut().clear();
        let argv: Vec<String> = argv.iter().map(|a| a.to_string()).collect();
        let status = block_on(Context::run(self, argv));
        Ran {
            status,
            stdout: String::from_utf8_lossy(&self.stdout.borrow()).into_owned(),
            stderr: String::from_utf8_lossy(&self.stderr.borrow()).into_owned(),
        }
    }
}

/// Runs `argv` with `stdin` in a fresh context; what it printed on stdout (it must succeed).
pub fn stdout_of(argv: &[&str], stdin: &str) -> String {
    let ran = Native::new().run(argv, stdin);
    assert_eq!(ran.status, 0, "{argv:?} failed: {}", ran.stderr);
    ran.stdout
}

impl Context for Native {
    fn io(&self) -> &Io {
        &self.io
    }

    fn path(&self, path: &str) -> PathBuf {
        Path::new(&self.cwd).join(path)
    }

    fn cwd(&self) -> &str {
        &self.cwd
    }

    fn var(&self, name: &str) -> Option<&str> {
        self.vars.get(name).map(String::as_str)
    }

    fn environment(&self) -> Vec<(String, String)> {
        self.vars
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }

    fn umask(&self) -> u32 {
        0o022
    }

    fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.deadline = deadline;
    }

    fn random(&mut self) -> u32 {
        4
    }

    fn has_command(&self, name: &str) -> bool {
        self.commands.find(name).is_some()
    }

    fn command_names(&self) -> Vec<&str> {
        self.commands.names().collect()
    }

    fn is_builtin(&self, _: &str) -> bool {
        false
    }

    fn run<'a>(&'a mut self, argv: Vec<String>) -> Task<'a, i32> {
        Box::pin(async move {
            let run = self.commands.find(&argv[0]).map(|u| u.run);
            match run {
                Some(Run::Native(run)) => run(self, &argv).await,
                _ => {
                    let message = format!("{}: command not found\n", argv[0]);
                    let _ = self.io.stderr.write_all(message.as_bytes()).await;
                    127
                }
            }
        })
    }

    fn run_script<'a>(&'a mut self, _: &'a str, _: Io) -> Task<'a, i32> {
        Box::pin(async { 127 })
    }

    fn run_on_host<'a>(&'a mut self, argv: Vec<String>) -> Task<'a, i32> {
        Box::pin(async move {
            let message = format!("{}: command not found\n", argv[0]);
            let _ = self.io.stderr.write_all(message.as_bytes()).await;
            127
        })
    }
}
