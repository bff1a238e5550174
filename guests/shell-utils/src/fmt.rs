//! `fmt`: reformat paragraphs, breaking lines where GNU fmt does.
//!
//! The line breaks are GNU fmt's (coreutils 9.1): each paragraph's breaks minimise a cost
//! over the whole paragraph (lines near the goal width, 93% of the maximum, little
//! raggedness, breaks after sentences and punctuation, none after a lone first word), found
//! by dynamic programming. Widths count bytes, as GNU's do.

use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{bad_usage, dashed_number, parser, string, value};

use super::stream::{Stop, Writer, complain, files_or_stdin, read_file};

/// Default maximum line width.
const WIDTH: i64 = 75;
/// Lines aim this many percent below the maximum.
const LEEWAY: i64 = 7;
/// The second line's indent of a one-line tagged paragraph (`-t`).
const DEF_INDENT: i64 = 3;
/// A paragraph's words and bytes held at once; a longer one is output in parts.
const MAXWORDS: usize = 1000;
const MAXCHARS: usize = 5000;
const TABWIDTH: i64 = 8;

type Cost = i64;

const fn equiv(n: i64) -> Cost {
    n * n
}
/// A line `n` bytes off the goal.
const fn short_cost(n: i64) -> Cost {
    equiv(n * 10)
}
/// Adjacent lines `n` bytes apart.
const fn ragged_cost(n: i64) -> Cost {
    short_cost(n) / 2
}
const LINE_COST: Cost = equiv(70);
const fn widow_cost(n: i64) -> Cost {
    equiv(200) / (n + 2)
}
const fn orphan_cost(n: i64) -> Cost {
    equiv(150) / (n + 2)
}
const SENTENCE_BONUS: Cost = equiv(50);
const NOBREAK_COST: Cost = equiv(600);
const PAREN_BONUS: Cost = equiv(40);
const PUNCT_BONUS: Cost = equiv(40);
const LINE_CREDIT: Cost = equiv(3);

#[derive(Clone, Default)]
struct Word {
    /// Where its text starts in the paragraph buffer.
    text: usize,
    length: i64,
    /// The space after it.
    space: i64,
    paren: bool,
    period: bool,
    punct: bool,
    fin: bool,
    line_length: i64,
    best_cost: Cost,
    next_break: usize,
}

struct Options {
    crown: bool,
    tagged: bool,
    split: bool,
    uniform: bool,
    /// The prefix without its leading and trailing spaces, the spaces before it, and its
    /// length with the trailing ones.
    prefix: Vec<u8>,
    prefix_lead_space: i64,
    prefix_full_length: i64,
    max_width: i64,
    goal_width: i64,
}

/// One input formatted, as GNU's `fmt (FILE *f)`.
struct Fmt<'a> {
    o: &'a Options,
    input: &'a [u8],
    pos: usize,
    out: Vec<u8>,
    in_column: i64,
    out_column: i64,
    parabuf: Vec<u8>,
    /// The words, and one more being read or the sentinel.
    word: Vec<Word>,
    limit: usize,
    tabs: bool,
    prefix_indent: i64,
    first_indent: i64,
    other_indent: i64,
    next_char: Option<u8>,
    next_prefix_indent: i64,
    last_line_length: i64,
}

impl Fmt<'_> {
    fn getc(&mut self) -> Option<u8> {
        let c = self.input.get(self.pos).copied();
        self.pos += 1;
        c
    }

    fn run(&mut self) {
        self.next_char = self.get_prefix();
        while self.get_paragraph() {
            self.fmt_paragraph();
            self.put_paragraph(self.limit);
        }
    }

    fn set_other_indent(&mut self, same_paragraph: bool) {
        let o = self.o;
        if o.split {
            self.other_indent = self.first_indent;
        } else if o.crown {
            self.other_indent = if same_paragraph {
                self.in_column
            } else {
                self.first_indent
            };
        } else if o.tagged {
            if same_paragraph && self.in_column != self.first_indent {
                self.other_indent = self.in_column;
            } else if self.other_indent == self.first_indent {
                self.other_indent = if self.first_indent == 0 {
                    DEF_INDENT
                } else {
                    0
                };
            }
        } else {
            self.other_indent = self.first_indent;
        }
    }

    fn get_paragraph(&mut self) -> bool {
        self.last_line_length = 0;
        let mut c = self.next_char;
        // Blank lines, and lines without the prefix, are copied.
        while matches!(c, None | Some(b'\n'))
            || self.next_prefix_indent < self.o.prefix_lead_space
            || self.in_column < self.next_prefix_indent + self.o.prefix_full_length
        {
            c = self.copy_rest(c);
            if c.is_none() {
                self.next_char = None;
                return false;
            }
            self.out.push(b'\n');
            c = self.get_prefix();
        }
        self.prefix_indent = self.next_prefix_indent;
        self.first_indent = self.in_column;
        self.parabuf.clear();
        self.limit = 0;
        c = self.get_line(c);
        let same = self.same_para(c);
        self.set_other_indent(same);
        if self.o.split {
        } else if self.o.crown {
            if self.same_para(c) {
                loop {
                    c = self.get_line(c);
                    if !(self.same_para(c) && self.in_column == self.other_indent) {
                        break;
                    }
                }
            }
        } else if self.o.tagged {
            if self.same_para(c) && self.in_column != self.first_indent {
                loop {
                    c = self.get_line(c);
                    if !(self.same_para(c) && self.in_column == self.other_indent) {
                        break;
                    }
                }
            }
        } else {
            while self.same_para(c) && self.in_column == self.other_indent {
                c = self.get_line(c);
            }
        }
        let last = &mut self.word[self.limit - 1];
        last.period = true;
        last.fin = true;
        self.next_char = c;
        true
    }

    fn copy_rest(&mut self, mut c: Option<u8>) -> Option<u8> {
        self.out_column = 0;
        let text = !matches!(c, None | Some(b'\n'));
        if self.in_column > self.next_prefix_indent || text {
            self.put_space(self.next_prefix_indent);
            let mut p = self.o.prefix.iter();
            while self.out_column != self.in_column
                && let Some(&b) = p.next()
            {
                self.out.push(b);
                self.out_column += 1;
            }
            if text {
                self.put_space(self.in_column - self.out_column);
            }
            if c.is_none() && self.in_column >= self.next_prefix_indent + self.o.prefix.len() as i64
            {
                self.out.push(b'\n');
            }
        }
        while let Some(b) = c
            && b != b'\n'
        {
            self.out.push(b);
            c = self.getc();
        }
        c
    }

    fn same_para(&self, c: Option<u8>) -> bool {
        self.next_prefix_indent == self.prefix_indent
            && self.in_column >= self.next_prefix_indent + self.o.prefix_full_length
            && !matches!(c, None | Some(b'\n'))
    }

    /// The current word slot (`word[limit]`), made if new.
    fn slot(&mut self) -> &mut Word {
        if self.word.len() <= self.limit {
            self.word.resize(self.limit + 1, Word::default());
        }
        &mut self.word[self.limit]
    }

    fn get_line(&mut self, mut c: Option<u8>) -> Option<u8> {
        loop {
            let start = self.parabuf.len();
            self.slot().text = start;
            loop {
                if self.parabuf.len() == MAXCHARS {
                    self.set_other_indent(true);
                    self.flush_paragraph();
                }
                self.parabuf.push(c.unwrap_or(0));
                c = self.getc();
                if c.is_none_or(|b| b.is_ascii_whitespace() || b == 0x0b) {
                    break;
                }
            }
            let text = self.word[self.limit].text;
            let length = (self.parabuf.len() - text) as i64;
            self.in_column += length;
            self.word[self.limit].length = length;
            self.check_punctuation(self.limit);
            let start = self.in_column;
            c = self.get_space(c);
            let space = self.in_column - start;
            let w = &mut self.word[self.limit];
            w.space = space;
            w.fin = c.is_none() || (w.period && (c == Some(b'\n') || space > 1));
            if matches!(c, None | Some(b'\n')) || self.o.uniform {
                w.space = if w.fin { 2 } else { 1 };
            }
            if self.limit == MAXWORDS - 2 {
                self.set_other_indent(true);
                self.flush_paragraph();
            }
            self.limit += 1;
            if matches!(c, None | Some(b'\n')) {
                break;
            }
        }
        self.get_prefix()
    }

    fn get_prefix(&mut self) -> Option<u8> {
        self.in_column = 0;
        let first = self.getc();
        let mut c = self.get_space(first);
        if self.o.prefix.is_empty() {
            self.next_prefix_indent = self.o.prefix_lead_space.min(self.in_column);
        } else {
            self.next_prefix_indent = self.in_column;
            for &p in &self.o.prefix {
                if c != Some(p) {
                    return c;
                }
                self.in_column += 1;
                c = self.getc();
            }
            c = self.get_space(c);
        }
        c
    }

    fn get_space(&mut self, mut c: Option<u8>) -> Option<u8> {
        loop {
            match c {
                Some(b' ') => self.in_column += 1,
                Some(b'\t') => {
                    self.tabs = true;
                    self.in_column = (self.in_column / TABWIDTH + 1) * TABWIDTH;
                }
                _ => return c,
            }
            c = self.getc();
        }
    }

    fn check_punctuation(&mut self, i: usize) {
        let w = &self.word[i];
        let text = &self.parabuf[w.text..w.text + w.length as usize];
        let mut finish = text.len() - 1;
        let last = text[finish];
        let paren = b"(['`\"".contains(&text[0]);
        let punct = last.is_ascii_punctuation();
        while finish > 0 && b")]'\"".contains(&text[finish]) {
            finish -= 1;
        }
        let period = b".?!".contains(&text[finish]);
        let w = &mut self.word[i];
        (w.paren, w.punct, w.period) = (paren, punct, period);
    }

    /// Outputs the start of a paragraph too long to hold, up to a cheap break near its end.
    fn flush_paragraph(&mut self) {
        if self.limit == 0 {
            self.out.extend_from_slice(&self.parabuf);
            self.parabuf.clear();
            return;
        }
        self.fmt_paragraph();
        let mut split_point = self.limit;
        let mut best_break = Cost::MAX;
        let mut w = self.word[0].next_break;
        while w != self.limit {
            let next = self.word[w].next_break;
            let cost = self.word[w].best_cost - self.word[next].best_cost;
            if cost < best_break {
                split_point = w;
                best_break = cost;
            }
            if best_break <= Cost::MAX - LINE_CREDIT {
                best_break += LINE_CREDIT;
            }
            w = next;
        }
        self.put_paragraph(split_point);
        let shift = self.word[split_point].text;
        self.parabuf.drain(..shift);
        self.slot();
        for w in &mut self.word[split_point..=self.limit] {
            w.text -= shift;
            w.next_break = w.next_break.saturating_sub(split_point);
        }
        self.word.drain(..split_point);
        self.limit -= split_point;
    }

    fn fmt_paragraph(&mut self) {
        let limit = self.limit;
        self.slot();
        let saved = self.word[limit].length;
        self.word[limit].best_cost = 0;
        self.word[limit].length = self.o.max_width;
        for start in (0..limit).rev() {
            let mut best = Cost::MAX;
            let mut len = if start == 0 {
                self.first_indent
            } else {
                self.other_indent
            };
            let mut w = start;
            len += self.word[w].length;
            loop {
                w += 1;
                let mut wcost = self.line_cost(w, len) + self.word[w].best_cost;
                if start == 0 && self.last_line_length > 0 {
                    wcost += ragged_cost(len - self.last_line_length);
                }
                if wcost < best {
                    best = wcost;
                    self.word[start].next_break = w;
                    self.word[start].line_length = len;
                }
                if w == limit {
                    break;
                }
                len += self.word[w - 1].space + self.word[w].length;
                if len >= self.o.max_width {
                    break;
                }
            }
            self.word[start].best_cost = best.saturating_add(self.base_cost(start));
        }
        self.word[limit].length = saved;
    }

    fn base_cost(&self, this: usize) -> Cost {
        let w = &self.word;
        let mut cost = LINE_COST;
        if this > 0 {
            let before = &w[this - 1];
            if before.period {
                if before.fin {
                    cost -= SENTENCE_BONUS;
                } else {
                    cost += NOBREAK_COST;
                }
            } else if before.punct {
                cost -= PUNCT_BONUS;
            } else if this > 1 && w[this - 2].fin {
                cost += widow_cost(before.length);
            }
        }
        if w[this].paren {
            cost -= PAREN_BONUS;
        } else if w[this].fin {
            cost += orphan_cost(w[this].length);
        }
        cost
    }

    fn line_cost(&self, next: usize, len: i64) -> Cost {
        if next == self.limit {
            return 0;
        }
        let mut cost = short_cost(self.o.goal_width - len);
        if self.word[next].next_break != self.limit {
            cost += ragged_cost(len - self.word[next].line_length);
        }
        cost
    }

    fn put_paragraph(&mut self, finish: usize) {
        self.put_line(0, self.first_indent);
        let mut w = self.word[0].next_break;
        while w != finish {
            self.put_line(w, self.other_indent);
            w = self.word[w].next_break;
        }
    }

    fn put_line(&mut self, mut w: usize, indent: i64) {
        self.out_column = 0;
        self.put_space(self.prefix_indent);
        self.out.extend_from_slice(&self.o.prefix);
        self.out_column += self.o.prefix.len() as i64;
        self.put_space(indent - self.out_column);
        let end = self.word[w].next_break - 1;
        while w != end {
            self.put_word(w);
            self.put_space(self.word[w].space);
            w += 1;
        }
        self.put_word(w);
        self.last_line_length = self.out_column;
        self.out.push(b'\n');
    }

    fn put_word(&mut self, w: usize) {
        let word = &self.word[w];
        let (start, len) = (word.text, word.length);
        self.out
            .extend_from_slice(&self.parabuf[start..start + len as usize]);
        self.out_column += len;
    }

    fn put_space(&mut self, space: i64) {
        let target = self.out_column + space;
        if self.tabs {
            let tab_target = target / TABWIDTH * TABWIDTH;
            if self.out_column + 1 < tab_target {
                while self.out_column < tab_target {
                    self.out.push(b'\t');
                    self.out_column = (self.out_column / TABWIDTH + 1) * TABWIDTH;
                }
            }
        }
        while self.out_column < target {
            self.out.push(b' ');
            self.out_column += 1;
        }
    }
}

/// A width operand: up to `max`, else GNU's `invalid width: 'N'` (with the reason when it
/// is a number out of range).
fn width(text: &str, max: i64) -> Result<i64, lexopt::Error> {
    let reason = match text.parse::<u64>() {
        Ok(n) if n <= max as u64 => return Ok(n as i64),
        Ok(_) => ": Numerical result out of range",
        Err(e) if *e.kind() == std::num::IntErrorKind::PosOverflow => {
            ": Value too large for defined data type"
        }
        Err(_) => "",
    };
    Err(shell_base::args::plain(format!(
        "invalid width: '{text}'{reason}"
    )))
}

/// `fmt [-WIDTH] [-w WIDTH] [-g GOAL] [-c] [-t] [-s] [-u] [-p PREFIX] [FILE...]`.
pub async fn fmt(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let mut o = Options {
        crown: false,
        tagged: false,
        split: false,
        uniform: false,
        prefix: Vec::new(),
        prefix_lead_space: 0,
        prefix_full_length: 0,
        max_width: WIDTH,
        goal_width: 0,
    };
    let mut max_width: Option<String> = None;
    let mut goal: Option<String> = None;
    let mut files = Vec::new();
    let mut p = parser(argv);
    let parsed: Result<(), lexopt::Error> = (|| {
        // `fmt -72`: the historical form of `-w 72`, first only.
        if let Some(n) = dashed_number(&mut p) {
            max_width = Some(n);
        }
        while let Some(arg) = p.next()? {
            match arg {
                Short('w') | Long("width") => max_width = Some(value(&mut p)?),
                Short('g') | Long("goal") => goal = Some(value(&mut p)?),
                Short('c') | Long("crown-margin") => o.crown = true,
                Short('t') | Long("tagged-paragraph") => o.tagged = true,
                Short('s') | Long("split-only") => o.split = true,
                Short('u') | Long("uniform-spacing") => o.uniform = true,
                Short('p') | Long("prefix") => {
                    let full = value(&mut p)?;
                    let trimmed = full.trim_start_matches(' ');
                    o.prefix_lead_space = (full.len() - trimmed.len()) as i64;
                    o.prefix_full_length = trimmed.len() as i64;
                    o.prefix = trimmed.trim_end_matches(' ').as_bytes().to_vec();
                }
                Value(v) => files.push(string(v)),
                _ => return Err(arg.unexpected()),
            }
        }
        if let Some(w) = &max_width {
            o.max_width = width(w, MAXCHARS as i64 / 2)?;
        }
        o.goal_width = match &goal {
            Some(g) => {
                let g = width(g, o.max_width)?;
                if max_width.is_none() {
                    o.max_width = g + 10;
                }
                g
            }
            None => o.max_width * (2 * (100 - LEEWAY) + 1) / 200,
        };
        Ok(())
    })();
    if let Err(e) = parsed {
        return bad_usage(sh, "fmt", e, 1).await;
    }
    let mut status = 0;
    let mut out = Writer::new(&sh.io().stdout);
    for f in files_or_stdin(files) {
        let data = match read_file(sh, "fmt", &f).await {
            Ok(d) => d,
            Err(m) => {
                let reason = m.rsplit(": ").next().unwrap_or(&m).to_string();
                if out.flush().await.is_err() {
                    return 1;
                }
                complain(sh, &format!("fmt: cannot open '{f}' for reading: {reason}")).await;
                status = 1;
                continue;
            }
        };
        let mut run = Fmt {
            o: &o,
            input: &data,
            pos: 0,
            out: Vec::new(),
            in_column: 0,
            out_column: 0,
            parabuf: Vec::new(),
            word: Vec::new(),
            limit: 0,
            tabs: false,
            prefix_indent: 0,
            first_indent: 0,
            other_indent: 0,
            next_char: None,
            next_prefix_indent: 0,
            last_line_length: 0,
        };
        run.run();
        if let Err(Stop(s)) = out.write(&run.out).await {
            return s;
        }
    }
    match out.flush().await {
        Ok(()) => status,
        Err(Stop(s)) => s,
    }
}

#[cfg(all(test, unix))]
mod tests {

    use crate::testing::stdout_of;

    #[test]
    fn fills_paragraphs() {
        assert_eq!(
            stdout_of(&["fmt", "-w", "10"], "a b c d e f g h\n"),
            "a b c d e\nf g h\n"
        );
    }
}
