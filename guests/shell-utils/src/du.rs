//! `du`: what files take, counted as ext4 would (see `fileinfo::disk_kib`).

use super::stream::{Stop, Writer, complain};
use crate::fileinfo::{apparent_size, disk_kib, human_size, info};
use shell_base::args::{bad_usage, parser};
use shell_base::dir::FileInfo;
use std::collections::HashSet;
use std::path::Path;

use shell_base::Context;
use shell_base::errno::io_message;
use shell_base::pattern::{MatchOptions, Pattern};

/// How `du` shows a size.
#[derive(Clone, Copy, PartialEq)]
enum Unit {
    /// 1 KiB blocks (`-k`, the default), or `-m`'s MiB: rounded up.
    Blocks(u64),
    /// `-h`.
    Human,
}

struct Options {
    all: bool,
    summarize: bool,
    total: bool,
    apparent: bool,
    unit: Unit,
    max_depth: Option<usize>,
    count_links: bool,
    follow: bool,
    /// `-H`/`-D`: symbolic links given as operands are followed.
    follow_operands: bool,
    null: bool,
    exclude: Vec<Pattern>,
}

/// `du [-achksmbLl0] [-d N] [--apparent-size] [--exclude=PATTERN] [FILE...]`.
pub async fn du(sh: &mut dyn Context, argv: &[String]) -> i32 {
    use lexopt::prelude::*;
    let mut o = Options {
        all: false,
        summarize: false,
        total: false,
        apparent: false,
        unit: Unit::Blocks(1024),
        max_depth: None,
        count_links: false,
        follow: false,
        follow_operands: false,
        null: false,
        exclude: Vec::new(),
    };
    let mut operands = Vec::new();
    let mut p = parser(argv);
    loop {
        let arg = match p.next() {
            Ok(Some(a)) => a,
            Ok(None) => break,
            Err(e) => return bad_usage(sh, "du", e, 1).await,
        };
        match arg {
            Short('a') | Long("all") => o.all = true,
            Short('s') | Long("summarize") => o.summarize = true,
            Short('c') | Long("total") => o.total = true,
            Short('h') | Long("human-readable") => o.unit = Unit::Human,
            Short('k') => o.unit = Unit::Blocks(1024),
            Short('m') => o.unit = Unit::Blocks(1 << 20),
            Short('b') | Long("bytes") => {
                o.apparent = true;
                o.unit = Unit::Blocks(1);
            }
            Long("apparent-size") | Short('A') => o.apparent = true,
            Short('l') | Long("count-links") => o.count_links = true,
            Short('L') | Long("dereference") => o.follow = true,
            Short('P') | Long("no-dereference") => o.follow = false,
            Short('H') | Short('D') | Long("dereference-args") => o.follow_operands = true,
            Short('0') | Long("null") => o.null = true,
            Short('x') | Long("one-file-system") | Short('S') | Long("separate-dirs") => {}
            Short('d') | Long("max-depth") => {
                let v = match p.value() {
                    Ok(v) => v.to_string_lossy().into_owned(),
                    Err(e) => return bad_usage(sh, "du", e, 1).await,
                };
                match v.parse() {
                    Ok(n) => o.max_depth = Some(n),
                    Err(_) => {
                        return complain(
                            sh,
                            &format!(
                                "du: invalid maximum depth '{v}'\nTry 'du --help' for more \
                                 information."
                            ),
                        )
                        .await;
                    }
                }
            }
            Long("exclude") => match p.value() {
                Ok(v) => o
                    .exclude
                    .push(Pattern::new(&v.to_string_lossy(), MatchOptions::default())),
                Err(e) => return bad_usage(sh, "du", e, 1).await,
            },
            Value(v) => operands.push(v.to_string_lossy().into_owned()),
            other => return bad_usage(sh, "du", other.unexpected(), 1).await,
        }
    }
    if o.summarize && o.all {
        return complain(
            sh,
            "du: cannot both summarize and show all entries\nTry 'du --help' for more \
             information.",
        )
        .await;
    }
    if o.summarize {
        if o.max_depth.is_some_and(|d| d > 0) {
            let d = o.max_depth.unwrap_or(0);
            return complain(
                sh,
                &format!(
                    "du: warning: summarizing conflicts with --max-depth={d}\nTry 'du --help' \
                     for more information."
                ),
            )
            .await;
        }
        o.max_depth = Some(0);
    }
    if operands.is_empty() {
        operands.push(".".into());
    }
    let mut walk = Walk {
        o: &o,
        out: Writer::new(&sh.io().stdout),
        seen: HashSet::new(),
        errors: Vec::new(),
    };
    let mut grand = 0;
    let mut status = 0;
    for operand in &operands {
        let path = sh.path(operand);
        match walk.visit(&path, operand, 0, true, None).await {
            Ok(Some(n)) => grand += n,
            Ok(None) => {}
            Err(Stop(s)) => return s,
        }
        for e in std::mem::take(&mut walk.errors) {
            if let Err(Stop(s)) = walk.out.flush().await {
                return s;
            }
            status = complain(sh, &format!("du: {e}")).await;
        }
    }
    if o.total
        && let Err(Stop(s)) = walk.line(grand, "total").await
    {
        return s;
    }
    match walk.out.flush().await {
        Ok(()) => status,
        Err(Stop(s)) => s,
    }
}

struct Walk<'o> {
    o: &'o Options,
    out: Writer,
    /// Inodes already counted that must not count again (with several links, or any with
    /// `-L`), as in GNU du.
    seen: HashSet<u64>,
    /// Messages to print (after what was written so far).
    errors: Vec<String>,
}

impl Walk<'_> {
    /// Counts `path` (and below), printing what the options ask for; its size in bytes, or
    /// nothing when it could not be read or was counted already.
    async fn visit(
        &mut self,
        path: &Path,
        shown: &str,
        depth: usize,
        operand: bool,
        listed: Option<FileInfo>,
    ) -> Result<Option<u64>, Stop> {
        let follow = self.o.follow || (operand && self.o.follow_operands);
        // The listing's inode serves unless a link is to be followed.
        let listed = listed.filter(|i| !follow || !i.kind().is_symlink());
        let i = match listed.map_or_else(|| info(path, follow), Ok) {
            Ok(i) => i,
            Err(e) => {
                self.errors
                    .push(format!("cannot access '{shown}': {}", io_message(&e)));
                return Ok(None);
            }
        };
        // Following every link, GNU du counts each inode once, directories too: a link
        // leads to what is counted elsewhere.
        if !self.o.count_links
            && (self.o.follow || (i.nlink > 1 && i.mode & 0o170000 != 0o040000))
            && !self.seen.insert(i.ino)
        {
            return Ok(None);
        }
        let own = if self.o.apparent {
            apparent_size(&i)
        } else {
            disk_kib(&i) * 1024
        };
        let is_dir = i.mode & 0o170000 == 0o040000;
        let mut size = own;
        if is_dir {
            let entries = match shell_base::dir::list_info(path) {
                Ok(entries) => entries,
                Err(e) => {
                    self.errors.push(format!(
                        "cannot read directory '{shown}': {}",
                        io_message(&e)
                    ));
                    Vec::new()
                }
            };
            for (name, info) in entries {
                if self.o.exclude.iter().any(|p| p.matches(&name)) {
                    continue;
                }
                let child = if shown.ends_with('/') {
                    format!("{shown}{name}")
                } else {
                    format!("{shown}/{name}")
                };
                let child_path = path.join(&name);
                let sub = Box::pin(self.visit(&child_path, &child, depth + 1, false, Some(info)));
                if let Some(n) = sub.await? {
                    size += n;
                }
            }
        }
        let shown_here = self.o.max_depth.is_none_or(|d| depth <= d);
        if shown_here && (is_dir || self.o.all || operand) {
            self.line(size, shown).await?;
        }
        Ok(Some(size))
    }

    async fn line(&mut self, bytes: u64, name: &str) -> Result<(), Stop> {
        let size = match self.o.unit {
            Unit::Human => human_size(bytes),
            Unit::Blocks(b) => bytes.div_ceil(b).to_string(),
        };
        let end = if self.o.null { '\0' } else { '\n' };
        self.out.write_str(&format!("{size}\t{name}{end}")).await
    }
}

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::Native;

    #[test]
    fn apparent_sizes_in_bytes() {
        let mut ctx = Native::new();
        ctx.write("d/f", "12345");
        assert_eq!(ctx.run(&["du", "-b", "d/f"], "").stdout, "5\td/f\n");
    }
}
