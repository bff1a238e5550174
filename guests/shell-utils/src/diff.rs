//! `diff [-u|-U N] [-q] [-s] [-r] [-N] [-a] [-i -b -w -B] FILE1 FILE2`: GNU diff's normal and
//! unified formats over the `similar` crate's Myers diff; status 0 same, 1 different, 2
//! trouble. `-i -b -w -B` decide whether files count as the same; when they differ anyway,
//! the diff shown is of the files as they are.

use shell_base::args::{bad_usage, number, parser, string, value};
use similar::{DiffOp, TextDiff};

use super::stream::{Stop, Writer, complain};
use lexopt::prelude::*;
use shell_base::Context;
use shell_base::errno::io_message;

struct Options {
    unified: Option<usize>,
    brief: bool,
    recursive: bool,
    new_file: bool,
    /// `-s`: say when two files are the same.
    report_same: bool,
    /// `-i`, `-b`, `-w`, `-B`: what does not count as a difference.
    ignore_case: bool,
    ignore_space_change: bool,
    ignore_all_space: bool,
    ignore_blank_lines: bool,
    /// The options as given (` -ru`), repeated in the `diff` lines of a recursive diff.
    given: String,
}

impl Options {
    fn ignores(&self) -> bool {
        self.ignore_case
            || self.ignore_space_change
            || self.ignore_all_space
            || self.ignore_blank_lines
    }

    /// The text as these options compare it.
    fn normalized(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        for line in text.lines() {
            let mut l = if self.ignore_all_space {
                line.chars().filter(|c| !c.is_whitespace()).collect()
            } else if self.ignore_space_change {
                line.split_whitespace().collect::<Vec<_>>().join(" ")
            } else {
                line.to_string()
            };
            if self.ignore_case {
                l = l.to_lowercase();
            }
            if self.ignore_blank_lines && l.trim().is_empty() {
                continue;
            }
            out.push_str(&l);
            out.push('\n');
        }
        out
    }
}

/// `a`, or `a,b` for a range of lines (1-based, inclusive).
fn range(start: usize, len: usize) -> String {
    if len <= 1 {
        format!("{}", start + len.min(1))
    } else {
        format!("{},{}", start + 1, start + len)
    }
}

fn lines_of(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

fn push_lines(out: &mut String, prefix: &str, lines: &[&str]) {
    for l in lines {
        out.push_str(prefix);
        out.push_str(l);
        if !l.ends_with('\n') {
            out.push_str("\n\\ No newline at end of file\n");
        }
    }
}

/// GNU's normal format.
fn normal(a: &str, b: &str) -> String {
    let diff = TextDiff::from_lines(a, b);
    let (old, new) = (lines_of(a), lines_of(b));
    let mut out = String::new();
    let ops = diff.ops().to_vec();
    let mut i = 0;
    while i < ops.len() {
        match ops[i] {
            DiffOp::Equal { .. } => {}
            DiffOp::Delete {
                old_index,
                old_len,
                new_index,
            } => {
                // A delete followed by an insert at the same place is a change.
                if let Some(DiffOp::Insert { new_len, .. }) = ops.get(i + 1) {
                    out.push_str(&format!(
                        "{}c{}\n",
                        range(old_index, old_len),
                        range(new_index, *new_len)
                    ));
                    push_lines(&mut out, "< ", &old[old_index..old_index + old_len]);
                    out.push_str("---\n");
                    push_lines(&mut out, "> ", &new[new_index..new_index + new_len]);
                    i += 2;
                    continue;
                }
                out.push_str(&format!("{}d{}\n", range(old_index, old_len), new_index));
                push_lines(&mut out, "< ", &old[old_index..old_index + old_len]);
            }
            DiffOp::Insert {
                old_index,
                new_index,
                new_len,
            } => {
                out.push_str(&format!("{}a{}\n", old_index, range(new_index, new_len)));
                push_lines(&mut out, "> ", &new[new_index..new_index + new_len]);
            }
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => {
                out.push_str(&format!(
                    "{}c{}\n",
                    range(old_index, old_len),
                    range(new_index, new_len)
                ));
                push_lines(&mut out, "< ", &old[old_index..old_index + old_len]);
                out.push_str("---\n");
                push_lines(&mut out, "> ", &new[new_index..new_index + new_len]);
            }
        }
        i += 1;
    }
    out
}

/// `--- NAME\tTIME` as GNU writes it.
fn header(sh: &dyn Context, mark: &str, name: &str) -> String {
    let time = std::fs::metadata(sh.path(name))
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .unwrap_or_default();
    let secs = time.as_secs() as i64;
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = super::date::civil(days);
    format!(
        "{mark} {name}\t{y}-{m:02}-{d:02} {:02}:{:02}:{:02}.{:09} +0000\n",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        time.subsec_nanos()
    )
}

fn unified(
    sh: &dyn Context,
    a: &str,
    b: &str,
    name_a: &str,
    name_b: &str,
    context: usize,
) -> String {
    let diff = TextDiff::from_lines(a, b);
    let mut out = header(sh, "---", name_a) + &header(sh, "+++", name_b);
    for hunk in diff.unified_diff().context_radius(context).iter_hunks() {
        let text = hunk.to_string();
        for line in text.split_inclusive('\n') {
            out.push_str(line);
        }
        if !text.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

/// Compares two files; the status (0 same, 1 different).
async fn files(
    sh: &mut dyn Context,
    o: &Options,
    a: &str,
    b: &str,
    out: &mut Writer,
    label: Option<String>,
) -> Result<i32, Stop> {
    // `-` is standard input (read once, whichever side names it).
    let stdin = if a == "-" || b == "-" {
        super::stream::read_all_limited(&sh.io().stdin, super::stream::MEMORY_LIMIT, "diff")
            .await
            .unwrap_or_default()
    } else {
        Vec::new()
    };
    let read = |p: &str| -> Result<Vec<u8>, String> {
        if p == "-" {
            return Ok(stdin.clone());
        }
        match std::fs::read(sh.path(p)) {
            Ok(d) => Ok(d),
            Err(_) if o.new_file && !sh.path(p).exists() => Ok(Vec::new()),
            Err(e) => Err(format!("diff: {p}: {}", io_message(&e))),
        }
    };
    let (da, db) = match (read(a), read(b)) {
        (Ok(x), Ok(y)) => (x, y),
        (Err(m), _) | (_, Err(m)) => {
            out.flush().await?;
            complain(sh, &m).await;
            return Ok(2);
        }
    };
    let same = da == db
        || (o.ignores()
            && o.normalized(&String::from_utf8_lossy(&da))
                == o.normalized(&String::from_utf8_lossy(&db)));
    if same {
        if o.report_same {
            out.write_str(&format!("Files {a} and {b} are identical\n"))
                .await?;
        }
        return Ok(0);
    }
    if let Some(l) = label {
        out.write_str(&l).await?;
    }
    if o.brief {
        out.write_str(&format!("Files {a} and {b} differ\n"))
            .await?;
        return Ok(1);
    }
    if da.contains(&0) || db.contains(&0) {
        out.write_str(&format!("Binary files {a} and {b} differ\n"))
            .await?;
        return Ok(1);
    }
    let (ta, tb) = (String::from_utf8_lossy(&da), String::from_utf8_lossy(&db));
    let text = match o.unified {
        Some(n) => unified(sh, &ta, &tb, a, b, n),
        None => normal(&ta, &tb),
    };
    out.write_str(&text).await?;
    Ok(1)
}

fn names(sh: &dyn Context, dir: &str) -> Vec<String> {
    super::stream::sorted_names(&sh.path(dir)).unwrap_or_default()
}

/// Compares two directories, recursively with `-r`.
fn dirs<'a>(
    sh: &'a mut dyn Context,
    o: &'a Options,
    a: &'a str,
    b: &'a str,
    out: &'a mut Writer,
) -> shell_base::runtime::Task<'a, Result<i32, Stop>> {
    Box::pin(async move {
        let (na, nb) = (names(sh, a), names(sh, b));
        let mut all: Vec<String> = na.iter().chain(nb.iter()).cloned().collect();
        all.sort();
        all.dedup();
        let mut status = 0;
        for n in all {
            let (pa, pb) = (format!("{a}/{n}"), format!("{b}/{n}"));
            let (ina, inb) = (na.contains(&n), nb.contains(&n));
            if !(o.new_file || ina && inb) {
                let dir = if ina { a } else { b };
                out.write_str(&format!("Only in {dir}: {n}\n")).await?;
                status = 1;
                continue;
            }
            let (da, db) = (sh.path(&pa).is_dir(), sh.path(&pb).is_dir());
            let s = if da && db {
                if o.recursive {
                    dirs(sh, o, &pa, &pb, out).await?
                } else {
                    out.write_str(&format!("Common subdirectories: {pa} and {pb}\n"))
                        .await?;
                    0
                }
            } else if da != db {
                let (kind_a, kind_b) = (
                    if da { "directory" } else { "regular file" },
                    if db { "directory" } else { "regular file" },
                );
                out.write_str(&format!(
                    "File {pa} is a {kind_a} while file {pb} is a {kind_b}\n"
                ))
                .await?;
                1
            } else {
                let label = (!o.brief).then(|| format!("diff{} {pa} {pb}\n", o.given));
                files(sh, o, &pa, &pb, out, label).await?
            };
            status = status.max(s);
        }
        Ok(status)
    })
}

/// `diff [OPTIONS] FILE1 FILE2`.
pub async fn diff(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let mut o = Options {
        unified: None,
        brief: false,
        recursive: false,
        new_file: false,
        report_same: false,
        ignore_case: false,
        ignore_space_change: false,
        ignore_all_space: false,
        ignore_blank_lines: false,
        given: String::new(),
    };
    let mut operands = Vec::new();
    // The options as given, for the `diff -r` headers (`diff -u a/f b/f`).
    for (k, a) in argv
        .iter()
        .enumerate()
        .skip(1)
        .take_while(|(_, a)| *a != "--")
    {
        if a.starts_with('-') && a.len() > 1 {
            o.given.push(' ');
            o.given.push_str(a);
            if a == "-U" {
                o.given.push(' ');
                o.given.push_str(argv.get(k + 1).map_or("", String::as_str));
            }
        }
    }
    let mut p = parser(argv);
    let parsed: Result<(), lexopt::Error> = (|| {
        while let Some(arg) = p.next()? {
            match arg {
                Short('u') => o.unified = Some(3),
                Short('U') | Long("unified") => {
                    o.unified = Some(number(&value(&mut p)?, "context length")?)
                }
                Short('q') | Long("brief") => o.brief = true,
                Short('r') | Long("recursive") => o.recursive = true,
                Short('N') | Long("new-file") => o.new_file = true,
                Short('a') | Long("text") => {}
                Short('s') | Long("report-identical-files") => o.report_same = true,
                Short('i') | Long("ignore-case") => o.ignore_case = true,
                Short('b') | Long("ignore-space-change") => o.ignore_space_change = true,
                Short('w') | Long("ignore-all-space") => o.ignore_all_space = true,
                Short('B') | Long("ignore-blank-lines") => o.ignore_blank_lines = true,
                Value(v) => operands.push(string(v)),
                _ => return Err(arg.unexpected()),
            }
        }
        Ok(())
    })();
    if let Err(e) = parsed {
        return bad_usage(sh, "diff", e, 2).await;
    }
    if operands.len() != 2 {
        let msg = match operands.len() {
            0 => "diff: missing operand after 'diff'".to_string(),
            1 => format!("diff: missing operand after '{}'", operands[0]),
            _ => format!("diff: extra operand '{}'", operands[2]),
        };
        complain(
            sh,
            &format!("{msg}\ndiff: Try 'diff --help' for more information."),
        )
        .await;
        return 2;
    }
    let (a, b) = (operands[0].clone(), operands[1].clone());
    let (da, db) = (sh.path(&a).is_dir(), sh.path(&b).is_dir());
    let mut out = Writer::new(&sh.io().stdout);
    let result = if da && db {
        dirs(sh, &o, &a, &b, &mut out).await
    } else if da || db {
        // A file against a directory: the file of the same name inside it.
        let (fa, fb) = if da {
            (
                format!("{a}/{}", b.rsplit('/').next().unwrap_or(&b)),
                b.clone(),
            )
        } else {
            (
                a.clone(),
                format!("{b}/{}", a.rsplit('/').next().unwrap_or(&a)),
            )
        };
        files(sh, &o, &fa, &fb, &mut out, None).await
    } else {
        files(sh, &o, &a, &b, &mut out, None).await
    };
    match result {
        Ok(s) => match out.flush().await {
            Ok(()) => s,
            Err(Stop(x)) => x,
        },
        Err(Stop(x)) => x,
    }
}

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::Native;

    #[test]
    fn unified_diff_and_status() {
        let mut ctx = Native::new();
        ctx.write("a", "1\n2\n").write("b", "1\n3\n");
        let ran = ctx.run(&["diff", "a", "b"], "");
        assert_eq!(
            (ran.status, ran.stdout.as_str()),
            (1, "2c2\n< 2\n---\n> 3\n")
        );
        assert_eq!(ctx.run(&["diff", "a", "a"], "").status, 0);
    }
}
