//! The interpreter's state: variables, functions, positional parameters, cwd, options. A
//! subshell (and each stage of a pipeline, as in bash) works on a clone.

use std::collections::HashMap;
use std::rc::Rc;

use brush_parser::ast;

/// A shell variable.
#[derive(Clone, Debug)]
pub struct Var {
    /// Its value.
    pub value: Value,
    /// Passed to commands' environments (scalars only, as in bash).
    pub exported: bool,
}

/// A scalar or an indexed array (sparse, as bash's are).
#[derive(Clone, Debug)]
pub enum Value {
    /// A string.
    Scalar(String),
    /// Index → element.
    Array(std::collections::BTreeMap<i64, String>),
}

impl Var {
    fn scalar(value: impl Into<String>, exported: bool) -> Var {
        Var {
            value: Value::Scalar(value.into()),
            exported,
        }
    }
}

/// `set -e`, `set -u`, `set -o pipefail`, `set -x`.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Exit when a command fails.
    pub errexit: bool,
    /// Expanding an unset variable is an error.
    pub nounset: bool,
    /// A pipeline fails if any stage fails.
    pub pipefail: bool,
    /// Print commands before running them.
    pub xtrace: bool,
}

/// Why execution stops going straight on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// `break n`.
    Break(u32),
    /// `continue n`.
    Continue(u32),
    /// `return` from a function (or a sourced script).
    Return,
    /// `exit`, or an error that ends the shell (`set -e`, `${x:?}`).
    Exit,
}

/// The interpreter state.
#[derive(Clone)]
pub struct Shell {
    pub vars: HashMap<String, Var>,
    pub functions: HashMap<String, Rc<ast::FunctionBody>>,
    /// `$0`.
    pub name: String,
    /// `$1`, `$2`, ...
    pub positional: Vec<String>,
    /// The working directory (absolute). Relative paths of every command resolve against it.
    pub cwd: String,
    /// `$?`.
    pub status: i32,
    /// `${PIPESTATUS[@]}` of the last pipeline.
    pub pipestatus: Vec<i32>,
    pub options: Options,
    pub parser: brush_parser::ParserOptions,
    /// Depth of loops we are in (for `break`/`continue` validity).
    pub loop_depth: u32,
    /// Depth of function calls (limited against runaway recursion).
    pub call_depth: u32,
    /// For each running function, the variables it made local and their values outside.
    pub locals: Vec<Vec<(String, Option<Var>)>>,
    /// Names of the running functions, innermost last (`$FUNCNAME`).
    pub funcname: Vec<String>,
    /// When the shell started (`$SECONDS`).
    pub started: std::time::Instant,
    /// State of `$RANDOM`'s generator.
    random_state: u32,
}

/// Deepest function recursion allowed before failing with a named error.
pub const MAX_CALL_DEPTH: u32 = 1000;

impl Shell {
    /// A new shell with bash's usual variables and the host's environment.
    pub fn new(name: String, positional: Vec<String>) -> Shell {
        let mut vars: HashMap<String, Var> = std::env::vars()
            .map(|(k, v)| (k, Var::scalar(v, true)))
            .collect();
        let cwd = vars
            .get("PWD")
            .and_then(|v| match &v.value {
                Value::Scalar(s) => Some(s.clone()),
                Value::Array(_) => None,
            })
            .filter(|p| p.starts_with('/'))
            .unwrap_or_else(|| "/workspace".into());
        let mut set_default = |k: &str, v: &str, exported: bool| {
            vars.entry(k.to_string())
                .or_insert(Var::scalar(v, exported));
        };
        set_default("HOME", "/home/user", true);
        set_default("PATH", "/usr/bin:/bin", true);
        set_default("USER", "user", true);
        set_default("HOSTNAME", "computer", false);
        set_default("SHLVL", "1", true);
        set_default("IFS", " \t\n", false);
        set_default("PS1", "\\u@\\h:\\w\\$ ", false);
        vars.insert("PWD".into(), Var::scalar(cwd.clone(), true));
        Shell {
            vars,
            functions: HashMap::new(),
            name,
            positional,
            cwd,
            status: 0,
            pipestatus: vec![0],
            options: Options::default(),
            parser: brush_parser::ParserOptions::default(),
            loop_depth: 0,
            call_depth: 0,
            locals: Vec::new(),
            funcname: Vec::new(),
            started: std::time::Instant::now(),
            random_state: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.subsec_nanos() | 1)
                .unwrap_or(1),
        }
    }

    /// A variable's value, if set (an array's element 0, as bash's `$a`).
    pub fn get(&self, name: &str) -> Option<&str> {
        match &self.vars.get(name)?.value {
            Value::Scalar(s) => Some(s),
            Value::Array(m) => m.get(&0).map(String::as_str),
        }
    }

    /// All values of a variable (`${a[@]}`): an array's elements, or a scalar alone.
    pub fn values(&self, name: &str) -> Option<Vec<String>> {
        Some(match &self.vars.get(name)?.value {
            Value::Scalar(s) => vec![s.clone()],
            Value::Array(m) => m.values().cloned().collect(),
        })
    }

    /// The indices of a variable (`${!a[@]}`).
    pub fn keys(&self, name: &str) -> Option<Vec<String>> {
        Some(match &self.vars.get(name)?.value {
            Value::Scalar(_) => vec!["0".into()],
            Value::Array(m) => m.keys().map(i64::to_string).collect(),
        })
    }

    /// One element (`${a[i]}`; a negative index counts from the end).
    pub fn element(&self, name: &str, index: i64) -> Option<String> {
        match &self.vars.get(name)?.value {
            Value::Scalar(s) => (index == 0 || index == -1).then(|| s.clone()),
            Value::Array(m) => {
                let index = if index < 0 {
                    m.keys().next_back().map(|last| last + 1 + index)?
                } else {
                    index
                };
                m.get(&index).cloned()
            }
        }
    }

    /// Sets a variable (an array's element 0), keeping its export flag.
    pub fn set(&mut self, name: &str, value: impl Into<String>) {
        let value = value.into();
        match self.vars.get_mut(name) {
            Some(Var {
                value: Value::Array(m),
                ..
            }) => {
                m.insert(0, value);
            }
            Some(v) => v.value = Value::Scalar(value),
            None => {
                self.vars
                    .insert(name.to_string(), Var::scalar(value, false));
            }
        }
    }

    /// `a[i]=v` (a scalar becomes element 0 of a new array).
    pub fn set_element(&mut self, name: &str, index: i64, value: String) {
        let var = self.vars.entry(name.to_string()).or_insert_with(|| Var {
            value: Value::Array(Default::default()),
            exported: false,
        });
        if let Value::Scalar(s) = &var.value {
            var.value = Value::Array([(0, s.clone())].into_iter().collect());
        }
        if let Value::Array(m) = &mut var.value {
            m.insert(index, value);
        }
    }

    /// `a=(...)` or `a+=(...)`: elements with optional explicit indices.
    pub fn set_array(&mut self, name: &str, items: Vec<(Option<i64>, String)>, append: bool) {
        let mut map = match (append, self.vars.get(name).map(|v| &v.value)) {
            (true, Some(Value::Array(m))) => m.clone(),
            (true, Some(Value::Scalar(s))) => [(0, s.clone())].into_iter().collect(),
            _ => Default::default(),
        };
        let mut next = map.keys().next_back().map(|k| k + 1).unwrap_or(0);
        for (index, value) in items {
            let i = index.unwrap_or(next);
            map.insert(i, value);
            next = i + 1;
        }
        let exported = self.vars.get(name).is_some_and(|v| v.exported);
        self.vars.insert(
            name.to_string(),
            Var {
                value: Value::Array(map),
                exported,
            },
        );
    }

    /// `local NAME`: remembers the outer value, to be restored when the function returns.
    /// Outside a function it is an ordinary variable (bash refuses; we are lenient).
    pub fn make_local(&mut self, name: &str) {
        let outer = self.vars.get(name).cloned();
        if let Some(frame) = self.locals.last_mut()
            && !frame.iter().any(|(n, _)| n == name)
        {
            frame.push((name.to_string(), outer));
        }
    }

    /// Enters a function call.
    pub fn push_locals(&mut self) {
        self.locals.push(Vec::new());
    }

    /// Leaves a function call, restoring what its `local`s hid.
    pub fn pop_locals(&mut self) {
        for (name, outer) in self.locals.pop().unwrap_or_default().into_iter().rev() {
            match outer {
                Some(v) => {
                    self.vars.insert(name, v);
                }
                None => {
                    self.vars.remove(&name);
                }
            }
        }
    }

    /// The environment passed to commands.
    pub fn environment(&self) -> Vec<(String, String)> {
        let mut env: Vec<(String, String)> = self
            .vars
            .iter()
            .filter(|(_, v)| v.exported)
            .filter_map(|(k, v)| match &v.value {
                Value::Scalar(s) => Some((k.clone(), s.clone())),
                Value::Array(_) => None,
            })
            .collect();
        env.sort();
        env
    }

    /// An absolute path for `path` (relative paths start at the shell's cwd).
    pub fn path(&self, path: &str) -> std::path::PathBuf {
        std::path::Path::new(&self.cwd).join(path)
    }

    /// `$RANDOM`: 0 to 32767 (xorshift; not for cryptography, like bash's).
    pub fn random(&mut self) -> u32 {
        let mut x = self.random_state;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.random_state = x;
        x % 32768
    }

    /// `$IFS`.
    pub fn ifs(&self) -> String {
        self.get("IFS").unwrap_or(" \t\n").to_string()
    }
}

/// Evaluates an arithmetic expression (`$(( ))`, `(( ))`), with bash's integer semantics.
pub fn arith(shell: &mut Shell, expr: &ast::ArithmeticExpr) -> Result<i64, String> {
    use ast::{ArithmeticExpr as E, BinaryOperator as B, UnaryOperator as U};
    let var = |shell: &mut Shell, name: &str| -> Result<i64, String> {
        let text = shell.get(name).unwrap_or("").trim().to_string();
        if text.is_empty() {
            return Ok(0);
        }
        match text.parse::<i64>() {
            Ok(n) => Ok(n),
            Err(_) => {
                let inner = brush_parser::arithmetic::parse(&text)
                    .map_err(|_| format!("{text}: syntax error in expression"))?;
                arith(shell, &inner)
            }
        }
    };
    let target_name = |t: &ast::ArithmeticTarget| match t {
        ast::ArithmeticTarget::Variable(n) => n.clone(),
        ast::ArithmeticTarget::ArrayElement(n, _) => n.clone(),
    };
    Ok(match expr {
        E::Literal(n) => *n,
        E::Reference(t) => var(shell, &target_name(t))?,
        E::UnaryOp(op, e) => {
            let v = arith(shell, e)?;
            match op {
                U::UnaryPlus => v,
                U::UnaryMinus => v.wrapping_neg(),
                U::BitwiseNot => !v,
                U::LogicalNot => (v == 0) as i64,
            }
        }
        E::BinaryOp(op, l, r) => {
            if matches!(op, B::LogicalAnd) {
                return Ok((arith(shell, l)? != 0 && arith(shell, r)? != 0) as i64);
            }
            if matches!(op, B::LogicalOr) {
                return Ok((arith(shell, l)? != 0 || arith(shell, r)? != 0) as i64);
            }
            let (a, b) = (arith(shell, l)?, arith(shell, r)?);
            binary(op, a, b)?
        }
        E::Conditional(c, t, f) => {
            if arith(shell, c)? != 0 {
                arith(shell, t)?
            } else {
                arith(shell, f)?
            }
        }
        E::Assignment(t, e) => {
            let v = arith(shell, e)?;
            shell.set(&target_name(t), v.to_string());
            v
        }
        E::BinaryAssignment(op, t, e) => {
            let name = target_name(t);
            let v = binary(op, var(shell, &name)?, arith(shell, e)?)?;
            shell.set(&name, v.to_string());
            v
        }
        E::UnaryAssignment(op, t) => {
            use ast::UnaryAssignmentOperator as A;
            let name = target_name(t);
            let old = var(shell, &name)?;
            let (new, result) = match op {
                A::PrefixIncrement => (old + 1, old + 1),
                A::PrefixDecrement => (old - 1, old - 1),
                A::PostfixIncrement => (old + 1, old),
                A::PostfixDecrement => (old - 1, old),
            };
            shell.set(&name, new.to_string());
            result
        }
    })
}

fn binary(op: &ast::BinaryOperator, a: i64, b: i64) -> Result<i64, String> {
    use ast::BinaryOperator as B;
    Ok(match op {
        B::Power => {
            if b < 0 {
                return Err("exponent less than 0".into());
            }
            a.wrapping_pow(b.min(u32::MAX as i64) as u32)
        }
        B::Multiply => a.wrapping_mul(b),
        B::Divide | B::Modulo if b == 0 => return Err("division by 0".into()),
        B::Divide => a.wrapping_div(b),
        B::Modulo => a.wrapping_rem(b),
        B::Comma => b,
        B::Add => a.wrapping_add(b),
        B::Subtract => a.wrapping_sub(b),
        B::ShiftLeft => a.wrapping_shl(b as u32),
        B::ShiftRight => a.wrapping_shr(b as u32),
        B::LessThan => (a < b) as i64,
        B::LessThanOrEqualTo => (a <= b) as i64,
        B::GreaterThan => (a > b) as i64,
        B::GreaterThanOrEqualTo => (a >= b) as i64,
        B::Equals => (a == b) as i64,
        B::NotEquals => (a != b) as i64,
        B::BitwiseAnd => a & b,
        B::BitwiseXor => a ^ b,
        B::BitwiseOr => a | b,
        B::LogicalAnd => (a != 0 && b != 0) as i64,
        B::LogicalOr => (a != 0 || b != 0) as i64,
    })
}

/// Shell pattern matching (`*`, `?`, `[...]`, `[!...]`, backslash escapes), as `case` and
/// pathname expansion use it.
pub fn pattern_match(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    match_from(&p, &t)
}

fn match_from(p: &[char], t: &[char]) -> bool {
    let (mut pi, mut ti) = (0, 0);
    let (mut star, mut star_t) = (None, 0);
    while ti < t.len() {
        if pi < p.len() {
            match p[pi] {
                '*' => {
                    star = Some(pi);
                    star_t = ti;
                    pi += 1;
                    continue;
                }
                '?' => {
                    pi += 1;
                    ti += 1;
                    continue;
                }
                '[' => {
                    if let Some((matched, len)) = class(&p[pi..], t[ti]) {
                        if matched {
                            pi += len;
                            ti += 1;
                            continue;
                        }
                    } else if t[ti] == '[' {
                        pi += 1;
                        ti += 1;
                        continue;
                    }
                }
                '\\' if pi + 1 < p.len() && p[pi + 1] == t[ti] => {
                    pi += 2;
                    ti += 1;
                    continue;
                }
                '\\' if pi + 1 < p.len() => {}
                c if c == t[ti] => {
                    pi += 1;
                    ti += 1;
                    continue;
                }
                _ => {}
            }
        }
        match star {
            Some(s) => {
                pi = s + 1;
                star_t += 1;
                ti = star_t;
            }
            None => return false,
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

/// Matches a bracket expression at the start of `p`: (matched, its length) or `None` if it
/// is not a complete bracket expression.
fn class(p: &[char], c: char) -> Option<(bool, usize)> {
    let mut i = 1;
    let negate = matches!(p.get(i), Some('!') | Some('^'));
    if negate {
        i += 1;
    }
    let mut matched = false;
    let mut first = true;
    while i < p.len() {
        if p[i] == ']' && !first {
            return Some((matched != negate, i + 1));
        }
        first = false;
        if i + 2 < p.len() && p[i + 1] == '-' && p[i + 2] != ']' {
            if p[i] <= c && c <= p[i + 2] {
                matched = true;
            }
            i += 3;
        } else {
            if p[i] == c {
                matched = true;
            }
            i += 1;
        }
    }
    None
}
