//! Shell arithmetic (`$(( ))`, `(( ))`, `let`, `declare -i`): 64-bit integers that wrap,
//! bash's operators, variables whose values are themselves expressions, array elements.

use brush_parser::ast::{self, ArithmeticExpr as E, ArithmeticTarget, BinaryOperator as B};

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

/// How deeply variables may refer to expressions that refer to variables.
const MAX_NESTING: u32 = 1024;

/// How an error for an unset variable read under `set -u` ends.
const UNBOUND: &str = ": unbound variable";

/// Whether an arithmetic error is an unset variable under `set -u`: as in bash, it ends the
/// shell (status 127) where other arithmetic errors fail one command.
pub fn is_unbound(error: &str) -> bool {
    error.ends_with(UNBOUND)
}

/// Parses and evaluates `text` (already expanded).
pub fn eval_text(shell: &mut impl Variables, text: &str) -> Result<i64, String> {
    eval_nested(shell, text, 0)
}

fn eval_nested(shell: &mut impl Variables, text: &str, depth: u32) -> Result<i64, String> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Ok(0);
    }
    // Plain decimal numbers skip the parser (not `010`, which is octal).
    if !(trimmed.starts_with('0') && trimmed.len() > 1)
        && let Ok(n) = trimmed.parse::<i64>()
    {
        return Ok(n);
    }
    if depth >= MAX_NESTING {
        return Err(format!(
            "{trimmed}: expression recursion level exceeded (limit {MAX_NESTING})"
        ));
    }
    if let Some(e) = bad_constant(trimmed) {
        return Err(format!("{trimmed}: {e}"));
    }
    let expr = brush_parser::arithmetic::parse(trimmed)
        .map_err(|_| format!("{trimmed}: syntax error in expression"))?;
    Eval { shell, depth }.eval(&expr)
}

/// bash's complaint about the first number in `text` that its base cannot hold (`08`,
/// `0xg`, `2#3`, `1a`) or whose base is not one (`1#2`, `65#1`).
fn bad_constant(text: &str) -> Option<String> {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '@' || c == '#';
    let mut rest = text;
    while let Some(start) = rest.find(|c: char| c.is_ascii_digit()) {
        let before = rest[..start].chars().next_back();
        let len = rest[start..]
            .find(|c: char| !word(c))
            .unwrap_or(rest.len() - start);
        let token = &rest[start..start + len];
        rest = &rest[start + len..];
        if before.is_some_and(word) {
            continue;
        }
        let (base, digits) = match token.split_once('#') {
            Some((b, d)) => match b.parse::<u32>() {
                Ok(b) if (2..=64).contains(&b) => (b, d),
                _ => {
                    return Some(format!(
                        "invalid arithmetic base (error token is \"{token}\")"
                    ));
                }
            },
            None if token.starts_with("0x") || token.starts_with("0X") => (16, &token[2..]),
            None if token.starts_with('0') => (8, token),
            None => (10, token),
        };
        let value = |c: char| match c {
            '0'..='9' => Some(c as u32 - '0' as u32),
            'a'..='z' => Some(c as u32 - 'a' as u32 + 10),
            'A'..='Z' if base <= 36 => Some(c as u32 - 'A' as u32 + 10),
            'A'..='Z' => Some(c as u32 - 'A' as u32 + 36),
            '@' => Some(62),
            '_' => Some(63),
            _ => None,
        };
        if digits.chars().any(|c| value(c).is_none_or(|v| v >= base)) {
            return Some(format!(
                "value too great for base (error token is \"{token}\")"
            ));
        }
    }
    None
}

struct Eval<'a, V: Variables> {
    shell: &'a mut V,
    depth: u32,
}

impl<V: Variables> Eval<'_, V> {
    fn eval(&mut self, expr: &E) -> Result<i64, String> {
        use ast::UnaryOperator as U;
        Ok(match expr {
            E::Literal(n) => *n,
            E::Reference(t) => {
                let text = self.read(t)?.unwrap_or_default();
                eval_nested(self.shell, &text, self.depth + 1)?
            }
            E::UnaryOp(op, e) => {
                let v = self.eval(e)?;
                match op {
                    U::UnaryPlus => v,
                    U::UnaryMinus => v.wrapping_neg(),
                    U::BitwiseNot => !v,
                    U::LogicalNot => (v == 0) as i64,
                }
            }
            E::BinaryOp(B::LogicalAnd, l, r) => (self.eval(l)? != 0 && self.eval(r)? != 0) as i64,
            E::BinaryOp(B::LogicalOr, l, r) => (self.eval(l)? != 0 || self.eval(r)? != 0) as i64,
            E::BinaryOp(op, l, r) => {
                let a = self.eval(l)?;
                binary(op, a, self.eval(r)?)?
            }
            E::Conditional(c, t, f) => {
                if self.eval(c)? != 0 {
                    self.eval(t)?
                } else {
                    self.eval(f)?
                }
            }
            E::Assignment(t, e) => {
                let v = self.eval(e)?;
                self.write(t, v)?;
                v
            }
            E::BinaryAssignment(op, t, e) => {
                let old = self.value(t)?;
                let v = binary(op, old, self.eval(e)?)?;
                self.write(t, v)?;
                v
            }
            E::UnaryAssignment(op, t) => {
                use ast::UnaryAssignmentOperator as A;
                let old = self.value(t)?;
                let (new, result) = match op {
                    A::PrefixIncrement => (old.wrapping_add(1), old.wrapping_add(1)),
                    A::PrefixDecrement => (old.wrapping_sub(1), old.wrapping_sub(1)),
                    A::PostfixIncrement => (old.wrapping_add(1), old),
                    A::PostfixDecrement => (old.wrapping_sub(1), old),
                };
                self.write(t, new)?;
                result
            }
        })
    }

    /// The key of an array element target: an associative array's key is the subscript's
    /// text, an indexed array's is evaluated.
    fn key(&mut self, name: &str, index: &E) -> Result<Key, String> {
        if self.shell.is_assoc(name) {
            return Ok(Key::Name(match index {
                E::Reference(ArithmeticTarget::Variable(n)) => n.clone(),
                other => self.eval(other)?.to_string(),
            }));
        }
        Ok(Key::Index(self.eval(index)?))
    }

    fn read(&mut self, t: &ArithmeticTarget) -> Result<Option<String>, String> {
        Ok(match t {
            ArithmeticTarget::Variable(n) => match self.shell.get(n) {
                Some(v) => Some(v.to_string()),
                None if self.shell.nounset() => return Err(format!("{n}{UNBOUND}")),
                None => None,
            },
            ArithmeticTarget::ArrayElement(n, i) => {
                let key = self.key(n, i)?;
                self.shell.element(n, &key)
            }
        })
    }

    fn value(&mut self, t: &ArithmeticTarget) -> Result<i64, String> {
        let text = self.read(t)?.unwrap_or_default();
        eval_nested(self.shell, &text, self.depth + 1)
    }

    fn write(&mut self, t: &ArithmeticTarget, v: i64) -> Result<(), String> {
        match t {
            ArithmeticTarget::Variable(n) => self.shell.assign(n, v.to_string()),
            ArithmeticTarget::ArrayElement(n, i) => {
                let key = self.key(n, i)?;
                self.shell.assign_element(n, key, v.to_string())
            }
        }
    }
}

fn binary(op: &B, a: i64, b: i64) -> Result<i64, String> {
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
