//! `ls`: one name per line, as GNU ls writes to a pipe; `-l` lines as GNU's.

use super::stream::{Stop, Writer, complain};
use shell_base::Context;
use shell_base::args::{bad_usage, flags};
use shell_base::dir::Kind;
use shell_base::errno::io_message;
use std::path::PathBuf;

struct Item {
    name: String,
    kind: Kind,
    /// What `lstat` (for an operand, `stat`) says: read only for a sort by time or size,
    /// since the listing gives the type and `-l` reads the workspace's own record.
    meta: Option<std::fs::Metadata>,
}

impl Item {
    fn of(name: String, meta: std::fs::Metadata) -> Item {
        Item {
            name,
            kind: Kind::of(meta.file_type()),
            meta: Some(meta),
        }
    }
}

fn suffix(kind: Kind, classify: bool, slash: bool) -> &'static str {
    if kind.is_dir() && (classify || slash) {
        "/"
    } else if kind.is_symlink() && classify {
        "@"
    } else {
        ""
    }
}

fn sort_items(items: &mut [Item], flags: &str) {
    if flags.contains('U') || flags.contains('f') {
        return;
    }
    if flags.contains('t') {
        items.sort_by(|a, b| {
            let time = |i: &Item| i.meta.as_ref().and_then(|m| m.modified().ok());
            let (ta, tb) = (time(a), time(b));
            tb.cmp(&ta).then_with(|| a.name.cmp(&b.name))
        });
    } else if flags.contains('S') {
        let size = |i: &Item| i.meta.as_ref().map_or(0, |m| m.len());
        items.sort_by(|a, b| size(b).cmp(&size(a)).then_with(|| a.name.cmp(&b.name)));
    } else {
        items.sort_by(|a, b| a.name.cmp(&b.name));
    }
    if flags.contains('r') {
        items.reverse();
    }
}

/// `ls`'s long options, as the letters they stand for.
const LONG: &[(&str, char)] = &[
    ("all", 'a'),
    ("almost-all", 'A'),
    ("recursive", 'R'),
    ("reverse", 'r'),
    ("directory", 'd'),
    ("classify", 'F'),
    ("human-readable", 'h'),
    // Never a terminal here, so never colours: `--color[=WHEN]` is as `-1`, which a
    // pipe gets anyway.
    ("color=", '1'),
];

/// `ls [-laAdFhpRrtS1] [FILE...]`.
pub async fn ls(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let (flags, operands) = match flags(argv, "aAdFpRrtS1UfhlLm", LONG) {
        Ok(o) => o,
        Err(e) => return bad_usage(sh, "ls", e, 2).await,
    };
    // `-l`: modes and owners come from the workspace (WASI has none).
    let long = flags.contains('l');
    let human = flags.contains('h');
    let user = sh.var("USER").unwrap_or("user").to_string();
    let show_all = flags.contains('a') || flags.contains('f');
    let almost = flags.contains('A');
    let classify = flags.contains('F');
    let slash = flags.contains('p');
    // Only a sort by time or size reads each entry's inode.
    let by_meta = flags.contains('t') || flags.contains('S');
    let operands = if operands.is_empty() {
        vec![".".to_string()]
    } else {
        operands
    };
    let mut status = 0;
    let mut files = Vec::new();
    let mut dirs = Vec::new();
    let mut virtual_text = String::new();
    for o in &operands {
        match std::fs::metadata(sh.path(o)) {
            Ok(m) if m.is_dir() && !flags.contains('d') => dirs.push(o.clone()),
            Ok(meta) => files.push(Item::of(o.clone(), meta)),
            Err(_) if standard_entries(sh, o, long, flags.contains('d'), &mut virtual_text) => {}
            Err(e) => {
                status = 2;
                complain(sh, &format!("ls: cannot access '{o}': {}", io_message(&e))).await;
            }
        }
    }
    sort_items(&mut files, &flags);
    dirs.sort();
    if flags.contains('r') {
        dirs.reverse();
    }
    let mut out = Writer::new(&sh.io().stdout);
    let mut text = String::new();
    if long {
        let entries: Vec<(String, PathBuf)> = files
            .iter()
            .map(|f| (f.name.clone(), sh.path(&f.name)))
            .collect();
        for line in crate::fileinfo::long_lines(&entries, human, &user).1 {
            text.push_str(&line);
            text.push('\n');
        }
    } else {
        for f in &files {
            text.push_str(&format!("{}{}\n", f.name, suffix(f.kind, classify, slash)));
        }
    }
    text.push_str(&virtual_text);
    let headers = operands.len() > 1 || flags.contains('R');
    let mut queue: Vec<String> = dirs;
    let mut first = files.is_empty();
    while !queue.is_empty() {
        let dir = queue.remove(0);
        let path = sh.path(&dir);
        let entries = match shell_base::dir::list(&path) {
            Ok(e) => e,
            Err(e) => {
                status = 2;
                complain(
                    sh,
                    &format!("ls: cannot open directory '{dir}': {}", io_message(&e)),
                )
                .await;
                continue;
            }
        };
        let mut items: Vec<Item> = entries
            .into_iter()
            .filter(|e| show_all || almost || !e.name.starts_with('.'))
            .filter_map(|e| {
                if !by_meta && e.kind != Kind::Other {
                    return Some(Item {
                        name: e.name,
                        kind: e.kind,
                        meta: None,
                    });
                }
                let meta = std::fs::symlink_metadata(path.join(&e.name)).ok()?;
                Some(Item::of(e.name, meta))
            })
            .collect();
        if show_all {
            for dot in [".", ".."] {
                if let Ok(meta) = std::fs::metadata(path.join(dot)) {
                    items.push(Item::of(dot.into(), meta));
                }
            }
        }
        sort_items(&mut items, &flags);
        if headers {
            if !first {
                text.push('\n');
            }
            text.push_str(&format!("{dir}:\n"));
        }
        first = false;
        if long {
            let entries: Vec<(String, PathBuf)> = items
                .iter()
                .map(|i| (i.name.clone(), path.join(&i.name)))
                .collect();
            let (total, lines) = crate::fileinfo::long_lines(&entries, human, &user);
            let total = if human {
                crate::fileinfo::human_size(total * 1024)
            } else {
                total.to_string()
            };
            text.push_str(&format!("total {total}\n"));
            for line in lines {
                text.push_str(&line);
                text.push('\n');
            }
        }
        let mut subdirs = Vec::new();
        for i in &items {
            if !long {
                text.push_str(&format!("{}{}\n", i.name, suffix(i.kind, classify, slash)));
            }
            if flags.contains('R') && i.kind.is_dir() && i.name != "." && i.name != ".." {
                subdirs.push(if dir.ends_with('/') {
                    format!("{dir}{}", i.name)
                } else {
                    format!("{dir}/{}", i.name)
                });
            }
        }
        // Depth first, as GNU ls -R lists.
        for (k, d) in subdirs.into_iter().enumerate() {
            queue.insert(k, d);
        }
        if text.len() > 1 << 16 {
            if let Err(Stop(s)) = out.write_str(&text).await {
                return s;
            }
            text.clear();
        }
    }
    if flags.contains('m') && !long && !headers {
        // `-m`: the names across, separated by commas.
        let names: Vec<&str> = text.lines().collect();
        text = format!("{}\n", names.join(", "));
    }
    match out.write_str(&text).await.and(out.flush().await) {
        Ok(()) => status,
        Err(Stop(s)) => s,
    }
}

/// `ls /usr/bin` and `ls -l /bin/env` when the workspace has no such path: the built-in
/// commands, shown as read-only programs. Whether `operand` was such a path.
fn standard_entries(
    sh: &dyn Context,
    operand: &str,
    long: bool,
    dir_itself: bool,
    text: &mut String,
) -> bool {
    let line = |name: &str| {
        if long {
            let size =
                shell_base::registry::standard_file_text(name.rsplit('/').next().unwrap_or(name))
                    .len();
            format!("-r-xr-xr-x 1 root root {size} Jan  1  1970 {name}\n")
        } else {
            format!("{name}\n")
        }
    };
    if shell_base::registry::is_standard_dir(operand) {
        if dir_itself {
            text.push_str(&if long {
                format!("dr-xr-xr-x 2 root root 0 Jan  1  1970 {operand}\n")
            } else {
                format!("{operand}\n")
            });
        } else {
            for name in shell_base::registry::standard_names(sh.command_names().into_iter()) {
                text.push_str(&line(name));
            }
        }
        return true;
    }
    if crate::stream::standard_path(sh, operand).is_some() {
        text.push_str(&line(operand));
        return true;
    }
    false
}

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::Native;

    #[test]
    fn names_in_order_and_hidden_ones_with_a() {
        let mut ctx = Native::new();
        ctx.write("b", "").write("a", "").write(".h", "");
        assert_eq!(ctx.run(&["ls"], "").stdout, "a\nb\n");
        assert_eq!(ctx.run(&["ls", "-A"], "").stdout, ".h\na\nb\n");
        assert_eq!(ctx.run(&["ls", "nope"], "").status, 2);
    }
}
