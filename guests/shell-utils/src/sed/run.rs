//! Running a sed script: the input as a stream of lines with `$` known ahead, the pattern and
//! hold spaces, one cycle per line, and the `s` command's replacement.

use super::parse::*;
use crate::stream::{Lines, Stop, Writer, open};
use shell_base::Context;
use shell_base::posix::{Groups, Pattern};

/// Where input lines come from: the files in turn (or one at a time with `-s`/`-i`).
pub(super) struct Source {
    pub(super) files: Vec<String>,
    pub(super) next_file: usize,
    pub(super) current: Option<Lines>,
    pub(super) peeked: Option<(Vec<u8>, bool)>,
    pub(super) delim: u8,
}

impl Source {
    /// The next line (without its delimiter) and whether it had one.
    pub(super) async fn next(
        &mut self,
        sh: &dyn Context,
        errors: &mut Vec<String>,
    ) -> Option<(Vec<u8>, bool)> {
        if let Some(p) = self.peeked.take() {
            return Some(p);
        }
        loop {
            if let Some(lines) = &mut self.current
                && let Ok(Some(mut l)) = lines.next().await
            {
                let had = l.last() == Some(&self.delim);
                if had {
                    l.pop();
                }
                return Some((l, had));
            }
            let f = self.files.get(self.next_file)?.clone();
            self.next_file += 1;
            match open(sh, &f) {
                Ok(input) => self.current = Some(Lines::with_delimiter(input, self.delim)),
                Err(m) => {
                    errors.push(format!("sed: can't read {m}"));
                    self.current = None;
                }
            }
        }
    }

    pub(super) async fn is_last(&mut self, sh: &dyn Context, errors: &mut Vec<String>) -> bool {
        if self.peeked.is_none() {
            self.peeked = self.next(sh, errors).await;
        }
        self.peeked.is_none()
    }
}

/// Range states before the first line: `0,/re/` is open from the start (its end can match
/// on line 1).
pub(super) fn initially_active(prog: &[Instr]) -> Vec<Option<u64>> {
    prog.iter()
        .map(|i| match &i.range {
            Range::Two(Addr::Line(0), Addr::Re(_)) => Some(0),
            _ => None,
        })
        .collect()
}

/// The state of one run of a script.
pub(super) struct Run<'p> {
    pub(super) prog: &'p [Instr],
    pub(super) labels: std::collections::HashMap<String, usize>,
    pub(super) quiet: bool,
    pub(super) delim: u8,
    pub(super) active: Vec<Option<u64>>,
    pub(super) hold: Vec<u8>,
    /// The last regex used (an empty one means it); borrowed from the program, never cloned:
    /// a cloned `Regex` starts with an empty cache, which costs more than the search.
    pub(super) last_re: Option<&'p Pattern>,
    pub(super) writes: std::collections::HashMap<String, std::fs::File>,
}

pub(super) enum End {
    /// End of cycle: autoprint unless told not to.
    Cycle {
        print: bool,
    },
    /// Restart the script on what is left (`D`).
    Restart,
    Quit {
        print: bool,
        code: i32,
    },
}

impl<'p> Run<'p> {
    /// Whether address `a` selects this line (an error when a backtracking match gave up).
    pub(super) fn addr(
        &mut self,
        a: &'p Addr,
        line: u64,
        last: bool,
        pattern: &[u8],
    ) -> Result<bool, String> {
        Ok(match a {
            Addr::Line(n) => line == *n,
            Addr::Last => last,
            Addr::Step(first, step) => {
                if *step == 0 {
                    line == *first
                } else {
                    line >= *first && (line - first).is_multiple_of(*step)
                }
            }
            Addr::Re(re) => {
                if let Some(r) = re {
                    self.last_re = Some(r);
                }
                match self.last_re {
                    Some(r) => r.is_match(pattern)?,
                    None => false,
                }
            }
        })
    }

    pub(super) fn selected(
        &mut self,
        k: usize,
        line: u64,
        last: bool,
        pattern: &[u8],
    ) -> Result<bool, String> {
        // A copy of the program's reference, so the instruction is borrowed, not cloned.
        let prog = self.prog;
        let instr = &prog[k];
        let hit = match &instr.range {
            Range::None => true,
            Range::One(a) => self.addr(a, line, last, pattern)?,
            Range::Two(a, b) => match self.active[k] {
                Some(_) => {
                    let end = match b {
                        Addr::Line(n) => line >= *n,
                        other => self.addr(other, line, last, pattern)?,
                    };
                    if end {
                        self.active[k] = None;
                    }
                    true
                }
                None => {
                    if self.addr(a, line, last, pattern)? {
                        let ends_now = matches!(b, Addr::Line(n) if *n <= line);
                        if !ends_now {
                            self.active[k] = Some(0);
                        }
                        true
                    } else {
                        false
                    }
                }
            },
            Range::Plus(a, n) => match self.active[k] {
                Some(end) => {
                    if line >= end {
                        self.active[k] = None;
                    }
                    true
                }
                None => {
                    if self.addr(a, line, last, pattern)? {
                        if *n > 0 {
                            self.active[k] = Some(line + *n);
                        }
                        true
                    } else {
                        false
                    }
                }
            },
        };
        Ok(hit != instr.negate)
    }
}

/// Appends the `s` replacement for one match of `hay` to `out`.
pub(super) fn render(rep: &[Rep], caps: &Groups, hay: &[u8], out: &mut Vec<u8>) {
    #[derive(Clone, Copy, PartialEq)]
    enum Case {
        None,
        Upper,
        Lower,
    }
    let mut case = Case::None;
    let mut one: Option<bool> = None;
    let push = |bytes: &[u8], out: &mut Vec<u8>, case: Case, one: &mut Option<bool>| {
        for &b in bytes {
            let b = match one.take() {
                Some(true) => b.to_ascii_uppercase(),
                Some(false) => b.to_ascii_lowercase(),
                None => match case {
                    Case::Upper => b.to_ascii_uppercase(),
                    Case::Lower => b.to_ascii_lowercase(),
                    Case::None => b,
                },
            };
            out.push(b);
        }
    };
    for r in rep {
        match r {
            Rep::Lit(l) => push(l, out, case, &mut one),
            Rep::Group(g) => {
                let text = match caps.get(*g) {
                    Some(Some(range)) => &hay[range.clone()],
                    _ => &[],
                };
                push(text, out, case, &mut one);
            }
            Rep::Upper => case = Case::Upper,
            Rep::Lower => case = Case::Lower,
            Rep::EndCase => case = Case::None,
            Rep::UpperOne => one = Some(true),
            Rep::LowerOne => one = Some(false),
        }
    }
}

/// `l`'s form of the pattern space.
pub(super) fn unambiguous(p: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut col = 0;
    for &b in p {
        let piece: Vec<u8> = match b {
            b'\\' => b"\\\\".to_vec(),
            7 => b"\\a".to_vec(),
            8 => b"\\b".to_vec(),
            12 => b"\\f".to_vec(),
            b'\n' => b"\\n".to_vec(),
            b'\r' => b"\\r".to_vec(),
            b'\t' => b"\\t".to_vec(),
            11 => b"\\v".to_vec(),
            32..=126 => vec![b],
            _ => format!("\\{b:03o}").into_bytes(),
        };
        if col + piece.len() > 69 {
            out.extend(b"\\\n");
            col = 0;
        }
        col += piece.len();
        out.extend(piece);
    }
    out.extend(b"$\n");
    out
}

/// Runs the script over one group of inputs; `Some(code)` when it quit.
pub(super) async fn run_group(
    sh: &dyn Context,
    run: &mut Run<'_>,
    source: &mut Source,
    out: &mut Writer,
    line_no: &mut u64,
    errors: &mut Vec<String>,
) -> Result<Option<i32>, Stop> {
    let delim = run.delim;
    // A copy of the program's reference: instructions are borrowed while `run` changes.
    let prog = run.prog;
    let mut pattern: Vec<u8>;
    let mut had_newline;
    let mut pending: Option<(Vec<u8>, bool)> = None;
    loop {
        let (line, nl) = match pending.take() {
            Some(p) => p,
            None => match source.next(sh, errors).await {
                Some(l) => {
                    *line_no += 1;
                    l
                }
                None => return Ok(None),
            },
        };
        pattern = line;
        had_newline = nl;
        let mut appends: Vec<u8> = Vec::new();
        let mut subst_flag = false;
        let mut restart = true;
        while restart {
            restart = false;
            let mut pc = 0;
            let end = loop {
                if pc >= run.prog.len() {
                    break End::Cycle { print: true };
                }
                let last = source.is_last(sh, errors).await;
                let selected = match run.selected(pc, *line_no, last, &pattern) {
                    Ok(s) => s,
                    Err(e) => {
                        // Stopped, not quit: nothing is printed or written in place.
                        errors.push(format!("sed: {e}"));
                        return Err(Stop(4));
                    }
                };
                if !selected {
                    pc = match run.prog[pc].cmd {
                        Cmd::Block(end) => end,
                        _ => pc + 1,
                    };
                    continue;
                }
                let cmd = &prog[pc].cmd;
                pc += 1;
                match cmd {
                    Cmd::Block(_) | Cmd::EndBlock | Cmd::Label => {}
                    Cmd::Subst {
                        re,
                        rep,
                        global,
                        nth,
                        print,
                        write,
                    } => {
                        if let Some(r) = &re {
                            run.last_re = Some(r);
                        }
                        let Some(re) = run.last_re else {
                            errors.push("sed: no previous regular expression".into());
                            return Ok(Some(1));
                        };
                        let mut result = Vec::new();
                        let mut last_end = 0;
                        let mut count = 0;
                        let mut changed = false;
                        let limit = if *global { usize::MAX } else { *nth };
                        let replaced = re.each_match(&pattern, limit, |caps| {
                            let m = caps
                                .first()
                                .and_then(|m| m.clone())
                                .map(|m| (m.start, m.end))
                                .unwrap_or((0, 0));
                            count += 1;
                            if count < *nth {
                                return;
                            }
                            result.extend_from_slice(&pattern[last_end..m.0]);
                            render(rep, caps, &pattern, &mut result);
                            last_end = m.1;
                            changed = true;
                        });
                        if let Err(e) = replaced {
                            errors.push(format!("sed: {e}"));
                            return Err(Stop(4));
                        }
                        if changed {
                            result.extend_from_slice(&pattern[last_end..]);
                            pattern = result;
                            subst_flag = true;
                            if *print {
                                out.write(&pattern).await?;
                                out.write(&[delim]).await?;
                            }
                            if let Some(f) = write
                                && let Some(file) = run.writes.get_mut(f)
                            {
                                use std::io::Write;
                                let _ = file.write_all(&pattern);
                                let _ = file.write_all(&[delim]);
                            }
                        }
                    }
                    Cmd::Translate(a, b) => {
                        for ch in pattern.iter_mut() {
                            if let Some(k) = a.iter().position(|x| x == ch) {
                                *ch = b[k];
                            }
                        }
                    }
                    Cmd::Delete => break End::Cycle { print: false },
                    Cmd::DeleteFirst => match pattern.iter().position(|b| *b == b'\n') {
                        Some(k) => {
                            pattern.drain(..=k);
                            break End::Restart;
                        }
                        None => break End::Cycle { print: false },
                    },
                    Cmd::Print => {
                        out.write(&pattern).await?;
                        out.write(&[delim]).await?;
                    }
                    Cmd::PrintFirst => {
                        let k = pattern
                            .iter()
                            .position(|b| *b == b'\n')
                            .unwrap_or(pattern.len());
                        out.write(&pattern[..k]).await?;
                        out.write(&[delim]).await?;
                    }
                    Cmd::Next => {
                        if source.is_last(sh, errors).await {
                            break End::Quit {
                                print: true,
                                code: 0,
                            };
                        }
                        if !run.quiet {
                            out.write(&pattern).await?;
                            out.write(&[delim]).await?;
                        }
                        out.write(&appends).await?;
                        appends.clear();
                        if let Some((l, nl)) = source.next(sh, errors).await {
                            *line_no += 1;
                            pattern = l;
                            had_newline = nl;
                        }
                    }
                    Cmd::NextAppend => {
                        if source.is_last(sh, errors).await {
                            break End::Quit {
                                print: true,
                                code: 0,
                            };
                        }
                        out.write(&appends).await?;
                        appends.clear();
                        if let Some((l, nl)) = source.next(sh, errors).await {
                            *line_no += 1;
                            pattern.push(b'\n');
                            pattern.extend(l);
                            had_newline = nl;
                        }
                    }
                    Cmd::Append(t) => {
                        appends.extend(t);
                        appends.push(b'\n');
                    }
                    Cmd::Insert(t) => {
                        out.write(t).await?;
                        out.write(b"\n").await?;
                    }
                    Cmd::Change(t) => {
                        // In a range, the text comes once, at its end.
                        let in_range = run.active[pc - 1].is_some();
                        if !in_range || run.prog[pc - 1].negate {
                            out.write(t).await?;
                            out.write(b"\n").await?;
                        }
                        break End::Cycle { print: false };
                    }
                    Cmd::LineNo => out.write_str(&format!("{line_no}\n")).await?,
                    Cmd::Quit(code) => {
                        break End::Quit {
                            print: true,
                            code: *code,
                        };
                    }
                    Cmd::QuitSilent(code) => {
                        break End::Quit {
                            print: false,
                            code: *code,
                        };
                    }
                    Cmd::Hold => run.hold = pattern.clone(),
                    Cmd::HoldAppend => {
                        run.hold.push(b'\n');
                        run.hold.extend_from_slice(&pattern);
                    }
                    Cmd::Get => pattern = run.hold.clone(),
                    Cmd::GetAppend => {
                        pattern.push(b'\n');
                        pattern.extend_from_slice(&run.hold);
                    }
                    Cmd::Exchange => std::mem::swap(&mut pattern, &mut run.hold),
                    Cmd::Branch(l) => {
                        pc = if l.is_empty() {
                            run.prog.len()
                        } else {
                            run.labels[l]
                        };
                    }
                    Cmd::BranchIf(l) | Cmd::BranchUnless(l) => {
                        let want = matches!(run.prog[pc - 1].cmd, Cmd::BranchIf(_));
                        if subst_flag == want {
                            pc = if l.is_empty() {
                                run.prog.len()
                            } else {
                                run.labels[l]
                            };
                        }
                        if want {
                            subst_flag = false;
                        }
                    }
                    Cmd::List => out.write(&unambiguous(&pattern)).await?,
                    Cmd::Zap => pattern.clear(),
                    Cmd::ReadFile(f) => {
                        if let Ok(data) = std::fs::read(sh.path(f)) {
                            appends.extend(data);
                        }
                    }
                    Cmd::WriteFile(f) => {
                        if let Some(file) = run.writes.get_mut(f) {
                            use std::io::Write;
                            let _ = file.write_all(&pattern);
                            let _ = file.write_all(&[delim]);
                        }
                    }
                }
            };
            match end {
                End::Restart => {
                    // `D` with a newline: the rest starts a new cycle without reading.
                    out.write(&appends).await?;
                    pending = Some((std::mem::take(&mut pattern), had_newline));
                    break;
                }
                End::Cycle { print } | End::Quit { print, .. } => {
                    if print && !run.quiet {
                        out.write(&pattern).await?;
                        let last = source.is_last(sh, errors).await;
                        if had_newline || !last {
                            out.write(&[delim]).await?;
                        }
                    }
                    out.write(&appends).await?;
                    if let End::Quit { code, .. } = end {
                        return Ok(Some(code));
                    }
                }
            }
        }
    }
}
