//! `tree`: a directory drawn as a tree, as tree 2.1 draws it (ASCII lines unless the locale
//! is UTF-8, names in byte order, the root counted among the directories).

use shell_base::args::{bad_usage, parser};
use std::path::{Path, PathBuf};

use super::stream::{Stop, Writer, complain};
use crate::fileinfo::{apparent_size, human_size, info, mode_string};
use shell_base::Context;
use shell_base::pattern::{MatchOptions, Pattern};

#[derive(Default)]
struct Options {
    all: bool,
    dirs_only: bool,
    full_path: bool,
    classify: bool,
    no_indent: bool,
    follow: bool,
    max_level: Option<usize>,
    ignore: Vec<Pattern>,
    only: Vec<Pattern>,
    prune: bool,
    no_report: bool,
    dirs_first: bool,
    reverse: bool,
    size: bool,
    human: bool,
    perms: bool,
}

/// `tree [-adfFilprsh] [-L N] [-I PAT] [-P PAT] [--prune] [--noreport] [--dirsfirst] [DIR...]`.
pub async fn tree(sh: &mut dyn Context, argv: &[String]) -> i32 {
    use lexopt::prelude::*;
    let mut o = Options::default();
    let mut roots = Vec::new();
    let mut p = parser(argv);
    let pattern = |v: &str| {
        // `a|b` is two patterns.
        v.split('|')
            .map(|alt| Pattern::new(alt, MatchOptions::default()))
            .collect::<Vec<_>>()
    };
    loop {
        let arg = match p.next() {
            Ok(Some(a)) => a,
            Ok(None) => break,
            Err(e) => return bad_usage(sh, "tree", e, 1).await,
        };
        match arg {
            Short('a') => o.all = true,
            Short('d') => o.dirs_only = true,
            Short('f') => o.full_path = true,
            Short('F') => o.classify = true,
            Short('i') => o.no_indent = true,
            Short('l') => o.follow = true,
            Short('r') => o.reverse = true,
            Short('s') => o.size = true,
            Short('h') => {
                o.size = true;
                o.human = true;
            }
            Short('p') => o.perms = true,
            Short('n') | Short('N') | Short('U') | Short('C') | Short('Q') | Short('q') => {}
            Short('L') => match p.value().map(|v| v.to_string_lossy().parse::<usize>()) {
                Ok(Ok(n)) if n > 0 => o.max_level = Some(n),
                Ok(_) => {
                    return complain(sh, "tree: Invalid level, must be greater than 0.").await;
                }
                Err(e) => return bad_usage(sh, "tree", e, 1).await,
            },
            Short('I') => match p.value() {
                Ok(v) => o.ignore.extend(pattern(&v.to_string_lossy())),
                Err(e) => return bad_usage(sh, "tree", e, 1).await,
            },
            Short('P') => match p.value() {
                Ok(v) => o.only.extend(pattern(&v.to_string_lossy())),
                Err(e) => return bad_usage(sh, "tree", e, 1).await,
            },
            Long("prune") => o.prune = true,
            Long("noreport") => o.no_report = true,
            Long("dirsfirst") => o.dirs_first = true,
            Value(v) => roots.push(v.to_string_lossy().into_owned()),
            Short(c) => {
                return complain(sh, &format!("tree: Invalid argument -`{c}'.\n{USAGE}")).await;
            }
            Long(l) => {
                let msg = format!("tree: Invalid argument `--{l}'.\n{USAGE}");
                return complain(sh, &msg).await;
            }
        }
    }
    if roots.is_empty() {
        roots.push(".".into());
    }
    let utf8 = ["LC_ALL", "LC_CTYPE", "LANG"]
        .iter()
        .find_map(|k| sh.var(k).filter(|v| !v.is_empty()))
        .is_some_and(|v| {
            let v = v.to_ascii_lowercase();
            v.contains("utf-8") || v.contains("utf8")
        });
    let mut walk = Walk {
        o: &o,
        out: Writer::new(&sh.io().stdout),
        lines: if utf8 { &UTF8 } else { &ASCII },
        dirs: 0,
        files: 0,
    };
    let mut status = 0;
    for root in &roots {
        let path = sh.path(root);
        let result = match std::fs::metadata(&path) {
            Ok(m) if m.is_dir() => {
                // tree 2.1 counts the root among the directories unless it shows nothing under it.
                if !walk.items(&path).is_empty() {
                    walk.dirs += 1;
                }
                let head = walk.label(root, &path, root, true);
                match walk.out.write_str(&format!("{head}\n")).await {
                    Ok(()) => {
                        let ancestors = vec![inode(&path)];
                        walk.children(&path, root, "", 1, &ancestors).await
                    }
                    Err(e) => Err(e),
                }
            }
            Ok(_) => {
                walk.files += 1;
                walk.out
                    .write_str(&format!("{root}  [error opening dir]\n"))
                    .await
            }
            Err(_) => {
                status = 2;
                walk.out
                    .write_str(&format!("{root}  [error opening dir]\n"))
                    .await
            }
        };
        if let Err(Stop(s)) = result {
            return s;
        }
    }
    if !o.no_report {
        let plural =
            |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        let mut report = format!("\n{}", plural(walk.dirs, "directory", "directories"));
        if !o.dirs_only {
            report.push_str(&format!(", {}", plural(walk.files, "file", "files")));
        }
        report.push('\n');
        if let Err(Stop(s)) = walk.out.write_str(&report).await {
            return s;
        }
    }
    match walk.out.flush().await {
        Ok(()) => status,
        Err(Stop(s)) => s,
    }
}

const USAGE: &str = "usage: tree [-acdfghilnpqrstuvxACDFJQNSUX] [-L level [-R]] [-H  baseHREF]
\t[-T title] [-o filename] [-P pattern] [-I pattern] [--gitignore]
\t[--gitfile[=]file] [--matchdirs] [--metafirst] [--ignore-case]
\t[--nolinks] [--hintro[=]file] [--houtro[=]file] [--inodes] [--device]
\t[--sort[=]<name>] [--dirsfirst] [--filesfirst] [--filelimit #] [--si]
\t[--du] [--prune] [--charset[=]X] [--timefmt[=]format] [--fromfile]
\t[--fflinks] [--info] [--infofile[=]file] [--noreport] [--version]
\t[--help] [--] [directory ...]";

/// The pieces lines are drawn with: branch, last branch, pipe, blank.
type Lines = [&'static str; 4];
const UTF8: Lines = ["├── ", "└── ", "│   ", "    "];
const ASCII: Lines = ["|-- ", "`-- ", "|   ", "    "];

struct Walk<'o> {
    o: &'o Options,
    out: Writer,
    lines: &'static Lines,
    dirs: usize,
    files: usize,
}

/// One entry of a directory.
struct Item {
    name: String,
    path: PathBuf,
    /// A directory (or, for the count, a link to one).
    is_dir: bool,
    link: Option<String>,
}

fn inode(path: &Path) -> u64 {
    info(path, true).map_or(0, |i| i.ino)
}

impl Walk<'_> {
    fn items(&self, dir: &Path) -> Vec<Item> {
        let Ok(entries) = shell_base::dir::list(dir) else {
            return Vec::new();
        };
        let mut items: Vec<Item> = entries
            .into_iter()
            .map(|shell_base::dir::Entry { name, kind }| {
                let path = dir.join(&name);
                let link = kind
                    .is_symlink()
                    .then(|| std::fs::read_link(&path).ok())
                    .flatten()
                    .map(|t| t.to_string_lossy().into_owned());
                let is_dir = if link.is_some() {
                    path.is_dir()
                } else {
                    kind.is_dir()
                };
                Item {
                    name,
                    path,
                    is_dir,
                    link,
                }
            })
            .filter(|i| self.o.all || !i.name.starts_with('.'))
            .filter(|i| !self.o.ignore.iter().any(|p| p.matches(&i.name)))
            .filter(|i| !self.o.dirs_only || i.is_dir)
            .filter(|i| {
                i.is_dir || self.o.only.is_empty() || self.o.only.iter().any(|p| p.matches(&i.name))
            })
            .collect();
        items.sort_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
        if self.o.reverse {
            items.reverse();
        }
        if self.o.dirs_first {
            items.sort_by_key(|i| !i.is_dir);
        }
        if self.o.prune {
            items.retain(|i| !i.is_dir || i.link.is_some() || self.has_files(&i.path, 0));
        }
        items
    }

    /// With `--prune`: whether a directory holds anything that would be shown.
    fn has_files(&self, dir: &Path, depth: usize) -> bool {
        depth < 64
            && self
                .items(dir)
                .iter()
                .any(|i| !i.is_dir || self.has_files(&i.path, depth + 1))
    }

    /// How an entry is written: `[perms size]  name -> target` with `-F`'s mark.
    fn label(&self, name: &str, path: &Path, shown: &str, is_dir: bool) -> String {
        let mut text = String::new();
        if self.o.perms || self.o.size {
            let i = info(path, false).ok();
            let mut parts = Vec::new();
            if self.o.perms {
                parts.push(i.as_ref().map_or("?".repeat(10), |i| mode_string(i.mode)));
            }
            if self.o.size {
                let n = i.as_ref().map_or(0, apparent_size);
                parts.push(if self.o.human {
                    format!("{:>4}", human_size(n))
                } else {
                    format!("{n:>11}")
                });
            }
            text.push_str(&format!("[{}]  ", parts.join(" ")));
        }
        text.push_str(if self.o.full_path { shown } else { name });
        if self.o.classify && is_dir && !path.is_symlink() {
            text.push('/');
        }
        if self.o.classify && !is_dir && is_executable(path) {
            text.push('*');
        }
        text
    }

    async fn children(
        &mut self,
        dir: &Path,
        shown: &str,
        prefix: &str,
        level: usize,
        ancestors: &[u64],
    ) -> Result<(), Stop> {
        if self.o.max_level.is_some_and(|max| level > max) {
            return Ok(());
        }
        let items = self.items(dir);
        let count = items.len();
        for (k, item) in items.into_iter().enumerate() {
            let last = k + 1 == count;
            let child_shown = if shown.ends_with('/') {
                format!("{shown}{}", item.name)
            } else {
                format!("{shown}/{}", item.name)
            };
            let mut line = String::new();
            if !self.o.no_indent {
                line.push_str(prefix);
                line.push_str(self.lines[if last { 1 } else { 0 }]);
            }
            line.push_str(&self.label(&item.name, &item.path, &child_shown, item.is_dir));
            if item.is_dir {
                self.dirs += 1;
            } else {
                self.files += 1;
            }
            let mut descend = item.is_dir;
            if let Some(target) = &item.link {
                line.push_str(&format!(" -> {target}"));
                descend = descend && self.o.follow;
                if descend && ancestors.contains(&inode(&item.path)) {
                    line.push_str("  [recursive, not followed]");
                    descend = false;
                }
            }
            line.push('\n');
            self.out.write_str(&line).await?;
            if descend {
                let deeper = format!(
                    "{prefix}{}",
                    if self.o.no_indent {
                        ""
                    } else {
                        self.lines[if last { 3 } else { 2 }]
                    }
                );
                let mut chain = ancestors.to_vec();
                chain.push(inode(&item.path));
                Box::pin(self.children(&item.path, &child_shown, &deeper, level + 1, &chain))
                    .await?;
            }
        }
        Ok(())
    }
}

fn is_executable(path: &Path) -> bool {
    info(path, true).is_ok_and(|i| i.mode & 0o170000 == 0o100000 && i.mode & 0o111 != 0)
}

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::Native;

    #[test]
    fn draws_a_tree() {
        let mut ctx = Native::new();
        ctx.write("t/a", "").write("t/s/b", "");
        assert_eq!(
            ctx.run(&["tree", "t"], "").stdout,
            "t\n|-- a\n`-- s\n    `-- b\n\n2 directories, 2 files\n"
        );
    }
}
