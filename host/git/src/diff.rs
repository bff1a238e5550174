//! Unified diffs as `git diff` prints them: headers, hunks with function context, binary
//! files and missing final newlines.

use std::fmt::Write as _;

use gix::ObjectId;
use gix::bstr::{BStr, ByteSlice};
use gix::diff::blob::sources::byte_lines;
use gix::diff::blob::unified_diff::{ConsumeHunk, ContextSize, DiffLineKind, HunkHeader};
use gix::diff::blob::{Algorithm, InternedInput, UnifiedDiff};
use gix::objs::tree::EntryMode;

use crate::status::quote;

/// One side of a file's change.
pub(crate) struct Side<'a> {
    pub id: ObjectId,
    pub mode: EntryMode,
    pub data: &'a [u8],
}

/// What one path's diff counted, for `--stat`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Counts {
    pub added: usize,
    pub removed: usize,
    /// The sizes before and after, for a binary file.
    pub binary: Option<(usize, usize)>,
}

/// Appends the diff of one path to `out` (`None` on a side: the file does not exist there),
/// and says how many lines it added and removed.
pub(crate) fn file_diff(
    out: &mut Vec<u8>,
    path: &BStr,
    old: Option<Side<'_>>,
    new: Option<Side<'_>>,
) -> Counts {
    let a = quote(format!("a/{path}").as_bytes().as_bstr());
    let b = quote(format!("b/{path}").as_bytes().as_bstr());
    let _ = writeln!(Text(out), "diff --git {a} {b}");
    let mode = |m: EntryMode| format!("{:06o}", m.value());
    let short = |id: &ObjectId| id.to_hex_with_len(7).to_string();
    let null = "0000000";
    match (&old, &new) {
        (None, Some(n)) => {
            let _ = writeln!(Text(out), "new file mode {}", mode(n.mode));
            let _ = writeln!(Text(out), "index {null}..{}", short(&n.id));
        }
        (Some(o), None) => {
            let _ = writeln!(Text(out), "deleted file mode {}", mode(o.mode));
            let _ = writeln!(Text(out), "index {}..{null}", short(&o.id));
        }
        (Some(o), Some(n)) => {
            if o.mode != n.mode {
                let _ = writeln!(Text(out), "old mode {}", mode(o.mode));
                let _ = writeln!(Text(out), "new mode {}", mode(n.mode));
            }
            if o.id == n.id {
                return Counts::default();
            }
            if o.mode == n.mode {
                let _ = writeln!(
                    Text(out),
                    "index {}..{} {}",
                    short(&o.id),
                    short(&n.id),
                    mode(n.mode)
                );
            } else {
                let _ = writeln!(Text(out), "index {}..{}", short(&o.id), short(&n.id));
            }
        }
        (None, None) => return Counts::default(),
    }
    let old_data = old.as_ref().map_or(&[][..], |s| s.data);
    let new_data = new.as_ref().map_or(&[][..], |s| s.data);
    let from = if old.is_some() {
        a.clone()
    } else {
        "/dev/null".into()
    };
    let to = if new.is_some() {
        b.clone()
    } else {
        "/dev/null".into()
    };
    if is_binary(old_data) || is_binary(new_data) {
        let _ = writeln!(Text(out), "Binary files {from} and {to} differ");
        return Counts {
            binary: Some((old_data.len(), new_data.len())),
            ..Counts::default()
        };
    }
    if old_data.is_empty() && new_data.is_empty() {
        return Counts::default();
    }
    let _ = writeln!(Text(out), "--- {from}");
    let _ = writeln!(Text(out), "+++ {to}");
    let start = out.len();
    hunks(out, old_data, new_data);
    let mut counts = Counts::default();
    for line in out[start..].split(|&b| b == b'\n') {
        match line.first() {
            Some(b'+') => counts.added += 1,
            Some(b'-') => counts.removed += 1,
            _ => {}
        }
    }
    counts
}

/// `--stat`: a line per path (`name | count +-`, the graph scaled to fit 80 columns as git
/// does where no terminal says otherwise) and the summary line.
pub(crate) fn stat(files: &[(String, Counts)]) -> String {
    const WIDTH: usize = 80;
    if files.is_empty() {
        return String::new();
    }
    let change = |c: &Counts| c.added + c.removed;
    let max_change = files.iter().map(|(_, c)| change(c)).max().unwrap_or(0);
    let max_len = files
        .iter()
        .map(|(n, _)| n.chars().count())
        .max()
        .unwrap_or(0);
    let digits = |n: usize| n.to_string().len();
    let mut number_width = digits(max_change);
    if files.iter().any(|(_, c)| c.binary.is_some()) {
        number_width = number_width.max(3);
    }
    let (mut name_width, mut graph_width) = (max_len, max_change);
    if name_width + number_width + 6 + graph_width > WIDTH {
        if graph_width > (WIDTH * 3 / 8).saturating_sub(number_width + 6) {
            graph_width = (WIDTH * 3 / 8).saturating_sub(number_width + 6).max(6);
        }
        if name_width > WIDTH.saturating_sub(number_width + 6 + graph_width) {
            name_width = WIDTH.saturating_sub(number_width + 6 + graph_width);
        } else {
            graph_width = WIDTH - number_width - 6 - name_width;
        }
    }
    let scale = |n: usize| {
        if n == 0 {
            0
        } else {
            1 + n * (graph_width - 1) / max_change
        }
    };
    let mut out = String::new();
    let (mut added, mut removed) = (0, 0);
    for (name, c) in files {
        let len = name.chars().count();
        let shown = if len > name_width {
            // The end of the name, from a `/` in it if there is one, after "...".
            let keep = name_width.saturating_sub(3);
            let tail: String = name.chars().skip(len - keep).collect();
            let tail = tail.find('/').map_or(tail.as_str(), |at| &tail[at..]);
            format!("...{tail}")
        } else {
            name.clone()
        };
        let pad = name_width.saturating_sub(shown.chars().count());
        out.push_str(&format!(" {shown}{} | ", " ".repeat(pad)));
        if let Some((before, after)) = c.binary {
            out.push_str(&format!(
                "{:>number_width$} {before} -> {after} bytes\n",
                "Bin"
            ));
            continue;
        }
        added += c.added;
        removed += c.removed;
        let (mut plus, mut minus) = (c.added, c.removed);
        if graph_width <= max_change {
            let mut total = scale(plus + minus);
            if total < 2 && plus > 0 && minus > 0 {
                total = 2;
            }
            if plus < minus {
                plus = scale(plus);
                minus = total - plus;
            } else {
                minus = scale(minus);
                plus = total - minus;
            }
        }
        let graph = if change(c) > 0 {
            format!(" {}{}", "+".repeat(plus), "-".repeat(minus))
        } else {
            String::new()
        };
        out.push_str(&format!("{:>number_width$}{graph}\n", change(c)));
    }
    let plural = |n: usize, one: &str, many: &str| {
        if n == 1 {
            one.to_string()
        } else {
            many.to_string()
        }
    };
    out.push_str(&format!(
        " {} {} changed",
        files.len(),
        plural(files.len(), "file", "files")
    ));
    if added > 0 || removed == 0 {
        out.push_str(&format!(
            ", {added} {}(+)",
            plural(added, "insertion", "insertions")
        ));
    }
    if removed > 0 || added == 0 {
        out.push_str(&format!(
            ", {removed} {}(-)",
            plural(removed, "deletion", "deletions")
        ));
    }
    out.push('\n');
    out
}

/// Git's test for binary content: a NUL in the first 8000 bytes.
fn is_binary(data: &[u8]) -> bool {
    data[..data.len().min(8000)].contains(&0)
}

/// The hunks of a line diff (Myers with git's slider heuristics, 3 lines of context).
fn hunks(out: &mut Vec<u8>, old: &[u8], new: &[u8]) {
    let input = InternedInput::new(byte_lines(old), byte_lines(new));
    let diff = gix::diff::blob::diff_with_slider_heuristics(Algorithm::Myers, &input);
    let sink = Hunks { out, old };
    let _ = UnifiedDiff::new(&diff, &input, sink, ContextSize::symmetrical(3)).consume();
}

struct Hunks<'a> {
    out: &'a mut Vec<u8>,
    old: &'a [u8],
}

impl ConsumeHunk for Hunks<'_> {
    type Out = ();

    fn consume_hunk(
        &mut self,
        header: HunkHeader,
        lines: &[(DiffLineKind, &[u8])],
    ) -> std::io::Result<()> {
        let range = |start: u32, len: u32| {
            let start = if len == 0 {
                start.saturating_sub(1)
            } else {
                start
            };
            if len == 1 {
                format!("{start}")
            } else {
                format!("{start},{len}")
            }
        };
        let context = function_context(self.old, header.before_hunk_start);
        let _ = write!(
            Text(self.out),
            "@@ -{} +{} @@",
            range(header.before_hunk_start, header.before_hunk_len),
            range(header.after_hunk_start, header.after_hunk_len)
        );
        if let Some(context) = context {
            self.out.push(b' ');
            self.out.extend_from_slice(context);
        }
        self.out.push(b'\n');
        for (kind, line) in lines {
            self.out.push(kind.to_prefix() as u8);
            self.out.extend_from_slice(line);
            if !line.ends_with(b"\n") {
                self.out
                    .extend_from_slice(b"\n\\ No newline at end of file\n");
            }
        }
        Ok(())
    }

    fn finish(self) -> Self::Out {}
}

/// Git's default function context: the nearest line above the hunk that starts with a
/// letter, `_` or `$`, without its line end, trailing blanks trimmed, at most 80 bytes.
fn function_context(old: &[u8], hunk_start: u32) -> Option<&[u8]> {
    let before = (hunk_start as usize).saturating_sub(1);
    let lines: Vec<&[u8]> = old.lines_with_terminator().take(before).collect();
    lines.iter().rev().find_map(|line| {
        let first = *line.first()?;
        if first.is_ascii_alphabetic() || first == b'_' || first == b'$' {
            let line = line.trim_end_with(|c| c == '\n' || c == '\r');
            let line = &line[..line.len().min(80)];
            Some(line.trim_end())
        } else {
            None
        }
    })
}

/// `write!` into a byte buffer.
struct Text<'a>(&'a mut Vec<u8>);

impl std::fmt::Write for Text<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.0.extend_from_slice(s.as_bytes());
        Ok(())
    }
}

/// Lines added and removed between two texts (what `--stat` counts); binary files count 0.
pub(crate) fn line_counts(old: &[u8], new: &[u8]) -> (usize, usize) {
    if is_binary(old) || is_binary(new) {
        return (0, 0);
    }
    let input = InternedInput::new(byte_lines(old), byte_lines(new));
    let diff = gix::diff::blob::diff_with_slider_heuristics(Algorithm::Myers, &input);
    (
        diff.count_additions() as usize,
        diff.count_removals() as usize,
    )
}
