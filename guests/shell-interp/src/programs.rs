//! The programs that need the interpreter itself, not just a [`shell_base::Context`]: `sh`
//! and `bash` (a child shell) and `env` (a command in a changed environment). The registry
//! of utilities lists them (`Run::Interpreter`); the interpreter runs them from [`ALL`].

mod env;
mod sh;

use crate::interp::Program;

/// Every program, by the name the registry gives it.
pub const ALL: &[Program] = &[
    Program {
        name: "sh",
        run: |interp, argv| Box::pin(sh::sh(interp, argv)),
    },
    Program {
        name: "bash",
        run: |interp, argv| Box::pin(sh::sh(interp, argv)),
    },
    Program {
        name: "env",
        run: |interp, argv| Box::pin(env::env(interp, argv)),
    },
];
