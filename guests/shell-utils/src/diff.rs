//! `diff [-u|-U N] [-q] [-s] [-r] [-N] [-a] [-i -b -w -B] FILE1 FILE2`: GNU diff's normal and
//! unified formats over `imara-diff`'s Myers diff; status 0 same, 1 different, 2
//! trouble. `-i -b -w -B` decide whether files count as the same; when they differ anyway,
//! the diff shown is of the files as they are.

use imara_diff::{Algorithm, Diff, InternedInput};
use shell_base::args::{bad_usage, number, parser, string, value};
use std::ops::Range;

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

/// A change: lines `old` of the first file are lines `new` of the second (0-based,
/// half-open).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Change {
    pub old: Range<usize>,
    pub new: Range<usize>,
}

/// The changes from `old` to `new`, line by line: imara-diff's Myers (ported from GNU diff
/// and git), each run of changes slid as far down as it goes, where GNU diff puts it. On
/// inputs where several diffs are equally short, GNU's choice can still differ.
pub(crate) fn changes(old: &[&[u8]], new: &[&[u8]]) -> Vec<Change> {
    let mut input = InternedInput::default();
    input.update_before(old.iter().copied());
    input.update_after(new.iter().copied());
    let mut diff = Diff::compute(Algorithm::Myers, &input);
    diff.postprocess_no_heuristic(&input);
    diff.hunks()
        .map(|h| Change {
            old: h.before.start as usize..h.before.end as usize,
            new: h.after.start as usize..h.after.end as usize,
        })
        .collect()
}

/// `text` as lines, each with its newline.
pub(crate) fn lines_of(text: &[u8]) -> Vec<&[u8]> {
    text.split_inclusive(|&b| b == b'\n').collect()
}

/// `a`, or `a,b` for a range of lines (1-based, inclusive); an empty range is the line
/// before it.
fn range(r: &Range<usize>) -> String {
    match r.len() {
        0 => r.start.to_string(),
        1 => r.end.to_string(),
        _ => format!("{},{}", r.start + 1, r.end),
    }
}

/// `lines`, each after `prefix`, with GNU's note after a last line without a newline.
fn push_lines(out: &mut Vec<u8>, prefix: &str, lines: &[&[u8]]) {
    for l in lines {
        out.extend_from_slice(prefix.as_bytes());
        out.extend_from_slice(l);
        if !l.ends_with(b"\n") {
            out.extend_from_slice(b"\n\\ No newline at end of file\n");
        }
    }
}

/// GNU's normal format.
fn normal(a: &[u8], b: &[u8]) -> Vec<u8> {
    let (old, new) = (lines_of(a), lines_of(b));
    let mut out = Vec::new();
    for c in changes(&old, &new) {
        let kind = match (c.old.is_empty(), c.new.is_empty()) {
            (true, _) => 'a',
            (_, true) => 'd',
            _ => 'c',
        };
        out.extend_from_slice(format!("{}{kind}{}\n", range(&c.old), range(&c.new)).as_bytes());
        push_lines(&mut out, "< ", &old[c.old.clone()]);
        if kind == 'c' {
            out.extend_from_slice(b"---\n");
        }
        push_lines(&mut out, "> ", &new[c.new.clone()]);
    }
    out
}

/// A unified hunk's range: `START,LEN`, `START` alone when it is one line, and the line
/// before it when it is empty.
fn unified_range(r: &Range<usize>) -> String {
    match r.len() {
        0 => format!("{},0", r.start),
        1 => r.end.to_string(),
        n => format!("{},{n}", r.start + 1),
    }
}

/// The unified format's hunks: changes closer than twice `context` lines share one.
fn unified_hunks(old: &[&[u8]], new: &[&[u8]], context: usize) -> Vec<u8> {
    let mut out = Vec::new();
    let all = changes(old, new);
    let mut i = 0;
    while i < all.len() {
        let mut j = i + 1;
        while j < all.len() && all[j].old.start - all[j - 1].old.end <= 2 * context {
            j += 1;
        }
        let (first, last) = (&all[i], &all[j - 1]);
        let before = first.old.start.min(context);
        let after = (old.len() - last.old.end).min(context);
        let span_old = first.old.start - before..last.old.end + after;
        let span_new = first.new.start - before..last.new.end + after;
        out.extend_from_slice(
            format!(
                "@@ -{} +{} @@\n",
                unified_range(&span_old),
                unified_range(&span_new)
            )
            .as_bytes(),
        );
        let mut at = span_old.start;
        for c in &all[i..j] {
            push_lines(&mut out, " ", &old[at..c.old.start]);
            push_lines(&mut out, "-", &old[c.old.clone()]);
            push_lines(&mut out, "+", &new[c.new.clone()]);
            at = c.old.end;
        }
        push_lines(&mut out, " ", &old[at..span_old.end]);
        i = j;
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

fn unified(sh: &dyn Context, a: &[u8], b: &[u8], names: (&str, &str), context: usize) -> Vec<u8> {
    let mut out = (header(sh, "---", names.0) + &header(sh, "+++", names.1)).into_bytes();
    out.extend(unified_hunks(&lines_of(a), &lines_of(b), context));
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
    let text = match o.unified {
        Some(n) => unified(sh, &da, &db, (a, b), n),
        None => normal(&da, &db),
    };
    out.write(&text).await?;
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
