//! `sed`, as GNU sed does it: `-n -e -f -i[SUFFIX] -E/-r -s -z`; addresses (numbers, `$`,
//! `/re/` and `\cREc` with `I`, `first~step`, ranges, `addr,+N`, `!`); the commands
//! `{} s y d D p P n N a i c = q Q h H g G x b t T : l z r w`; `s` with `g`, `p`, `N`, `I`,
//! `w`, and `& \1..\9 \n \L \U \l \u \E` in the replacement; the hold space. Backreferences
//! (`\(.\)\1`) work in addresses and `s` patterns.

use super::posix::{Flags, Groups, Pattern, translate_with_backreferences};
use super::stream::{Lines, Stop, Writer, complain, files_or_stdin, open};
use crate::exec::Interp;

#[derive(Debug, Clone)]
enum Addr {
    Line(u64),
    Last,
    Re(Option<Pattern>),
    Step(u64, u64),
}

#[derive(Debug, Clone)]
enum Range {
    None,
    One(Addr),
    Two(Addr, Addr),
    Plus(Addr, u64),
}

#[derive(Debug, Clone)]
enum Cmd {
    Block(usize),
    EndBlock,
    Subst {
        re: Option<Pattern>,
        rep: Vec<Rep>,
        global: bool,
        nth: usize,
        print: bool,
        write: Option<String>,
    },
    Translate(Vec<u8>, Vec<u8>),
    Delete,
    DeleteFirst,
    Print,
    PrintFirst,
    Next,
    NextAppend,
    Append(Vec<u8>),
    Insert(Vec<u8>),
    Change(Vec<u8>),
    LineNo,
    Quit(i32),
    QuitSilent(i32),
    Hold,
    HoldAppend,
    Get,
    GetAppend,
    Exchange,
    Branch(String),
    BranchIf(String),
    BranchUnless(String),
    Label,
    List,
    Zap,
    ReadFile(String),
    WriteFile(String),
}

#[derive(Debug, Clone)]
struct Instr {
    range: Range,
    negate: bool,
    cmd: Cmd,
}

/// A piece of an `s` replacement.
#[derive(Debug, Clone)]
enum Rep {
    Lit(Vec<u8>),
    Group(usize),
    Upper,
    Lower,
    UpperOne,
    LowerOne,
    EndCase,
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
    extended: bool,
    labels: Vec<(String, usize)>,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn skip_space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.i += 1;
        }
    }

    fn number(&mut self) -> Option<u64> {
        let start = self.i;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.i += 1;
        }
        std::str::from_utf8(&self.s[start..self.i])
            .ok()?
            .parse()
            .ok()
    }

    /// Text up to an unescaped `delim`; `\delim` becomes `delim`, `\n` a newline when `newline`.
    fn delimited(&mut self, delim: u8, regex: bool, cmd: char) -> Result<Vec<u8>, String> {
        let mut out = Vec::new();
        let mut in_class = false;
        while let Some(c) = self.peek() {
            self.i += 1;
            if regex && c == b'[' && !in_class {
                in_class = true;
                out.push(c);
                if self.peek() == Some(b'^') {
                    out.push(b'^');
                    self.i += 1;
                }
                if self.peek() == Some(b']') {
                    out.push(b']');
                    self.i += 1;
                }
                continue;
            }
            if in_class {
                if c == b']' {
                    in_class = false;
                }
                out.push(c);
                continue;
            }
            if c == delim {
                return Ok(out);
            }
            if c == b'\\' {
                match self.peek() {
                    Some(n) if n == delim => {
                        out.push(n);
                        self.i += 1;
                    }
                    Some(b'n') if !regex => {
                        out.push(b'\n');
                        self.i += 1;
                    }
                    Some(n) => {
                        out.push(b'\\');
                        out.push(n);
                        self.i += 1;
                    }
                    None => out.push(b'\\'),
                }
                continue;
            }
            out.push(c);
        }
        Err(format!("unterminated `{cmd}' command"))
    }

    fn regex(&mut self, text: &[u8], icase: bool) -> Result<Option<Pattern>, String> {
        if text.is_empty() {
            return Ok(None);
        }
        let src = String::from_utf8_lossy(text);
        let translated = translate_with_backreferences(&src, self.extended);
        let flags = Flags {
            case_insensitive: icase,
            dot_matches_new_line: true,
        };
        Pattern::build(&translated, flags, false).map(Some)
    }

    fn address(&mut self) -> Result<Option<Addr>, String> {
        match self.peek() {
            Some(b'$') => {
                self.i += 1;
                Ok(Some(Addr::Last))
            }
            Some(c) if c.is_ascii_digit() => {
                let n = self.number().unwrap_or(0);
                if self.peek() == Some(b'~') {
                    self.i += 1;
                    let step = self.number().unwrap_or(0);
                    return Ok(Some(Addr::Step(n, step)));
                }
                Ok(Some(Addr::Line(n)))
            }
            Some(b'/') | Some(b'\\') => {
                let delim = if self.peek() == Some(b'\\') {
                    self.i += 1;
                    let d = self.peek().ok_or("unexpected end of script")?;
                    self.i += 1;
                    d
                } else {
                    self.i += 1;
                    b'/'
                };
                let text = self.delimited(delim, true, 's')?;
                let mut icase = false;
                while matches!(self.peek(), Some(b'I' | b'M')) {
                    icase |= self.peek() == Some(b'I');
                    self.i += 1;
                }
                Ok(Some(Addr::Re(self.regex(&text, icase)?)))
            }
            _ => Ok(None),
        }
    }

    /// The text argument of `a`, `i`, `c` (GNU's one-line form and the classic `a\` form).
    fn text_arg(&mut self) -> Vec<u8> {
        self.skip_space();
        if self.peek() == Some(b'\\') {
            self.i += 1;
            if self.peek() == Some(b'\n') {
                self.i += 1;
            }
        }
        let mut out = Vec::new();
        while let Some(c) = self.peek() {
            self.i += 1;
            if c == b'\\' {
                // GNU decodes escapes in the text (`\t`, `\a`...); others lose the backslash.
                if let Some(n) = self.peek() {
                    out.push(match n {
                        b'a' => 7,
                        b't' => b'\t',
                        b'n' => b'\n',
                        b'r' => b'\r',
                        b'f' => 12,
                        b'v' => 11,
                        n => n,
                    });
                    self.i += 1;
                }
                continue;
            }
            if c == b'\n' {
                break;
            }
            out.push(c);
        }
        out
    }

    fn label(&mut self) -> String {
        self.skip_space();
        let start = self.i;
        while self.peek().is_some_and(|c| c != b'\n' && c != b';') {
            self.i += 1;
        }
        String::from_utf8_lossy(&self.s[start..self.i])
            .trim()
            .to_string()
    }

    fn replacement(text: &[u8]) -> Vec<Rep> {
        let mut out = Vec::new();
        let mut lit = Vec::new();
        let mut i = 0;
        let flush = |lit: &mut Vec<u8>, out: &mut Vec<Rep>| {
            if !lit.is_empty() {
                out.push(Rep::Lit(std::mem::take(lit)));
            }
        };
        while i < text.len() {
            let c = text[i];
            i += 1;
            match c {
                b'&' => {
                    flush(&mut lit, &mut out);
                    out.push(Rep::Group(0));
                }
                b'\\' if i < text.len() => {
                    let n = text[i];
                    i += 1;
                    match n {
                        b'0'..=b'9' => {
                            flush(&mut lit, &mut out);
                            out.push(Rep::Group((n - b'0') as usize));
                        }
                        b'n' => lit.push(b'\n'),
                        b't' => lit.push(b'\t'),
                        b'L' | b'U' | b'l' | b'u' | b'E' => {
                            flush(&mut lit, &mut out);
                            out.push(match n {
                                b'L' => Rep::Lower,
                                b'U' => Rep::Upper,
                                b'l' => Rep::LowerOne,
                                b'u' => Rep::UpperOne,
                                _ => Rep::EndCase,
                            });
                        }
                        other => lit.push(other),
                    }
                }
                other => lit.push(other),
            }
        }
        flush(&mut lit, &mut out);
        out
    }

    fn parse(&mut self) -> Result<Vec<Instr>, String> {
        let mut prog: Vec<Instr> = Vec::new();
        let mut open_blocks: Vec<usize> = Vec::new();
        loop {
            while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b';')) {
                self.i += 1;
            }
            let Some(_) = self.peek() else { break };
            if self.peek() == Some(b'#') {
                while self.peek().is_some_and(|c| c != b'\n') {
                    self.i += 1;
                }
                continue;
            }
            let range = match self.address()? {
                None => Range::None,
                Some(a) => {
                    if self.peek() == Some(b',') {
                        self.i += 1;
                        if self.peek() == Some(b'+') {
                            self.i += 1;
                            Range::Plus(a, self.number().unwrap_or(0))
                        } else {
                            match self.address()? {
                                Some(b) => Range::Two(a, b),
                                None => return Err("unexpected `,'".into()),
                            }
                        }
                    } else {
                        Range::One(a)
                    }
                }
            };
            self.skip_space();
            let mut negate = false;
            while self.peek() == Some(b'!') {
                negate = true;
                self.i += 1;
                self.skip_space();
            }
            let Some(c) = self.peek() else {
                return Err("missing command".into());
            };
            self.i += 1;
            let cmd = match c {
                b'{' => {
                    open_blocks.push(prog.len());
                    Cmd::Block(0)
                }
                b'}' => {
                    let Some(start) = open_blocks.pop() else {
                        return Err("unexpected `}'".into());
                    };
                    let end = prog.len();
                    if let Cmd::Block(target) = &mut prog[start].cmd {
                        *target = end + 1;
                    }
                    Cmd::EndBlock
                }
                b's' => {
                    let delim = self.peek().ok_or("unterminated `s' command")?;
                    self.i += 1;
                    let pat = self.delimited(delim, true, 's')?;
                    let rep = self.delimited(delim, false, 's')?;
                    let (mut global, mut nth, mut print, mut icase, mut write) =
                        (false, 1, false, false, None);
                    loop {
                        match self.peek() {
                            Some(b'g') => global = true,
                            Some(b'p') => print = true,
                            Some(b'i' | b'I') => icase = true,
                            Some(b'm' | b'M' | b'e') => {}
                            Some(d) if d.is_ascii_digit() => {
                                nth = self.number().unwrap_or(1) as usize;
                                continue;
                            }
                            Some(b'w') => {
                                self.i += 1;
                                write = Some(self.label());
                                break;
                            }
                            _ => break,
                        }
                        self.i += 1;
                    }
                    Cmd::Subst {
                        re: self.regex(&pat, icase)?,
                        rep: Parser::replacement(&rep),
                        global,
                        nth: nth.max(1),
                        print,
                        write,
                    }
                }
                b'y' => {
                    let delim = self.peek().ok_or("unterminated `y' command")?;
                    self.i += 1;
                    let a = self.delimited(delim, false, 'y')?;
                    let b = self.delimited(delim, false, 'y')?;
                    if a.len() != b.len() {
                        return Err("strings for `y' command are different lengths".into());
                    }
                    Cmd::Translate(a, b)
                }
                b'd' => Cmd::Delete,
                b'D' => Cmd::DeleteFirst,
                b'p' => Cmd::Print,
                b'P' => Cmd::PrintFirst,
                b'n' => Cmd::Next,
                b'N' => Cmd::NextAppend,
                b'a' => Cmd::Append(self.text_arg()),
                b'i' => Cmd::Insert(self.text_arg()),
                b'c' => Cmd::Change(self.text_arg()),
                b'=' => Cmd::LineNo,
                b'q' | b'Q' => {
                    self.skip_space();
                    let code = self.number().unwrap_or(0) as i32;
                    if c == b'q' {
                        Cmd::Quit(code)
                    } else {
                        Cmd::QuitSilent(code)
                    }
                }
                b'h' => Cmd::Hold,
                b'H' => Cmd::HoldAppend,
                b'g' => Cmd::Get,
                b'G' => Cmd::GetAppend,
                b'x' => Cmd::Exchange,
                b'b' => Cmd::Branch(self.label()),
                b't' => Cmd::BranchIf(self.label()),
                b'T' => Cmd::BranchUnless(self.label()),
                b':' => {
                    let name = self.label();
                    if name.is_empty() {
                        return Err("\":\" lacks a label".into());
                    }
                    prog.push(Instr {
                        range,
                        negate,
                        cmd: Cmd::Label,
                    });
                    self.labels.push((name, prog.len() - 1));
                    continue;
                }
                b'l' => Cmd::List,
                b'z' => Cmd::Zap,
                b'r' => Cmd::ReadFile(self.label()),
                b'w' => Cmd::WriteFile(self.label()),
                other => return Err(format!("unknown command: `{}'", other as char)),
            };
            prog.push(Instr { range, negate, cmd });
        }
        if !open_blocks.is_empty() {
            return Err("unmatched `{'".into());
        }
        Ok(prog)
    }
}

/// Where input lines come from: the files in turn (or one at a time with `-s`/`-i`).
struct Source {
    files: Vec<String>,
    next_file: usize,
    current: Option<Lines>,
    peeked: Option<(Vec<u8>, bool)>,
    delim: u8,
}

impl Source {
    /// The next line (without its delimiter) and whether it had one.
    async fn next(&mut self, sh: &Interp<'_>, errors: &mut Vec<String>) -> Option<(Vec<u8>, bool)> {
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

    async fn is_last(&mut self, sh: &Interp<'_>, errors: &mut Vec<String>) -> bool {
        if self.peeked.is_none() {
            self.peeked = self.next(sh, errors).await;
        }
        self.peeked.is_none()
    }
}

/// Range states before the first line: `0,/re/` is open from the start (its end can match
/// on line 1).
fn initially_active(prog: &[Instr]) -> Vec<Option<u64>> {
    prog.iter()
        .map(|i| match &i.range {
            Range::Two(Addr::Line(0), Addr::Re(_)) => Some(0),
            _ => None,
        })
        .collect()
}

/// The state of one run of a script.
struct Run<'p> {
    prog: &'p [Instr],
    labels: std::collections::HashMap<String, usize>,
    quiet: bool,
    delim: u8,
    active: Vec<Option<u64>>,
    hold: Vec<u8>,
    /// The last regex used (an empty one means it); borrowed from the program, never cloned:
    /// a cloned `Regex` starts with an empty cache, which costs more than the search.
    last_re: Option<&'p Pattern>,
    writes: std::collections::HashMap<String, std::fs::File>,
}

enum End {
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
    fn addr(&mut self, a: &'p Addr, line: u64, last: bool, pattern: &[u8]) -> Result<bool, String> {
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

    fn selected(
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
fn render(rep: &[Rep], caps: &Groups, hay: &[u8], out: &mut Vec<u8>) {
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
fn unambiguous(p: &[u8]) -> Vec<u8> {
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

/// `sed [-n] [-E] [-s] [-i[SUFFIX]] [-z] {SCRIPT | -e SCRIPT... | -f FILE...} [FILE...]`.
pub async fn sed(sh: &mut Interp<'_>, argv: &[String]) -> i32 {
    let mut quiet = false;
    let mut extended = false;
    let mut separate = false;
    let mut in_place: Option<String> = None;
    let mut zero = false;
    let mut scripts: Vec<String> = Vec::new();
    let mut files = Vec::new();
    let usage = "Usage: sed [OPTION]... {script-only-if-no-other-script} [input-file]...";
    let mut i = 1;
    let mut options_done = false;
    while i < argv.len() {
        let a = argv[i].clone();
        i += 1;
        if options_done || a == "-" || !a.starts_with('-') {
            files.push(a);
            continue;
        }
        match a.as_str() {
            "--" => options_done = true,
            "-n" | "--quiet" | "--silent" => quiet = true,
            "-E" | "-r" | "--regexp-extended" => extended = true,
            "-s" | "--separate" => separate = true,
            "-z" | "--null-data" => zero = true,
            "-u" | "--unbuffered" | "--posix" | "--debug" => {}
            "-e" | "--expression" | "-f" | "--file" => {
                let Some(v) = argv.get(i).cloned() else {
                    return complain(
                        sh,
                        &format!(
                            "sed: option requires an argument -- '{}'\n{usage}",
                            a.trim_start_matches('-').chars().next().unwrap_or('e')
                        ),
                    )
                    .await;
                };
                i += 1;
                if a.starts_with("-e") || a == "--expression" {
                    scripts.push(v);
                } else {
                    match std::fs::read(sh.shell.path(&v)) {
                        Ok(d) => scripts.push(
                            String::from_utf8_lossy(&d)
                                .trim_end_matches('\n')
                                .to_string(),
                        ),
                        Err(e) => {
                            return complain(
                                sh,
                                &format!(
                                    "sed: couldn't open file {v}: {}",
                                    crate::exec::io_message(&e)
                                ),
                            )
                            .await;
                        }
                    }
                }
            }
            s if s.starts_with("-i") || s.starts_with("--in-place") => {
                in_place = Some(
                    s.trim_start_matches("--in-place")
                        .trim_start_matches("-i")
                        .trim_start_matches('=')
                        .to_string(),
                );
                separate = true;
            }
            s if s.starts_with("-e") => scripts.push(s[2..].to_string()),
            s if s.starts_with('-')
                && s.len() > 2
                && !s.starts_with("--")
                && s[1..].chars().all(|c| "nErszue".contains(c)) =>
            {
                // Clustered flags such as -ne.
                let mut rest = Vec::new();
                for c in s[1..].chars() {
                    rest.push(format!("-{c}"));
                }
                let tail: Vec<String> = argv[i..].to_vec();
                let mut new_args = vec![argv[0].clone()];
                new_args.extend(rest);
                new_args.extend(files.iter().cloned());
                new_args.extend(tail);
                return Box::pin(sed(sh, &new_args)).await;
            }
            other => {
                return complain(
                    sh,
                    &format!(
                        "sed: unknown option -- '{}'\n{usage}",
                        other.trim_start_matches('-')
                    ),
                )
                .await;
            }
        }
    }
    if scripts.is_empty() {
        if files.is_empty() {
            return complain(sh, SED_USAGE).await;
        }
        scripts.push(files.remove(0));
    }
    let script = scripts.join("\n");
    let mut parser = Parser {
        s: script.as_bytes(),
        i: 0,
        extended,
        labels: Vec::new(),
    };
    let prog = match parser.parse() {
        Ok(p) => p,
        Err(m) => {
            complain(
                sh,
                &format!("sed: -e expression #1, char {}: {m}", parser.i),
            )
            .await;
            return 1;
        }
    };
    let labels: std::collections::HashMap<String, usize> = parser.labels.into_iter().collect();
    for instr in &prog {
        if let Cmd::Branch(l) | Cmd::BranchIf(l) | Cmd::BranchUnless(l) = &instr.cmd
            && !l.is_empty()
            && !labels.contains_key(l)
        {
            complain(
                sh,
                &format!(
                    "sed: -e expression #1, char {}: can't find label for jump to `{l}'",
                    script.len()
                ),
            )
            .await;
            return 1;
        }
    }
    let files = files_or_stdin(files);
    let groups: Vec<Vec<String>> = if separate {
        files.iter().map(|f| vec![f.clone()]).collect()
    } else {
        vec![files.clone()]
    };
    let delim = if zero { b'\0' } else { b'\n' };
    let mut run = Run {
        prog: &prog,
        labels,
        quiet,
        delim,
        active: initially_active(&prog),
        hold: Vec::new(),
        last_re: None,
        writes: Default::default(),
    };
    for instr in &prog {
        let target = match &instr.cmd {
            Cmd::WriteFile(f) => Some(f.clone()),
            Cmd::Subst { write: Some(f), .. } => Some(f.clone()),
            _ => None,
        };
        if let Some(f) = target
            && !run.writes.contains_key(&f)
            && let Ok(file) = std::fs::File::create(sh.shell.path(&f))
        {
            run.writes.insert(f, file);
        }
    }
    let mut status = 0;
    let mut errors = Vec::new();
    let mut line_no = 0u64;
    for group in groups {
        if in_place.is_some() && group[0] == "-" {
            complain(sh, "sed: couldn't edit -: not a regular file").await;
            return 4;
        }
        let buffer = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        let target = if in_place.is_some() {
            crate::io::Output::Capture(std::rc::Rc::clone(&buffer))
        } else {
            sh.io.stdout.clone()
        };
        let mut out = Writer::new(&target);
        let mut source = Source {
            files: group.clone(),
            next_file: 0,
            current: None,
            peeked: None,
            delim,
        };
        if separate {
            line_no = 0;
            run.active = initially_active(&prog);
        }
        let outcome = run_group(
            sh,
            &mut run,
            &mut source,
            &mut out,
            &mut line_no,
            &mut errors,
        )
        .await;
        for e in errors.drain(..) {
            status = 2;
            complain(sh, &e).await;
        }
        let quit = match outcome {
            Ok(q) => q,
            Err(Stop(s)) => return s,
        };
        if let Err(Stop(s)) = out.flush().await {
            return s;
        }
        if let Some(suffix) = &in_place {
            let path = sh.shell.path(&group[0]);
            if !suffix.is_empty() {
                let backup = if suffix.contains('*') {
                    suffix.replace('*', &group[0])
                } else {
                    format!("{}{suffix}", group[0])
                };
                let _ = std::fs::copy(&path, sh.shell.path(&backup));
            }
            let result = std::fs::write(&path, &*buffer.borrow());
            if let Err(e) = result {
                complain(
                    sh,
                    &format!(
                        "sed: couldn't write {}: {}",
                        group[0],
                        crate::exec::io_message(&e)
                    ),
                )
                .await;
                status = 4;
            }
        }
        if let Some(code) = quit {
            return code;
        }
    }
    status
}

/// Runs the script over one group of inputs; `Some(code)` when it quit.
async fn run_group(
    sh: &Interp<'_>,
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
                        if let Ok(data) = std::fs::read(sh.shell.path(f)) {
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

/// What GNU sed prints when it is given no script.
const SED_USAGE: &str = r#"Usage: sed [OPTION]... {script-only-if-no-other-script} [input-file]...

  -n, --quiet, --silent
                 suppress automatic printing of pattern space
      --debug
                 annotate program execution
  -e script, --expression=script
                 add the script to the commands to be executed
  -f script-file, --file=script-file
                 add the contents of script-file to the commands to be executed
  --follow-symlinks
                 follow symlinks when processing in place
  -i[SUFFIX], --in-place[=SUFFIX]
                 edit files in place (makes backup if SUFFIX supplied)
  -l N, --line-length=N
                 specify the desired line-wrap length for the `l' command
  --posix
                 disable all GNU extensions.
  -E, -r, --regexp-extended
                 use extended regular expressions in the script
                 (for portability use POSIX -E).
  -s, --separate
                 consider files as separate rather than as a single,
                 continuous long stream.
      --sandbox
                 operate in sandbox mode (disable e/r/w commands).
  -u, --unbuffered
                 load minimal amounts of data from the input files and flush
                 the output buffers more often
  -z, --null-data
                 separate lines by NUL characters
      --help     display this help and exit
      --version  output version information and exit

If no -e, --expression, -f, or --file option is given, then the first
non-option argument is taken as the sed script to interpret.  All
remaining arguments are names of input files; if no input files are
specified, then the standard input is read.

GNU sed home page: <https://www.gnu.org/software/sed/>.
General help using GNU software: <https://www.gnu.org/gethelp/>."#;
