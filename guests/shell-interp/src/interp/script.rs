//! Running a file named by its path, as the kernel's `execve` and bash do: a text file that
//! starts with `#!` runs its interpreter (`#!/usr/bin/env python3`, `#!/bin/sh -e`), an
//! executable text file without one runs as a bash script, and what cannot run fails with
//! bash's messages and status 126. A WebAssembly binary, or a path the workspace does not
//! hold, is the host's to run.

use crate::interp::Interp;

/// How much of a file the `#!` line is read from (Linux's `BINPRM_BUF_SIZE`).
const HEAD: usize = 256;

/// How many scripts deep a script's interpreter may be (Linux gives up past that with
/// `ELOOP`: `./s4` whose `#!` names `./s3`... down to `./s0` runs; `./s5` does not).
const MAX_DEPTH: usize = 4;

/// What running a path comes to.
#[derive(Debug, PartialEq)]
pub(crate) enum PathCommand {
    /// The host decides: a WebAssembly component, a binary, or nothing there.
    Host,
    /// It cannot run: bash's message (after `PATH: `) and status 126.
    Refused(String),
    /// Its interpreter is a script too many levels deep (the interpreter named): status 126.
    TooDeep(String),
    /// A script: the command line that runs it (its interpreter first, the script's path and
    /// arguments after).
    Script(Vec<String>),
}

/// What the first bytes of a file say it is.
#[derive(Debug, PartialEq)]
enum Kind {
    /// `#!INTERPRETER [ARG]`.
    Shebang(String, Option<String>),
    /// Machine code or a WebAssembly binary: not the shell's to run.
    Binary,
    /// A NUL byte on its first line: bash will not run it as a script.
    Data,
    /// Text without `#!`: a bash script.
    Text,
}

/// Reads a file's head as `execve` and then bash do.
fn file_kind(head: &[u8]) -> Kind {
    if let Some(line) = head.strip_prefix(b"#!") {
        let end = line.iter().position(|&b| b == b'\n').unwrap_or(line.len());
        let line = String::from_utf8_lossy(&line[..end]);
        // Only blanks separate: a `\r` (a script saved with CRLF) is part of the name, and
        // the interpreter is then not found, as on Linux.
        let line = line.trim_matches([' ', '\t']);
        let (interp, arg) = match line.find([' ', '\t']) {
            Some(i) => (&line[..i], Some(line[i..].trim_matches([' ', '\t']))),
            None => (line, None),
        };
        let arg = arg.filter(|a| !a.is_empty()).map(str::to_string);
        return Kind::Shebang(interp.to_string(), arg);
    }
    if head.starts_with(b"\0asm") || head.starts_with(b"\x7fELF") {
        return Kind::Binary;
    }
    // bash's check_binary_file: a NUL before the first newline in the first 80 bytes.
    let sample = &head[..head.len().min(80)];
    let first_line = sample.split(|&b| b == b'\n').next().unwrap_or_default();
    if first_line.contains(&0) {
        Kind::Data
    } else {
        Kind::Text
    }
}

impl Interp<'_> {
    /// What running `argv` comes to when `argv[0]` is a path.
    pub(crate) fn path_command(&self, argv: &[String]) -> PathCommand {
        // Only an interpreter can be too deep, and the first level names it.
        self.path_command_at(argv, 0)
            .unwrap_or_else(|| PathCommand::TooDeep(argv[0].clone()))
    }

    /// `depth`: how many scripts have named this one as their interpreter; `None` past
    /// [`MAX_DEPTH`].
    fn path_command_at(&self, argv: &[String], depth: usize) -> Option<PathCommand> {
        use PathCommand::{Host, Refused, Script};
        let path = self.shell.path(&argv[0]);
        let Ok(meta) = std::fs::metadata(&path) else {
            return Some(Host);
        };
        if meta.is_dir() {
            return Some(Refused("Is a directory".into()));
        }
        // `execve` runs regular files only (a FIFO is not opened, so it cannot block here).
        if !meta.is_file() {
            return Some(Refused("Permission denied".into()));
        }
        let head = match read_head(&path) {
            Ok(head) => head,
            Err(e) => return Some(Refused(shell_base::errno::io_message(&e))),
        };
        let kind = file_kind(&head);
        if kind == Kind::Binary {
            return Some(Host);
        }
        let executable = shell_base::host::current()
            .stat(&path.to_string_lossy(), true)
            .is_ok_and(|st| st.mode & 0o111 != 0);
        if !executable {
            return Some(Refused("Permission denied".into()));
        }
        if depth > MAX_DEPTH {
            return None;
        }
        let mut line = match kind {
            // `#!` alone: `execve` fails with ENOEXEC, and bash runs it as a script.
            Kind::Shebang(interp, _) if interp.is_empty() => vec!["bash".to_string()],
            Kind::Shebang(interp, arg) => {
                let mut line = vec![interp];
                line.extend(arg);
                line
            }
            Kind::Data => {
                return Some(Refused(
                    "cannot execute binary file: Exec format error".into(),
                ));
            }
            Kind::Text | Kind::Binary => vec!["bash".to_string()],
        };
        line.extend(argv.iter().cloned());
        // The interpreter may be a script itself; one the workspace does not hold (`/bin/sh`)
        // or a binary is the host's.
        if !line[0].contains('/') {
            return Some(Script(line));
        }
        match self.path_command_at(&line, depth + 1) {
            Some(Host) => Some(Script(line)),
            // bash names the script's own interpreter.
            None if depth == 0 => Some(PathCommand::TooDeep(line[0].clone())),
            other => other,
        }
    }
}

fn read_head(path: &std::path::Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut head = Vec::with_capacity(HEAD);
    std::fs::File::open(path)?
        .take(HEAD as u64)
        .read_to_end(&mut head)?;
    Ok(head)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shebang_lines_name_an_interpreter_and_one_argument() {
        let kind = |s: &str| file_kind(s.as_bytes());
        assert_eq!(
            kind("#!/usr/bin/env python3\nprint(1)\n"),
            Kind::Shebang("/usr/bin/env".into(), Some("python3".into()))
        );
        assert_eq!(
            kind("#! /bin/sh -e -x \n"),
            Kind::Shebang("/bin/sh".into(), Some("-e -x".into()))
        );
        assert_eq!(
            kind("#!/bin/bash\r\n"),
            Kind::Shebang("/bin/bash\r".into(), None)
        );
        assert_eq!(kind("#!/bin/bash"), Kind::Shebang("/bin/bash".into(), None));
        assert_eq!(kind("echo hi\n"), Kind::Text);
        assert_eq!(kind("ab\0c\n"), Kind::Data);
        assert_eq!(kind("ab\nc\0\n"), Kind::Text);
        assert_eq!(file_kind(b"\0asm\x01\0\0\0"), Kind::Binary);
        assert_eq!(file_kind(b"\x7fELF\x02"), Kind::Binary);
    }
}
