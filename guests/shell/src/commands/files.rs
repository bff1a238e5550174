//! File commands that change the tree: `touch`, `mkdir`, `rm`; and `yes`.

use super::stream::{complain, split_flags};
use crate::exec::{Interp, io_message};

/// `yes [STRING]`: writes the line until the reader goes away (then 141, as SIGPIPE).
pub async fn yes(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
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

/// `touch FILE...`: creates missing files, sets the others' times to now.
pub async fn touch(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let (_, files) = split_flags(argv);
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
pub async fn mkdir(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let (flags, dirs) = split_flags(argv);
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
pub async fn rm(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let (flags, files) = split_flags(argv);
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
