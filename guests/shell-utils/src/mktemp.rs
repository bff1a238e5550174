//! `mktemp`: create a temporary file or directory.

use super::stream::complain;
use crate::stream::out;
use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{bad_usage, parser, string, value};
use shell_base::errno::io_message;

/// `mktemp [-d] [-p DIR] [TEMPLATE]`: a new file (or directory) named from TEMPLATE's `X`s.
pub async fn mktemp(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let mut dir_mode = false;
    let mut in_tmpdir = false;
    let mut base: Option<String> = None;
    let mut template: Option<String> = None;
    let mut p = parser(argv);
    let parsed: Result<(), lexopt::Error> = (|| {
        while let Some(arg) = p.next()? {
            match arg {
                Short('d') | Long("directory") => dir_mode = true,
                Short('p') | Long("tmpdir") => base = Some(value(&mut p)?),
                Short('t') => in_tmpdir = true,
                Short('q' | 'u') | Long("quiet" | "dry-run") => {}
                Value(v) => template = Some(string(v)),
                _ => return Err(arg.unexpected()),
            }
        }
        Ok(())
    })();
    if let Err(e) = parsed {
        return bad_usage(sh, "mktemp", e, 1).await;
    }
    // Without a template, or with `-p`/`-t`, the name goes in the temporary directory.
    in_tmpdir |= template.is_none() || base.is_some();
    let template = template.unwrap_or_else(|| "tmp.XXXXXXXXXX".into());
    // The last run of X's (in the last path component) is replaced; what follows stays.
    let last = template.rfind('/').map_or(0, |i| i + 1);
    let run_end = template[last..].rfind('X').map_or(0, |i| last + i + 1);
    let run_start = template[last..run_end]
        .rfind(|c| c != 'X')
        .map_or(last, |i| last + i + 1);
    let x = run_end - run_start;
    if x < 3 {
        return complain(sh, &format!("mktemp: too few X's in template '{template}'")).await;
    }
    let dir = if template.contains('/') || !in_tmpdir {
        String::new()
    } else {
        base.or_else(|| sh.var("TMPDIR").map(str::to_string))
            .unwrap_or_else(|| "/tmp".into())
    };
    let _ = std::fs::create_dir_all(sh.path(if dir.is_empty() { "." } else { &dir }));
    const CHARS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    for _ in 0..100 {
        let suffix: String = (0..x)
            .map(|_| CHARS[sh.random() as usize % CHARS.len()] as char)
            .collect();
        let name = format!("{}{suffix}{}", &template[..run_start], &template[run_end..]);
        let full = if dir.is_empty() {
            name
        } else {
            format!("{}/{name}", dir.trim_end_matches('/'))
        };
        let path = sh.path(&full);
        let made = if dir_mode {
            std::fs::create_dir(&path)
        } else {
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
                .map(|_| ())
        };
        match made {
            Ok(()) => return out(sh, &format!("{full}\n")).await,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                let what = if dir_mode { "directory" } else { "file" };
                return complain(
                    sh,
                    &format!(
                        "mktemp: failed to create {what} via template '{template}': {}",
                        io_message(&e)
                    ),
                )
                .await;
            }
        }
    }
    complain(
        sh,
        &format!("mktemp: failed to create file via template '{template}': File exists"),
    )
    .await
}

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::Native;

    #[test]
    fn makes_a_file_from_a_template() {
        let mut ctx = Native::new();
        let dir = ctx.dir().to_string_lossy().into_owned();
        let ran = ctx.run(&["mktemp", "-p", &dir, "t.XXXXXX"], "");
        assert_eq!(ran.status, 0);
        let made = ran.stdout.trim_end();
        assert!(made.starts_with(&format!("{dir}/t.")) && std::path::Path::new(made).is_file());
    }
}
