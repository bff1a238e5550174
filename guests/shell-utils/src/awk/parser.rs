//! A recursive-descent parser for POSIX awk (with gawk's common extensions: `**`, `func`,
//! `nextfile`, `delete a`, `length(array)`).
//!
//! Precedence, lowest first: `?:` and assignment (right), `||`, `&&`, `in`, `~ !~`,
//! comparisons (non-associative; `>` redirects inside `print`), `cmd | getline`,
//! concatenation, `+ -`, `* / %`, unary `! - +`, `^` (right), `++ --`, `$`, grouping.

use std::collections::HashMap;

use super::ast::*;
use super::lexer::{Tok, Token};

/// A syntax error: line, column, message.
pub type ParseError = (usize, usize, String);

pub struct Parser {
    toks: Vec<Token>,
    pos: usize,
    globals: HashMap<String, usize>,
    program: Program,
    /// The parameters of the function being parsed.
    locals: Vec<String>,
    functions: HashMap<String, usize>,
    /// Functions called but not (yet) defined, with where they were called.
    called: Vec<(String, usize)>,
    /// Inside `print`'s argument list, outside parentheses: `>` redirects, `|` pipes.
    in_print: bool,
    /// How many loops enclose the statement being parsed (`break` needs one).
    loop_depth: usize,
    /// Nesting of expressions and statements being parsed (bounded: the parser recurses).
    depth: usize,
}

/// Deepest nesting of parentheses, blocks and the like in a program.
const MAX_NESTING: usize = 200;

impl Parser {
    pub fn new(toks: Vec<Token>) -> Parser {
        let mut program = Program::default();
        let mut globals = HashMap::new();
        for (i, name) in special::NAMES.iter().enumerate() {
            globals.insert(name.to_string(), i);
            program.globals.push(name.to_string());
        }
        Parser {
            toks,
            pos: 0,
            globals,
            program,
            locals: Vec::new(),
            functions: HashMap::new(),
            called: Vec::new(),
            in_print: false,
            loop_depth: 0,
            depth: 0,
        }
    }

    pub fn parse(mut self) -> Result<Program, ParseError> {
        self.skip_terminators();
        while self.peek() != &Tok::Eof {
            self.item()?;
            self.skip_terminators();
        }
        for (name, line) in &self.called {
            let index = self.functions[name];
            if self.program.functions[index].params == usize::MAX {
                return Err((*line, 0, format!("fatal: function `{name}' not defined")));
            }
        }
        Ok(self.program)
    }

    fn peek(&self) -> &Tok {
        &self.toks[self.pos].tok
    }

    fn peek_at(&self, n: usize) -> &Tok {
        &self.toks[(self.pos + n).min(self.toks.len() - 1)].tok
    }

    fn next(&mut self) -> Tok {
        let t = self.toks[self.pos].tok.clone();
        if self.pos + 1 < self.toks.len() {
            self.pos += 1;
        }
        t
    }

    fn is_op(&self, op: &str) -> bool {
        matches!(self.peek(), Tok::Op(o) if *o == op)
    }

    fn is_key(&self, key: &str) -> bool {
        matches!(self.peek(), Tok::Key(k) if *k == key)
    }

    fn eat_op(&mut self, op: &str) -> bool {
        if self.is_op(op) {
            self.next();
            true
        } else {
            false
        }
    }

    fn error<T>(&self) -> Result<T, ParseError> {
        let t = &self.toks[self.pos];
        let msg = match t.tok {
            Tok::Newline | Tok::Eof => "unexpected newline or end of string",
            _ => "syntax error",
        };
        Err((t.line, t.col, msg.into()))
    }

    fn expect_op(&mut self, op: &str) -> Result<(), ParseError> {
        if self.eat_op(op) {
            Ok(())
        } else {
            self.error()
        }
    }

    fn skip_newlines(&mut self) {
        while self.peek() == &Tok::Newline {
            self.next();
        }
    }

    fn skip_terminators(&mut self) {
        while matches!(self.peek(), Tok::Newline | Tok::Op(";")) {
            self.next();
        }
    }

    fn item(&mut self) -> Result<(), ParseError> {
        if self.is_key("function") {
            return self.function();
        }
        if self.is_key("BEGIN") || self.is_key("END") {
            let begin = self.is_key("BEGIN");
            self.next();
            if !self.is_op("{") {
                return self.error();
            }
            let body = self.block()?;
            if begin {
                self.program.begin.push(body);
            } else {
                self.program.end.push(body);
            }
            return Ok(());
        }
        let pattern = if self.is_op("{") {
            Pattern::All
        } else {
            let from = self.expr()?;
            if self.eat_op(",") {
                self.skip_newlines();
                Pattern::Range(from, self.expr()?)
            } else {
                Pattern::Expr(from)
            }
        };
        let action = if self.is_op("{") {
            Some(self.block()?)
        } else {
            None
        };
        self.program.rules.push(Rule { pattern, action });
        Ok(())
    }

    fn function(&mut self) -> Result<(), ParseError> {
        self.next();
        let name = match self.next() {
            Tok::Name(n) | Tok::FuncName(n) => n,
            _ => {
                self.pos -= 1;
                return self.error();
            }
        };
        self.expect_op("(")?;
        let mut params = Vec::new();
        while !self.is_op(")") {
            match self.next() {
                Tok::Name(p) => params.push(p),
                _ => {
                    self.pos -= 1;
                    return self.error();
                }
            }
            if !self.eat_op(",") {
                break;
            }
            self.skip_newlines();
        }
        self.expect_op(")")?;
        self.skip_newlines();
        let index = self.function_index(&name);
        if self.program.functions[index].params != usize::MAX {
            let t = &self.toks[self.pos];
            return Err((
                t.line,
                t.col,
                format!("function `{name}' previously defined"),
            ));
        }
        self.locals = params;
        let body = self.block()?;
        let f = &mut self.program.functions[index];
        f.params = self.locals.len();
        f.body = body;
        self.locals.clear();
        Ok(())
    }

    fn function_index(&mut self, name: &str) -> usize {
        if let Some(i) = self.functions.get(name) {
            return *i;
        }
        let i = self.program.functions.len();
        self.program.functions.push(Function {
            name: name.to_string(),
            params: usize::MAX,
            body: Vec::new(),
        });
        self.functions.insert(name.to_string(), i);
        i
    }

    fn var(&mut self, name: &str) -> Var {
        if let Some(i) = self.locals.iter().position(|l| l == name) {
            return Var::Local(i);
        }
        if let Some(i) = self.globals.get(name) {
            return Var::Global(*i);
        }
        let i = self.program.globals.len();
        self.program.globals.push(name.to_string());
        self.globals.insert(name.to_string(), i);
        Var::Global(i)
    }

    fn block(&mut self) -> Result<Vec<Stmt>, ParseError> {
        self.expect_op("{")?;
        let mut body = Vec::new();
        self.skip_terminators();
        while !self.is_op("}") {
            if self.peek() == &Tok::Eof {
                return self.error();
            }
            body.push(self.statement()?);
            self.skip_terminators();
        }
        self.next();
        Ok(body)
    }

    /// A statement, with newlines allowed before it (after `if (...)`, `else`, `do`).
    fn body(&mut self) -> Result<Stmt, ParseError> {
        self.skip_newlines();
        if self.eat_op(";") {
            return Ok(Stmt::Block(Vec::new()));
        }
        self.statement()
    }

    fn statement(&mut self) -> Result<Stmt, ParseError> {
        self.nest(Self::statement_inner)
    }

    /// Runs `f` one level deeper, failing past `MAX_NESTING`.
    fn nest<T>(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<T, ParseError>,
    ) -> Result<T, ParseError> {
        if self.depth >= MAX_NESTING {
            let t = &self.toks[self.pos];
            return Err((
                t.line,
                t.col,
                format!(
                    "fatal: program nested more than {MAX_NESTING} levels deep (awk's nesting limit)"
                ),
            ));
        }
        self.depth += 1;
        let r = f(self);
        self.depth -= 1;
        r
    }

    fn statement_inner(&mut self) -> Result<Stmt, ParseError> {
        if self.is_op("{") {
            return Ok(Stmt::Block(self.block()?));
        }
        let Tok::Key(key) = self.peek().clone() else {
            let e = self.expr()?;
            self.end_simple()?;
            return Ok(Stmt::Expr(e));
        };
        match key {
            "if" => {
                self.next();
                self.expect_op("(")?;
                let cond = self.expr()?;
                self.expect_op(")")?;
                let then = self.body()?;
                // `else` may follow newlines or a `;`.
                let save = self.pos;
                self.skip_terminators();
                if self.is_key("else") {
                    self.next();
                    let other = self.body()?;
                    return Ok(Stmt::If(cond, Box::new(then), Some(Box::new(other))));
                }
                self.pos = save;
                Ok(Stmt::If(cond, Box::new(then), None))
            }
            "while" => {
                self.next();
                self.expect_op("(")?;
                let cond = self.expr()?;
                self.expect_op(")")?;
                if self.is_op(";") {
                    self.next();
                    return Ok(Stmt::While(cond, Box::new(Stmt::Block(Vec::new()))));
                }
                let body = self.loop_body()?;
                Ok(Stmt::While(cond, Box::new(body)))
            }
            "do" => {
                self.next();
                let body = self.loop_body()?;
                self.skip_terminators();
                if !self.is_key("while") {
                    return self.error();
                }
                self.next();
                self.expect_op("(")?;
                let cond = self.expr()?;
                self.expect_op(")")?;
                self.end_simple()?;
                Ok(Stmt::Do(Box::new(body), cond))
            }
            "for" => self.for_statement(),
            "print" | "printf" => self.print(key == "printf"),
            "next" | "nextfile" | "break" | "continue" => {
                self.next();
                if (key == "break" || key == "continue") && self.loop_depth == 0 {
                    let t = &self.toks[self.pos - 1];
                    return Err((
                        t.line,
                        t.col,
                        format!("`{key}' is not allowed outside a loop"),
                    ));
                }
                self.end_simple()?;
                Ok(match key {
                    "next" => Stmt::Next,
                    "nextfile" => Stmt::NextFile,
                    "break" => Stmt::Break,
                    _ => Stmt::Continue,
                })
            }
            "exit" | "return" => {
                self.next();
                let value = if self.at_statement_end() {
                    None
                } else {
                    Some(self.expr()?)
                };
                self.end_simple()?;
                Ok(if key == "exit" {
                    Stmt::Exit(value)
                } else {
                    Stmt::Return(value)
                })
            }
            "delete" => {
                self.next();
                let Tok::Name(name) = self.next() else {
                    self.pos -= 1;
                    return self.error();
                };
                let var = self.var(&name);
                let subscripts = if self.eat_op("[") {
                    let list = self.expr_list()?;
                    self.expect_op("]")?;
                    Some(list)
                } else {
                    None
                };
                self.end_simple()?;
                Ok(Stmt::Delete(var, subscripts))
            }
            "getline" => {
                let e = self.expr()?;
                self.end_simple()?;
                Ok(Stmt::Expr(e))
            }
            _ => self.error(),
        }
    }

    fn loop_body(&mut self) -> Result<Stmt, ParseError> {
        self.loop_depth += 1;
        let body = self.body();
        self.loop_depth -= 1;
        body
    }

    fn for_statement(&mut self) -> Result<Stmt, ParseError> {
        self.next();
        self.expect_op("(")?;
        if let (Tok::Name(k), Tok::Key("in"), Tok::Name(a), Tok::Op(")")) = (
            self.peek().clone(),
            self.peek_at(1).clone(),
            self.peek_at(2).clone(),
            self.peek_at(3).clone(),
        ) {
            self.pos += 4;
            let (key, array) = (self.var(&k), self.var(&a));
            let body = self.loop_body()?;
            return Ok(Stmt::ForIn(key, array, Box::new(body)));
        }
        let init = if self.is_op(";") {
            None
        } else {
            Some(Box::new(self.simple_statement()?))
        };
        self.expect_op(";")?;
        self.skip_newlines();
        let cond = if self.is_op(";") {
            None
        } else {
            Some(self.expr()?)
        };
        self.expect_op(";")?;
        self.skip_newlines();
        let step = if self.is_op(")") {
            None
        } else {
            Some(Box::new(self.simple_statement()?))
        };
        self.expect_op(")")?;
        if self.is_op(";") {
            self.next();
            return Ok(Stmt::For(
                init,
                cond,
                step,
                Box::new(Stmt::Block(Vec::new())),
            ));
        }
        let body = self.loop_body()?;
        Ok(Stmt::For(init, cond, step, Box::new(body)))
    }

    fn simple_statement(&mut self) -> Result<Stmt, ParseError> {
        Ok(Stmt::Expr(self.expr()?))
    }

    fn at_statement_end(&self) -> bool {
        matches!(
            self.peek(),
            Tok::Op(";") | Tok::Op("}") | Tok::Newline | Tok::Eof
        )
    }

    /// A simple statement ends at `;`, a newline, `}` or the end.
    fn end_simple(&mut self) -> Result<(), ParseError> {
        if self.at_statement_end() {
            if self.is_op(";") {
                self.next();
            }
            Ok(())
        } else {
            self.error()
        }
    }

    fn print(&mut self, formatted: bool) -> Result<Stmt, ParseError> {
        self.next();
        let mut args = Vec::new();
        // `print (a, b) > "f"`: a parenthesized list is the argument list when a redirection
        // or the statement's end follows it.
        let mut grouped = false;
        if self.is_op("(") {
            let save = self.pos;
            self.next();
            let list = self.expr_list()?;
            if self.eat_op(")")
                && (self.at_statement_end()
                    || self.is_op(">")
                    || self.is_op(">>")
                    || self.is_op("|"))
            {
                args = list;
                grouped = true;
            } else {
                self.pos = save;
            }
        }
        if !grouped
            && !self.at_statement_end()
            && !self.is_op(">")
            && !self.is_op(">>")
            && !self.is_op("|")
        {
            self.in_print = true;
            let list = self.expr_list();
            self.in_print = false;
            args = list?;
        }
        let redirect = match self.peek() {
            Tok::Op(">") => Some(Redirect::Truncate),
            Tok::Op(">>") => Some(Redirect::Append),
            Tok::Op("|") => Some(Redirect::Pipe),
            _ => None,
        };
        let dest = match redirect {
            Some(r) => {
                self.next();
                // The destination is a concatenation (`print > "out" i`), no comparison.
                self.in_print = true;
                let target = self.concatenation();
                self.in_print = false;
                Some((r, target?))
            }
            None => None,
        };
        self.end_simple()?;
        Ok(if formatted {
            Stmt::Printf(args, dest)
        } else {
            Stmt::Print(args, dest)
        })
    }

    fn expr_list(&mut self) -> Result<Vec<Expr>, ParseError> {
        let mut list = vec![self.expr()?];
        while self.eat_op(",") {
            self.skip_newlines();
            list.push(self.expr()?);
        }
        Ok(list)
    }

    /// Parses with `print`'s special reading of `>` and `|` turned off (inside brackets).
    fn nested<T>(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<T, ParseError>,
    ) -> Result<T, ParseError> {
        let saved = std::mem::replace(&mut self.in_print, false);
        let r = f(self);
        self.in_print = saved;
        r
    }

    pub fn expr(&mut self) -> Result<Expr, ParseError> {
        self.nest(Self::expr_inner)
    }

    fn expr_inner(&mut self) -> Result<Expr, ParseError> {
        let cond = self.or()?;
        if self.is_op("?") {
            self.next();
            self.skip_newlines();
            let then = self.expr()?;
            self.skip_newlines();
            self.expect_op(":")?;
            self.skip_newlines();
            let other = self.expr()?;
            return Ok(Expr::Cond(Box::new(cond), Box::new(then), Box::new(other)));
        }
        let op = match self.peek() {
            Tok::Op("=") => Some(None),
            Tok::Op("+=") => Some(Some(BinOp::Add)),
            Tok::Op("-=") => Some(Some(BinOp::Sub)),
            Tok::Op("*=") => Some(Some(BinOp::Mul)),
            Tok::Op("/=") => Some(Some(BinOp::Div)),
            Tok::Op("%=") => Some(Some(BinOp::Mod)),
            Tok::Op("^=") | Tok::Op("**=") => Some(Some(BinOp::Pow)),
            _ => None,
        };
        if let Some(op) = op
            && is_lvalue(&cond)
        {
            self.next();
            self.skip_newlines();
            let value = self.expr()?;
            return Ok(Expr::Assign(Box::new(ungroup(cond)), op, Box::new(value)));
        }
        Ok(cond)
    }

    fn or(&mut self) -> Result<Expr, ParseError> {
        let mut left = self.and()?;
        while self.eat_op("||") {
            self.skip_newlines();
            let right = self.and()?;
            left = Expr::Or(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<Expr, ParseError> {
        let mut left = self.membership()?;
        while self.eat_op("&&") {
            self.skip_newlines();
            let right = self.membership()?;
            left = Expr::And(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn membership(&mut self) -> Result<Expr, ParseError> {
        let mut left = self.matching()?;
        while self.is_key("in") {
            self.next();
            let Tok::Name(name) = self.next() else {
                self.pos -= 1;
                return self.error();
            };
            let array = self.var(&name);
            left = Expr::In(vec![left], array);
        }
        Ok(left)
    }

    fn matching(&mut self) -> Result<Expr, ParseError> {
        let mut left = self.comparison()?;
        loop {
            let negate = match self.peek() {
                Tok::Op("~") => false,
                Tok::Op("!~") => true,
                _ => return Ok(left),
            };
            self.next();
            let right = self.comparison()?;
            left = Expr::Match(negate, Box::new(left), Box::new(right));
        }
    }

    fn comparison(&mut self) -> Result<Expr, ParseError> {
        let left = self.piped_getline()?;
        let op = match self.peek() {
            Tok::Op("<") => CmpOp::Lt,
            Tok::Op("<=") => CmpOp::Le,
            Tok::Op("==") => CmpOp::Eq,
            Tok::Op("!=") => CmpOp::Ne,
            Tok::Op(">") if !self.in_print => CmpOp::Gt,
            Tok::Op(">=") => CmpOp::Ge,
            _ => return Ok(left),
        };
        self.next();
        let right = self.piped_getline()?;
        Ok(Expr::Cmp(op, Box::new(left), Box::new(right)))
    }

    /// `cmd | getline [var]`, which may repeat (`"a" | getline | getline` is rare but legal).
    fn piped_getline(&mut self) -> Result<Expr, ParseError> {
        let mut left = self.concatenation()?;
        while self.is_op("|") && self.peek_at(1) == &Tok::Key("getline") {
            self.pos += 2;
            let target = self.getline_target()?;
            left = Expr::Getline(Source::Command(Box::new(left)), target);
        }
        Ok(left)
    }

    fn getline_target(&mut self) -> Result<Option<Box<Expr>>, ParseError> {
        if matches!(self.peek(), Tok::Name(_) | Tok::Op("$")) {
            let target = self.postfix_free_primary()?;
            if !is_lvalue(&target) {
                return self.error();
            }
            return Ok(Some(Box::new(target)));
        }
        Ok(None)
    }

    fn concatenation(&mut self) -> Result<Expr, ParseError> {
        let mut left = self.additive()?;
        while self.starts_operand() {
            let right = self.additive()?;
            left = Expr::Concat(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    /// Whether the next token can begin a concatenated operand.
    fn starts_operand(&self) -> bool {
        match self.peek() {
            Tok::Num(_)
            | Tok::Str(_)
            | Tok::Regex(_)
            | Tok::Name(_)
            | Tok::FuncName(_)
            | Tok::Builtin(_) => true,
            // `a - b` subtracts and `a !~ b` matches: signs and `!` never start one.
            Tok::Op(o) => matches!(*o, "$" | "(" | "++" | "--"),
            _ => false,
        }
    }

    fn additive(&mut self) -> Result<Expr, ParseError> {
        let mut left = self.multiplicative()?;
        loop {
            let op = match self.peek() {
                Tok::Op("+") => BinOp::Add,
                Tok::Op("-") => BinOp::Sub,
                _ => return Ok(left),
            };
            self.next();
            let right = self.multiplicative()?;
            left = Expr::Binary(op, Box::new(left), Box::new(right));
        }
    }

    fn multiplicative(&mut self) -> Result<Expr, ParseError> {
        let mut left = self.unary()?;
        loop {
            let op = match self.peek() {
                Tok::Op("*") => BinOp::Mul,
                Tok::Op("/") => BinOp::Div,
                Tok::Op("%") => BinOp::Mod,
                _ => return Ok(left),
            };
            let at = self.toks[self.pos].clone();
            self.next();
            let right = self.unary()?;
            // gawk folds constants, so this is found before anything runs.
            if let (Expr::Num(_), Expr::Num(d), BinOp::Div | BinOp::Mod) = (&left, &right, op)
                && *d == 0.0
            {
                let what = if op == BinOp::Mod { " in `%'" } else { "" };
                return Err((
                    at.line,
                    at.col,
                    format!("error: division by zero attempted{what}"),
                ));
            }
            left = Expr::Binary(op, Box::new(left), Box::new(right));
        }
    }

    fn unary(&mut self) -> Result<Expr, ParseError> {
        self.nest(Self::unary_inner)
    }

    fn unary_inner(&mut self) -> Result<Expr, ParseError> {
        match self.peek() {
            Tok::Op("!") => {
                self.next();
                Ok(Expr::Not(Box::new(self.unary()?)))
            }
            Tok::Op("-") => {
                self.next();
                Ok(match self.unary()? {
                    Expr::Num(n) => Expr::Num(-n),
                    e => Expr::Neg(Box::new(e)),
                })
            }
            Tok::Op("+") => {
                self.next();
                Ok(Expr::Plus(Box::new(self.unary()?)))
            }
            _ => self.power(),
        }
    }

    fn power(&mut self) -> Result<Expr, ParseError> {
        let base = self.postfix()?;
        if self.is_op("^") || self.is_op("**") {
            self.next();
            // Right-associative, and the exponent may be negated: `2^-1`.
            let exponent = match self.peek() {
                Tok::Op("-") | Tok::Op("+") | Tok::Op("!") => self.unary()?,
                _ => self.power()?,
            };
            return Ok(Expr::Binary(BinOp::Pow, Box::new(base), Box::new(exponent)));
        }
        Ok(base)
    }

    fn postfix(&mut self) -> Result<Expr, ParseError> {
        let e = self.postfix_free_primary()?;
        if is_lvalue(&e) {
            if self.is_op("++") {
                self.next();
                return Ok(Expr::Incr(Box::new(ungroup(e)), 1.0, false));
            }
            if self.is_op("--") {
                self.next();
                return Ok(Expr::Incr(Box::new(ungroup(e)), -1.0, false));
            }
        }
        Ok(e)
    }

    fn postfix_free_primary(&mut self) -> Result<Expr, ParseError> {
        let t = self.toks[self.pos].clone();
        match t.tok {
            Tok::Num(n) => {
                self.next();
                Ok(Expr::Num(n))
            }
            Tok::Str(s) => {
                self.next();
                Ok(Expr::Str(s))
            }
            Tok::Regex(re) => {
                self.next();
                self.program.regexes.push(re);
                Ok(Expr::Regex(self.program.regexes.len() - 1))
            }
            Tok::Op("$") => {
                self.next();
                let operand = match self.peek() {
                    Tok::Op("++") | Tok::Op("--") | Tok::Op("-") | Tok::Op("!") => self.unary()?,
                    _ => self.postfix_free_primary()?,
                };
                Ok(Expr::Field(Box::new(operand)))
            }
            Tok::Op("++") | Tok::Op("--") => {
                self.next();
                let target = self.postfix_free_primary()?;
                if !is_lvalue(&target) {
                    return self.error();
                }
                let step = if t.tok == Tok::Op("++") { 1.0 } else { -1.0 };
                Ok(Expr::Incr(Box::new(ungroup(target)), step, true))
            }
            Tok::Op("(") => {
                self.next();
                let list = self.nested(|p| {
                    p.skip_newlines();
                    let list = p.expr_list()?;
                    p.skip_newlines();
                    Ok(list)
                })?;
                self.expect_op(")")?;
                if list.len() > 1 {
                    // `(i, j) in array`.
                    if !self.is_key("in") {
                        return self.error();
                    }
                    self.next();
                    let Tok::Name(name) = self.next() else {
                        self.pos -= 1;
                        return self.error();
                    };
                    let array = self.var(&name);
                    return Ok(Expr::In(list, array));
                }
                let inner = list.into_iter().next().map(Box::new);
                Ok(Expr::Group(inner.ok_or((
                    t.line,
                    t.col,
                    "syntax error".to_string(),
                ))?))
            }
            Tok::Name(name) => {
                self.next();
                let var = self.var(&name);
                if self.is_op("[") {
                    self.next();
                    let subscripts = self.nested(|p| p.expr_list())?;
                    self.expect_op("]")?;
                    return Ok(Expr::Index(var, subscripts));
                }
                Ok(Expr::Var(var))
            }
            Tok::FuncName(name) => {
                self.next();
                self.expect_op("(")?;
                let args = self.call_args()?;
                let index = self.function_index(&name);
                self.called.push((name, t.line));
                Ok(Expr::Call(index, args))
            }
            Tok::Builtin(name) => {
                self.next();
                let builtin =
                    Builtin::from_name(&name).ok_or((t.line, t.col, "syntax error".to_string()))?;
                if !self.is_op("(") {
                    if builtin == Builtin::Length {
                        return Ok(Expr::Builtin(builtin, Vec::new()));
                    }
                    return self.error();
                }
                self.next();
                let args = self.call_args()?;
                Ok(Expr::Builtin(builtin, args))
            }
            Tok::Key("getline") => {
                self.next();
                let target = self.getline_target()?;
                if self.is_op("<") {
                    self.next();
                    let file = self.postfix_free_primary()?;
                    return Ok(Expr::Getline(Source::File(Box::new(file)), target));
                }
                Ok(Expr::Getline(Source::Main, target))
            }
            Tok::Op("-") | Tok::Op("+") | Tok::Op("!") => self.unary(),
            _ => self.error(),
        }
    }

    /// Arguments up to the closing `)` (already past the opening one).
    fn call_args(&mut self) -> Result<Vec<Expr>, ParseError> {
        self.nested(|p| {
            p.skip_newlines();
            if p.eat_op(")") {
                return Ok(Vec::new());
            }
            let args = p.expr_list()?;
            p.skip_newlines();
            p.expect_op(")")?;
            Ok(args)
        })
    }
}

fn is_lvalue(e: &Expr) -> bool {
    match e {
        Expr::Var(_) | Expr::Field(_) | Expr::Index(..) => true,
        Expr::Group(inner) => is_lvalue(inner),
        _ => false,
    }
}

fn ungroup(e: Expr) -> Expr {
    match e {
        Expr::Group(inner) => ungroup(*inner),
        e => e,
    }
}
