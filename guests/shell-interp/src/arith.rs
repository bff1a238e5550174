//! Shell arithmetic (`$(( ))`, `(( ))`, `let`, `declare -i`): 64-bit integers that wrap,
//! bash's operators, variables whose values are themselves expressions, array elements.
//!
//! Evaluated as bash's `expr.c` does: a recursive-descent parser that computes as it reads
//! (short-circuited parts are parsed without effects), so each error names the expression
//! it is in and, as bash's `(error token is "...")`, the text from where it was found.

use crate::vars::Key;

/// The variables an expression reads and assigns (the shell's, in the interpreter).
pub trait Variables {
    /// Whether `name` is an associative array (its subscripts are strings, not expressions).
    fn is_assoc(&self, name: &str) -> bool;
    /// A scalar's value (an array's element 0).
    fn get(&self, name: &str) -> Option<&str>;
    /// An array's element.
    fn element(&self, name: &str, key: &Key) -> Option<String>;
    fn assign(&mut self, name: &str, value: String) -> Result<(), String>;
    fn assign_element(&mut self, name: &str, key: Key, value: String) -> Result<(), String>;
    /// `set -u`: reading an unset variable is an error.
    fn nounset(&self) -> bool;
}

/// How deeply variables may refer to expressions that refer to variables (bash's
/// `MAX_EXPR_RECURSION_LEVEL`).
const MAX_NESTING: u32 = 1024;

/// How an error for an unset variable read under `set -u` ends.
const UNBOUND: &str = ": unbound variable";

/// Whether an arithmetic error is an unset variable under `set -u`: as in bash, it ends the
/// shell (status 127) where other arithmetic errors fail one command.
pub fn is_unbound(error: &str) -> bool {
    error.ends_with(UNBOUND)
}

/// Parses and evaluates `text` (already expanded). An error is the whole message bash
/// prints after its command's name: `1/0: division by 0 (error token is "0")`.
pub fn eval_text(shell: &mut impl Variables, text: &str) -> Result<i64, String> {
    eval_nested(shell, text, 0)
}

fn eval_nested(shell: &mut impl Variables, text: &str, depth: u32) -> Result<i64, String> {
    let trimmed = text.trim_matches(is_space);
    if trimmed.is_empty() {
        return Ok(0);
    }
    // Plain decimal numbers skip the parser (not `010`, which is octal).
    let digits = trimmed.strip_prefix('-').unwrap_or(trimmed);
    let octal = digits.starts_with('0') && digits.len() > 1;
    if !digits.is_empty()
        && !octal
        && digits.bytes().all(|b| b.is_ascii_digit())
        && let Ok(n) = trimmed.parse::<i64>()
    {
        return Ok(n);
    }
    let mut p = Parser {
        vars: shell,
        text: text.as_bytes(),
        pos: 0,
        cur: Tok::End,
        last: Tok::End,
        last_start: None,
        value: 0,
        lvalue: None,
        noeval: 0,
        depth,
    };
    p.next()?;
    let value = p.comma()?;
    if p.cur != Tok::End {
        return Err(p.error("syntax error in expression"));
    }
    Ok(value)
}

/// Space, tab and newline: what separates tokens (`$(( ))` may span lines).
fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n')
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Tok {
    /// The end of the text (and, as bash's token 0, "no token yet").
    End,
    Num,
    /// A variable or array element.
    Str,
    /// A one-character operator: `= > < + - * / % ! ( ) & | ^ ~ ? : ,`.
    Op(u8),
    EqEq,
    NotEq,
    LessEq,
    GreaterEq,
    And,
    Or,
    ShiftLeft,
    ShiftRight,
    /// `op=` for the operator (`<` and `>` stand for `<<=` and `>>=`).
    Assign(u8),
    Power,
    PreInc,
    PreDec,
    PostInc,
    PostDec,
    /// Only ever the previous token: a `?:` was just read.
    Cond,
}

impl Tok {
    /// After these, a missing operand is "operand expected" rather than a bad operator.
    fn wants_operand(self) -> bool {
        !matches!(self, Tok::Num | Tok::Str)
    }
}

/// What an assignment writes: a variable, or an array element (its key found once).
struct Lvalue {
    name: String,
    subscript: Option<String>,
    key: Option<Key>,
}

struct Parser<'a, V: Variables> {
    vars: &'a mut V,
    text: &'a [u8],
    /// Just after the current token.
    pos: usize,
    cur: Tok,
    last: Tok,
    /// Where the last token read began: the error token runs from there to the end.
    last_start: Option<usize>,
    /// The current number's, or variable's, value.
    value: i64,
    /// The last variable read.
    lvalue: Option<Lvalue>,
    /// Above 0 inside a short-circuited operand: parsed, not evaluated.
    noeval: u32,
    depth: u32,
}

impl<V: Variables> Parser<'_, V> {
    /// bash's `evalerror`: the expression (without leading blanks), the message, the token.
    fn error(&self, message: &str) -> String {
        self.error_in(self.text, message, self.last_start)
    }

    fn error_in(&self, text: &[u8], message: &str, token: Option<usize>) -> String {
        let start = text
            .iter()
            .position(|&b| b != b' ' && b != b'\t')
            .unwrap_or(text.len());
        let token = token.map_or(&[][..], |t| &text[t.min(text.len())..]);
        format!(
            "{}: {message} (error token is \"{}\")",
            String::from_utf8_lossy(&text[start..]),
            String::from_utf8_lossy(token)
        )
    }

    fn at(&self, i: usize) -> u8 {
        self.text.get(i).copied().unwrap_or(0)
    }

    fn skip_space(&self, mut i: usize) -> usize {
        while matches!(self.at(i), b' ' | b'\t' | b'\n') {
            i += 1;
        }
        i
    }

    /// bash's `readtok`: reads the next token into `cur` (evaluating a variable as it is
    /// read, unless it is about to be assigned).
    fn next(&mut self) -> Result<(), String> {
        let start = self.skip_space(self.pos);
        let c = self.at(start);
        if c == 0 {
            self.last = self.cur;
            self.cur = Tok::End;
            self.pos = start;
            return Ok(());
        }
        self.last_start = Some(start);
        let mut end = start + 1;
        if c.is_ascii_alphabetic() || c == b'_' {
            while self.at(end).is_ascii_alphanumeric() || self.at(end) == b'_' {
                end += 1;
            }
            let name = String::from_utf8_lossy(&self.text[start..end]).into_owned();
            let mut subscript = None;
            if self.at(end) == b'[' {
                let Some(close) = self.closing_bracket(end) else {
                    return Err(self.error("bad array subscript"));
                };
                subscript = Some(String::from_utf8_lossy(&self.text[end + 1..close]).into_owned());
                end = close + 1;
            }
            self.pos = end;
            // `x=...` does not read x (its value may not even be an expression).
            let peek = self.skip_space(end);
            let assigned = self.at(peek) == b'=' && self.at(peek + 1) != b'=';
            let mut lvalue = Lvalue {
                name,
                subscript,
                key: None,
            };
            self.value = if matches!(self.last, Tok::PreInc | Tok::PreDec) || !assigned {
                self.read(&mut lvalue)?
            } else {
                0
            };
            self.lvalue = Some(lvalue);
            self.last = self.cur;
            self.cur = Tok::Str;
            return Ok(());
        }
        if c.is_ascii_digit() {
            while matches!(self.at(end), b'#' | b'@' | b'_') || self.at(end).is_ascii_alphanumeric()
            {
                end += 1;
            }
            self.value = self.constant(start, end)?;
            self.pos = end;
            self.last = self.cur;
            self.cur = Tok::Num;
            return Ok(());
        }
        let c1 = self.at(end);
        end += 1;
        let tok = match (c, c1) {
            (b'=', b'=') => Tok::EqEq,
            (b'!', b'=') => Tok::NotEq,
            (b'>', b'=') => Tok::GreaterEq,
            (b'<', b'=') => Tok::LessEq,
            (b'<', b'<') | (b'>', b'>') if self.at(end) == b'=' => {
                end += 1;
                Tok::Assign(c)
            }
            (b'<', b'<') => Tok::ShiftLeft,
            (b'>', b'>') => Tok::ShiftRight,
            (b'&', b'&') => Tok::And,
            (b'|', b'|') => Tok::Or,
            (b'*', b'*') => Tok::Power,
            (b'-' | b'+', _) if c1 == c && self.cur == Tok::Str => {
                if c == b'-' {
                    Tok::PostDec
                } else {
                    Tok::PostInc
                }
            }
            (b'-' | b'+', _)
                if c1 == c
                    && self.cur == Tok::Num
                    && matches!(self.last, Tok::PreInc | Tok::PreDec) =>
            {
                // `--x++`
                let op = if c == b'-' { "--" } else { "++" };
                return Err(self.error(&format!("{op}: assignment requires lvalue")));
            }
            (b'-' | b'+', _) if c1 == c => {
                let next = self.at(self.skip_space(end));
                if next.is_ascii_alphabetic() || next == b'_' {
                    if c == b'-' { Tok::PreDec } else { Tok::PreInc }
                } else {
                    // Two signs, not an increment: `- -1`.
                    end -= 1;
                    Tok::Op(c)
                }
            }
            (b'*' | b'/' | b'%' | b'+' | b'-' | b'&' | b'^' | b'|', b'=') => Tok::Assign(c),
            _ if b"=><+-*/%!()&|^~?:,".contains(&c) => {
                end -= 1;
                Tok::Op(c)
            }
            _ => {
                let operand = self.cur == Tok::End || self.cur.wants_operand();
                return Err(self.error(if operand {
                    "syntax error: operand expected"
                } else {
                    "syntax error: invalid arithmetic operator"
                }));
            }
        };
        self.pos = end;
        self.last = self.cur;
        self.cur = tok;
        Ok(())
    }

    /// The `]` closing the subscript that opens at `open`, past nested brackets and quotes.
    fn closing_bracket(&self, open: usize) -> Option<usize> {
        let mut depth = 0;
        let mut i = open;
        while i < self.text.len() {
            match self.text[i] {
                b'[' => depth += 1,
                b']' => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(i);
                    }
                }
                b'\\' => i += 1,
                q @ (b'\'' | b'"') => {
                    i += 1;
                    while i < self.text.len() && self.text[i] != q {
                        i += 1;
                    }
                }
                _ => {}
            }
            i += 1;
        }
        None
    }

    /// bash's `strlong`: `0NNN` octal, `0xNN` hexadecimal, `BASE#DIGITS` (2 to 64).
    fn constant(&self, start: usize, end: usize) -> Result<i64, String> {
        // bash reports a bad constant with the text cut just after it.
        let fail = |m: &str| self.error_in(&self.text[..end], m, Some(start));
        let digits = &self.text[start..end];
        let mut i = 0;
        let mut base = 10i64;
        let mut based = false;
        if digits[0] == b'0' {
            i = 1;
            if matches!(digits.get(1), Some(b'x' | b'X')) {
                base = 16;
                i = 2;
            } else {
                base = 8;
            }
            based = true;
        }
        let mut value = 0i64;
        while i < digits.len() {
            let c = digits[i];
            i += 1;
            if c == b'#' {
                if based {
                    return Err(fail("invalid number"));
                }
                if !(2..=64).contains(&value) {
                    return Err(fail("invalid arithmetic base"));
                }
                base = value;
                value = 0;
                based = true;
                let next = digits.get(i).copied().unwrap_or(0);
                if !(next.is_ascii_alphanumeric() || next == b'_' || next == b'@') {
                    return Err(fail("invalid integer constant"));
                }
                continue;
            }
            let digit = match c {
                b'0'..=b'9' => c - b'0',
                b'a'..=b'z' => c - b'a' + 10,
                b'A'..=b'Z' if base <= 36 => c - b'A' + 10,
                b'A'..=b'Z' => c - b'A' + 36,
                b'@' => 62,
                _ => 63,
            } as i64;
            if digit >= base {
                return Err(fail("value too great for base"));
            }
            value = value.wrapping_mul(base).wrapping_add(digit);
        }
        Ok(value)
    }

    /// bash's `expr_streval`: a variable's value, itself evaluated as an expression.
    fn read(&mut self, lvalue: &mut Lvalue) -> Result<i64, String> {
        if self.noeval > 0 {
            return Ok(0);
        }
        let text = match &lvalue.subscript {
            None => match self.vars.get(&lvalue.name) {
                Some(v) => v.to_string(),
                None if self.vars.nounset() => return Err(format!("{}{UNBOUND}", lvalue.name)),
                None => return Ok(0),
            },
            Some(_) => {
                let key = self.key(lvalue)?;
                self.vars.element(&lvalue.name, &key).unwrap_or_default()
            }
        };
        self.nested(&text)
    }

    /// An expression found in a variable, one level deeper.
    fn nested(&mut self, text: &str) -> Result<i64, String> {
        if self.depth + 1 >= MAX_NESTING {
            return Err(self.error("expression recursion level exceeded"));
        }
        eval_nested(self.vars, text, self.depth + 1)
    }

    /// An element's key, found once: an associative array's is the subscript's text, an
    /// indexed array's its value.
    fn key(&mut self, lvalue: &mut Lvalue) -> Result<Key, String> {
        if let Some(key) = &lvalue.key {
            return Ok(key.clone());
        }
        let subscript = lvalue.subscript.clone().unwrap_or_default();
        let key = if self.vars.is_assoc(&lvalue.name) {
            Key::Name(subscript)
        } else {
            Key::Index(self.nested(&subscript)?)
        };
        lvalue.key = Some(key.clone());
        Ok(key)
    }

    fn write(&mut self, value: i64) -> Result<(), String> {
        if self.noeval > 0 {
            return Ok(());
        }
        let Some(mut lvalue) = self.lvalue.take() else {
            return Err(self.error("syntax error in variable assignment"));
        };
        let result = match lvalue.subscript {
            None => self.vars.assign(&lvalue.name, value.to_string()),
            Some(_) => {
                let key = self.key(&mut lvalue)?;
                self.vars
                    .assign_element(&lvalue.name, key, value.to_string())
            }
        };
        self.lvalue = Some(lvalue);
        result
    }

    /// `a, b`
    fn comma(&mut self) -> Result<i64, String> {
        let mut value = self.assign()?;
        while self.cur == Tok::Op(b',') {
            self.next()?;
            value = self.assign()?;
        }
        Ok(value)
    }

    /// `a = b`, `a op= b`
    fn assign(&mut self) -> Result<i64, String> {
        let mut value = self.conditional()?;
        let op = match self.cur {
            Tok::Op(b'=') => None,
            Tok::Assign(op) => Some(op),
            _ => return Ok(value),
        };
        if self.last != Tok::Str {
            return Err(self.error("attempted assignment to non-variable"));
        }
        let target = self.lvalue.take();
        let old = value;
        self.next()?;
        value = self.assign()?;
        if let Some(op) = op {
            if matches!(op, b'/' | b'%') && value == 0 {
                if self.noeval == 0 {
                    return Err(self.error("division by 0"));
                }
                value = 1;
            }
            value = match op {
                b'*' => old.wrapping_mul(value),
                b'/' => old.wrapping_div(value),
                b'%' => old.wrapping_rem(value),
                b'+' => old.wrapping_add(value),
                b'-' => old.wrapping_sub(value),
                b'<' => old.wrapping_shl(value as u32),
                b'>' => old.wrapping_shr(value as u32),
                b'&' => old & value,
                b'|' => old | value,
                _ => old ^ value,
            };
        }
        self.lvalue = target;
        self.write(value)?;
        Ok(value)
    }

    /// Runs `f` parsing only, when `skip`.
    fn skipping<T>(
        &mut self,
        skip: bool,
        f: impl FnOnce(&mut Self) -> Result<T, String>,
    ) -> Result<T, String> {
        self.noeval += skip as u32;
        let result = f(self);
        self.noeval -= skip as u32;
        result
    }

    /// `c ? a : b`
    fn conditional(&mut self) -> Result<i64, String> {
        let c = self.logical_or()?;
        if self.cur != Tok::Op(b'?') {
            return Ok(c);
        }
        self.next()?;
        if matches!(self.cur, Tok::End | Tok::Op(b':')) {
            return Err(self.error("expression expected"));
        }
        let a = self.skipping(c == 0, Self::comma)?;
        if self.cur != Tok::Op(b':') {
            return Err(self.error("`:' expected for conditional expression"));
        }
        self.next()?;
        if self.cur == Tok::End {
            return Err(self.error("expression expected"));
        }
        let b = self.skipping(c != 0, Self::conditional)?;
        self.last = Tok::Cond;
        Ok(if c != 0 { a } else { b })
    }

    fn logical_or(&mut self) -> Result<i64, String> {
        let mut a = self.logical_and()?;
        while self.cur == Tok::Or {
            self.next()?;
            let b = self.skipping(a != 0, Self::logical_and)?;
            a = (a != 0 || b != 0) as i64;
            self.last = Tok::Or;
        }
        Ok(a)
    }

    fn logical_and(&mut self) -> Result<i64, String> {
        let mut a = self.bitwise(0)?;
        while self.cur == Tok::And {
            self.next()?;
            let b = self.skipping(a == 0, |p| p.bitwise(0))?;
            a = (a != 0 && b != 0) as i64;
            self.last = Tok::And;
        }
        Ok(a)
    }

    /// The left-associative levels from `|` down to `+ -`, loosest first.
    fn bitwise(&mut self, level: usize) -> Result<i64, String> {
        const LEVELS: usize = 7;
        let operand = |p: &mut Self| {
            if level + 1 < LEVELS {
                p.bitwise(level + 1)
            } else {
                p.multiplicative()
            }
        };
        let mut a = operand(self)?;
        loop {
            let op = self.cur;
            let at_level = match level {
                0 => op == Tok::Op(b'|'),
                1 => op == Tok::Op(b'^'),
                2 => op == Tok::Op(b'&'),
                3 => matches!(op, Tok::EqEq | Tok::NotEq),
                4 => matches!(
                    op,
                    Tok::LessEq | Tok::GreaterEq | Tok::Op(b'<') | Tok::Op(b'>')
                ),
                5 => matches!(op, Tok::ShiftLeft | Tok::ShiftRight),
                _ => matches!(op, Tok::Op(b'+') | Tok::Op(b'-')),
            };
            if !at_level {
                return Ok(a);
            }
            self.next()?;
            let b = operand(self)?;
            a = match op {
                Tok::Op(b'|') => a | b,
                Tok::Op(b'^') => a ^ b,
                Tok::Op(b'&') => a & b,
                Tok::EqEq => (a == b) as i64,
                Tok::NotEq => (a != b) as i64,
                Tok::LessEq => (a <= b) as i64,
                Tok::GreaterEq => (a >= b) as i64,
                Tok::Op(b'<') => (a < b) as i64,
                Tok::Op(b'>') => (a > b) as i64,
                Tok::ShiftLeft => a.wrapping_shl(b as u32),
                Tok::ShiftRight => a.wrapping_shr(b as u32),
                Tok::Op(b'+') => a.wrapping_add(b),
                _ => a.wrapping_sub(b),
            };
            self.last = Tok::Num;
        }
    }

    /// `* / %`
    fn multiplicative(&mut self) -> Result<i64, String> {
        let mut a = self.power()?;
        while let Tok::Op(op @ (b'*' | b'/' | b'%')) = self.cur {
            // A division by 0 names the divisor onwards.
            let divisor = self.pos;
            self.next()?;
            let mut b = self.power()?;
            if op != b'*' && b == 0 {
                if self.noeval == 0 {
                    let start = (divisor..self.text.len())
                        .find(|&i| !matches!(self.text[i], b' ' | b'\t'))
                        .unwrap_or(self.text.len());
                    return Err(self.error_in(self.text, "division by 0", Some(start)));
                }
                b = 1;
            }
            a = match op {
                b'*' => a.wrapping_mul(b),
                b'/' => a.wrapping_div(b),
                _ => a.wrapping_rem(b),
            };
            self.last = Tok::Num;
        }
        Ok(a)
    }

    /// `a ** b`, right-associative.
    fn power(&mut self) -> Result<i64, String> {
        let a = self.unary()?;
        if self.cur != Tok::Power {
            return Ok(a);
        }
        self.next()?;
        let b = self.power()?;
        self.last = Tok::Num;
        if b == 0 {
            return Ok(1);
        }
        if b < 0 {
            return Err(self.error("exponent less than 0"));
        }
        let (mut base, mut exp, mut result) = (a, b, 1i64);
        while exp != 0 {
            if exp & 1 == 1 {
                result = result.wrapping_mul(base);
            }
            exp >>= 1;
            base = base.wrapping_mul(base);
        }
        Ok(result)
    }

    /// `! ~ - +`
    fn unary(&mut self) -> Result<i64, String> {
        let Tok::Op(op @ (b'!' | b'~' | b'-' | b'+')) = self.cur else {
            return self.operand();
        };
        self.next()?;
        let v = self.unary()?;
        self.last = Tok::Num;
        Ok(match op {
            b'!' => (v == 0) as i64,
            b'~' => !v,
            b'-' => v.wrapping_neg(),
            _ => v,
        })
    }

    /// A number, a variable (`x++`, `x--`), `++x`, `--x`, or `( ... )`.
    fn operand(&mut self) -> Result<i64, String> {
        match self.cur {
            Tok::PreInc | Tok::PreDec => {
                let step = if self.cur == Tok::PreInc { 1 } else { -1 };
                self.last = self.cur;
                self.next()?;
                if self.cur != Tok::Str {
                    return Err(
                        self.error("identifier expected after pre-increment or pre-decrement")
                    );
                }
                let v = self.value.wrapping_add(step);
                self.write(v)?;
                // `++x = 7` is no assignment.
                self.cur = Tok::Num;
                self.next()?;
                Ok(v)
            }
            Tok::Op(b'(') => {
                self.next()?;
                let v = self.comma()?;
                if self.cur != Tok::Op(b')') {
                    return Err(self.error("missing `)'"));
                }
                self.next()?;
                Ok(v)
            }
            Tok::Num => {
                let v = self.value;
                self.next()?;
                Ok(v)
            }
            Tok::Str => {
                let v = self.value;
                let after = self.skip_space(self.pos);
                let step = match (self.at(after), self.at(after + 1)) {
                    (b'+', b'+') => 1,
                    (b'-', b'-') => -1,
                    _ => 0,
                };
                if step != 0 {
                    self.last_start = Some(after);
                    self.pos = after + 2;
                    self.write(v.wrapping_add(step))?;
                    // `x++ = 7` is no assignment.
                    self.cur = Tok::Num;
                }
                self.next()?;
                Ok(v)
            }
            _ => Err(self.error("syntax error: operand expected")),
        }
    }
}
