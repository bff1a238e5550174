//! Shell builtins: the commands that act on the shell itself or are too basic to be external.

use crate::exec::Interp;
use crate::state::Flow;

const BUILTINS: &[&str] = &[
    ":", "true", "false", "echo", "printf", "cd", "pwd", "export", "unset", "exit", "return",
    "break", "continue", "shift", "set", "local", "test", "[", "eval", "read", "declare",
    "typeset", "let", "command", "type",
];

/// Whether `name` is a builtin.
pub fn is_builtin(name: &str) -> bool {
    BUILTINS.contains(&name)
}

/// Runs a builtin; sets `$?`.
pub async fn run(sh: &mut Interp<'_>, argv: &[String]) -> Result<(), Flow> {
    let args = &argv[1..];
    let status = match argv[0].as_str() {
        ":" | "true" => 0,
        "false" => 1,
        "echo" => echo(sh, args).await,
        "printf" => printf(sh, args).await,
        "pwd" => out(sh, &format!("{}\n", sh.shell.cwd)).await,
        "cd" => cd(sh, args).await,
        "export" | "local" => {
            for a in args.iter().filter(|a| !a.starts_with('-')) {
                let (name, value) = match a.split_once('=') {
                    Some((n, v)) => (n, Some(v.to_string())),
                    None => (a.as_str(), None),
                };
                if argv[0] == "local" {
                    sh.shell.make_local(name);
                    if value.is_none() {
                        sh.shell.vars.remove(name);
                    }
                }
                if let Some(v) = value {
                    sh.shell.set(name, v);
                } else if sh.shell.get(name).is_none() && argv[0] == "local" {
                    sh.shell.set(name, "");
                }
                if argv[0] == "export"
                    && let Some(var) = sh.shell.vars.get_mut(name)
                {
                    var.exported = true;
                }
            }
            0
        }
        "unset" => {
            for a in args.iter().filter(|a| !a.starts_with('-')) {
                sh.shell.vars.remove(a.as_str());
                if args.iter().any(|a| a == "-f") {
                    sh.shell.functions.remove(a.as_str());
                }
            }
            0
        }
        "exit" => {
            sh.shell.status = args
                .first()
                .and_then(|a| a.parse::<i32>().ok())
                .map(|s| s & 255)
                .unwrap_or(sh.shell.status);
            return Err(Flow::Exit);
        }
        "return" => {
            sh.shell.status = args
                .first()
                .and_then(|a| a.parse::<i32>().ok())
                .map(|s| s & 255)
                .unwrap_or(sh.shell.status);
            return Err(Flow::Return);
        }
        "break" | "continue" => {
            let n = args
                .first()
                .and_then(|a| a.parse::<u32>().ok())
                .unwrap_or(1)
                .max(1);
            if sh.shell.loop_depth == 0 {
                sh.error(&format!(
                    "{}: only meaningful in a `for', `while', or `until' loop",
                    argv[0]
                ))
                .await;
                0
            } else {
                sh.shell.status = 0;
                let n = n.min(sh.shell.loop_depth);
                return Err(if argv[0] == "break" {
                    Flow::Break(n)
                } else {
                    Flow::Continue(n)
                });
            }
        }
        "shift" => {
            let n = args
                .first()
                .and_then(|a| a.parse::<usize>().ok())
                .unwrap_or(1);
            if n > sh.shell.positional.len() {
                1
            } else {
                sh.shell.positional.drain(..n);
                0
            }
        }
        "set" => set(sh, args),
        "test" => test(sh, args, false).await,
        "[" => test(sh, args, true).await,
        "eval" => {
            let src = args.join(" ");
            return match sh.run_source(&src).await {
                Some(f) => Err(f),
                None => Ok(()),
            };
        }
        "read" => read(sh, args).await,
        "declare" | "typeset" => declare(sh, args).await,
        "let" => {
            let mut last = 0;
            for a in args {
                match sh.arith_text(a).await {
                    Ok(v) => last = v,
                    Err(e) => {
                        sh.error(&format!("let: {}", e.0)).await;
                        sh.shell.status = 1;
                        return Ok(());
                    }
                }
            }
            (last == 0) as i32
        }
        "type" => type_of(sh, args).await,
        "command" => match args.first().map(String::as_str) {
            Some("-v") | Some("-V") => {
                let verbose = args[0] == "-V";
                let mut status = 0;
                for name in &args[1..] {
                    match kind_of(sh, name) {
                        Some(kind) if verbose => {
                            status |= out(sh, &describe(name, kind)).await;
                        }
                        Some(_) => status |= out(sh, &format!("{name}\n")).await,
                        None => status = 1,
                    }
                }
                status
            }
            // `command NAME ARGS`: run it skipping functions.
            Some(_) => {
                let rest = args.to_vec();
                if is_builtin(&rest[0]) {
                    return Box::pin(run(sh, &rest)).await;
                }
                sh.shell.status = match crate::commands::find(&rest[0]) {
                    Some(cmd) => cmd(sh, &rest).await,
                    None => {
                        sh.error(&format!("{}: command not found", rest[0])).await;
                        127
                    }
                };
                return Ok(());
            }
            None => 0,
        },
        _ => 127,
    };
    sh.shell.status = status;
    Ok(())
}

/// Writes to stdout; a closed pipe gives 141 (as SIGPIPE would).
pub async fn out(sh: &Interp<'_>, text: &str) -> i32 {
    match sh.io.stdout.write_all(text.as_bytes()).await {
        Ok(()) => 0,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => 141,
        Err(_) => 1,
    }
}

async fn echo(sh: &mut Interp<'_>, args: &[String]) -> i32 {
    let mut newline = true;
    let mut escapes = false;
    let mut i = 0;
    while i < args.len()
        && args[i].len() > 1
        && args[i].starts_with('-')
        && args[i][1..].chars().all(|c| matches!(c, 'n' | 'e' | 'E'))
    {
        for c in args[i][1..].chars() {
            match c {
                'n' => newline = false,
                'e' => escapes = true,
                _ => escapes = false,
            }
        }
        i += 1;
    }
    let mut text = args[i..].join(" ");
    if escapes {
        let (t, stop) = backslash_escapes(&text);
        text = t;
        if stop {
            newline = false;
        }
    }
    if newline {
        text.push('\n');
    }
    out(sh, &text).await
}

/// The escapes `echo -e`, `printf` and `$'...'` share: `\n \t \r \a \b \e \f \v \\`.
pub fn simple_escape(c: char) -> Option<char> {
    Some(match c {
        'n' => '\n',
        't' => '\t',
        'r' => '\r',
        'a' => '\x07',
        'b' => '\x08',
        'e' => '\x1b',
        'f' => '\x0c',
        'v' => '\x0b',
        '\\' => '\\',
        _ => return None,
    })
}

/// `\n`-style escapes of `echo -e` and `printf %b`; true if `\c` stopped the output.
fn backslash_escapes(s: &str) -> (String, bool) {
    let mut out = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some(c) if simple_escape(c).is_some() => out.push(simple_escape(c).unwrap_or(c)),
            Some('c') => return (out, true),
            Some('0') => {
                let mut v = 0u32;
                for _ in 0..3 {
                    match chars.peek().and_then(|c| c.to_digit(8)) {
                        Some(d) => {
                            v = v * 8 + d;
                            chars.next();
                        }
                        None => break,
                    }
                }
                out.push(char::from_u32(v).unwrap_or('\0'));
            }
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    (out, false)
}

/// `printf FORMAT ARGS...`: %s %d %i %x %o %c %b %q %%, widths and `-` flags; the format is
/// reused while arguments remain, as in bash.
async fn printf(sh: &mut Interp<'_>, args: &[String]) -> i32 {
    let Some(format) = args.first() else {
        sh.error("printf: usage: printf format [arguments]").await;
        return 2;
    };
    let mut rest = args[1..].iter();
    let mut text = String::new();
    let mut status = 0;
    loop {
        let mut consumed = false;
        let (fmt, _) = backslash_escapes(format);
        let mut chars = fmt.chars().peekable();
        while let Some(c) = chars.next() {
            if c != '%' {
                text.push(c);
                continue;
            }
            let mut spec = String::new();
            while let Some(&n) = chars.peek() {
                if n.is_ascii_digit() || matches!(n, '-' | '.' | '+' | ' ' | '0' | '#') {
                    spec.push(n);
                    chars.next();
                } else {
                    break;
                }
            }
            let conv = chars.next().unwrap_or('%');
            if conv == '%' {
                text.push('%');
                continue;
            }
            let arg = rest.next();
            consumed |= arg.is_some();
            let arg = arg.cloned().unwrap_or_default();
            let formatted = match conv {
                's' => arg,
                'b' => backslash_escapes(&arg).0,
                'q' => quote(&arg),
                'c' => arg.chars().next().map(String::from).unwrap_or_default(),
                'd' | 'i' | 'x' | 'X' | 'o' | 'u' => {
                    let n = if arg.is_empty() {
                        0
                    } else {
                        match arg.trim().parse::<i64>() {
                            Ok(n) => n,
                            Err(_) => {
                                sh.error(&format!("printf: {arg}: invalid number")).await;
                                status = 1;
                                0
                            }
                        }
                    };
                    match conv {
                        'x' => format!("{n:x}"),
                        'X' => format!("{n:X}"),
                        'o' => format!("{n:o}"),
                        _ => n.to_string(),
                    }
                }
                other => {
                    sh.error(&format!("printf: %{other}: invalid directive"))
                        .await;
                    return 1;
                }
            };
            text.push_str(&pad(&spec, &formatted));
        }
        if !consumed || rest.len() == 0 {
            break;
        }
    }
    match out(sh, &text).await {
        0 => status,
        s => s,
    }
}

fn pad(spec: &str, s: &str) -> String {
    let left = spec.contains('-');
    let (width, precision) = match spec
        .trim_start_matches(['-', '+', ' ', '#'])
        .split_once('.')
    {
        Some((w, p)) => (w.parse::<usize>().unwrap_or(0), p.parse::<usize>().ok()),
        None => (
            spec.trim_start_matches(['-', '+', ' ', '#'])
                .parse::<usize>()
                .unwrap_or(0),
            None,
        ),
    };
    let s: String = match precision {
        Some(p) => s.chars().take(p).collect(),
        None => s.to_string(),
    };
    let fill = width.saturating_sub(s.chars().count());
    let zero = spec.trim_start_matches('-').starts_with('0') && !left && s.parse::<i64>().is_ok();
    if left {
        format!("{s}{}", " ".repeat(fill))
    } else if zero {
        let (sign, digits) = s.strip_prefix('-').map(|d| ("-", d)).unwrap_or(("", &s));
        format!("{sign}{}{digits}", "0".repeat(fill))
    } else {
        format!("{}{s}", " ".repeat(fill))
    }
}

/// `%q`: quoted so that the shell reads it back as the same word.
fn quote(s: &str) -> String {
    if s.is_empty() {
        return "''".into();
    }
    if s.chars()
        .all(|c| c.is_ascii_alphanumeric() || "_-./=:,+@%".contains(c))
    {
        return s.to_string();
    }
    let mut out = String::new();
    for c in s.chars() {
        if !(c.is_ascii_alphanumeric() || "_-./=:,+@%".contains(c)) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

async fn cd(sh: &mut Interp<'_>, args: &[String]) -> i32 {
    let target = match args.first().map(String::as_str) {
        None => sh.shell.get("HOME").unwrap_or("/").to_string(),
        Some("-") => match sh.shell.get("OLDPWD") {
            Some(old) => old.to_string(),
            None => {
                sh.error("cd: OLDPWD not set").await;
                return 1;
            }
        },
        Some(dir) => dir.to_string(),
    };
    let path = normalize(&sh.shell.path(&target).to_string_lossy());
    match std::fs::metadata(&path) {
        Ok(m) if m.is_dir() => {
            let old = std::mem::replace(&mut sh.shell.cwd, path.clone());
            sh.shell.set("OLDPWD", old);
            sh.shell.set("PWD", path.clone());
            if args.first().map(String::as_str) == Some("-") {
                return out(sh, &format!("{path}\n")).await;
            }
            0
        }
        Ok(_) => {
            sh.error(&format!("cd: {target}: Not a directory")).await;
            1
        }
        Err(e) => {
            sh.error(&format!("cd: {target}: {}", crate::exec::io_message(&e)))
                .await;
            1
        }
    }
}

/// `/a/./b/../c` → `/a/c` (logical, as `cd` keeps `PWD`).
fn normalize(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for p in path.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    format!("/{}", parts.join("/"))
}

fn set(sh: &mut Interp<'_>, args: &[String]) -> i32 {
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        if a == "--" {
            sh.shell.positional = args[i + 1..].to_vec();
            return 0;
        }
        let (on, flags) = match a.strip_prefix('-') {
            Some(f) => (true, f),
            None => match a.strip_prefix('+') {
                Some(f) => (false, f),
                None => {
                    sh.shell.positional = args[i..].to_vec();
                    return 0;
                }
            },
        };
        if flags == "o" {
            i += 1;
            match args.get(i).map(String::as_str) {
                Some("pipefail") => sh.shell.options.pipefail = on,
                Some("errexit") => sh.shell.options.errexit = on,
                Some("nounset") => sh.shell.options.nounset = on,
                Some("xtrace") => sh.shell.options.xtrace = on,
                _ => return 2,
            }
        } else {
            for f in flags.chars() {
                match f {
                    'e' => sh.shell.options.errexit = on,
                    'u' => sh.shell.options.nounset = on,
                    'x' => sh.shell.options.xtrace = on,
                    _ => return 2,
                }
            }
        }
        i += 1;
    }
    0
}

async fn test(sh: &mut Interp<'_>, args: &[String], bracket: bool) -> i32 {
    let me = if bracket { "[" } else { "test" };
    let mut args = args.to_vec();
    if bracket {
        if args.last().map(String::as_str) != Some("]") {
            sh.error("[: missing `]'").await;
            return 2;
        }
        args.pop();
    }
    let path = |s: &str| sh.shell.path(s);
    let num = |s: &str| s.trim().parse::<i64>();
    let result = match args.as_slice() {
        [] => false,
        [s] => !s.is_empty(),
        [op, s] if op == "!" => s.is_empty(),
        [op, s] => match op.as_str() {
            "-n" => !s.is_empty(),
            "-z" => s.is_empty(),
            "-e" | "-a" => std::fs::metadata(path(s)).is_ok(),
            "-f" => std::fs::metadata(path(s)).is_ok_and(|m| m.is_file()),
            "-d" => std::fs::metadata(path(s)).is_ok_and(|m| m.is_dir()),
            "-s" => std::fs::metadata(path(s)).is_ok_and(|m| m.len() > 0),
            "-L" | "-h" => {
                std::fs::symlink_metadata(path(s)).is_ok_and(|m| m.file_type().is_symlink())
            }
            "-r" | "-w" | "-x" => std::fs::metadata(path(s)).is_ok(),
            _ => {
                sh.error(&format!("{me}: {op}: unary operator expected"))
                    .await;
                return 2;
            }
        },
        [a, op, b] => match op.as_str() {
            "=" | "==" => a == b,
            "!=" => a != b,
            "<" => a < b,
            ">" => a > b,
            "-eq" | "-ne" | "-lt" | "-le" | "-gt" | "-ge" => match (num(a), num(b)) {
                (Ok(x), Ok(y)) => match op.as_str() {
                    "-eq" => x == y,
                    "-ne" => x != y,
                    "-lt" => x < y,
                    "-le" => x <= y,
                    "-gt" => x > y,
                    _ => x >= y,
                },
                (Err(_), _) => {
                    sh.error(&format!("{me}: {a}: integer expression expected"))
                        .await;
                    return 2;
                }
                (_, Err(_)) => {
                    sh.error(&format!("{me}: {b}: integer expression expected"))
                        .await;
                    return 2;
                }
            },
            _ => {
                sh.error(&format!("{me}: {op}: binary operator expected"))
                    .await;
                return 2;
            }
        },
        _ => {
            sh.error(&format!("{me}: too many arguments")).await;
            return 2;
        }
    };
    (!result) as i32
}

/// `read [-r] [NAME...]`: one line into variables (the last takes the rest).
async fn read(sh: &mut Interp<'_>, args: &[String]) -> i32 {
    let raw = args.iter().any(|a| a == "-r");
    let names: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
    let mut line = Vec::new();
    let mut eof = true;
    // One byte at a time, so that the rest stays for the next reader.
    loop {
        let byte = match &sh.io.stdin {
            crate::io::Input::Pipe(p) => p.read(1).await,
            other => {
                let mut b = [0u8; 1];
                let n = match other {
                    crate::io::Input::Stdin => {
                        std::io::Read::read(&mut std::io::stdin(), &mut b).unwrap_or(0)
                    }
                    crate::io::Input::File(f) => {
                        std::io::Read::read(&mut *f.borrow_mut(), &mut b).unwrap_or(0)
                    }
                    crate::io::Input::Bytes(c) => {
                        std::io::Read::read(&mut *c.borrow_mut(), &mut b).unwrap_or(0)
                    }
                    _ => 0,
                };
                b[..n].to_vec()
            }
        };
        let Some(&b) = byte.first() else { break };
        if b == b'\n' {
            eof = false;
            break;
        }
        line.push(b);
    }
    let mut text = String::from_utf8_lossy(&line).into_owned();
    if !raw {
        text = text.replace("\\\n", "").replace('\\', "");
    }
    let ifs = sh.shell.ifs();
    let names: Vec<String> = if names.is_empty() {
        vec!["REPLY".into()]
    } else {
        names.into_iter().cloned().collect()
    };
    let mut rest = text
        .trim_start_matches(|c: char| ifs.contains(c) && c.is_whitespace())
        .to_string();
    for (i, name) in names.iter().enumerate() {
        if i + 1 == names.len() {
            let v = rest
                .trim_end_matches(|c: char| ifs.contains(c) && c.is_whitespace())
                .to_string();
            sh.shell.set(name, v);
        } else {
            let cut = rest.find(|c: char| ifs.contains(c)).unwrap_or(rest.len());
            let (word, tail) = rest.split_at(cut);
            sh.shell.set(name, word.to_string());
            rest = tail
                .trim_start_matches(|c: char| ifs.contains(c))
                .to_string();
        }
    }
    (eof && line.is_empty()) as i32 | (eof as i32)
}

/// What a name is to the shell: `function`, `builtin` or `file` (a built-in command stands
/// where bash would find a file).
fn kind_of(sh: &Interp<'_>, name: &str) -> Option<&'static str> {
    if sh.shell.functions.contains_key(name) {
        Some("function")
    } else if is_builtin(name) {
        Some("builtin")
    } else if crate::commands::find(name).is_some() {
        Some("file")
    } else {
        None
    }
}

fn describe(name: &str, kind: &str) -> String {
    match kind {
        "function" => format!("{name} is a function\n"),
        "builtin" => format!("{name} is a shell builtin\n"),
        _ => format!("{name} is /usr/bin/{name}\n"),
    }
}

/// `type [-t] NAME...`.
async fn type_of(sh: &mut Interp<'_>, args: &[String]) -> i32 {
    let terse = args.first().is_some_and(|a| a == "-t");
    let mut status = 0;
    for name in args.iter().filter(|a| !a.starts_with('-')) {
        match kind_of(sh, name) {
            Some(kind) if terse => status |= out(sh, &format!("{kind}\n")).await,
            Some(kind) => status |= out(sh, &describe(name, kind)).await,
            None => {
                if !terse {
                    sh.error(&format!("type: {name}: not found")).await;
                }
                status = 1;
            }
        }
    }
    status
}

/// `declare`/`typeset` with `-a` (array), `-x` (export); inside a function its variables are
/// local, as in bash.
async fn declare(sh: &mut Interp<'_>, args: &[String]) -> i32 {
    let flags: String = args
        .iter()
        .filter(|a| a.starts_with('-'))
        .flat_map(|a| a.chars().skip(1))
        .collect();
    for a in args.iter().filter(|a| !a.starts_with('-')) {
        let (name, value) = match a.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (a.as_str(), None),
        };
        if !sh.shell.locals.is_empty() {
            sh.shell.make_local(name);
        }
        if let Some(v) = value {
            sh.shell.set(name, v);
        } else if flags.contains('a') && sh.shell.values(name).is_none() {
            sh.shell.set_array(name, Vec::new(), false);
        } else if sh.shell.get(name).is_none() && !flags.contains('a') {
            sh.shell.set(name, "");
        }
        if flags.contains('x')
            && let Some(var) = sh.shell.vars.get_mut(name)
        {
            var.exported = true;
        }
    }
    0
}
