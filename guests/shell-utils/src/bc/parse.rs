//! bc's language: tokens, and statements parsed one at a time (each tagged with its line, so
//! that a runtime error skips the rest of its line as GNU bc does).

/// Something that can be assigned to.
#[derive(Clone, Debug)]
pub enum Place {
    Var(String),
    Elem(String, Box<Expr>),
}

#[derive(Clone, Debug)]
pub enum Expr {
    Num(String),
    Get(Place),
    Assign(Place, Option<char>, Box<Expr>),
    /// `++x` / `--x` (`post`: `x++`), by `delta`.
    Step(Place, i64, bool),
    Bin(char, Box<Expr>, Box<Expr>),
    Rel(&'static str, Box<Expr>, Box<Expr>),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
    Neg(Box<Expr>),
    Call(String, Vec<Arg>),
    Length(Box<Expr>),
    ScaleOf(Box<Expr>),
    Sqrt(Box<Expr>),
}

/// A call argument: a value, or a whole array (`f(a[])`).
#[derive(Clone, Debug)]
pub enum Arg {
    Value(Expr),
    Array(String),
}

#[derive(Clone, Debug)]
pub enum PrintItem {
    Str(String),
    Value(Expr),
}

#[derive(Clone, Debug)]
pub enum Stmt {
    Expr(Expr),
    Str(String),
    Print(Vec<PrintItem>),
    If(Expr, Box<Stmt>, Option<Box<Stmt>>),
    While(Expr, Box<Stmt>),
    For(Option<Expr>, Option<Expr>, Option<Expr>, Box<Stmt>),
    Block(Vec<Stmt>),
    Break,
    Continue,
    Return(Option<Expr>),
    Halt,
    Empty,
}

#[derive(Clone, Debug)]
pub struct Function {
    /// Parameters (`true`: an array).
    pub params: Vec<(String, bool)>,
    pub autos: Vec<(String, bool)>,
    pub body: Vec<Stmt>,
}

/// What the input holds, in order.
pub enum Item {
    Stmt(Stmt, usize),
    Define(String, Function),
    /// `quit`: stop reading at once.
    Quit,
    /// A syntax error at this line.
    Error(usize),
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Num(String),
    Name(String),
    Str(String),
    Op(&'static str),
    Newline,
}

const OPS: &[&str] = &[
    "++", "--", "+=", "-=", "*=", "/=", "%=", "^=", "==", "<=", ">=", "!=", "&&", "||", "+", "-",
    "*", "/", "%", "^", "=", "<", ">", "!", "(", ")", "[", "]", "{", "}", ",", ";",
];

fn lex(src: &str) -> Result<Vec<(Tok, usize)>, usize> {
    let chars: Vec<char> = src.chars().collect();
    let mut toks = Vec::new();
    let mut line = 1;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            toks.push((Tok::Newline, line));
            line += 1;
            i += 1;
        } else if c == '\\' && chars.get(i + 1) == Some(&'\n') {
            line += 1;
            i += 2;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '#' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && chars.get(i + 1) == Some(&'*') {
            i += 2;
            while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                if chars[i] == '\n' {
                    line += 1;
                }
                i += 1;
            }
            i += 2;
        } else if c == '"' {
            let start = i + 1;
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\n' {
                    line += 1;
                }
                i += 1;
            }
            if i >= chars.len() {
                return Err(line);
            }
            toks.push((Tok::Str(chars[start..i].iter().collect()), line));
            i += 1;
        } else if c.is_ascii_digit() || c.is_ascii_uppercase() || c == '.' {
            let start = i;
            while i < chars.len()
                && (chars[i].is_ascii_digit() || chars[i].is_ascii_uppercase() || chars[i] == '.')
            {
                i += 1;
            }
            let text: String = chars[start..i].iter().collect();
            if text == "." {
                toks.push((Tok::Name("last".into()), line));
            } else {
                toks.push((Tok::Num(text), line));
            }
        } else if c.is_ascii_lowercase() || c == '_' {
            let start = i;
            while i < chars.len()
                && (chars[i].is_ascii_lowercase() || chars[i].is_ascii_digit() || chars[i] == '_')
            {
                i += 1;
            }
            toks.push((Tok::Name(chars[start..i].iter().collect()), line));
        } else {
            let rest: String = chars[i..(i + 2).min(chars.len())].iter().collect();
            let Some(op) = OPS.iter().find(|op| rest.starts_with(**op)) else {
                return Err(line);
            };
            toks.push((Tok::Op(op), line));
            i += op.len();
        }
    }
    Ok(toks)
}

pub struct Parser {
    toks: Vec<(Tok, usize)>,
    i: usize,
    last_line: usize,
}

type P<T> = Result<T, ()>;

impl Parser {
    /// `Err(line)` when the text cannot even be split into tokens.
    pub fn new(src: &str) -> Result<Parser, usize> {
        let toks = lex(src)?;
        let last_line = src.lines().count().max(1) + 1;
        Ok(Parser {
            toks,
            i: 0,
            last_line,
        })
    }

    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.i).map(|(t, _)| t)
    }

    fn line(&self) -> usize {
        self.toks.get(self.i).map_or(self.last_line, |(_, l)| *l)
    }

    fn is_op(&self, op: &str) -> bool {
        matches!(self.peek(), Some(Tok::Op(o)) if *o == op)
    }

    fn is_name(&self, name: &str) -> bool {
        matches!(self.peek(), Some(Tok::Name(n)) if n == name)
    }

    fn eat_op(&mut self, op: &str) -> bool {
        if self.is_op(op) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn expect_op(&mut self, op: &str) -> P<()> {
        if self.eat_op(op) { Ok(()) } else { Err(()) }
    }

    fn skip_newlines(&mut self) {
        while matches!(self.peek(), Some(Tok::Newline)) || self.is_op(";") {
            self.i += 1;
        }
    }

    fn skip_blank_lines(&mut self) {
        while matches!(self.peek(), Some(Tok::Newline)) {
            self.i += 1;
        }
    }

    /// The next item of the input, or `None` at its end.
    pub fn next_item(&mut self) -> Option<Item> {
        self.skip_newlines();
        self.peek()?;
        let line = self.line();
        if self.is_name("quit") {
            return Some(Item::Quit);
        }
        let result = if self.is_name("define") {
            self.define().map(|(n, f)| Item::Define(n, f))
        } else {
            self.statement().map(|s| Item::Stmt(s, line))
        };
        match result {
            Ok(item) => {
                // A statement ends at a newline, `;` or the end.
                if matches!(self.peek(), None | Some(Tok::Newline)) || self.is_op(";") {
                    Some(item)
                } else {
                    Some(self.error())
                }
            }
            Err(()) => Some(self.error()),
        }
    }

    /// Reports a syntax error at the current line and skips to the next line.
    fn error(&mut self) -> Item {
        // At a line's end bc has already counted the newline.
        let line = match self.toks.get(self.i) {
            Some((Tok::Newline, l)) => l + 1,
            _ => self.line(),
        };
        while !matches!(self.peek(), None | Some(Tok::Newline)) {
            self.i += 1;
        }
        Item::Error(line)
    }

    fn define(&mut self) -> P<(String, Function)> {
        self.i += 1;
        let Some(Tok::Name(name)) = self.peek().cloned() else {
            return Err(());
        };
        self.i += 1;
        self.expect_op("(")?;
        let params = self.names(")")?;
        self.expect_op(")")?;
        self.skip_blank_lines();
        self.expect_op("{")?;
        self.skip_newlines();
        let mut autos = Vec::new();
        if self.is_name("auto") {
            self.i += 1;
            autos = self.names("")?;
            self.skip_newlines();
        }
        let body = self.block_body()?;
        Ok((
            name,
            Function {
                params,
                autos,
                body,
            },
        ))
    }

    /// `a, b[], c` up to `end` (or a statement end for `auto`).
    fn names(&mut self, end: &str) -> P<Vec<(String, bool)>> {
        let mut names = Vec::new();
        if !end.is_empty() && self.is_op(end) {
            return Ok(names);
        }
        loop {
            let Some(Tok::Name(n)) = self.peek().cloned() else {
                return Err(());
            };
            self.i += 1;
            let array = if self.eat_op("[") {
                self.expect_op("]")?;
                true
            } else {
                false
            };
            names.push((n, array));
            if !self.eat_op(",") {
                return Ok(names);
            }
        }
    }

    /// Statements up to the closing `}` (eaten).
    fn block_body(&mut self) -> P<Vec<Stmt>> {
        let mut body = Vec::new();
        loop {
            self.skip_newlines();
            if self.eat_op("}") {
                return Ok(body);
            }
            if self.peek().is_none() {
                return Err(());
            }
            body.push(self.statement()?);
            if !(matches!(self.peek(), Some(Tok::Newline)) || self.is_op(";") || self.is_op("}")) {
                return Err(());
            }
        }
    }

    fn statement(&mut self) -> P<Stmt> {
        match self.peek().cloned() {
            Some(Tok::Str(s)) => {
                self.i += 1;
                Ok(Stmt::Str(s))
            }
            Some(Tok::Op("{")) => {
                self.i += 1;
                Ok(Stmt::Block(self.block_body()?))
            }
            Some(Tok::Op(";")) | Some(Tok::Newline) | None => Ok(Stmt::Empty),
            Some(Tok::Name(n)) => match n.as_str() {
                "if" => {
                    self.i += 1;
                    self.expect_op("(")?;
                    let c = self.expr()?;
                    self.expect_op(")")?;
                    self.skip_blank_lines();
                    let then = self.statement()?;
                    // `else` may follow on the same line or the next ones.
                    let save = self.i;
                    self.skip_newlines();
                    let other = if self.is_name("else") {
                        self.i += 1;
                        self.skip_blank_lines();
                        Some(Box::new(self.statement()?))
                    } else {
                        self.i = save;
                        None
                    };
                    Ok(Stmt::If(c, Box::new(then), other))
                }
                "while" => {
                    self.i += 1;
                    self.expect_op("(")?;
                    let c = self.expr()?;
                    self.expect_op(")")?;
                    self.skip_blank_lines();
                    Ok(Stmt::While(c, Box::new(self.statement()?)))
                }
                "for" => {
                    self.i += 1;
                    self.expect_op("(")?;
                    let init = if self.is_op(";") {
                        None
                    } else {
                        Some(self.expr()?)
                    };
                    self.expect_op(";")?;
                    let cond = if self.is_op(";") {
                        None
                    } else {
                        Some(self.expr()?)
                    };
                    self.expect_op(";")?;
                    let step = if self.is_op(")") {
                        None
                    } else {
                        Some(self.expr()?)
                    };
                    self.expect_op(")")?;
                    self.skip_blank_lines();
                    Ok(Stmt::For(init, cond, step, Box::new(self.statement()?)))
                }
                "break" => {
                    self.i += 1;
                    Ok(Stmt::Break)
                }
                "continue" => {
                    self.i += 1;
                    Ok(Stmt::Continue)
                }
                "halt" => {
                    self.i += 1;
                    Ok(Stmt::Halt)
                }
                "return" => {
                    self.i += 1;
                    if matches!(self.peek(), None | Some(Tok::Newline))
                        || self.is_op(";")
                        || self.is_op("}")
                    {
                        Ok(Stmt::Return(None))
                    } else {
                        Ok(Stmt::Return(Some(self.expr()?)))
                    }
                }
                "print" => {
                    self.i += 1;
                    let mut items = Vec::new();
                    loop {
                        if let Some(Tok::Str(s)) = self.peek().cloned() {
                            self.i += 1;
                            items.push(PrintItem::Str(s));
                        } else {
                            items.push(PrintItem::Value(self.expr()?));
                        }
                        if !self.eat_op(",") {
                            return Ok(Stmt::Print(items));
                        }
                    }
                }
                _ => Ok(Stmt::Expr(self.expr()?)),
            },
            _ => Ok(Stmt::Expr(self.expr()?)),
        }
    }

    pub fn expr(&mut self) -> P<Expr> {
        self.assign()
    }

    fn assign(&mut self) -> P<Expr> {
        let start = self.i;
        let lhs = self.or()?;
        let op = match self.peek() {
            Some(Tok::Op("=")) => None,
            Some(Tok::Op(o)) if o.len() == 2 && o.ends_with('=') && "+-*/%^".contains(&o[..1]) => {
                o.chars().next()
            }
            _ => return Ok(lhs),
        };
        let Expr::Get(place) = lhs else {
            self.i = start;
            return Err(());
        };
        self.i += 1;
        let rhs = self.assign()?;
        Ok(Expr::Assign(place, op, Box::new(rhs)))
    }

    fn or(&mut self) -> P<Expr> {
        let mut e = self.and()?;
        while self.eat_op("||") {
            e = Expr::Or(Box::new(e), Box::new(self.and()?));
        }
        Ok(e)
    }

    fn and(&mut self) -> P<Expr> {
        let mut e = self.not()?;
        while self.eat_op("&&") {
            e = Expr::And(Box::new(e), Box::new(self.not()?));
        }
        Ok(e)
    }

    fn not(&mut self) -> P<Expr> {
        if self.eat_op("!") {
            return Ok(Expr::Not(Box::new(self.not()?)));
        }
        self.rel()
    }

    fn rel(&mut self) -> P<Expr> {
        let mut e = self.sum()?;
        loop {
            let op = match self.peek() {
                Some(Tok::Op(o)) if ["==", "!=", "<", "<=", ">", ">="].contains(o) => *o,
                _ => return Ok(e),
            };
            self.i += 1;
            e = Expr::Rel(op, Box::new(e), Box::new(self.sum()?));
        }
    }

    fn sum(&mut self) -> P<Expr> {
        let mut e = self.product()?;
        loop {
            let op = if self.is_op("+") {
                '+'
            } else if self.is_op("-") {
                '-'
            } else {
                return Ok(e);
            };
            self.i += 1;
            e = Expr::Bin(op, Box::new(e), Box::new(self.product()?));
        }
    }

    fn product(&mut self) -> P<Expr> {
        let mut e = self.power()?;
        loop {
            let op = match self.peek() {
                Some(Tok::Op("*")) => '*',
                Some(Tok::Op("/")) => '/',
                Some(Tok::Op("%")) => '%',
                _ => return Ok(e),
            };
            self.i += 1;
            e = Expr::Bin(op, Box::new(e), Box::new(self.power()?));
        }
    }

    /// `^` is right-associative and binds looser than unary minus (`-2^2` is 4).
    fn power(&mut self) -> P<Expr> {
        let base = self.unary()?;
        if self.eat_op("^") {
            return Ok(Expr::Bin('^', Box::new(base), Box::new(self.power()?)));
        }
        Ok(base)
    }

    fn unary(&mut self) -> P<Expr> {
        if self.eat_op("-") {
            return Ok(Expr::Neg(Box::new(self.unary()?)));
        }
        for (op, delta) in [("++", 1), ("--", -1)] {
            if self.eat_op(op) {
                let Expr::Get(place) = self.primary()? else {
                    return Err(());
                };
                return Ok(Expr::Step(place, delta, false));
            }
        }
        let e = self.primary()?;
        if let Expr::Get(place) = &e {
            for (op, delta) in [("++", 1), ("--", -1)] {
                if self.eat_op(op) {
                    return Ok(Expr::Step(place.clone(), delta, true));
                }
            }
        }
        Ok(e)
    }

    fn primary(&mut self) -> P<Expr> {
        match self.peek().cloned() {
            Some(Tok::Num(n)) => {
                self.i += 1;
                Ok(Expr::Num(n))
            }
            Some(Tok::Op("(")) => {
                self.i += 1;
                let e = self.expr()?;
                self.expect_op(")")?;
                Ok(e)
            }
            Some(Tok::Name(n)) => {
                self.i += 1;
                if [
                    "if", "while", "for", "define", "auto", "print", "else", "return",
                ]
                .contains(&n.as_str())
                {
                    return Err(());
                }
                if self.eat_op("(") {
                    let builtin = |e| -> Option<fn(Box<Expr>) -> Expr> {
                        match e {
                            "length" => Some(Expr::Length),
                            "scale" => Some(Expr::ScaleOf),
                            "sqrt" => Some(Expr::Sqrt),
                            _ => None,
                        }
                    };
                    if let Some(make) = builtin(n.as_str()) {
                        let e = self.expr()?;
                        self.expect_op(")")?;
                        return Ok(make(Box::new(e)));
                    }
                    let mut args = Vec::new();
                    if !self.eat_op(")") {
                        loop {
                            let save = self.i;
                            if let Some(Tok::Name(a)) = self.peek().cloned() {
                                self.i += 1;
                                if self.eat_op("[") && self.eat_op("]") {
                                    args.push(Arg::Array(a));
                                } else {
                                    self.i = save;
                                    args.push(Arg::Value(self.expr()?));
                                }
                            } else {
                                args.push(Arg::Value(self.expr()?));
                            }
                            if self.eat_op(")") {
                                break;
                            }
                            self.expect_op(",")?;
                        }
                    }
                    return Ok(Expr::Call(n, args));
                }
                if self.eat_op("[") {
                    let index = self.expr()?;
                    self.expect_op("]")?;
                    return Ok(Expr::Get(Place::Elem(n, Box::new(index))));
                }
                Ok(Expr::Get(Place::Var(n)))
            }
            _ => Err(()),
        }
    }
}
