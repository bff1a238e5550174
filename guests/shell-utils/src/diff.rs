//! `diff [-u|-U N|-c|-C N] [-q] [-s] [-r] [-N] [-a] [-i -b -w -B] FILE1 FILE2`: GNU diff's
//! normal, unified and context formats over `imara-diff`'s Myers diff; status 0 same, 1 different, 2
//! trouble. `-i -b -w -B` decide whether files count as the same; when they differ anyway,
//! the diff shown is of the files as they are.

use imara_diff::{Algorithm, Diff, InternedInput};
use shell_base::args::{diffutils_bad_usage, number, parser, string, usage, value};
use std::ops::Range;

use super::stream::{InStep, MEMORY_LIMIT, Stop, Writer, complain, read_all_limited};
use lexopt::prelude::*;
use shell_base::Context;
use shell_base::errno::io_message;
use shell_base::io::Input;
use std::cell::RefCell;
use std::rc::Rc;

/// How differences are written.
#[derive(Clone, Copy)]
enum Format {
    Normal,
    /// `-u`, `-U N`: with N lines of context.
    Unified(usize),
    /// `-c`, `-C N`.
    Context(usize),
    /// `-y`: two columns.
    SideBySide(Columns),
}

/// `-y`'s layout: `-W` columns in all, `--left-column`, `--suppress-common-lines`, `-t`.
#[derive(Clone, Copy)]
struct Columns {
    width: usize,
    left_column: bool,
    suppress_common: bool,
    expand_tabs: bool,
}

/// What `-W` may ask for, so a line of spaces stays a sane size.
const WIDTH_LIMIT: usize = 4096;

struct Options {
    format: Format,
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
    /// `-t`: tabs in the lines shown become spaces.
    expand_tabs: bool,
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

/// Where the normal, unified and context formats write: their lines, tabs expanded with
/// `-t` as GNU does (stops every 8 columns, counted after the line's mark).
struct Out {
    buf: Vec<u8>,
    expand_tabs: bool,
    /// With `-t`, the normal and context formats mark the text after a carriage return
    /// again; the unified format does not.
    mark_after_return: bool,
}

impl Out {
    fn new(expand_tabs: bool, mark_after_return: bool) -> Self {
        Out {
            buf: Vec::new(),
            expand_tabs,
            mark_after_return,
        }
    }

    fn text(&mut self, text: &str) {
        self.buf.extend_from_slice(text.as_bytes());
    }

    /// `lines`, each after `prefix`, with GNU's note after a last line without a newline.
    fn lines(&mut self, prefix: &str, lines: &[&[u8]]) {
        for l in lines {
            self.text(prefix);
            if self.expand_tabs {
                self.expanded(prefix, l);
            } else {
                self.buf.extend_from_slice(l);
            }
            if !l.ends_with(b"\n") {
                self.text("\n\\ No newline at end of file\n");
            }
        }
    }

    /// A line with its tabs as spaces; a carriage return starts the columns (and the mark)
    /// again, a backspace steps back one.
    fn expanded(&mut self, prefix: &str, line: &[u8]) {
        let mut column = 0;
        for (i, &c) in line.iter().enumerate() {
            match c {
                b'\t' => {
                    let spaces = 8 - column % 8;
                    column += spaces;
                    self.buf.resize(self.buf.len() + spaces, b' ');
                }
                b'\r' => {
                    self.buf.push(c);
                    if self.mark_after_return && line.get(i + 1).is_some_and(|&n| n != b'\n') {
                        self.text(prefix);
                    }
                    column = 0;
                }
                b'\x08' if column == 0 => {}
                b'\x08' => {
                    column -= 1;
                    self.buf.push(c);
                }
                _ => {
                    column += usize::from(c.is_ascii_graphic() || c == b' ');
                    self.buf.push(c);
                }
            }
        }
    }
}

/// GNU's normal format.
fn normal(out: &mut Out, old: &[&[u8]], new: &[&[u8]]) {
    for c in changes(old, new) {
        let kind = match (c.old.is_empty(), c.new.is_empty()) {
            (true, _) => 'a',
            (_, true) => 'd',
            _ => 'c',
        };
        out.text(&format!("{}{kind}{}\n", range(&c.old), range(&c.new)));
        out.lines("< ", &old[c.old.clone()]);
        if kind == 'c' {
            out.text("---\n");
        }
        out.lines("> ", &new[c.new.clone()]);
    }
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

/// A hunk of the unified and context formats: changes closer than twice `context` lines
/// share one, shown with up to `context` lines around them.
struct Hunk<'c> {
    changes: &'c [Change],
    old: Range<usize>,
    new: Range<usize>,
}

fn hunks(all: &[Change], old_len: usize, context: usize) -> Vec<Hunk<'_>> {
    let mut hunks = Vec::new();
    let mut i = 0;
    while i < all.len() {
        let mut j = i + 1;
        while j < all.len() && all[j].old.start - all[j - 1].old.end <= 2 * context {
            j += 1;
        }
        let (first, last) = (&all[i], &all[j - 1]);
        let before = first.old.start.min(context);
        let after = (old_len - last.old.end).min(context);
        hunks.push(Hunk {
            changes: &all[i..j],
            old: first.old.start - before..last.old.end + after,
            new: first.new.start - before..last.new.end + after,
        });
        i = j;
    }
    hunks
}

fn unified_hunks(out: &mut Out, old: &[&[u8]], new: &[&[u8]], context: usize) {
    let all = changes(old, new);
    for hunk in hunks(&all, old.len(), context) {
        out.text(&format!(
            "@@ -{} +{} @@\n",
            unified_range(&hunk.old),
            unified_range(&hunk.new)
        ));
        let mut at = hunk.old.start;
        for c in hunk.changes {
            out.lines(" ", &old[at..c.old.start]);
            out.lines("-", &old[c.old.clone()]);
            out.lines("+", &new[c.new.clone()]);
            at = c.old.end;
        }
        out.lines(" ", &old[at..hunk.old.end]);
    }
}

/// A context hunk's range: `FIRST,LAST`, one number for one line, and the line before it
/// when it is empty.
fn context_range(r: &Range<usize>) -> String {
    if r.end <= r.start + 1 {
        r.end.to_string()
    } else {
        format!("{},{}", r.start + 1, r.end)
    }
}

/// One side of a context hunk: its lines marked `! ` (changed), `mark` (only on this side)
/// or blank (context), or nothing when no change touches this side.
fn context_side(
    out: &mut Out,
    lines: &[&[u8]],
    span: &Range<usize>,
    changes: impl Iterator<Item = (Range<usize>, bool)> + Clone,
    mark: &str,
) {
    if changes.clone().all(|(r, _)| r.is_empty()) {
        return;
    }
    let mut at = span.start;
    for (r, both) in changes {
        out.lines("  ", &lines[at..r.start]);
        out.lines(if both { "! " } else { mark }, &lines[r.clone()]);
        at = r.end;
    }
    out.lines("  ", &lines[at..span.end]);
}

fn context_hunks(out: &mut Out, old: &[&[u8]], new: &[&[u8]], context: usize) {
    let all = changes(old, new);
    for hunk in hunks(&all, old.len(), context) {
        out.text(&format!(
            "***************\n*** {} ****\n",
            context_range(&hunk.old)
        ));
        let both = |c: &Change| !c.old.is_empty() && !c.new.is_empty();
        let olds = hunk.changes.iter().map(|c| (c.old.clone(), both(c)));
        context_side(out, old, &hunk.old, olds, "- ");
        out.text(&format!("--- {} ----\n", context_range(&hunk.new)));
        let news = hunk.changes.iter().map(|c| (c.new.clone(), both(c)));
        context_side(out, new, &hunk.new, news, "+ ");
    }
}

/// GNU diff's side-by-side format (`-y`): each line of the first file left, of the second
/// right, with `|` (changed), `<` (only left), `>` (only right) or nothing between.
fn side_by_side(old: &[&[u8]], new: &[&[u8]], cols: Columns) -> Vec<u8> {
    const GUTTER: usize = 3;
    let tab = if cols.expand_tabs { 1 } else { 8 };
    let w = cols.width;
    let aligned = (w >> 1) + ((tab + GUTTER) >> 1) + (w & (tab + GUTTER) & 1);
    let off = aligned - aligned % tab;
    let half = if off <= GUTTER || w <= off {
        0
    } else {
        (off - GUTTER).min(w - off)
    };
    let layout = Layout {
        half,
        column2: if half > 0 { off } else { w },
        expand_tabs: cols.expand_tabs,
    };
    let mut out = Vec::new();
    let common = |out: &mut Vec<u8>, o: Range<usize>, n: Range<usize>| {
        if cols.suppress_common {
            return;
        }
        if cols.left_column {
            for i in o {
                layout.line(out, Some(old[i]), b'(', None);
            }
        } else {
            for (i, j) in o.zip(n) {
                layout.line(out, Some(old[i]), b' ', Some(new[j]));
            }
        }
    };
    let (mut next_old, mut next_new) = (0, 0);
    for c in changes(old, new) {
        common(&mut out, next_old..c.old.start, next_new..c.new.start);
        let paired = c.old.len().min(c.new.len());
        for k in 0..paired {
            layout.line(
                &mut out,
                Some(old[c.old.start + k]),
                b'|',
                Some(new[c.new.start + k]),
            );
        }
        for line in &new[c.new.start + paired..c.new.end] {
            layout.line(&mut out, None, b'>', Some(line));
        }
        for line in &old[c.old.start + paired..c.old.end] {
            layout.line(&mut out, Some(line), b'<', None);
        }
        (next_old, next_new) = (c.old.end, c.new.end);
    }
    common(&mut out, next_old..old.len(), next_new..new.len());
    out
}

/// Where `-y`'s columns are.
struct Layout {
    half: usize,
    column2: usize,
    expand_tabs: bool,
}

impl Layout {
    /// Tabs (or spaces with `-t`) from column `from` to `to`; gives `to`.
    fn tab_to(&self, out: &mut Vec<u8>, mut from: usize, to: usize) -> usize {
        if !self.expand_tabs {
            let mut stop = from + 8 - from % 8;
            while stop <= to {
                out.push(b'\t');
                from = stop;
                stop += 8;
            }
        }
        while from < to {
            out.push(b' ');
            from += 1;
        }
        to
    }

    /// Half a line, cut at `bound` columns; the last column written.
    fn half_line(&self, out: &mut Vec<u8>, line: &[u8], indent: usize, bound: usize) -> usize {
        let (mut input, mut output) = (0usize, 0usize);
        let text = String::from_utf8_lossy(line);
        for c in text.chars() {
            match c {
                '\n' => break,
                '\t' => {
                    let spaces = 8 - input % 8;
                    if input == output {
                        let stop = output + spaces;
                        if self.expand_tabs {
                            while output < stop.min(bound) {
                                out.push(b' ');
                                output += 1;
                            }
                        } else if stop < bound {
                            output = stop;
                            out.push(b'\t');
                        }
                    }
                    input += spaces;
                }
                '\r' => {
                    out.push(b'\r');
                    self.tab_to(out, 0, indent);
                    (input, output) = (0, 0);
                }
                '\x08' => {
                    if input != 0 {
                        input -= 1;
                        if input < bound {
                            if output <= input {
                                while output < input {
                                    out.push(b' ');
                                    output += 1;
                                }
                            } else {
                                output = input;
                                out.push(b'\x08');
                            }
                        }
                    }
                }
                c if c.is_control() => {
                    if input < bound {
                        out.extend_from_slice(c.to_string().as_bytes());
                    }
                }
                c => {
                    if input < bound {
                        output = input + 1;
                        let mut buf = [0; 4];
                        out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                    }
                    input += 1;
                }
            }
        }
        output
    }

    /// One output line: `left`, the separator, `right`.
    fn line(&self, out: &mut Vec<u8>, left: Option<&[u8]>, mut sep: u8, right: Option<&[u8]>) {
        let mut col = 0;
        let mut newline = false;
        if let Some(l) = left {
            newline |= l.ends_with(b"\n");
            col = self.half_line(out, l, 0, self.half);
        }
        if sep != b' ' {
            col = self.tab_to(out, col, (self.half + self.column2 - 1) / 2) + 1;
            if sep == b'|' && right.is_some_and(|r| newline != r.ends_with(b"\n")) {
                sep = if newline { b'/' } else { b'\\' };
            }
            out.push(sep);
        }
        if let Some(r) = right {
            newline |= r.ends_with(b"\n");
            if r.first() != Some(&b'\n') {
                col = self.tab_to(out, col, self.column2);
                self.half_line(out, r, col, self.half);
            }
        }
        if newline {
            out.push(b'\n');
        }
    }
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

/// The differences of two texts in the format asked for (the unified and context formats
/// after their two header lines).
fn with_context(
    sh: &dyn Context,
    (a, b): (&[u8], &[u8]),
    names: (&str, &str),
    o: &Options,
) -> Vec<u8> {
    let (old, new) = (lines_of(a), lines_of(b));
    // With `-t`, the unified format alone does not mark a line again after a `\r`.
    let mut out = Out::new(o.expand_tabs, !matches!(o.format, Format::Unified(_)));
    match o.format {
        Format::Normal => normal(&mut out, &old, &new),
        Format::SideBySide(cols) => return side_by_side(&old, &new, cols),
        Format::Unified(n) => {
            out.text(&(header(sh, "---", names.0) + &header(sh, "+++", names.1)));
            unified_hunks(&mut out, &old, &new, n);
        }
        Format::Context(n) => {
            out.text(&(header(sh, "***", names.0) + &header(sh, "---", names.1)));
            context_hunks(&mut out, &old, &new, n);
        }
    }
    out.buf
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
    // Two named files are first read in step, as far as they agree: files of any size that
    // are the same, or binary, or differ where only that is asked, are never held whole.
    // Side by side shows the lines of files that are the same, so it reads them.
    if a != "-" && b != "-" && !matches!(o.format, Format::SideBySide(_)) {
        match in_step(sh, o, a, b).await {
            Ok(Seen { same: true, .. }) => return same(o, a, b, out, None).await,
            Ok(Seen { binary: true, .. }) => return differ(o, a, b, out).await,
            Ok(_) if o.brief && !o.ignores() => return differ(o, a, b, out).await,
            Ok(_) => {}
            Err(m) => {
                out.flush().await?;
                complain(sh, &m).await;
                return Ok(2);
            }
        }
    }
    // `-` is standard input (read once, whichever side names it).
    let stdin = if a == "-" || b == "-" {
        match read_all_limited(&sh.io().stdin, MEMORY_LIMIT, "diff: -").await {
            Ok(d) => d,
            Err(m) => {
                out.flush().await?;
                complain(sh, &m).await;
                return Ok(2);
            }
        }
    } else {
        Vec::new()
    };
    let mut data = Vec::with_capacity(2);
    for p in [a, b] {
        let read = match p {
            "-" => Ok(stdin.clone()),
            _ => match open_side(sh, o, p) {
                Ok(input) => read_all_limited(&input, MEMORY_LIMIT, &format!("diff: {p}")).await,
                Err(m) => Err(m),
            },
        };
        match read {
            Ok(d) => data.push(d),
            Err(m) => {
                out.flush().await?;
                complain(sh, &m).await;
                return Ok(2);
            }
        }
    }
    let (da, db) = (&data[0], &data[1]);
    if da == db
        || (o.ignores()
            && o.normalized(&String::from_utf8_lossy(da))
                == o.normalized(&String::from_utf8_lossy(db)))
    {
        return same(o, a, b, out, Some((da.as_slice(), db.as_slice()))).await;
    }
    if o.brief || is_binary(da) || is_binary(db) {
        return differ(o, a, b, out).await;
    }
    if let Some(l) = label {
        out.write_str(&l).await?;
    }
    let text = with_context(sh, (da, db), (a, b), o);
    out.write(&text).await?;
    Ok(1)
}

/// How much of a file GNU diff looks at to tell a binary file: its first block (the file
/// system's, 4 KiB on this kind of machine).
const FIRST_BLOCK: usize = 4096;

/// Whether a file starting with `head` is binary: a NUL in its first block.
fn is_binary(head: &[u8]) -> bool {
    memchr::memchr(0, &head[..head.len().min(FIRST_BLOCK)]).is_some()
}

/// What reading two files in step found.
struct Seen {
    same: bool,
    /// Either is binary ([`is_binary`]).
    binary: bool,
}

/// Reads `a` and `b` in step up to their first difference.
async fn in_step(sh: &dyn Context, o: &Options, a: &str, b: &str) -> Result<Seen, String> {
    let mut pair = InStep::new(open_side(sh, o, a)?, open_side(sh, o, b)?);
    let trouble =
        |(side, e): (usize, std::io::Error)| format!("diff: {}: {}", [a, b][side], io_message(&e));
    let mut binary = false;
    for side in 0..2 {
        binary = binary || is_binary(pair.peek(side, FIRST_BLOCK).await.map_err(trouble)?);
    }
    loop {
        let (x, y) = pair.next().await.map_err(trouble)?;
        if x.is_empty() || x != y {
            let same = x.is_empty() && pair.ended(0) && pair.ended(1);
            return Ok(Seen { same, binary });
        }
    }
}

/// File `p` to read; with `-N` a file that is not there reads as empty.
fn open_side(sh: &dyn Context, o: &Options, p: &str) -> Result<Input, String> {
    match std::fs::File::open(sh.path(p)) {
        Ok(f) => Ok(Input::File(Rc::new(RefCell::new(f)))),
        Err(_) if o.new_file && !sh.path(p).exists() => Ok(Input::Null),
        Err(e) => Err(format!("diff: {p}: {}", io_message(&e))),
    }
}

/// Two files that count as the same: side by side shows their lines (`data`, when read),
/// `-s` says so.
async fn same(
    o: &Options,
    a: &str,
    b: &str,
    out: &mut Writer,
    data: Option<(&[u8], &[u8])>,
) -> Result<i32, Stop> {
    if let (Format::SideBySide(cols), Some((da, db))) = (o.format, data) {
        out.write(&side_by_side(&lines_of(da), &lines_of(db), cols))
            .await?;
    }
    if o.report_same {
        out.write_str(&format!("Files {a} and {b} are identical\n"))
            .await?;
    }
    Ok(0)
}

/// Two files that differ, where only that is told: with `-q`, or binary files.
async fn differ(o: &Options, a: &str, b: &str, out: &mut Writer) -> Result<i32, Stop> {
    let kind = if o.brief { "Files" } else { "Binary files" };
    out.write_str(&format!("{kind} {a} and {b} differ\n"))
        .await?;
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

/// The context length of `--unified[=N]` and `--context[=N]`: 3 when not given.
fn optional_length(p: &mut lexopt::Parser) -> Result<usize, lexopt::Error> {
    match p.optional_value() {
        Some(v) => number(&string(v), "context length"),
        None => Ok(3),
    }
}

/// `diff [OPTIONS] FILE1 FILE2`.
pub async fn diff(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let mut o = Options {
        format: Format::Normal,
        brief: false,
        recursive: false,
        new_file: false,
        report_same: false,
        ignore_case: false,
        ignore_space_change: false,
        ignore_all_space: false,
        ignore_blank_lines: false,
        expand_tabs: false,
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
            if a == "-U" || a == "-C" {
                o.given.push(' ');
                o.given.push_str(argv.get(k + 1).map_or("", String::as_str));
            }
        }
    }
    let mut columns = Columns {
        width: 130,
        left_column: false,
        suppress_common: false,
        expand_tabs: false,
    };
    let mut p = parser(argv);
    let parsed: Result<(), lexopt::Error> = (|| {
        while let Some(arg) = p.next()? {
            match arg {
                Short('u') => o.format = Format::Unified(3),
                Short('U') => {
                    o.format = Format::Unified(number(&value(&mut p)?, "context length")?)
                }
                Long("unified") => o.format = Format::Unified(optional_length(&mut p)?),
                Short('c') => o.format = Format::Context(3),
                Short('y') | Long("side-by-side") => {
                    o.format = Format::SideBySide(columns);
                }
                Short('W') | Long("width") => {
                    columns.width = number(&value(&mut p)?, "width")?;
                    if columns.width == 0 || columns.width > WIDTH_LIMIT {
                        return Err(format!(
                            "invalid width '{}' (from 1 to {WIDTH_LIMIT})",
                            columns.width
                        )
                        .into());
                    }
                }
                Long("left-column") => columns.left_column = true,
                Long("suppress-common-lines") => columns.suppress_common = true,
                Short('t') | Long("expand-tabs") => columns.expand_tabs = true,
                Short('C') => {
                    o.format = Format::Context(number(&value(&mut p)?, "context length")?)
                }
                Long("context") => o.format = Format::Context(optional_length(&mut p)?),
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
        return diffutils_bad_usage(sh, "diff", e).await;
    }
    // `-W` and the column options may come after `-y`.
    if let Format::SideBySide(_) = o.format {
        o.format = Format::SideBySide(columns);
    }
    o.expand_tabs = columns.expand_tabs;
    if operands.len() != 2 {
        let msg = match operands.len() {
            0 => "missing operand after 'diff'".to_string(),
            1 => format!("missing operand after '{}'", operands[0]),
            _ => format!("extra operand '{}'", operands[2]),
        };
        return diffutils_bad_usage(sh, "diff", usage(msg)).await;
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
