//! `find`: tests, actions and operators as GNU find has them, walking in name order;
//! `-exec` runs its commands through the shell.

use super::stream::{Stop, Writer, complain};
use shell_base::Context;
use shell_base::dir::{FileInfo, Kind};
use shell_base::pattern::{MatchOptions, Pattern};
use std::time::SystemTime;

#[derive(Debug)]
enum Expr {
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
    Name(String, bool),
    PathMatch(String, bool),
    /// `-regex`/`-iregex`: the whole path against an emacs-style regex.
    Regex(regex::Regex),
    Type(char),
    Size(std::cmp::Ordering, u64, u64),
    Mtime(std::cmp::Ordering, i64),
    /// Modified after this time (nanoseconds since the epoch).
    Newer(i64),
    Empty,
    True,
    False,
    Print,
    Print0,
    Prune,
    Delete,
    Exec(Vec<String>, bool),
}

impl Expr {
    /// Whether evaluating it may read an entry's inode (beyond its type).
    fn reads_inodes(&self) -> bool {
        match self {
            Expr::And(a, b) | Expr::Or(a, b) => a.reads_inodes() || b.reads_inodes(),
            Expr::Not(a) => a.reads_inodes(),
            Expr::Size(..) | Expr::Mtime(..) | Expr::Newer(_) | Expr::Empty => true,
            _ => false,
        }
    }
}

struct Parser<'a> {
    args: &'a [String],
    i: usize,
    has_action: bool,
    maxdepth: Option<usize>,
    mindepth: usize,
    depth_first: bool,
    /// `-follow`: as `-L`.
    follow: bool,
    cwd: std::path::PathBuf,
}

/// find's default regex syntax (emacs: `\(`, `\|` and `\{` are the operators, bare
/// parentheses and bars are literal) as an extended POSIX regex.
fn emacs_to_extended(re: &str) -> String {
    let mut out = String::with_capacity(re.len());
    let mut chars = re.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(n @ ('(' | ')' | '|' | '{' | '}')) => out.push(n),
                Some(n) => {
                    out.push('\\');
                    out.push(n);
                }
                None => out.push_str("\\\\"),
            },
            '(' | ')' | '|' | '{' | '}' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

fn numeric(text: &str) -> Option<(std::cmp::Ordering, &str)> {
    use std::cmp::Ordering::*;
    Some(match text.chars().next()? {
        '+' => (Greater, &text[1..]),
        '-' => (Less, &text[1..]),
        _ => (Equal, text),
    })
}

impl Parser<'_> {
    fn next(&mut self) -> Option<&str> {
        let a = self.args.get(self.i)?;
        self.i += 1;
        Some(a)
    }

    fn value(&mut self, name: &str) -> Result<String, String> {
        self.next()
            .map(str::to_string)
            .ok_or_else(|| format!("missing argument to `{name}'"))
    }

    fn or(&mut self) -> Result<Expr, String> {
        let mut left = self.and()?;
        while matches!(
            self.args.get(self.i).map(String::as_str),
            Some("-o" | "-or")
        ) {
            self.i += 1;
            left = Expr::Or(Box::new(left), Box::new(self.and()?));
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<Expr, String> {
        let mut left = self.not()?;
        loop {
            match self.args.get(self.i).map(String::as_str) {
                None | Some("-o" | "-or" | ")") => return Ok(left),
                Some("-a" | "-and") => self.i += 1,
                _ => {}
            }
            left = Expr::And(Box::new(left), Box::new(self.not()?));
        }
    }

    fn not(&mut self) -> Result<Expr, String> {
        if matches!(
            self.args.get(self.i).map(String::as_str),
            Some("!" | "-not")
        ) {
            self.i += 1;
            return Ok(Expr::Not(Box::new(self.not()?)));
        }
        self.primary()
    }

    fn primary(&mut self) -> Result<Expr, String> {
        let Some(tok) = self.next().map(str::to_string) else {
            return Err("expected an expression".into());
        };
        Ok(match tok.as_str() {
            "(" => {
                let e = self.or()?;
                if self.next() != Some(")") {
                    return Err("invalid expression; I was expecting to find a ')' somewhere but did not see one.".into());
                }
                e
            }
            "-name" | "-iname" => Expr::Name(self.value(&tok)?, tok == "-iname"),
            "-path" | "-ipath" | "-wholename" => {
                Expr::PathMatch(self.value(&tok)?, tok == "-ipath")
            }
            "-regex" | "-iregex" => {
                let text = self.value(&tok)?;
                let pattern = format!(
                    "(?s){}^(?:{})$",
                    if tok == "-iregex" { "(?i)" } else { "" },
                    shell_base::posix::translate(&emacs_to_extended(&text), true)
                );
                Expr::Regex(
                    regex::Regex::new(&pattern)
                        .map_err(|_| format!("invalid regular expression `{text}'"))?,
                )
            }
            "-type" => {
                let t = self.value("-type")?;
                match t.as_str() {
                    "f" | "d" | "l" | "p" | "s" | "b" | "c" => {
                        Expr::Type(t.chars().next().unwrap_or('f'))
                    }
                    _ => return Err(format!("Unknown argument to -type: {t}")),
                }
            }
            "-size" => {
                let v = self.value("-size")?;
                let (ord, rest) = numeric(&v).ok_or("invalid -size")?;
                let (num, unit) = match rest.chars().last() {
                    Some('c') => (&rest[..rest.len() - 1], 1),
                    Some('w') => (&rest[..rest.len() - 1], 2),
                    Some('b') => (&rest[..rest.len() - 1], 512),
                    Some('k') => (&rest[..rest.len() - 1], 1024),
                    Some('M') => (&rest[..rest.len() - 1], 1 << 20),
                    Some('G') => (&rest[..rest.len() - 1], 1 << 30),
                    _ => (rest, 512),
                };
                let n = num
                    .parse()
                    .map_err(|_| format!("invalid argument `{v}' to `-size'"))?;
                Expr::Size(ord, n, unit)
            }
            "-mtime" => {
                let v = self.value("-mtime")?;
                let (ord, rest) = numeric(&v).ok_or("invalid -mtime")?;
                Expr::Mtime(
                    ord,
                    rest.parse()
                        .map_err(|_| format!("invalid argument `{v}' to `-mtime'"))?,
                )
            }
            "-newer" => {
                let f = self.value("-newer")?;
                let path = self.cwd.join(&f);
                let t = std::fs::metadata(&path)
                    .map(|m| shell_base::dir::info(&path, true).unwrap_or(FileInfo::from_std(&m)))
                    .map_err(|e| format!("'{f}': {}", shell_base::errno::io_message(&e)))?;
                Expr::Newer(t.mtime)
            }
            "-empty" => Expr::Empty,
            "-true" => Expr::True,
            "-false" => Expr::False,
            "-print" => {
                self.has_action = true;
                Expr::Print
            }
            "-print0" => {
                self.has_action = true;
                Expr::Print0
            }
            "-prune" => Expr::Prune,
            "-delete" => {
                self.has_action = true;
                self.depth_first = true;
                Expr::Delete
            }
            "-exec" | "-ok" => {
                self.has_action = true;
                let mut cmd = Vec::new();
                loop {
                    let Some(a) = self.next() else {
                        return Err(format!("missing argument to `{tok}'"));
                    };
                    if a == ";" {
                        break Expr::Exec(cmd, false);
                    }
                    if a == "+" && cmd.last().is_some_and(|l| l == "{}") {
                        break Expr::Exec(cmd, true);
                    }
                    cmd.push(a.to_string());
                }
            }
            "-maxdepth" | "-mindepth" => {
                let v = self.value(&tok)?;
                let n: usize = v.parse().map_err(|_| {
                    format!("Expected a positive decimal integer argument to {tok}, but got `{v}'")
                })?;
                if tok == "-maxdepth" {
                    self.maxdepth = Some(n);
                } else {
                    self.mindepth = n;
                }
                Expr::True
            }
            "-depth" => {
                self.depth_first = true;
                Expr::True
            }
            "-follow" => {
                self.follow = true;
                Expr::True
            }
            "-xdev" | "-mount" | "-noleaf" => Expr::True,
            other => return Err(format!("unknown predicate `{other}'")),
        })
    }
}

/// One thing `find` looks at.
struct Entry {
    shown: String,
    path: std::path::PathBuf,
    /// The type the directory listing gave (no `stat` needed to walk or test `-type`).
    kind: Option<Kind>,
    /// Metadata, looked up only when a test needs it (`-size`, `-mtime`, `-newer`, ...).
    meta: std::cell::OnceCell<Option<FileInfo>>,
    /// With `-L`: the directories above (inode, shown name), to stop at a loop.
    ancestors: Vec<(u64, String)>,
}

impl Entry {
    fn meta(&self) -> Option<&FileInfo> {
        self.meta
            .get_or_init(|| shell_base::dir::info(&self.path, false))
            .as_ref()
    }

    fn file_type(&self) -> Option<Kind> {
        self.kind.or_else(|| self.meta().map(FileInfo::kind))
    }

    fn is_dir(&self) -> bool {
        self.file_type().is_some_and(|t| t.is_dir())
    }
}

/// What evaluating the expression asks for besides its truth.
#[derive(Default)]
struct Effects {
    prune: bool,
}

struct Finder<'o> {
    out: &'o mut Writer,
    batches: Vec<(Vec<String>, Vec<String>)>,
    status: i32,
}

/// `-type`'s letter for an entry: from the listing, or the inode's mode where the listing
/// does not tell.
fn type_char(sh: &dyn Context, entry: &Entry) -> Option<char> {
    Some(match entry.file_type()? {
        Kind::Symlink => 'l',
        Kind::Dir => 'd',
        Kind::File => 'f',
        Kind::Fifo => 'p',
        Kind::CharDevice => 'c',
        Kind::BlockDevice => 'b',
        Kind::Socket => 's',
        Kind::Other => {
            let path = entry.path.to_string_lossy();
            match sh.host().stat(&path, false).ok()?.mode & 0o170000 {
                0o010000 => 'p',
                0o020000 => 'c',
                0o060000 => 'b',
                0o140000 => 's',
                _ => 'f',
            }
        }
    })
}

impl Finder<'_> {
    fn eval<'s>(
        &'s mut self,
        sh: &'s mut dyn Context,
        e: &'s Expr,
        entry: &'s Entry,
        fx: &'s mut Effects,
    ) -> shell_base::runtime::Task<'s, Result<bool, Stop>> {
        Box::pin(async move {
            let name = || {
                entry
                    .shown
                    .rsplit('/')
                    .next()
                    .unwrap_or(&entry.shown)
                    .to_string()
            };
            let glob = |p: &str, text: &str, nocase: bool| {
                Pattern::new(
                    p,
                    MatchOptions {
                        extglob: false,
                        nocase,
                    },
                )
                .matches(text)
            };
            Ok(match e {
                Expr::And(a, b) => {
                    self.eval(sh, a, entry, fx).await? && self.eval(sh, b, entry, fx).await?
                }
                Expr::Or(a, b) => {
                    self.eval(sh, a, entry, fx).await? || self.eval(sh, b, entry, fx).await?
                }
                Expr::Not(a) => !self.eval(sh, a, entry, fx).await?,
                Expr::Name(p, nocase) => glob(p, &name(), *nocase),
                Expr::PathMatch(p, nocase) => glob(p, &entry.shown, *nocase),
                Expr::Regex(re) => re.is_match(&entry.shown),
                Expr::Type(t) => type_char(sh, entry) == Some(*t),
                Expr::Size(ord, n, unit) => entry.meta().is_some_and(|m| {
                    // Directories take a block, as on ext4 (and as `ls -l` shows them).
                    let units = crate::fileinfo::apparent_size(m).div_ceil(*unit);
                    units.cmp(n) == *ord
                }),
                Expr::Mtime(ord, days) => entry.meta().is_some_and(|m| {
                    let now = SystemTime::now()
                        .duration_since(SystemTime::UNIX_EPOCH)
                        .map_or(0, |d| d.as_secs() as i64);
                    // A time in the future is no age.
                    let age = (now - m.mtime.div_euclid(1_000_000_000)).max(0) / 86400;
                    age.cmp(days) == *ord
                }),
                Expr::Newer(t) => entry.meta().is_some_and(|m| m.mtime > *t),
                Expr::Empty => entry.meta().is_some_and(|m| {
                    if m.kind().is_dir() {
                        shell_base::dir::list(&entry.path).is_ok_and(|d| d.is_empty())
                    } else {
                        m.size == 0
                    }
                }),
                Expr::True => true,
                Expr::False => false,
                Expr::Print => {
                    self.out.write_str(&format!("{}\n", entry.shown)).await?;
                    true
                }
                Expr::Print0 => {
                    self.out.write_str(&format!("{}\0", entry.shown)).await?;
                    true
                }
                Expr::Prune => {
                    fx.prune = true;
                    true
                }
                Expr::Delete => {
                    let r = if entry.is_dir() {
                        std::fs::remove_dir(&entry.path)
                    } else {
                        std::fs::remove_file(&entry.path)
                    };
                    match r {
                        Ok(()) => true,
                        Err(err) => {
                            self.out.flush().await?;
                            self.status = complain(
                                sh,
                                &format!(
                                    "find: cannot delete '{}': {}",
                                    entry.shown,
                                    shell_base::errno::io_message(&err)
                                ),
                            )
                            .await;
                            false
                        }
                    }
                }
                Expr::Exec(cmd, batch) => {
                    if *batch {
                        let key = cmd.clone();
                        match self.batches.iter_mut().find(|(c, _)| *c == key) {
                            Some((_, items)) => items.push(entry.shown.clone()),
                            None => self.batches.push((key, vec![entry.shown.clone()])),
                        }
                        true
                    } else {
                        let argv: Vec<String> =
                            cmd.iter().map(|a| a.replace("{}", &entry.shown)).collect();
                        self.out.flush().await?;
                        sh.run(argv).await == 0
                    }
                }
            })
        })
    }
}

/// `find [PATH...] [EXPRESSION]`.
pub async fn find(sh: &mut dyn Context, argv: &[String]) -> i32 {
    // `-P` (the default) never follows symbolic links, `-L` always, `-H` for the start points.
    let mut follow = Follow::Never;
    let mut args = &argv[1..];
    while let Some(first) = args.first() {
        match first.as_str() {
            "-P" => follow = Follow::Never,
            "-L" => follow = Follow::Always,
            "-H" => follow = Follow::Starts,
            _ => break,
        }
        args = &args[1..];
    }
    let first_expr = args
        .iter()
        .position(|a| a.starts_with('-') || a == "(" || a == "!")
        .unwrap_or(args.len());
    let starts: Vec<String> = if first_expr == 0 {
        vec![".".into()]
    } else {
        args[..first_expr].to_vec()
    };
    let mut p = Parser {
        args: &args[first_expr..],
        i: 0,
        has_action: false,
        maxdepth: None,
        mindepth: 0,
        depth_first: false,
        follow: false,
        cwd: sh.path("."),
    };
    let expr = if p.args.is_empty() {
        Expr::True
    } else {
        match p.or() {
            Ok(e) if p.i == p.args.len() => e,
            Ok(_) => {
                return complain(
                    sh,
                    &format!("find: paths must precede expression: `{}'", p.args[p.i]),
                )
                .await;
            }
            Err(m) => return complain(sh, &format!("find: {m}")).await,
        }
    };
    let expr = if p.has_action {
        expr
    } else {
        Expr::And(Box::new(expr), Box::new(Expr::Print))
    };
    let (maxdepth, mindepth, depth_first) = (p.maxdepth, p.mindepth, p.depth_first);
    let with_info = expr.reads_inodes();
    if p.follow {
        follow = Follow::Always;
    }
    let mut out = Writer::new(&sh.io().stdout);
    let mut finder = Finder {
        out: &mut out,
        batches: Vec::new(),
        status: 0,
    };
    for start in &starts {
        let path = sh.path(start);
        let meta = follow.metadata(&path, true);
        if meta.is_none() {
            if let Err(Stop(s)) = finder.out.flush().await {
                return s;
            }
            finder.status =
                complain(sh, &format!("find: '{start}': No such file or directory")).await;
            continue;
        }
        let mut stack: Vec<(Entry, usize, bool)> = vec![(
            Entry {
                shown: start.clone(),
                path,
                kind: meta.as_ref().map(FileInfo::kind),
                meta: std::cell::OnceCell::from(meta),
                ancestors: Vec::new(),
            },
            0,
            false,
        )];
        while let Some((entry, depth, visited)) = stack.pop() {
            let is_dir = entry.is_dir();
            if is_dir && let Some(seen) = follow.loop_at(&entry) {
                finder.status = complain(
                    sh,
                    &format!(
                        "find: File system loop detected; '{}' is part of the same file \
                         system loop as '{seen}'.",
                        entry.shown
                    ),
                )
                .await;
                continue;
            }
            let descend = is_dir && maxdepth.is_none_or(|m| depth < m);
            if depth_first && descend && !visited {
                // Children first; the directory itself after them.
                let children = children(&entry, depth, follow, with_info);
                stack.push((entry, depth, true));
                stack.extend(children.into_iter().rev());
                continue;
            }
            let mut fx = Effects::default();
            if depth >= mindepth {
                match finder.eval(sh, &expr, &entry, &mut fx).await {
                    Ok(_) => {}
                    Err(Stop(s)) => return s,
                }
            }
            if descend && !depth_first && !fx.prune {
                stack.extend(children(&entry, depth, follow, with_info).into_iter().rev());
            }
        }
    }
    let batches = std::mem::take(&mut finder.batches);
    let status = finder.status;
    if let Err(Stop(s)) = out.flush().await {
        return s;
    }
    let mut status = status;
    for (cmd, items) in batches {
        let mut argv: Vec<String> = cmd[..cmd.len() - 1].to_vec();
        argv.extend(items);
        if sh.run(argv).await != 0 {
            status = 1;
        }
    }
    status
}

/// Which symbolic links `find` follows.
#[derive(Clone, Copy, PartialEq)]
enum Follow {
    Never,
    Starts,
    Always,
}

impl Follow {
    /// The metadata `find` sees for `path` (a broken link stays a link).
    fn metadata(self, path: &std::path::Path, start: bool) -> Option<FileInfo> {
        let follows = self == Follow::Always || (start && self == Follow::Starts);
        match shell_base::dir::info(path, false)? {
            i if follows && i.kind().is_symlink() => shell_base::dir::info(path, true).or(Some(i)),
            i => Some(i),
        }
    }

    /// When following links: the ancestor that `entry` (a directory) is again, if any.
    fn loop_at(self, entry: &Entry) -> Option<String> {
        if self != Follow::Always {
            return None;
        }
        let ino = inode(&entry.path)?;
        entry
            .ancestors
            .iter()
            .find(|(i, _)| *i == ino)
            .map(|(_, shown)| shown.clone())
    }
}

fn inode(path: &std::path::Path) -> Option<u64> {
    shell_base::host::current()
        .stat(&path.to_string_lossy(), true)
        .ok()
        .map(|i| i.ino)
}

/// The entries of directory `entry`, with their inodes when `with_info` (the expression
/// reads them: one host call for the directory).
fn children(
    entry: &Entry,
    depth: usize,
    follow: Follow,
    with_info: bool,
) -> Vec<(Entry, usize, bool)> {
    let listed: Vec<(String, Kind, Option<FileInfo>)> = if with_info {
        let Ok(listed) = shell_base::dir::list_info(&entry.path) else {
            return Vec::new();
        };
        listed
            .into_iter()
            .map(|(name, info)| (name, info.kind(), Some(info)))
            .collect()
    } else {
        let Ok(listed) = shell_base::dir::list(&entry.path) else {
            return Vec::new();
        };
        listed.into_iter().map(|e| (e.name, e.kind, None)).collect()
    };
    let mut ancestors = entry.ancestors.clone();
    if follow == Follow::Always
        && let Some(ino) = inode(&entry.path)
    {
        ancestors.push((ino, entry.shown.clone()));
    }
    listed
        .into_iter()
        .map(|(n, kind, info)| {
            let path = entry.path.join(&n);
            let shown = if entry.shown.ends_with('/') {
                format!("{}{n}", entry.shown)
            } else {
                format!("{}/{n}", entry.shown)
            };
            let (kind, meta) = match kind {
                Kind::Symlink if follow == Follow::Always => {
                    let meta = follow.metadata(&path, false);
                    (meta.as_ref().map(FileInfo::kind), meta.into())
                }
                _ => (
                    Some(kind),
                    info.map_or_else(std::cell::OnceCell::new, |i| Some(i).into()),
                ),
            };
            let entry = Entry {
                shown,
                path,
                kind,
                meta,
                ancestors: ancestors.clone(),
            };
            (entry, depth + 1, false)
        })
        .collect()
}

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::Native;

    #[test]
    fn names_types_and_exec() {
        let mut ctx = Native::new();
        ctx.write("t/a.rs", "")
            .write("t/b.txt", "")
            .write("t/s/c.rs", "");
        let ran = ctx.run(&["find", "t", "-name", "*.rs"], "");
        assert_eq!(ran.stdout, "t/a.rs\nt/s/c.rs\n");
        assert_eq!(ctx.run(&["find", "t", "-type", "d"], "").stdout, "t\nt/s\n");
        let ran = ctx.run(
            &["find", "t", "-name", "b.*", "-exec", "basename", "{}", ";"],
            "",
        );
        assert_eq!(ran.stdout, "b.txt\n");
    }
}
