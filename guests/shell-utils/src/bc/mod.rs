//! `bc [-lq] [FILE...]`: GNU bc's language over arbitrary precision decimals (`num`), with
//! its messages: statements, functions with `auto` locals and array parameters, `scale`,
//! `ibase`, `obase`, `last`, `print`, and with `-l` the math library (`math`).

mod math;
mod num;
mod parse;

use shell_base::args::{parser, string, wording};
use std::collections::HashMap;

use num::Num;
use parse::{Arg, Expr, Function, Item, Parser, Place, PrintItem, Stmt};

use super::stream::{MEMORY_LIMIT, Stop, Writer, complain, open, read_all_limited};
use lexopt::prelude::*;
use shell_base::Context;

/// Most nested function calls.
const MAX_DEPTH: usize = 1000;
/// Largest `scale` accepted (GNU's limit is larger, but such work never ends here).
const MAX_SCALE: u32 = 100_000;
/// Largest array index (as GNU bc's BC_DIM_MAX).
const MAX_INDEX: u64 = 16_777_215;

/// How a statement ended.
enum Flow {
    Next,
    Break,
    Continue,
    Return(Num),
    Halt,
}

/// A runtime error: the message and the function it happened in.
struct Fault(String);

type R<T> = Result<T, Fault>;

fn fault<T>(msg: &str) -> R<T> {
    Err(Fault(msg.to_string()))
}

struct Machine {
    vars: HashMap<String, Num>,
    arrays: HashMap<String, HashMap<u64, Num>>,
    funcs: HashMap<String, Function>,
    scale: u32,
    ibase: u32,
    obase: u32,
    last: Num,
    math: bool,
    line_length: usize,
    out: String,
    depth: usize,
    /// Where a runtime error is reported as happening.
    func: String,
    warnings: Vec<String>,
}

impl Machine {
    fn number_text(&self, v: &Num) -> String {
        let text = v.format(self.obase);
        // Long numbers are split with a backslash ending each line (68 digits and the
        // backslash, for the default length of 70).
        let width = self.line_length.saturating_sub(2);
        if self.line_length < 3 || text.len() <= width {
            return text;
        }
        let chars: Vec<char> = text.chars().collect();
        let mut wrapped = String::new();
        for (k, chunk) in chars.chunks(width).enumerate() {
            if k > 0 {
                wrapped.push_str("\\\n");
            }
            wrapped.extend(chunk);
        }
        wrapped
    }

    fn get(&mut self, place: &Place) -> R<Num> {
        Ok(match place {
            Place::Var(n) => match n.as_str() {
                "scale" => Num::int(i64::from(self.scale)),
                "ibase" => Num::int(i64::from(self.ibase)),
                "obase" => Num::int(i64::from(self.obase)),
                "last" => self.last.clone(),
                _ => self.vars.get(n).cloned().unwrap_or_else(Num::zero),
            },
            Place::Elem(n, index) => {
                let i = self.index(index)?;
                self.arrays
                    .get(n)
                    .and_then(|a| a.get(&i))
                    .cloned()
                    .unwrap_or_else(Num::zero)
            }
        })
    }

    fn index(&mut self, e: &Expr) -> R<u64> {
        let v = self.eval(e)?;
        if v.is_negative() {
            return fault("Negative array index");
        }
        match v.rescale(0).m.to_string().parse::<u64>() {
            Ok(i) if i <= MAX_INDEX => Ok(i),
            _ => fault("Array index too big"),
        }
    }

    fn set(&mut self, place: &Place, v: Num) -> R<()> {
        match place {
            Place::Var(n) => {
                let small = |v: &Num| v.rescale(0).m.to_string().parse::<i64>().ok();
                match n.as_str() {
                    "scale" => match small(&v) {
                        Some(s) if (0..=i64::from(MAX_SCALE)).contains(&s) => self.scale = s as u32,
                        _ => return fault("negative or too large scale"),
                    },
                    "ibase" => match small(&v) {
                        Some(b) if (2..=16).contains(&b) => self.ibase = b as u32,
                        Some(b) if b < 2 => {
                            self.warnings.push("ibase too small, set to 2".into());
                            self.ibase = 2;
                        }
                        _ => {
                            self.warnings.push("ibase too large, set to 16".into());
                            self.ibase = 16;
                        }
                    },
                    "obase" => match small(&v) {
                        Some(b) if (2..=999).contains(&b) => self.obase = b as u32,
                        _ => return fault("obase out of range"),
                    },
                    "last" => self.last = v,
                    _ => {
                        self.vars.insert(n.clone(), v);
                    }
                }
            }
            Place::Elem(n, index) => {
                let i = self.index(index)?;
                self.arrays.entry(n.clone()).or_default().insert(i, v);
            }
        }
        Ok(())
    }

    fn arith(&mut self, op: char, a: &Num, b: &Num) -> R<Num> {
        let s = self.scale;
        let r = match op {
            '+' => Ok(a.add(b)),
            '-' => Ok(a.sub(b)),
            '*' => Ok(a.mul(b, s)),
            '/' => a.div(b, s),
            '%' => a.rem(b, s),
            _ => {
                if b.scale > 0 && !b.rescale(0).cmp(b).is_eq() {
                    self.warnings.push("non-zero scale in exponent".into());
                }
                a.pow(b, s)
            }
        };
        r.map_err(|m| Fault(m.to_string()))
    }

    fn eval(&mut self, e: &Expr) -> R<Num> {
        Ok(match e {
            Expr::Num(t) => Num::parse(t, self.ibase),
            Expr::Get(p) => self.get(p)?,
            Expr::Assign(p, op, rhs) => {
                let r = self.eval(rhs)?;
                let v = match op {
                    None => r,
                    Some(o) => {
                        let cur = self.get(p)?;
                        self.arith(*o, &cur, &r)?
                    }
                };
                self.set(p, v.clone())?;
                v
            }
            Expr::Step(p, delta, post) => {
                let cur = self.get(p)?;
                let next = cur.add(&Num::int(*delta));
                self.set(p, next.clone())?;
                if *post { cur } else { next }
            }
            Expr::Bin(op, a, b) => {
                let (x, y) = (self.eval(a)?, self.eval(b)?);
                self.arith(*op, &x, &y)?
            }
            Expr::Rel(op, a, b) => {
                let o = self.eval(a)?.cmp(&self.eval(b)?);
                let t = match *op {
                    "==" => o.is_eq(),
                    "!=" => o.is_ne(),
                    "<" => o.is_lt(),
                    "<=" => o.is_le(),
                    ">" => o.is_gt(),
                    _ => o.is_ge(),
                };
                Num::int(i64::from(t))
            }
            Expr::And(a, b) => {
                let t = self.eval(a)?.is_true() && self.eval(b)?.is_true();
                Num::int(i64::from(t))
            }
            Expr::Or(a, b) => {
                let t = self.eval(a)?.is_true() || self.eval(b)?.is_true();
                Num::int(i64::from(t))
            }
            Expr::Not(a) => Num::int(i64::from(!self.eval(a)?.is_true())),
            Expr::Neg(a) => self.eval(a)?.neg(),
            Expr::Length(a) => Num::int(i64::from(self.eval(a)?.length())),
            Expr::ScaleOf(a) => Num::int(i64::from(self.eval(a)?.scale)),
            Expr::Sqrt(a) => {
                let v = self.eval(a)?;
                v.sqrt(self.scale).map_err(|m| Fault(m.to_string()))?
            }
            Expr::Call(name, args) => self.call(name, args)?,
        })
    }

    fn call(&mut self, name: &str, args: &[Arg]) -> R<Num> {
        let Some(f) = self.funcs.get(name).cloned() else {
            if self.math
                && let Some(v) = self.library(name, args)
            {
                return v;
            }
            return fault(&format!("Function {name} not defined."));
        };
        if args.len() != f.params.len() {
            return fault("Parameter number mismatch");
        }
        if self.depth >= MAX_DEPTH {
            return fault(&format!("function calls nested deeper than {MAX_DEPTH}"));
        }
        // Arguments are evaluated before the callee's names are bound (dynamic scoping:
        // the callee's parameters and autos shadow globals until it returns).
        let mut values = Vec::new();
        for ((pname, is_array), arg) in f.params.iter().zip(args) {
            match (arg, is_array) {
                (Arg::Value(e), false) => values.push((pname.clone(), Some(self.eval(e)?), None)),
                (Arg::Array(a), true) => {
                    let copy = self.arrays.get(a).cloned().unwrap_or_default();
                    values.push((pname.clone(), None, Some(copy)));
                }
                _ => return fault("Parameter type mismatch"),
            }
        }
        let mut saved_vars = Vec::new();
        let mut saved_arrays = Vec::new();
        for (n, v, a) in values {
            if let Some(v) = v {
                saved_vars.push((n.clone(), self.vars.insert(n, v)));
            } else if let Some(a) = a {
                saved_arrays.push((n.clone(), self.arrays.insert(n, a)));
            }
        }
        for (n, is_array) in &f.autos {
            if *is_array {
                saved_arrays.push((n.clone(), self.arrays.insert(n.clone(), HashMap::new())));
            } else {
                saved_vars.push((n.clone(), self.vars.insert(n.clone(), Num::zero())));
            }
        }
        self.depth += 1;
        let outer = std::mem::replace(&mut self.func, name.to_string());
        let result = self.block(&f.body);
        self.func = outer;
        self.depth -= 1;
        for (n, old) in saved_vars.into_iter().rev() {
            match old {
                Some(v) => self.vars.insert(n, v),
                None => self.vars.remove(&n),
            };
        }
        for (n, old) in saved_arrays.into_iter().rev() {
            match old {
                Some(a) => self.arrays.insert(n, a),
                None => self.arrays.remove(&n),
            };
        }
        match result? {
            Flow::Return(v) => Ok(v),
            Flow::Halt => Err(Fault("\u{0}halt".into())),
            _ => Ok(Num::zero()),
        }
    }

    /// The `-l` library's functions.
    fn library(&mut self, name: &str, args: &[Arg]) -> Option<R<Num>> {
        let arity = if name == "j" { 2 } else { 1 };
        if !["s", "c", "a", "l", "e", "j"].contains(&name) || args.len() != arity {
            return None;
        }
        let mut values = Vec::new();
        for a in args {
            let Arg::Value(e) = a else {
                return Some(fault("Parameter type mismatch"));
            };
            match self.eval(e) {
                Ok(v) => values.push(v),
                Err(f) => return Some(Err(f)),
            }
        }
        let s = self.scale;
        let r = match name {
            "s" => math::sin(&values[0], s),
            "c" => math::cos(&values[0], s),
            "a" => math::atan(&values[0], s),
            "l" => math::ln(&values[0], s),
            "e" => math::exp(&values[0], s),
            _ => math::bessel(&values[0], &values[1], s),
        };
        Some(r.map_err(|m| Fault(m.to_string())))
    }

    fn block(&mut self, body: &[Stmt]) -> R<Flow> {
        for s in body {
            match self.exec(s)? {
                Flow::Next => {}
                other => return Ok(other),
            }
        }
        Ok(Flow::Next)
    }

    fn exec(&mut self, s: &Stmt) -> R<Flow> {
        match s {
            Stmt::Expr(e) => {
                let v = self.eval(e)?;
                if !matches!(e, Expr::Assign(..)) {
                    let text = self.number_text(&v);
                    self.out.push_str(&text);
                    self.out.push('\n');
                    self.last = v;
                }
            }
            Stmt::Str(t) => self.out.push_str(t),
            Stmt::Print(items) => {
                for item in items {
                    match item {
                        PrintItem::Str(t) => self.out.push_str(&unescape(t)),
                        PrintItem::Value(e) => {
                            let v = self.eval(e)?;
                            let text = self.number_text(&v);
                            self.out.push_str(&text);
                            self.last = v;
                        }
                    }
                }
            }
            Stmt::If(c, then, other) => {
                if self.eval(c)?.is_true() {
                    return self.exec(then);
                } else if let Some(o) = other {
                    return self.exec(o);
                }
            }
            Stmt::While(c, body) => {
                while self.eval(c)?.is_true() {
                    match self.exec(body)? {
                        Flow::Break => break,
                        Flow::Next | Flow::Continue => {}
                        other => return Ok(other),
                    }
                }
            }
            Stmt::For(init, cond, step, body) => {
                if let Some(i) = init {
                    self.eval(i)?;
                }
                loop {
                    if let Some(c) = cond
                        && !self.eval(c)?.is_true()
                    {
                        break;
                    }
                    match self.exec(body)? {
                        Flow::Break => break,
                        Flow::Next | Flow::Continue => {}
                        other => return Ok(other),
                    }
                    if let Some(st) = step {
                        self.eval(st)?;
                    }
                }
            }
            Stmt::Block(body) => return self.block(body),
            Stmt::Break => return Ok(Flow::Break),
            Stmt::Continue => return Ok(Flow::Continue),
            Stmt::Return(e) => {
                let v = match e {
                    Some(e) => self.eval(e)?,
                    None => Num::zero(),
                };
                return Ok(Flow::Return(v));
            }
            Stmt::Halt => return Ok(Flow::Halt),
            Stmt::Empty => {}
        }
        Ok(Flow::Next)
    }
}

/// `print`'s escapes: `\n \t \\ \" \a \b \f \r \q`.
fn unescape(t: &str) -> String {
    let mut out = String::new();
    let mut chars = t.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('a') => out.push('\u{7}'),
            Some('b') => out.push('\u{8}'),
            Some('f') => out.push('\u{c}'),
            Some('r') => out.push('\r'),
            Some('q') => out.push('"'),
            Some('\\') => out.push('\\'),
            Some(o) => out.push(o),
            None => out.push('\\'),
        }
    }
    out
}

/// `bc [-l] [-q] [FILE...]`: the files, then standard input.
pub async fn bc(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let mut math = false;
    let mut files = Vec::new();
    let mut p = parser(argv);
    let parsed: Result<(), lexopt::Error> = (|| {
        while let Some(arg) = p.next()? {
            match arg {
                Short('l') | Long("mathlib") => math = true,
                // No banner is printed, and POSIX's bc is the only one.
                Short('q' | 's' | 'w') | Long("quiet" | "standard" | "warn") => {}
                Value(v) => files.push(string(v)),
                _ => return Err(arg.unexpected()),
            }
        }
        Ok(())
    })();
    if let Err(e) = parsed {
        complain(sh, &wording("bc", &e).0).await;
        let _ = sh.io().stdout.write_all(USAGE.as_bytes()).await;
        return 1;
    }
    let line_length = sh
        .var("BC_LINE_LENGTH")
        .and_then(|v| v.parse().ok())
        .unwrap_or(70);
    let mut m = Machine {
        vars: HashMap::new(),
        arrays: HashMap::new(),
        funcs: HashMap::new(),
        scale: if math { 20 } else { 0 },
        ibase: 10,
        obase: 10,
        last: Num::zero(),
        math,
        line_length,
        out: String::new(),
        depth: 0,
        func: "(main)".into(),
        warnings: Vec::new(),
    };
    let mut out = Writer::new(&sh.io().stdout);
    files.push("-".into());
    for f in &files {
        let input = match open(sh, f) {
            Ok(i) => i,
            Err(e) => {
                let _ = out.flush().await;
                return complain(sh, &format!("bc: {e}")).await * 2;
            }
        };
        let text = match read_all_limited(&input, MEMORY_LIMIT, "bc").await {
            Ok(t) => String::from_utf8_lossy(&t).into_owned(),
            Err(e) => return complain(sh, &e).await * 2,
        };
        let source = if f == "-" {
            "(standard_in)".to_string()
        } else {
            f.clone()
        };
        let mut parser = match Parser::new(&text) {
            Ok(p) => p,
            Err(line) => {
                let _ = out.flush().await;
                complain(sh, &format!("{source} {line}: syntax error")).await;
                continue;
            }
        };
        let mut skip_line = None;
        while let Some(item) = parser.next_item() {
            let (stmt, line) = match item {
                Item::Quit => {
                    return flush(&mut out, &mut m).await;
                }
                Item::Define(name, func) => {
                    m.funcs.insert(name, func);
                    continue;
                }
                Item::Error(line) => {
                    if let Err(Stop(s)) = write_out(&mut out, &mut m).await {
                        return s;
                    }
                    let _ = out.flush().await;
                    complain(sh, &format!("{source} {line}: syntax error")).await;
                    continue;
                }
                Item::Stmt(s, line) => (s, line),
            };
            if skip_line == Some(line) {
                continue;
            }
            let result = m.exec(&stmt);
            for w in std::mem::take(&mut m.warnings) {
                let _ = out.flush().await;
                complain(
                    sh,
                    &format!("Runtime warning (func={}, adr=0): {w}", m.func),
                )
                .await;
            }
            if let Err(Stop(s)) = write_out(&mut out, &mut m).await {
                return s;
            }
            match result {
                Ok(Flow::Halt) => return flush(&mut out, &mut m).await,
                Ok(_) => {}
                Err(Fault(msg)) if msg == "\u{0}halt" => return flush(&mut out, &mut m).await,
                Err(Fault(msg)) => {
                    let _ = out.flush().await;
                    complain(
                        sh,
                        &format!("Runtime error (func={}, adr=0): {msg}", m.func),
                    )
                    .await;
                    m.func = "(main)".into();
                    m.depth = 0;
                    // The rest of the line is not run.
                    skip_line = Some(line);
                }
            }
        }
    }
    flush(&mut out, &mut m).await
}

const USAGE: &str = "usage: bc [options] [file ...]
  -h  --help         print this usage and exit
  -i  --interactive  force interactive mode
  -l  --mathlib      use the predefined math routines
  -q  --quiet        don't print initial banner
  -s  --standard     non-standard bc constructs are errors
  -w  --warn         warn about non-standard bc constructs
  -v  --version      print version information and exit
";

async fn write_out(out: &mut Writer, m: &mut Machine) -> Result<(), Stop> {
    if m.out.is_empty() {
        return Ok(());
    }
    let text = std::mem::take(&mut m.out);
    out.write_str(&text).await
}

async fn flush(out: &mut Writer, m: &mut Machine) -> i32 {
    if let Err(Stop(s)) = write_out(out, m).await {
        return s;
    }
    match out.flush().await {
        Ok(()) => 0,
        Err(Stop(s)) => s,
    }
}

#[cfg(all(test, unix))]
mod tests {

    use crate::testing::stdout_of;

    #[test]
    fn arbitrary_precision() {
        assert_eq!(stdout_of(&["bc"], "2^70\n"), "1180591620717411303424\n");
        assert_eq!(stdout_of(&["bc", "-l"], "scale=3; 1/3\n"), ".333\n");
    }
}
