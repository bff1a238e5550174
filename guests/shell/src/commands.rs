//! Commands built into the shell (no processes in the isolate): each reads its input and
//! writes its output through the shell's streams, so pipelines stream. The full set of
//! coreutils is the next step; this module is where each one plugs in.

use std::future::Future;
use std::pin::Pin;

use crate::exec::{Interp, io_message};

/// A built-in command: runs with the shell's streams, returns its status.
pub type CommandFn =
    for<'a, 'b> fn(&'a mut Interp<'b>, &'a [String]) -> Pin<Box<dyn Future<Output = i32> + 'a>>;

/// The command called `name`, if the shell has it built in.
pub fn find(name: &str) -> Option<CommandFn> {
    match name {
        "cat" => Some(|sh, argv| Box::pin(cat(sh, argv))),
        "head" => Some(|sh, argv| Box::pin(head(sh, argv))),
        "yes" => Some(|sh, argv| Box::pin(yes(sh, argv))),
        "touch" => Some(|sh, argv| Box::pin(touch(sh, argv))),
        "mkdir" => Some(|sh, argv| Box::pin(mkdir(sh, argv))),
        "rm" => Some(|sh, argv| Box::pin(rm(sh, argv))),
        _ => None,
    }
}

/// Writes a command's error message to stderr; the status to return (1).
async fn complain(sh: &Interp<'_>, msg: &str) -> i32 {
    let _ = sh.io.stderr.write_all(format!("{msg}\n").as_bytes()).await;
    1
}

/// `cat [FILE|-]...`: copies files (or stdin) to stdout in pieces.
async fn cat(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let files: Vec<String> = if argv.len() > 1 {
        argv[1..].to_vec()
    } else {
        vec!["-".into()]
    };
    let mut status = 0;
    for f in files {
        let input = if f == "-" {
            sh.io.stdin.clone()
        } else {
            match std::fs::File::open(sh.shell.path(&f)) {
                Ok(file) => crate::io::Input::File(std::rc::Rc::new(std::cell::RefCell::new(file))),
                Err(e) => {
                    status = complain(sh, &format!("cat: {f}: {}", io_message(&e))).await;
                    continue;
                }
            }
        };
        loop {
            let chunk = match input.read().await {
                Ok(c) => c,
                Err(e) => {
                    status = complain(sh, &format!("cat: {f}: {}", io_message(&e))).await;
                    break;
                }
            };
            if chunk.is_empty() {
                break;
            }
            if let Err(e) = sh.io.stdout.write_all(&chunk).await {
                return if e.kind() == std::io::ErrorKind::BrokenPipe {
                    141
                } else {
                    1
                };
            }
        }
    }
    status
}

/// `yes [STRING]`: writes the line until the reader goes away (then 141, as SIGPIPE).
async fn yes(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let line = if argv.len() > 1 {
        argv[1..].join(" ")
    } else {
        "y".into()
    };
    // Batch lines so that each write moves a useful amount.
    let block = format!("{line}\n").repeat((8192 / (line.len() + 1)).max(1));
    loop {
        if sh.io.stdout.write_all(block.as_bytes()).await.is_err() {
            return 141;
        }
    }
}

/// `head [-n N] [FILE]`: the first N lines (10), then stops reading.
async fn head(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let mut n: usize = 10;
    let mut files = Vec::new();
    let mut args = argv[1..].iter();
    while let Some(a) = args.next() {
        if a == "-n" {
            n = args.next().and_then(|v| v.parse().ok()).unwrap_or(10);
        } else if let Some(v) = a
            .strip_prefix("-n")
            .or_else(|| a.strip_prefix('-'))
            .filter(|v| !v.is_empty())
        {
            n = v.parse().unwrap_or(10);
        } else {
            files.push(a.clone());
        }
    }
    let input = match files.first() {
        None => sh.io.stdin.clone(),
        Some(f) => match std::fs::File::open(sh.shell.path(f)) {
            Ok(file) => crate::io::Input::File(std::rc::Rc::new(std::cell::RefCell::new(file))),
            Err(e) => {
                return complain(
                    sh,
                    &format!("head: cannot open '{f}' for reading: {}", io_message(&e)),
                )
                .await;
            }
        },
    };
    let mut left = n;
    while left > 0 {
        let chunk = match input.read().await {
            Ok(c) if !c.is_empty() => c,
            _ => break,
        };
        let mut end = 0;
        for (i, b) in chunk.iter().enumerate() {
            if *b == b'\n' {
                left -= 1;
                if left == 0 {
                    end = i + 1;
                    break;
                }
            }
            end = i + 1;
        }
        if sh.io.stdout.write_all(&chunk[..end]).await.is_err() {
            return 141;
        }
    }
    0
}

/// Splits `-abc` style flags from operands (until `--`).
fn flags_and_operands(argv: &[String]) -> (String, Vec<String>) {
    let mut flags = String::new();
    let mut operands = Vec::new();
    let mut done = false;
    for a in &argv[1..] {
        if !done && a == "--" {
            done = true;
        } else if !done && a.len() > 1 && a.starts_with('-') {
            flags.push_str(a.trim_start_matches('-'));
        } else {
            operands.push(a.clone());
        }
    }
    (flags, operands)
}

/// `touch FILE...`: creates missing files, sets the others' times to now.
async fn touch(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let (_, files) = flags_and_operands(argv);
    if files.is_empty() {
        return complain(sh, "touch: missing file operand").await;
    }
    let mut status = 0;
    for f in files {
        let path = sh.shell.path(&f);
        let result = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .and_then(|file| file.set_modified(std::time::SystemTime::now()));
        if let Err(e) = result {
            status = complain(
                sh,
                &format!("touch: cannot touch '{f}': {}", io_message(&e)),
            )
            .await;
        }
    }
    status
}

/// `mkdir [-p] DIR...`.
async fn mkdir(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let (flags, dirs) = flags_and_operands(argv);
    if dirs.is_empty() {
        return complain(sh, "mkdir: missing operand").await;
    }
    let parents = flags.contains('p');
    let mut status = 0;
    for d in dirs {
        let path = sh.shell.path(&d);
        let result = if parents {
            std::fs::create_dir_all(&path)
        } else {
            std::fs::create_dir(&path)
        };
        if let Err(e) = result {
            status = complain(
                sh,
                &format!("mkdir: cannot create directory '{d}': {}", io_message(&e)),
            )
            .await;
        }
    }
    status
}

/// `rm [-rf] FILE...`.
async fn rm(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let (flags, files) = flags_and_operands(argv);
    let recursive = flags.contains('r') || flags.contains('R');
    let force = flags.contains('f');
    if files.is_empty() && !force {
        return complain(sh, "rm: missing operand").await;
    }
    let mut status = 0;
    for f in files {
        let path = sh.shell.path(&f);
        let result = match std::fs::symlink_metadata(&path) {
            Ok(m) if m.is_dir() && !recursive => {
                status = complain(sh, &format!("rm: cannot remove '{f}': Is a directory")).await;
                continue;
            }
            Ok(m) if m.is_dir() => std::fs::remove_dir_all(&path),
            Ok(_) => std::fs::remove_file(&path),
            Err(e) => Err(e),
        };
        match result {
            Err(e) if force && e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                status =
                    complain(sh, &format!("rm: cannot remove '{f}': {}", io_message(&e))).await;
            }
            Ok(()) => {}
        }
    }
    status
}
