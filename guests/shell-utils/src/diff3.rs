//! `diff3`: compare three files line by line, and merge the changes from OLDER to YOURS into
//! MINE, with GNU diffutils' blocks, formats, ed scripts and exit statuses.
//!
//! Blocks are made as GNU's `make_3way_diff` makes them: two two-way diffs against a pivot
//! file, whose hunks join into one block wherever they overlap or touch. The normal format
//! pivots on YOURS and the ed and merge formats on OLDER, as GNU does, since where hunks fall
//! depends on it.

use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{diffutils_bad_usage, parser, plain, string, usage, value};

use crate::diff::{changes, lines_of};
use crate::stream::{Stop, Writer, complain, read_file};

/// The arguments' order: MINE, OLDER, YOURS.
const MINE: usize = 0;
const OLDER: usize = 1;
const YOURS: usize = 2;

/// A hunk of a two-way diff: lines `pivot` of the pivot file are lines `other` of the other
/// (0-based, half-open).
#[derive(Clone, Copy, Debug)]
struct Hunk {
    pivot: (usize, usize),
    other: (usize, usize),
}

/// A block where the files do not all agree: its lines in each file (0-based, half-open), by
/// argument order, and the one file that differs from the other two (`None`: all differ).
#[derive(Clone, Debug, PartialEq)]
struct Block {
    range: [(usize, usize); 3],
    odd: Option<usize>,
}

/// Which blocks an ed script or a merge takes, and how (GNU's `-AeExX3`).
#[derive(Clone, Copy, Default)]
struct Mode {
    /// An ed script (`-e` and the others) rather than the normal format.
    ed: bool,
    merge: bool,
    /// `-A`: also the blocks where MINE and YOURS agree, and OLDER's lines in conflicts.
    show_older: bool,
    /// Conflicts bracketed with `<<<<<<<` and `>>>>>>>`.
    flagging: bool,
    /// `-x`, `-X`: only the blocks where all three differ.
    overlap_only: bool,
    /// `-3`: only the blocks where all three differ are left out.
    simple_only: bool,
    /// `-i`: `w` and `q` after the script.
    finalwrite: bool,
    /// `-T`: a tab before each line of the normal format.
    initial_tab: bool,
    /// `-a`: files with NUL bytes compared as text too.
    text: bool,
}

/// `diff3 [OPTION]... MYFILE OLDFILE YOURFILE`.
pub async fn diff3(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let mut mode = Mode::default();
    let (mut incompat, mut labels, mut files) = (0, Vec::new(), Vec::new());
    let mut p = parser(argv);
    let parsed: Result<(), lexopt::Error> = (|| {
        while let Some(arg) = p.next()? {
            match arg {
                Short('A') | Long("show-all") => {
                    (mode.show_older, mode.flagging) = (true, true);
                    incompat += 1;
                }
                Short('e') | Long("ed") => incompat += 1,
                Short('E') | Long("show-overlap") => {
                    mode.flagging = true;
                    incompat += 1;
                }
                // GNU's 3.8 makes `-X` the same script as `-x`.
                Short('x' | 'X') | Long("overlap-only") => {
                    mode.overlap_only = true;
                    incompat += 1;
                }
                Short('3') | Long("easy-only") => {
                    mode.simple_only = true;
                    incompat += 1;
                }
                Short('m') | Long("merge") => mode.merge = true,
                Short('i') => mode.finalwrite = true,
                Short('T') | Long("initial-tab") => mode.initial_tab = true,
                Short('a') | Long("text") => mode.text = true,
                Long("strip-trailing-cr") => {}
                Short('L') | Long("label") => {
                    let v = value(&mut p)?;
                    if labels.len() == 3 {
                        return Err(plain("too many file label options"));
                    }
                    labels.push(v);
                }
                Value(v) => files.push(string(v)),
                _ => return Err(arg.unexpected()),
            }
        }
        Ok(())
    })();
    if let Err(e) = parsed {
        return diffutils_bad_usage(sh, "diff3", e).await;
    }
    mode.ed = incompat > 0 && !mode.merge;
    if incompat == 0 && mode.merge {
        (mode.show_older, mode.flagging) = (true, true);
    }
    if incompat > 1 || (mode.finalwrite && mode.merge) || (!labels.is_empty() && !mode.flagging) {
        return trouble(sh, "incompatible options").await;
    }
    if files.len() != 3 {
        let m = match files.len() {
            0 => "missing operand after 'diff3'".to_string(),
            1 | 2 => format!("missing operand after '{}'", files[files.len() - 1]),
            _ => format!("extra operand '{}'", files[3]),
        };
        return trouble(sh, &m).await;
    }
    let mut texts = Vec::with_capacity(3);
    for f in &files {
        match read_file(sh, "diff3", f).await {
            Ok(t) => texts.push(t),
            Err(m) => return complain(sh, &m).await.max(2),
        }
    }
    let lines: Vec<Vec<&[u8]>> = texts.iter().map(|t| lines_of(t)).collect();
    let names: Vec<String> = (0..3)
        .map(|i| labels.get(i).unwrap_or(&files[i]).clone())
        .collect();
    let pivot = if mode.ed || mode.merge { OLDER } else { YOURS };
    // GNU's two diffs, the second file against the pivot first, refuse binary files that
    // differ unless -a.
    let others: Vec<usize> = (0..3).filter(|&i| i != pivot).collect();
    for other in [others[1], others[0]] {
        let (a, b) = (&texts[other], &texts[pivot]);
        if !mode.text && a != b && (a.contains(&0) || b.contains(&0)) {
            let m = format!(
                "diff3: diff failed: Binary files {} and {} differ",
                files[other], files[pivot]
            );
            complain(sh, &m).await;
            return 2;
        }
    }
    let blocks = blocks(&lines, pivot);
    let mut out = Writer::new(&sh.io().stdout);
    let (text, conflicts) = if mode.merge {
        merged(&lines, &blocks, &mode, &names)
    } else if mode.ed {
        ed_script(&lines, &blocks, &mode, &names)
    } else {
        (normal(&lines, &blocks, &mode), false)
    };
    match out.write(&text).await.and(out.flush().await) {
        Ok(()) => i32::from(conflicts),
        Err(Stop(s)) => s,
    }
}

/// A usage error as diffutils words it; status 2.
async fn trouble(sh: &dyn Context, msg: &str) -> i32 {
    diffutils_bad_usage(sh, "diff3", usage(msg)).await
}

/// The hunks of a two-way diff from `other` to `pivot`.
fn hunks(other: &[&[u8]], pivot: &[&[u8]]) -> Vec<Hunk> {
    changes(other, pivot)
        .into_iter()
        .map(|c| Hunk {
            other: (c.old.start, c.old.end),
            pivot: (c.new.start, c.new.end),
        })
        .collect()
}

/// The blocks of three files, their hunks against `pivot` joined where they overlap or touch.
fn blocks(lines: &[Vec<&[u8]>], pivot: usize) -> Vec<Block> {
    let others: Vec<usize> = (0..3).filter(|&i| i != pivot).collect();
    let threads: Vec<Vec<Hunk>> = others
        .iter()
        .map(|&o| hunks(&lines[o], &lines[pivot]))
        .collect();
    let (mut next, mut shift) = ([0usize; 2], [0isize; 2]);
    let mut out = Vec::new();
    loop {
        let heads = [threads[0].get(next[0]), threads[1].get(next[1])];
        let first = match heads {
            [None, None] => break,
            [Some(a), Some(b)] => usize::from(a.pivot.0 > b.pivot.0),
            [Some(_), None] => 0,
            [None, Some(_)] => 1,
        };
        let low = threads[first][next[first]].pivot.0;
        let mut high = low;
        let mut used: [Vec<Hunk>; 2] = [Vec::new(), Vec::new()];
        loop {
            let mut took = false;
            for t in 0..2 {
                while let Some(h) = threads[t].get(next[t])
                    && h.pivot.0 <= high
                {
                    high = high.max(h.pivot.1);
                    used[t].push(*h);
                    next[t] += 1;
                    took = true;
                }
            }
            if !took {
                break;
            }
        }
        let mut range = [(0, 0); 3];
        range[pivot] = (low, high);
        for t in 0..2 {
            range[others[t]] = match (used[t].first(), used[t].last()) {
                (Some(f), Some(l)) => (
                    f.other.0 - (f.pivot.0 - low),
                    l.other.1 + (high - l.pivot.1),
                ),
                _ => (
                    low.saturating_add_signed(shift[t]),
                    high.saturating_add_signed(shift[t]),
                ),
            };
            if let Some(l) = used[t].last() {
                shift[t] = l.other.1 as isize - l.pivot.1 as isize;
            }
        }
        let text = |i: usize| &lines[i][range[i].0..range[i].1];
        let odd = match (used[0].is_empty(), used[1].is_empty()) {
            (false, true) => Some(others[0]),
            (true, false) => Some(others[1]),
            _ if text(others[0]) == text(others[1]) => Some(pivot),
            _ => None,
        };
        out.push(Block { range, odd });
    }
    out
}

/// GNU's normal format: `====` (or `====N` for the one file that differs), then each file's
/// lines, those two files share printed once.
fn normal(lines: &[Vec<&[u8]>], blocks: &[Block], mode: &Mode) -> Vec<u8> {
    let prefix: &[u8] = if mode.initial_tab { b"\t" } else { b"  " };
    let mut out = Vec::new();
    for b in blocks {
        let (tag, order, silent) = match b.odd {
            None => (String::new(), [0, 1, 2], None),
            // Files 1 and 3 agree: 1, then 3 with the text, then 2.
            Some(1) => ("2".to_string(), [0, 2, 1], Some(0)),
            Some(0) => ("1".to_string(), [0, 1, 2], Some(1)),
            Some(k) => ((k + 1).to_string(), [0, 1, 2], Some(0)),
        };
        out.extend_from_slice(format!("===={tag}\n").as_bytes());
        for i in order {
            let (lo, hi) = b.range[i];
            let place = match hi - lo {
                0 => format!("{lo}a"),
                1 => format!("{hi}c"),
                _ => format!("{},{hi}c", lo + 1),
            };
            out.extend_from_slice(format!("{}:{place}\n", i + 1).as_bytes());
            if silent == Some(i) {
                continue;
            }
            for l in &lines[i][lo..hi] {
                out.extend_from_slice(prefix);
                out.extend_from_slice(l);
                if !l.ends_with(b"\n") {
                    out.extend_from_slice(b"\n\\ No newline at end of file\n");
                }
            }
        }
    }
    out
}

/// Whether an ed script or a merge takes block `b`, and as a conflict.
fn taken(b: &Block, mode: &Mode) -> Option<bool> {
    match b.odd {
        Some(OLDER) if mode.show_older => Some(true),
        Some(YOURS) if !mode.overlap_only => Some(false),
        None if !mode.simple_only => Some(mode.flagging),
        _ => None,
    }
}

/// `lines` into an ed script's text, a leading `.` doubled; and whether one was.
fn dotted(out: &mut Vec<u8>, lines: &[&[u8]]) -> bool {
    let mut any = false;
    for l in lines {
        if l.starts_with(b".") {
            any = true;
            out.push(b'.');
        }
        out.extend_from_slice(l);
    }
    any
}

/// The end of an ed script's text, and the substitution that undoes the doubled dots.
fn undot(out: &mut Vec<u8>, dots: bool, start: usize, count: usize) {
    out.extend_from_slice(b".\n");
    if dots {
        let text = if count == 1 {
            format!("{start}s/^\\.//\n")
        } else {
            format!("{start},{}s/^\\.//\n", start + count - 1)
        };
        out.extend_from_slice(text.as_bytes());
    }
}

/// An ed script that brings OLDER's changes to YOURS into MINE, last block first; and
/// whether it bracketed a conflict.
fn ed_script(
    lines: &[Vec<&[u8]>],
    blocks: &[Block],
    mode: &Mode,
    names: &[String],
) -> (Vec<u8>, bool) {
    let mut out = Vec::new();
    let mut conflicts = false;
    for b in blocks.iter().rev() {
        let Some(conflict) = taken(b, mode) else {
            continue;
        };
        let (lo, hi) = b.range[MINE];
        let text = |i: usize| &lines[i][b.range[i].0..b.range[i].1];
        let count = |i: usize| b.range[i].1 - b.range[i].0;
        if conflict {
            conflicts = true;
            out.extend_from_slice(format!("{hi}a\n").as_bytes());
            let mut dots = false;
            if b.odd.is_none() {
                if mode.show_older {
                    out.extend_from_slice(format!("||||||| {}\n", names[OLDER]).as_bytes());
                    dots = dotted(&mut out, text(OLDER));
                }
                out.extend_from_slice(b"=======\n");
                dots |= dotted(&mut out, text(YOURS));
            }
            out.extend_from_slice(format!(">>>>>>> {}\n", names[YOURS]).as_bytes());
            undot(&mut out, dots, hi + 2, count(OLDER) + count(YOURS) + 1);
            let first = if b.odd.is_none() { MINE } else { OLDER };
            out.extend_from_slice(format!("{lo}a\n<<<<<<< {}\n", names[first]).as_bytes());
            let mut dots = false;
            if b.odd == Some(OLDER) {
                dots = dotted(&mut out, text(OLDER));
                out.extend_from_slice(b"=======\n");
            }
            undot(&mut out, dots, lo + 2, count(OLDER));
        } else if count(YOURS) == 0 {
            let place = if hi - lo == 1 {
                format!("{hi}d\n")
            } else {
                format!("{},{hi}d\n", lo + 1)
            };
            out.extend_from_slice(place.as_bytes());
        } else {
            let place = match hi - lo {
                0 => format!("{hi}a\n"),
                1 => format!("{hi}c\n"),
                _ => format!("{},{hi}c\n", lo + 1),
            };
            out.extend_from_slice(place.as_bytes());
            let dots = dotted(&mut out, text(YOURS));
            undot(&mut out, dots, lo + 1, count(YOURS));
        }
    }
    if mode.finalwrite {
        out.extend_from_slice(b"w\nq\n");
    }
    (out, conflicts)
}

/// MINE with OLDER's changes to YOURS merged in, conflicts bracketed; and whether there were
/// any.
fn merged(
    lines: &[Vec<&[u8]>],
    blocks: &[Block],
    mode: &Mode,
    names: &[String],
) -> (Vec<u8>, bool) {
    let mut out = Vec::new();
    let (mut conflicts, mut copied) = (false, 0);
    let put = |out: &mut Vec<u8>, ls: &[&[u8]]| ls.iter().for_each(|l| out.extend_from_slice(l));
    for b in blocks {
        let Some(conflict) = taken(b, mode) else {
            continue;
        };
        let (lo, hi) = b.range[MINE];
        put(&mut out, &lines[MINE][copied..lo]);
        let text = |i: usize| &lines[i][b.range[i].0..b.range[i].1];
        if conflict {
            conflicts = true;
            let mut older_mark = "<<<<<<<";
            if b.odd.is_none() {
                out.extend_from_slice(format!("<<<<<<< {}\n", names[MINE]).as_bytes());
                put(&mut out, text(MINE));
                older_mark = "|||||||";
            }
            if mode.show_older {
                out.extend_from_slice(format!("{older_mark} {}\n", names[OLDER]).as_bytes());
                put(&mut out, text(OLDER));
            }
            out.extend_from_slice(b"=======\n");
        }
        put(&mut out, text(YOURS));
        if conflict {
            out.extend_from_slice(format!(">>>>>>> {}\n", names[YOURS]).as_bytes());
        }
        copied = hi;
    }
    put(&mut out, &lines[MINE][copied..]);
    (out, conflicts)
}

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::Native;

    #[test]
    fn blocks_formats_and_merges() {
        let mut ctx = Native::new();
        ctx.write("old", "a\nb\nc\nd\ne\n")
            .write("mine", "a\nB\nc\nd\ne\n")
            .write("yours", "a\nb\nc\nD\ne\nf\n")
            .write("clash", "a\nX\nc\nd\ne\n");
        let ran = ctx.run(&["diff3", "mine", "old", "yours"], "");
        assert_eq!(
            ran.stdout,
            "====1\n1:2c\n  B\n2:2c\n3:2c\n  b\n====3\n1:4c\n2:4c\n  d\n3:4c\n  D\n\
             ====3\n1:5a\n2:5a\n3:6c\n  f\n"
        );
        let ran = ctx.run(&["diff3", "-m", "mine", "old", "yours"], "");
        assert_eq!((ran.status, ran.stdout.as_str()), (0, "a\nB\nc\nD\ne\nf\n"));
        let ran = ctx.run(&["diff3", "-m", "mine", "old", "clash"], "");
        assert_eq!(
            (ran.status, ran.stdout.as_str()),
            (
                1,
                "a\n<<<<<<< mine\nB\n||||||| old\nb\n=======\nX\n>>>>>>> clash\nc\nd\ne\n"
            )
        );
        let ran = ctx.run(&["diff3", "-E", "mine", "old", "clash"], "");
        assert_eq!(
            ran.stdout,
            "2a\n=======\nX\n>>>>>>> clash\n.\n1a\n<<<<<<< mine\n.\n"
        );
        assert_eq!(ctx.run(&["diff3", "-e", "-E", "a", "b", "c"], "").status, 2);
    }
}
