//! `ls`: one name per line, as GNU ls writes to a pipe; `-l` lines as GNU's.

use super::stream::{Stop, Writer, complain};
use shell_base::Context;
use shell_base::args::{bad_usage, flags};
use shell_base::dir::{FileInfo, Kind};
use shell_base::errno::io_message;

struct Item {
    name: String,
    kind: Kind,
    /// The inode (for an operand, through a link): read only for `-l` or a sort by time or
    /// size, since the listing gives the type.
    info: Option<FileInfo>,
}

impl Item {
    fn of(name: String, info: FileInfo) -> Item {
        Item {
            name,
            kind: info.kind(),
            info: Some(info),
        }
    }
}

/// An entry as a directory listing gives it: with its inode when one is needed.
enum Listed {
    Entry(shell_base::dir::Entry),
    Info((String, FileInfo)),
}

impl Listed {
    fn name(&self) -> &str {
        match self {
            Listed::Entry(e) => &e.name,
            Listed::Info((name, _)) => name,
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
            let time = |i: &Item| i.info.map(|i| i.mtime);
            let (ta, tb) = (time(a), time(b));
            tb.cmp(&ta).then_with(|| a.name.cmp(&b.name))
        });
    } else if flags.contains('S') {
        // A directory's size is ext4's, as `-l` shows it.
        let size = |i: &Item| i.info.as_ref().map_or(0, crate::fileinfo::apparent_size);
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
    // Only `-l` and a sort by time or size read each entry's inode.
    let by_meta = long || flags.contains('t') || flags.contains('S');
    let operands = if operands.is_empty() {
        vec![".".to_string()]
    } else {
        operands
    };
    let mut status = 0;
    let mut files = Vec::new();
    let mut dirs = Vec::new();
    let mut virtual_text = String::new();
    // A link given as an operand is followed unless `-l`, `-F` or `-d` show links (`-L`
    // follows every link); a broken one is shown itself unless `-L`.
    let follow = flags.contains('L') || !(long || classify || flags.contains('d'));
    for o in &operands {
        let path = sh.path(o);
        let found = if follow {
            std::fs::metadata(&path).or_else(|e| {
                if flags.contains('L') {
                    Err(e)
                } else {
                    std::fs::symlink_metadata(&path)
                }
            })
        } else {
            std::fs::symlink_metadata(&path)
        };
        match found {
            Ok(m) if m.is_dir() && !flags.contains('d') => dirs.push(o.clone()),
            Ok(m) => {
                let through = follow && !m.file_type().is_symlink();
                let info = shell_base::dir::info(&path, through);
                files.push(Item::of(o.clone(), info.unwrap_or(FileInfo::from_std(&m))));
            }
            // The devices the isolate opens (`/dev/null`...) are no entries of the
            // workspace's directories; the host tells what they are.
            Err(_)
                if let Some(info) =
                    shell_base::dir::info(&path, true).filter(|i| i.kind() == Kind::CharDevice) =>
            {
                files.push(Item::of(o.clone(), info))
            }
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
        let entries = files
            .iter()
            .filter_map(|f| Some((f.name.as_str(), sh.path(&f.name), f.info.as_ref()?)));
        for line in crate::fileinfo::long_lines(entries, human, &user).1 {
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
        let listed = if by_meta {
            shell_base::dir::list_info(&path).map(|e| e.into_iter().map(Listed::Info).collect())
        } else {
            shell_base::dir::list(&path).map(|e| e.into_iter().map(Listed::Entry).collect())
        };
        let entries: Vec<Listed> = match listed {
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
            .filter(|e| show_all || almost || !e.name().starts_with('.'))
            .filter_map(|e| match e {
                Listed::Info((name, info)) => Some(Item::of(name, info)),
                Listed::Entry(e) if e.kind != Kind::Other => Some(Item {
                    name: e.name,
                    kind: e.kind,
                    info: None,
                }),
                // A type the listing does not tell: the inode does.
                Listed::Entry(e) => {
                    let info = shell_base::dir::info(&path.join(&e.name), false)?;
                    Some(Item::of(e.name, info))
                }
            })
            .collect();
        if show_all {
            for dot in [".", ".."] {
                if let Some(info) = shell_base::dir::info(&path.join(dot), true) {
                    items.push(Item::of(dot.into(), info));
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
            let entries = items
                .iter()
                .filter_map(|i| Some((i.name.as_str(), path.join(&i.name), i.info.as_ref()?)));
            let (total, lines) = crate::fileinfo::long_lines(entries, human, &user);
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

    /// A link operand, as GNU ls 9.1 shows it (checked on this machine's).
    #[test]
    fn link_operands_are_followed_unless_l_f_or_d() {
        let mut ctx = Native::new();
        ctx.write("d/x", "");
        std::os::unix::fs::symlink("d", ctx.dir().join("ld")).unwrap();
        std::os::unix::fs::symlink("nowhere", ctx.dir().join("broken")).unwrap();
        let out = |ctx: &mut Native, argv: &[&str]| ctx.run(argv, "").stdout;
        assert_eq!(out(&mut ctx, &["ls", "ld"]), "x\n");
        assert_eq!(out(&mut ctx, &["ls", "-F", "ld"]), "ld@\n");
        assert_eq!(out(&mut ctx, &["ls", "-d", "ld"]), "ld\n");
        assert!(out(&mut ctx, &["ls", "-l", "ld"]).ends_with(" ld -> d\n"));
        assert!(out(&mut ctx, &["ls", "-lL", "ld"]).ends_with(" x\n"));
        assert!(out(&mut ctx, &["ls", "-lt", "d", "ld"]).contains(" ld -> d\n"));
        assert_eq!(out(&mut ctx, &["ls", "broken"]), "broken\n");
        let followed = ctx.run(&["ls", "-L", "broken"], "");
        assert_eq!(followed.status, 2, "{}", followed.stderr);
    }
}
