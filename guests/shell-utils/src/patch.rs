//! `patch`: applies unified diffs (plain or git's) as GNU patch 2.7 does: `-p` stripping,
//! hunks found at an offset or with fuzz (up to 2 context lines), reversed patches detected,
//! failed hunks saved to `FILE.rej` and a `FILE.orig` backup when anything did not match
//! exactly; new and deleted files, git's file modes, `-R`, `--dry-run`, `-o`, `-b`, `-E`.

use shell_base::args::{bad_usage, parser};
use std::path::{Path, PathBuf};

use super::stream::{MEMORY_LIMIT, complain, open, read_all_limited};
use shell_base::Context;
use shell_base::errno::io_message;

/// At most this many context lines may be ignored at each end of a hunk (GNU's default).
const MAX_FUZZ: usize = 2;

#[derive(Default)]
struct Options {
    strip: Option<usize>,
    reverse: bool,
    forward: bool,
    dry_run: bool,
    silent: bool,
    backup: bool,
    remove_empty: bool,
    output: Option<String>,
    dir: Option<String>,
}

/// One line of a hunk: `' '` context, `'-'` removed, `'+'` added.
#[derive(Clone)]
struct HunkLine {
    kind: u8,
    text: Vec<u8>,
    /// Followed by `\ No newline at end of file`.
    no_newline: bool,
}

#[derive(Clone)]
struct Hunk {
    old_start: usize,
    new_start: usize,
    lines: Vec<HunkLine>,
    /// The hunk as written (for the `.rej` file).
    text: Vec<u8>,
}

impl Hunk {
    fn side(&self, new: bool) -> Vec<&HunkLine> {
        let skip = if new { b'-' } else { b'+' };
        self.lines.iter().filter(|l| l.kind != skip).collect()
    }

    fn reversed(&self) -> Hunk {
        let flip = |k: u8| match k {
            b'-' => b'+',
            b'+' => b'-',
            k => k,
        };
        let mut lines: Vec<HunkLine> = self
            .lines
            .iter()
            .map(|l| HunkLine {
                kind: flip(l.kind),
                ..l.clone()
            })
            .collect();
        // Within each run of changes, removals come first (as diff writes them).
        for run in lines.split_mut(|l| l.kind == b' ') {
            run.sort_by_key(|l| l.kind != b'-');
        }
        // The text too, for a `.rej` file of the reversed patch.
        let range = |start: usize, len: usize| {
            if len == 1 {
                start.to_string()
            } else {
                format!("{start},{len}")
            }
        };
        let count = |skip: u8| lines.iter().filter(|l| l.kind != skip).count();
        let mut text = format!(
            "@@ -{} +{} @@\n",
            range(self.new_start, count(b'+')),
            range(self.old_start, count(b'-'))
        )
        .into_bytes();
        for l in &lines {
            text.push(l.kind);
            text.extend_from_slice(&l.text);
            text.push(b'\n');
            if l.no_newline {
                text.extend_from_slice(b"\\ No newline at end of file\n");
            }
        }
        Hunk {
            old_start: self.new_start,
            new_start: self.old_start,
            lines,
            text,
        }
    }

    /// Context lines before the first change and after the last.
    fn context(&self) -> (usize, usize) {
        let lead = self.lines.iter().take_while(|l| l.kind == b' ').count();
        let tail = self
            .lines
            .iter()
            .rev()
            .take_while(|l| l.kind == b' ')
            .count();
        (lead, tail)
    }
}

/// The changes to one file.
struct FilePatch {
    /// The `---` and `+++` lines after the marker (name, then a tab and a date perhaps).
    old_header: String,
    new_header: String,
    /// The input line number of the `---` line, and the lines before it (for messages).
    line_no: usize,
    preamble: Vec<String>,
    new_mode: Option<u32>,
    hunks: Vec<Hunk>,
}

/// `patch [-p N] [-R] [-N] [-s] [-b] [-E] [--dry-run] [-o OUT] [-d DIR] [-i PATCH] [FILE [PATCH]]`.
pub async fn patch(sh: &mut dyn Context, argv: &[String]) -> i32 {
    use lexopt::prelude::*;
    let mut o = Options::default();
    let mut input: Option<String> = None;
    let mut operands = Vec::new();
    let mut p = parser(argv);
    loop {
        let arg = match p.next() {
            Ok(Some(a)) => a,
            Ok(None) => break,
            Err(e) => return bad_usage(sh, "patch", e, 2).await,
        };
        let value = |p: &mut lexopt::Parser| p.value().map(|v| v.to_string_lossy().into_owned());
        match arg {
            Short('p') | Long("strip") => match value(&mut p).map(|v| v.parse()) {
                Ok(Ok(n)) => o.strip = Some(n),
                Ok(Err(_)) => {
                    return complain(sh, "patch: strip count must be a non-negative number").await
                        + 1;
                }
                Err(e) => return bad_usage(sh, "patch", e, 2).await,
            },
            Short('i') | Long("input") => match value(&mut p) {
                Ok(v) => input = Some(v),
                Err(e) => return bad_usage(sh, "patch", e, 2).await,
            },
            Short('o') | Long("output") => match value(&mut p) {
                Ok(v) => o.output = Some(v),
                Err(e) => return bad_usage(sh, "patch", e, 2).await,
            },
            Short('d') | Long("directory") => match value(&mut p) {
                Ok(v) => o.dir = Some(v),
                Err(e) => return bad_usage(sh, "patch", e, 2).await,
            },
            Short('R') | Long("reverse") => o.reverse = true,
            Short('N') | Long("forward") => o.forward = true,
            Long("dry-run") => o.dry_run = true,
            Short('s') | Long("silent") | Long("quiet") => o.silent = true,
            Short('b') | Long("backup") => o.backup = true,
            Short('E') | Long("remove-empty-files") => o.remove_empty = true,
            Short('u')
            | Long("unified")
            | Short('t')
            | Long("batch")
            | Short('f')
            | Long("force")
            | Long("no-backup-if-mismatch")
            | Short('l') => {}
            Value(v) => operands.push(v.to_string_lossy().into_owned()),
            other => return bad_usage(sh, "patch", other.unexpected(), 2).await,
        }
    }
    if operands.len() > 2 {
        return complain(sh, &format!("patch: {}: extra operand", operands[2])).await + 1;
    }
    let target_file = operands.first().cloned();
    if let Some(pf) = operands.get(1) {
        input = Some(pf.clone());
    }
    let source = input.unwrap_or_else(|| "-".into());
    let text = match open(sh, &source) {
        Ok(i) => match read_all_limited(&i, MEMORY_LIMIT, "patch").await {
            Ok(t) => t,
            Err(e) => return complain(sh, &e).await + 1,
        },
        Err(e) => {
            let msg = e.split_once(": ").map_or(e.clone(), |(_, m)| m.to_string());
            return complain(
                sh,
                &format!("patch: **** Can't open patch file {source} : {msg}"),
            )
            .await
                + 1;
        }
    };
    let base = match &o.dir {
        Some(d) => sh.path(d),
        None => sh.path("."),
    };
    let files = parse(&text);
    if files.is_empty() {
        let _ = sh
            .io()
            .stderr
            .write_all(b"patch: **** Only garbage was found in the patch input.\n")
            .await;
        return 2;
    }
    let mut report = String::new();
    let mut status = 0;
    for fp in files {
        let s = apply_file(&o, &base, target_file.as_deref(), fp, &mut report);
        status = status.max(s);
    }
    let _ = sh.io().stdout.write_all(report.as_bytes()).await;
    status
}

/// Splits a patch into its files and hunks; text around them is ignored.
fn parse(text: &[u8]) -> Vec<FilePatch> {
    let lines: Vec<&[u8]> = text.split_inclusive(|&b| b == b'\n').collect();
    let mut files = Vec::new();
    let mut preamble: Vec<String> = Vec::new();
    let mut new_mode = None;
    let mut i = 0;
    let body = |l: &[u8]| l.strip_suffix(b"\n").unwrap_or(l).to_vec();
    let string = |l: &[u8]| String::from_utf8_lossy(&body(l)).into_owned();
    while i < lines.len() {
        let line = lines[i];
        if line.starts_with(b"diff --git ") {
            preamble.clear();
            new_mode = None;
        }
        if let Some(mode) = line
            .strip_prefix(b"new file mode ")
            .or_else(|| line.strip_prefix(b"new mode "))
        {
            new_mode = u32::from_str_radix(string(mode).trim(), 8).ok();
        }
        if line.starts_with(b"--- ") && lines.get(i + 1).is_some_and(|n| n.starts_with(b"+++ ")) {
            let mut fp = FilePatch {
                old_header: string(&line[4..]),
                new_header: string(&lines[i + 1][4..]),
                line_no: i + 3,
                preamble: std::mem::take(&mut preamble),
                new_mode: new_mode.take(),
                hunks: Vec::new(),
            };
            fp.preamble.push(string(line));
            fp.preamble.push(string(lines[i + 1]));
            i += 2;
            while let Some(h) = lines.get(i).and_then(|l| hunk_header(l)) {
                let (old_start, mut old_len, new_start, mut new_len) = h;
                let mut hunk = Hunk {
                    old_start,
                    new_start,
                    lines: Vec::new(),
                    text: lines[i].to_vec(),
                };
                i += 1;
                while (old_len > 0 || new_len > 0) && i < lines.len() {
                    let l = lines[i];
                    let (kind, rest) = match l.first() {
                        Some(b'\n') | None => (b' ', &l[..0]),
                        Some(&k @ (b' ' | b'-' | b'+')) => (k, &l[1..]),
                        _ => break,
                    };
                    match kind {
                        b' ' => {
                            old_len = old_len.saturating_sub(1);
                            new_len = new_len.saturating_sub(1);
                        }
                        b'-' => old_len = old_len.saturating_sub(1),
                        _ => new_len = new_len.saturating_sub(1),
                    }
                    hunk.text.extend_from_slice(l);
                    hunk.lines.push(HunkLine {
                        kind,
                        text: body(rest),
                        no_newline: false,
                    });
                    i += 1;
                    if lines.get(i).is_some_and(|n| n.starts_with(b"\\")) {
                        hunk.text.extend_from_slice(lines[i]);
                        if let Some(last) = hunk.lines.last_mut() {
                            last.no_newline = true;
                        }
                        i += 1;
                    }
                }
                fp.hunks.push(hunk);
            }
            files.push(fp);
            continue;
        }
        preamble.push(string(line));
        i += 1;
    }
    files
}

/// `@@ -OLD[,N] +NEW[,M] @@`: the starts and lengths.
fn hunk_header(line: &[u8]) -> Option<(usize, usize, usize, usize)> {
    let text = std::str::from_utf8(line.strip_prefix(b"@@ -")?).ok()?;
    let (ranges, _) = text.split_once(" @@")?;
    let (old, new) = ranges.split_once(" +")?;
    let range = |r: &str| -> Option<(usize, usize)> {
        match r.split_once(',') {
            Some((s, n)) => Some((s.parse().ok()?, n.parse().ok()?)),
            None => Some((r.parse().ok()?, 1)),
        }
    };
    let (os, ol) = range(old)?;
    let (ns, nl) = range(new)?;
    Some((os, ol, ns, nl))
}

/// The file name in a `---`/`+++` line, with `strip` leading components removed; `None` for
/// `/dev/null`.
fn header_name(header: &str, strip: Option<usize>, base: &Path) -> Option<String> {
    let name = header.split('\t').next().unwrap_or_default().trim_end();
    let name = name.trim_matches('"');
    if name == "/dev/null" || name.is_empty() {
        return None;
    }
    match strip {
        Some(n) => {
            let parts: Vec<&str> = name.split('/').filter(|p| !p.is_empty()).collect();
            (parts.len() > n).then(|| parts[n..].join("/"))
        }
        // Without -p: the whole name if its directories exist, else the base name.
        None => {
            let whole = Path::new(name);
            let dirs_exist = whole
                .parent()
                .is_none_or(|d| d.as_os_str().is_empty() || base.join(d).is_dir());
            if dirs_exist && !name.starts_with('/') {
                Some(name.to_string())
            } else {
                Some(name.rsplit('/').next().unwrap_or(name).to_string())
            }
        }
    }
}

/// A file's lines (each without its newline) and whether the last one ended with one.
fn split_lines(data: &[u8]) -> (Vec<Vec<u8>>, bool) {
    if data.is_empty() {
        return (Vec::new(), true);
    }
    let ends = data.ends_with(b"\n");
    let body = if ends { &data[..data.len() - 1] } else { data };
    (
        body.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect(),
        ends,
    )
}

/// Whether the hunk's `side` lines (less `lead`/`tail` ignored) match the file at `at`.
fn matches_at(file: &[Vec<u8>], want: &[&HunkLine], at: usize) -> bool {
    at + want.len() <= file.len() && want.iter().zip(&file[at..]).all(|(w, f)| w.text == *f)
}

/// Whether the hunk's old lines, less `lead` at the start and `tail` at the end, are the
/// file's at `at`.
fn fits(file: &[Vec<u8>], old: &[&HunkLine], at: usize, lead: usize, tail: usize) -> bool {
    let want = &old[lead.min(old.len())..old.len().saturating_sub(tail).max(lead.min(old.len()))];
    matches_at(file, want, at + lead)
}

/// Where the hunk fits, as GNU patch's `locate_hunk` decides: a hunk with less context before
/// its changes than after is anchored at the start of the file (and the other way round at
/// the end) until fuzz lets go; otherwise it is searched for outward from `expected`, not
/// before `floor`. The position of its first old line, and the fuzz used.
fn locate(file: &[Vec<u8>], hunk: &Hunk, expected: usize, floor: usize) -> Option<(usize, usize)> {
    let old = hunk.side(false);
    if old.is_empty() {
        return Some((expected.min(file.len()), 0));
    }
    let (prefix, suffix) = hunk.context();
    let context = prefix.max(suffix);
    for fuzz in 0..=MAX_FUZZ.min(context) {
        let prefix_fuzz = (fuzz + prefix) as isize - context as isize;
        let suffix_fuzz = (fuzz + suffix) as isize - context as isize;
        if prefix_fuzz < 0 && hunk.old_start <= 1 {
            // Only the start of the file will do.
            if suffix_fuzz < 0 && old.len() != file.len() {
                continue;
            }
            if floor == 0 && fits(file, &old, 0, 0, suffix_fuzz.max(0) as usize) {
                return Some((0, fuzz));
            }
            continue;
        }
        if suffix_fuzz < 0 {
            // Only the end of the file will do.
            let Some(at) = (file.len() + 1).checked_sub(old.len() + 1) else {
                continue;
            };
            if at >= floor && fits(file, &old, at, prefix_fuzz.max(0) as usize, 0) {
                return Some((at, fuzz));
            }
            continue;
        }
        let (lead, tail) = (prefix_fuzz.max(0) as usize, suffix_fuzz.max(0) as usize);
        let span = file.len().max(expected) + 1;
        for d in 0..span {
            for at in [expected.checked_add(d), expected.checked_sub(d)]
                .into_iter()
                .flatten()
            {
                if at >= floor && fits(file, &old, at, lead, tail) {
                    return Some((at, fuzz));
                }
                if d == 0 {
                    break;
                }
            }
        }
    }
    None
}

struct Applied {
    at: usize,
    fuzz: usize,
}

/// Applies `hunks` to `lines`: the new lines, and per hunk where it went (or `None`).
fn apply_hunks(lines: &[Vec<u8>], hunks: &[Hunk]) -> Vec<Option<Applied>> {
    let mut placed = Vec::new();
    let mut offset: isize = 0;
    let mut floor = 0;
    for h in hunks {
        let expected = (h.old_start.saturating_sub(1) as isize + offset).max(0) as usize;
        match locate(lines, h, expected, floor) {
            Some((at, fuzz)) => {
                offset = at as isize - h.old_start.saturating_sub(1) as isize;
                floor = at + h.side(false).len();
                placed.push(Some(Applied { at, fuzz }));
            }
            None => placed.push(None),
        }
    }
    placed
}

/// The file with the placed hunks applied; and whether it ends with a newline.
fn rewrite(
    lines: &[Vec<u8>],
    ends_newline: bool,
    hunks: &[Hunk],
    placed: &[Option<Applied>],
) -> Vec<u8> {
    let mut out_lines: Vec<Vec<u8>> = Vec::new();
    let mut newline_at_end = ends_newline;
    let mut cursor = 0;
    for (h, p) in hunks.iter().zip(placed) {
        let Some(p) = p else { continue };
        out_lines.extend_from_slice(&lines[cursor..p.at]);
        let new = h.side(true);
        // Context lines keep the file's own text (with fuzz they may differ from the hunk's).
        let mut k = 0;
        for line in &h.lines {
            match line.kind {
                b' ' => {
                    out_lines.push(
                        lines
                            .get(p.at + k)
                            .cloned()
                            .unwrap_or_else(|| line.text.clone()),
                    );
                    k += 1;
                }
                b'-' => k += 1,
                _ => out_lines.push(line.text.clone()),
            }
        }
        cursor = (p.at + k).min(lines.len());
        if cursor >= lines.len() {
            newline_at_end = !new.last().is_some_and(|l| l.no_newline);
        }
    }
    out_lines.extend_from_slice(&lines[cursor.min(lines.len())..]);
    let mut out = out_lines.join(&b'\n');
    if !out_lines.is_empty() && newline_at_end {
        out.push(b'\n');
    }
    out
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// Patches one file; appends what patch says to `report`; the status (0, 1 failed hunks).
fn apply_file(
    o: &Options,
    base: &Path,
    given: Option<&str>,
    fp: FilePatch,
    report: &mut String,
) -> i32 {
    let (mut old_name, mut new_name) = (
        header_name(&fp.old_header, o.strip, base),
        header_name(&fp.new_header, o.strip, base),
    );
    let mut hunks = fp.hunks.clone();
    if o.reverse {
        std::mem::swap(&mut old_name, &mut new_name);
        hunks = hunks.iter().map(Hunk::reversed).collect();
    }
    let is_null = |h: &str| {
        h.split('\t')
            .next()
            .is_some_and(|n| n.trim_end() == "/dev/null")
    };
    let creating = is_null(if o.reverse {
        &fp.new_header
    } else {
        &fp.old_header
    });
    let deleting = is_null(if o.reverse {
        &fp.old_header
    } else {
        &fp.new_header
    });
    let name = match given {
        Some(g) => g.to_string(),
        None => {
            let exists = |n: &Option<String>| n.as_ref().filter(|n| base.join(n).exists()).cloned();
            match exists(&old_name).or_else(|| exists(&new_name)) {
                Some(n) => n,
                None if creating => new_name.clone().unwrap_or_default(),
                None => {
                    report.push_str(&format!(
                        "can't find file to patch at input line {}\nPerhaps you {} option?\n\
                         The text leading up to this was:\n--------------------------\n",
                        fp.line_no,
                        if o.strip.is_some() {
                            "used the wrong -p or --strip"
                        } else {
                            "should have used the -p or --strip"
                        }
                    ));
                    for l in &fp.preamble {
                        report.push_str(&format!("|{l}\n"));
                    }
                    let n = hunks.len();
                    report.push_str(&format!(
                        "--------------------------\nFile to patch: \nSkip this patch? [y] \n\
                         Skipping patch.\n{n} out of {}\n",
                        plural(n, "hunk") + " ignored"
                    ));
                    return 1;
                }
            }
        }
    };
    let path = base.join(&name);
    let original = if creating && !path.exists() {
        Vec::new()
    } else {
        match std::fs::read(&path) {
            Ok(d) => d,
            Err(e) => {
                report.push_str(&format!(
                    "patch: **** Can't open file {name} : {}\n",
                    io_message(&e)
                ));
                return 2;
            }
        }
    };
    let shown = match &o.output {
        Some(out) => format!("{out} (read from {name})"),
        None => name.clone(),
    };
    if !o.silent {
        let verb = if o.dry_run { "checking" } else { "patching" };
        report.push_str(&format!("{verb} file {shown}\n"));
    }
    let (lines, ends_newline) = split_lines(&original);
    let mut placed = apply_hunks(&lines, &hunks);
    let mut ignored = false;
    // Nothing fits, but everything fits the other way round: applied already (or reversed).
    if placed.first().is_some_and(Option::is_none) && !creating {
        let back: Vec<Hunk> = hunks.iter().map(Hunk::reversed).collect();
        if apply_hunks(&lines, &back).iter().all(Option::is_some) {
            let what = if o.reverse {
                "Unreversed patch detected!"
            } else {
                "Reversed (or previously applied) patch detected!"
            };
            if o.forward {
                report.push_str(&format!("{what}  Skipping patch.\n"));
            } else {
                let question = if o.reverse {
                    "Ignore -R?"
                } else {
                    "Assume -R?"
                };
                report.push_str(&format!(
                    "{what}  {question} [n] \nApply anyway? [n] \nSkipping patch.\n"
                ));
            }
            placed = hunks.iter().map(|_| None).collect();
            ignored = true;
        }
    }
    let mut failed = Vec::new();
    let mut inexact = false;
    let mut delta: isize = 0;
    for (k, (h, p)) in hunks.iter().zip(&placed).enumerate() {
        match p {
            Some(p) => {
                let offset = p.at as isize - h.old_start.saturating_sub(1) as isize;
                let line = p.at as isize + 1 + delta;
                if (offset != 0 || p.fuzz > 0) && !creating {
                    inexact = true;
                    let mut msg = format!("Hunk #{} succeeded at {line}", k + 1);
                    if p.fuzz > 0 {
                        msg.push_str(&format!(" with fuzz {}", p.fuzz));
                    }
                    if offset != 0 {
                        let n = offset.unsigned_abs();
                        msg.push_str(&format!(" (offset {})", plural(n, "line")));
                    }
                    if !o.silent {
                        report.push_str(&format!("{msg}.\n"));
                    }
                }
                delta += h.side(true).len() as isize - h.side(false).len() as isize;
            }
            None => {
                inexact = true;
                if !ignored {
                    report.push_str(&format!(
                        "Hunk #{} FAILED at {}.\n",
                        k + 1,
                        (h.old_start as isize + delta).max(1)
                    ));
                }
                failed.push(k);
            }
        }
    }
    let result = rewrite(&lines, ends_newline, &hunks, &placed);
    let out_path: PathBuf = match &o.output {
        Some(out) => base.join(out),
        None => path.clone(),
    };
    if !o.dry_run {
        if (o.backup || (inexact && !ignored)) && o.output.is_none() && path.exists() {
            let _ = std::fs::write(base.join(format!("{name}.orig")), &original);
        }
        let removed = deleting && result.is_empty() && failed.is_empty();
        if (removed || (o.remove_empty && result.is_empty())) && o.output.is_none() {
            let _ = std::fs::remove_file(&out_path);
        } else {
            if let Some(parent) = out_path.parent() {
                let _ = std::fs::create_dir_all(parent);
            }
            if let Err(e) = std::fs::write(&out_path, &result) {
                report.push_str(&format!(
                    "patch: **** Can't create file {} : {}\n",
                    out_path.display(),
                    io_message(&e)
                ));
                return 2;
            }
            if let Some(mode) = fp.new_mode.filter(|_| !o.reverse) {
                let _ = crate::fileinfo::set_mode(&out_path, mode & 0o7777);
            }
        }
    }
    if failed.is_empty() {
        return 0;
    }
    let total = hunks.len();
    let rej = format!("{name}.rej");
    let verb = if ignored { "ignored" } else { "FAILED" };
    let n = failed.len();
    let hunk_word = if total == 1 { "hunk" } else { "hunks" };
    if o.dry_run {
        report.push_str(&format!("{n} out of {total} {hunk_word} {verb}\n"));
    } else {
        report.push_str(&format!(
            "{n} out of {total} {hunk_word} {verb} -- saving rejects to file {rej}\n"
        ));
        let rename = |header: &str| match header.split_once('\t') {
            Some((_, rest)) => format!("{name}\t{rest}"),
            None => name.clone(),
        };
        let mut text = format!(
            "--- {}\n+++ {}\n",
            rename(&fp.old_header),
            rename(&fp.new_header)
        )
        .into_bytes();
        for k in failed {
            text.extend_from_slice(&hunks[k].text);
        }
        let _ = std::fs::write(base.join(&rej), text);
    }
    1
}

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::Native;

    #[test]
    fn applies_a_unified_diff() {
        let mut ctx = Native::new();
        ctx.write("f", "1\n2\n3\n");
        let diff = "--- f\n+++ f\n@@ -1,3 +1,3 @@\n 1\n-2\n+two\n 3\n";
        let ran = ctx.run(&["patch", "-p0"], diff);
        assert_eq!(ran.status, 0, "{}", ran.stderr);
        assert_eq!(ctx.read("f"), "1\ntwo\n3\n");
    }
}
