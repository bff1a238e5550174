//! Reading a sed script: addresses, commands and `s` replacements, as GNU sed parses them.

use shell_base::posix::{Flags, Pattern, translate_with_backreferences};

#[derive(Debug, Clone)]
pub(super) enum Addr {
    Line(u64),
    Last,
    Re(Option<Pattern>),
    Step(u64, u64),
}

#[derive(Debug, Clone)]
pub(super) enum Range {
    None,
    One(Addr),
    Two(Addr, Addr),
    Plus(Addr, u64),
}

#[derive(Debug, Clone)]
pub(super) enum Cmd {
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
pub(super) struct Instr {
    pub(super) range: Range,
    pub(super) negate: bool,
    pub(super) cmd: Cmd,
}

/// A piece of an `s` replacement.
#[derive(Debug, Clone)]
pub(super) enum Rep {
    Lit(Vec<u8>),
    Group(usize),
    Upper,
    Lower,
    UpperOne,
    LowerOne,
    EndCase,
}

pub(super) struct Parser<'a> {
    pub(super) s: &'a [u8],
    pub(super) i: usize,
    pub(super) extended: bool,
    pub(super) labels: Vec<(String, usize)>,
}

impl Parser<'_> {
    pub(super) fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    pub(super) fn skip_space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.i += 1;
        }
    }

    pub(super) fn number(&mut self) -> Option<u64> {
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
    pub(super) fn delimited(
        &mut self,
        delim: u8,
        regex: bool,
        cmd: char,
    ) -> Result<Vec<u8>, String> {
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

    pub(super) fn regex(&mut self, text: &[u8], icase: bool) -> Result<Option<Pattern>, String> {
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

    pub(super) fn address(&mut self) -> Result<Option<Addr>, String> {
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
    pub(super) fn text_arg(&mut self) -> Vec<u8> {
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

    pub(super) fn label(&mut self) -> String {
        self.skip_space();
        let start = self.i;
        while self.peek().is_some_and(|c| c != b'\n' && c != b';') {
            self.i += 1;
        }
        String::from_utf8_lossy(&self.s[start..self.i])
            .trim()
            .to_string()
    }

    pub(super) fn replacement(text: &[u8]) -> Vec<Rep> {
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

    pub(super) fn parse(&mut self) -> Result<Vec<Instr>, String> {
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
