//! Sessions: the shell's state carried from one exec to the next. With
//! `COMPUTER_SH_SESSION=PATH`, the shell sources PATH before the script (then applies this
//! exec's own environment on top) and, when it ends, writes its variables, functions,
//! aliases, options and cwd there as a script.

use crate::interp::Interp;
use crate::vars::Value;

/// Variables that belong to one run, not to the session.
const NOT_SAVED: &[&str] = &[
    "PWD",
    "OLDPWD",
    "SHLVL",
    "_",
    "PIPESTATUS",
    "FUNCNAME",
    "BASH_SOURCE",
    "BASH_LINENO",
    "UID",
    "EUID",
    "PPID",
    "GROUPS",
    "BASH_REMATCH",
];

/// The last line of the state when the script ended the shell (`exit`, `set -e`).
const EXITED: &str = "# computer: the shell exited\n";

/// The state file of this run's session, if any.
pub fn state_file() -> Option<String> {
    std::env::var("COMPUTER_SH_SESSION")
        .ok()
        .filter(|p| p.starts_with('/'))
}

impl Interp<'_> {
    /// Restores a session's state (nothing when the file does not exist yet).
    pub async fn restore_session(&mut self, path: &str) {
        let Ok(script) = std::fs::read_to_string(path) else {
            return;
        };
        let _ = self.run_source(&script).await;
        // This exec's environment wins over what the session remembered.
        for (k, v) in std::env::vars().filter(|(k, _)| !k.starts_with("COMPUTER_SH_") && k != "PWD")
        {
            self.shell.set(&k, v);
            if let Some(var) = self.shell.vars.get_mut(&k) {
                var.attrs.exported = true;
            }
        }
        self.shell.status = 0;
    }

    /// Writes the state for the next exec of the session.
    pub fn save_session(&self, path: &str) -> std::io::Result<()> {
        let mut out = String::new();
        let mut names: Vec<&String> = self.shell.vars.keys().collect();
        names.sort();
        for name in names {
            let var = &self.shell.vars[name];
            if NOT_SAVED.contains(&name.as_str())
                || matches!(var.value, Value::Unset) && !var.attrs.exported
            {
                continue;
            }
            if let Some(line) = self.shell.declaration(name) {
                // `declare -g` keeps them global however the file is sourced.
                let line = match line.strip_prefix("declare -- ") {
                    Some(rest) => format!("declare -g {rest}"),
                    None => line.replacen("declare -", "declare -g", 1),
                };
                out.push_str(&line);
                out.push('\n');
            }
        }
        let mut functions: Vec<&String> = self.shell.functions.keys().collect();
        functions.sort();
        for f in functions {
            out.push_str(&crate::unparse::function(f, &self.shell.functions[f]));
        }
        for (k, v) in &self.shell.aliases {
            out.push_str(&format!("alias {k}={}\n", crate::quote::single(v, true)));
        }
        for (name, on) in self.shell.options.listed() {
            if on && !matches!(name, "braceexpand" | "hashall" | "interactive-comments") {
                out.push_str(&format!("set -o {name}\n"));
            }
        }
        for (name, on) in self.shell.shopt.all() {
            if on {
                out.push_str(&format!("shopt -s {name}\n"));
            }
        }
        out.push_str(&format!(
            "cd -- {}\n",
            crate::quote::single(&self.shell.cwd, true)
        ));
        if self.shell.exited {
            out.push_str(EXITED);
        }
        if let Some(dir) = std::path::Path::new(path).parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::write(path, out)
    }
}
