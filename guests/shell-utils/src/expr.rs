//! `expr`: evaluate an expression.

use super::stream::complain;
use crate::stream::out;
use shell_base::Context;

/// `expr EXPRESSION`: `|`, `&`, comparisons, `+ - * / %`, `:` (a regex match), `length`,
/// `substr`, `index`, parentheses.
pub async fn expr(sh: &mut dyn Context, argv: &[String]) -> i32 {
    if argv.len() < 2 {
        return complain(
            sh,
            "expr: missing operand\nTry 'expr --help' for more information.",
        )
        .await
            + 1;
    }
    let args: Vec<&str> = argv[1..].iter().map(String::as_str).collect();
    let mut p = ExprParser { args: &args, i: 0 };
    let result = p.or();
    match result {
        Ok(v) if p.i == args.len() => {
            let null = v.is_empty() || v == "0";
            match out(sh, &format!("{v}\n")).await {
                0 => null as i32,
                s => s,
            }
        }
        Ok(_) => {
            complain(
                sh,
                &format!("expr: syntax error: unexpected argument '{}'", args[p.i]),
            )
            .await;
            2
        }
        Err(m) => {
            complain(sh, &format!("expr: {m}")).await;
            2
        }
    }
}

struct ExprParser<'a> {
    args: &'a [&'a str],
    i: usize,
}

impl<'a> ExprParser<'a> {
    fn peek(&self) -> Option<&'a str> {
        self.args.get(self.i).copied()
    }

    fn or(&mut self) -> Result<String, String> {
        let mut l = self.and()?;
        while self.peek() == Some("|") {
            self.i += 1;
            let r = self.and()?;
            if l.is_empty() || l == "0" {
                l = r;
            }
        }
        Ok(l)
    }

    fn and(&mut self) -> Result<String, String> {
        let mut l = self.cmp()?;
        while self.peek() == Some("&") {
            self.i += 1;
            let r = self.cmp()?;
            if l.is_empty() || l == "0" || r.is_empty() || r == "0" {
                l = "0".into();
            }
        }
        Ok(l)
    }

    fn cmp(&mut self) -> Result<String, String> {
        let mut l = self.add()?;
        while let Some(op) = self
            .peek()
            .filter(|o| matches!(*o, "<" | "<=" | "=" | "==" | "!=" | ">=" | ">"))
        {
            self.i += 1;
            let r = self.add()?;
            let ord = match (l.parse::<i64>(), r.parse::<i64>()) {
                (Ok(a), Ok(b)) => a.cmp(&b),
                _ => l.cmp(&r),
            };
            let t = match op {
                "<" => ord.is_lt(),
                "<=" => ord.is_le(),
                "=" | "==" => ord.is_eq(),
                "!=" => ord.is_ne(),
                ">=" => ord.is_ge(),
                _ => ord.is_gt(),
            };
            l = (t as i32).to_string();
        }
        Ok(l)
    }

    fn num(s: &str) -> Result<i64, String> {
        s.parse().map_err(|_| "non-integer argument".to_string())
    }

    fn add(&mut self) -> Result<String, String> {
        let mut l = self.mul()?;
        while let Some(op) = self.peek().filter(|o| matches!(*o, "+" | "-")) {
            self.i += 1;
            let r = self.mul()?;
            let (a, b) = (Self::num(&l)?, Self::num(&r)?);
            l = if op == "+" {
                a.wrapping_add(b)
            } else {
                a.wrapping_sub(b)
            }
            .to_string();
        }
        Ok(l)
    }

    fn mul(&mut self) -> Result<String, String> {
        let mut l = self.colon()?;
        while let Some(op) = self.peek().filter(|o| matches!(*o, "*" | "/" | "%")) {
            self.i += 1;
            let r = self.colon()?;
            let (a, b) = (Self::num(&l)?, Self::num(&r)?);
            if b == 0 && op != "*" {
                return Err("division by zero".into());
            }
            l = match op {
                "*" => a.wrapping_mul(b),
                "/" => a.wrapping_div(b),
                _ => a.wrapping_rem(b),
            }
            .to_string();
        }
        Ok(l)
    }

    fn colon(&mut self) -> Result<String, String> {
        let l = self.primary()?;
        if self.peek() == Some(":") {
            self.i += 1;
            let pat = self.primary()?;
            let re = regex::Regex::new(&format!(
                "^(?:{})",
                shell_base::posix::translate(&pat, false)
            ))
            .map_err(|_| "Invalid regular expression".to_string())?;
            return Ok(match re.captures(&l) {
                Some(c) if c.len() > 1 => {
                    c.get(1).map(|m| m.as_str().to_string()).unwrap_or_default()
                }
                Some(c) => c
                    .get(0)
                    .map(|m| m.as_str().chars().count())
                    .unwrap_or(0)
                    .to_string(),
                None if re.captures_len() > 1 => String::new(),
                None => "0".into(),
            });
        }
        Ok(l)
    }

    fn primary(&mut self) -> Result<String, String> {
        let Some(tok) = self.peek() else {
            return Err("syntax error: missing argument after ".to_string()
                + self.args.last().copied().unwrap_or(""));
        };
        self.i += 1;
        match tok {
            "(" => {
                let v = self.or()?;
                if self.peek() != Some(")") {
                    return Err("syntax error: expecting ')'".into());
                }
                self.i += 1;
                Ok(v)
            }
            "length" => Ok(self.primary()?.chars().count().to_string()),
            "substr" => {
                let s = self.primary()?;
                let pos = Self::num(&self.primary()?)?;
                let len = Self::num(&self.primary()?)?;
                if pos < 1 || len < 1 {
                    return Ok(String::new());
                }
                Ok(s.chars()
                    .skip(pos as usize - 1)
                    .take(len as usize)
                    .collect())
            }
            "index" => {
                let s = self.primary()?;
                let chars = self.primary()?;
                Ok(s.chars()
                    .position(|c| chars.contains(c))
                    .map(|p| p + 1)
                    .unwrap_or(0)
                    .to_string())
            }
            "match" => {
                let s = self.primary()?;
                let pat = self.primary()?;
                let re = regex::Regex::new(&format!(
                    "^(?:{})",
                    shell_base::posix::translate(&pat, false)
                ))
                .map_err(|_| "Invalid regular expression".to_string())?;
                Ok(re
                    .find(&s)
                    .map(|m| m.as_str().chars().count())
                    .unwrap_or(0)
                    .to_string())
            }
            "+" => self.primary(),
            t => Ok(t.to_string()),
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use crate::testing::{Native, stdout_of};

    #[test]
    fn arithmetic_comparison_and_status() {
        assert_eq!(stdout_of(&["expr", "2", "+", "3", "*", "4"], ""), "14\n");
        let ran = Native::new().run(&["expr", "1", "=", "2"], "");
        assert_eq!((ran.status, ran.stdout.as_str()), (1, "0\n"));
    }
}
