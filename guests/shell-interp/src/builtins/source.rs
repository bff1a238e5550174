//! `source` and `.`: run a file's commands in the current shell.

use crate::interp::Builtin;
use crate::interp::Interp;
use crate::state::Flow;

/// `source FILE [ARGS...]` / `. FILE [ARGS...]`.
pub async fn source(sh: &mut Interp<'_>, cmd: &str, args: &[String]) -> Result<(), Flow> {
    let Some(file) = args.first() else {
        sh.error(&format!("{cmd}: filename argument required"))
            .await;
        sh.error(&format!("{cmd}: usage: {cmd} filename [arguments]"))
            .await;
        sh.shell.status = 2;
        return Ok(());
    };
    let path = if file.contains('/') {
        sh.shell.path(file)
    } else {
        let in_path = sh
            .shell
            .get("PATH")
            .unwrap_or_default()
            .split(':')
            .filter(|d| !d.is_empty())
            .map(|d| std::path::Path::new(d).join(file))
            .find(|p| p.is_file());
        in_path.unwrap_or_else(|| sh.shell.path(file))
    };
    let text = match std::fs::read(&path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => {
            sh.error(&format!("{file}: {}", shell_base::errno::io_message(&e)))
                .await;
            sh.shell.status = 1;
            return Ok(());
        }
    };
    let saved_args = if args.len() > 1 {
        Some(std::mem::replace(
            &mut sh.shell.positional,
            args[1..].to_vec(),
        ))
    } else {
        None
    };
    let line = sh.line;
    sh.sourcing += 1;
    sh.shell.files.push((file.clone(), line));
    // A sourced file counts its own lines, even when `eval` sources it.
    let base = std::mem::take(&mut sh.line_base);
    let mut flow = sh.run_source(&text).await;
    sh.line_base = base;
    sh.shell.files.pop();
    if flow != Some(Flow::Exit)
        && let Err(f) = sh.run_return_trap().await
    {
        flow = Some(f);
    }
    sh.sourcing -= 1;
    sh.line = line;
    if let Some(a) = saved_args {
        sh.shell.positional = a;
    }
    match flow {
        Some(Flow::Return) | None => Ok(()),
        Some(f) => Err(f),
    }
}

/// `.`'s registration.
pub const DOT: Builtin = Builtin {
    name: ".",
    run: flow!(source, "."),
    usage: "file [arguments]",
    about: "Execute commands from a file in the current shell",
    special: true,
    declaration: None,
};

/// `source`'s registration.
pub const SOURCE: Builtin = Builtin {
    name: "source",
    run: flow!(source, "source"),
    usage: "filename [arguments]",
    about: "Execute commands from a file in the current shell",
    special: false,
    declaration: None,
};
